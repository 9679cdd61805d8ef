package endpoints_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
)

// TestListStreamedJSON checks that a streamed list is byte for byte what
// json.Marshal makes of it (HTML escaping, separators, the trailing
// newline), across several flushed chunks, for namespaced and
// cluster-scoped (nil-when-empty SetItems) lists, empty or not.
func TestListStreamedJSON(t *testing.T) {
	ts := newServer(t)
	same := func(path string, want int) {
		t.Helper()
		r := ts.do(t, "GET", path, "", "")
		if r.code != http.StatusOK {
			t.Fatalf("list %s: %s", path, r)
		}
		var l WidgetList
		if err := json.Unmarshal(r.body, &l); err != nil {
			t.Fatalf("list %s: %v", path, err)
		}
		if len(l.Items) != want {
			t.Fatalf("list %s: %d items, want %d", path, len(l.Items), want)
		}
		again, err := json.Marshal(&l)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(append(again, '\n'), r.body) {
			t.Fatalf("list %s differs from its json.Marshal:\n got %.400s\nwant %.400s", path, r.body, again)
		}
		if l.Items == nil || !bytes.Contains(r.body, []byte(`"items":[`)) {
			t.Fatalf("list %s: no items array: %.200s", path, r.body)
		}
	}
	same(widgetsPath("a"), 0)
	same(apiPath+"/gizmos", 0)
	const n = 400 // well over one 64 KiB chunk
	for i := range n {
		spec := `{"size":"small","owner":"<team & co>"}`
		ts.createWidget(t, "a", fmt.Sprintf("w%03d", i), spec)
	}
	r := ts.do(t, "POST", apiPath+"/gizmos", jsonType, `{"metadata":{"name":"g1"},"spec":{"owner":"x>y"}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("create gizmo: %s", r)
	}
	same(widgetsPath("a"), n)
	same(apiPath+"/widgets", n)
	same(apiPath+"/gizmos", 1)
	same(widgetsPath("a")+"?limit=7", 7)
	if r := ts.do(t, "GET", widgetsPath("a"), "", ""); !bytes.Contains(r.body, []byte(`\u003cteam \u0026 co\u003e`)) {
		t.Fatalf("HTML characters not escaped: %.300s", r.body)
	}
}
