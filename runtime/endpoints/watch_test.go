package endpoints_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type rawEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

type watchStream struct {
	resp   *http.Response
	events chan rawEvent
	ended  chan error // receives once when the stream ends
}

// openWatch starts a watch and decodes its lines in the background; every
// line must be exactly one JSON event.
func (ts *testServer) openWatch(t *testing.T, path string, headers ...string) *watchStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, "GET", ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	ws := &watchStream{resp: resp, events: make(chan rawEvent, 100), ended: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var ev rawEvent
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				ws.ended <- err
				return
			}
			ws.events <- ev
		}
		ws.ended <- sc.Err()
	}()
	return ws
}

func (ws *watchStream) next(t *testing.T) rawEvent {
	t.Helper()
	select {
	case ev := <-ws.events:
		return ev
	case err := <-ws.ended:
		t.Fatalf("watch ended early: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event within 10 s")
	}
	return rawEvent{}
}

func (ws *watchStream) waitEnd(t *testing.T, within time.Duration) {
	t.Helper()
	select {
	case ev := <-ws.events:
		t.Fatalf("unexpected event %s %s", ev.Type, ev.Object)
	case err := <-ws.ended:
		if err != nil {
			t.Fatalf("watch ended with %v", err)
		}
	case <-time.After(within):
		t.Fatalf("watch still open after %s", within)
	}
}

func eventWidget(t *testing.T, ev rawEvent) *Widget {
	t.Helper()
	var w Widget
	if err := json.Unmarshal(ev.Object, &w); err != nil {
		t.Fatalf("event object: %v: %s", err, ev.Object)
	}
	if w.Kind != "Widget" || w.APIVersion != testGroup+"/v1" {
		t.Errorf("%s event object without kind/apiVersion: %s", ev.Type, ev.Object)
	}
	return &w
}

func TestWatch(t *testing.T) {
	ts := newServer(t)
	ts.createWidget(t, "default", "before", `{}`)

	ws := ts.openWatch(t, widgetsPath("default")+"?watch=1&timeoutSeconds=30")
	if ws.resp.StatusCode != http.StatusOK || ws.resp.Header.Get("Content-Type") != jsonType {
		t.Fatalf("watch response %d %v", ws.resp.StatusCode, ws.resp.Header)
	}
	if len(ws.resp.TransferEncoding) == 0 || ws.resp.TransferEncoding[0] != "chunked" {
		t.Errorf("watch is not chunked: %v", ws.resp.TransferEncoding)
	}
	// From "" the current state comes first.
	if ev := ws.next(t); ev.Type != "ADDED" || eventWidget(t, ev).Name != "before" {
		t.Fatalf("first event %s %s", ev.Type, ev.Object)
	}
	ts.createWidget(t, "default", "w1", `{}`)
	if ev := ws.next(t); ev.Type != "ADDED" || eventWidget(t, ev).Name != "w1" {
		t.Fatalf("want ADDED w1, got %s %s", ev.Type, ev.Object)
	}
	if r := ts.do(t, "PATCH", widgetsPath("default")+"/w1", "application/merge-patch+json", `{"spec":{"size":"small"}}`); r.code != http.StatusOK {
		t.Fatal(r)
	}
	if ev := ws.next(t); ev.Type != "MODIFIED" || eventWidget(t, ev).Spec.Size != "small" {
		t.Fatalf("want MODIFIED small, got %s %s", ev.Type, ev.Object)
	}
	if r := ts.do(t, "DELETE", widgetsPath("default")+"/w1", "", ""); r.code != http.StatusOK {
		t.Fatal(r)
	}
	if ev := ws.next(t); ev.Type != "DELETED" || eventWidget(t, ev).Name != "w1" {
		t.Fatalf("want DELETED w1, got %s %s", ev.Type, ev.Object)
	}

	// The server stopping ends every watch cleanly.
	close(ts.stop)
	ws.waitEnd(t, 5*time.Second)
}

func TestWatchTimeoutAndResourceVersion(t *testing.T) {
	ts := newServer(t)
	w := ts.createWidget(t, "default", "a", `{}`)
	ts.createWidget(t, "default", "b", `{}`)
	// From a resourceVersion: only what came after it.
	ws := ts.openWatch(t, widgetsPath("default")+"?watch=true&timeoutSeconds=1&resourceVersion="+w.ResourceVersion)
	if ev := ws.next(t); ev.Type != "ADDED" || eventWidget(t, ev).Name != "b" {
		t.Fatalf("want ADDED b, got %s %s", ev.Type, ev.Object)
	}
	start := time.Now()
	ws.waitEnd(t, 5*time.Second)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("timeoutSeconds=1 ended after %s", d)
	}

	// A negative timeoutSeconds: kube-apiserver's timer has fired before
	// the stream starts, so 200 and no event, at once (not a watch of the
	// default 30 to 60 minutes), whatever the initial events.
	for _, q := range []string{"", "&resourceVersion=0", "&resourceVersion=" + w.ResourceVersion, "&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan"} {
		ws := ts.openWatch(t, widgetsPath("default")+"?watch=1&timeoutSeconds=-1"+q)
		if ws.resp.StatusCode != http.StatusOK {
			t.Errorf("timeoutSeconds=-1%s: HTTP %d, want 200", q, ws.resp.StatusCode)
		}
		ws.waitEnd(t, 2*time.Second)
	}
}

func TestWatchList(t *testing.T) {
	ts := newServer(t)
	ts.createWidget(t, "default", "one", `{}`)
	ts.createWidget(t, "default", "two", `{}`)
	ws := ts.openWatch(t, widgetsPath("default")+"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=")
	names := map[string]bool{}
	for i := 0; i < 2; i++ {
		ev := ws.next(t)
		if ev.Type != "ADDED" {
			t.Fatalf("initial event %s %s", ev.Type, ev.Object)
		}
		names[eventWidget(t, ev).Name] = true
	}
	if !names["one"] || !names["two"] {
		t.Errorf("initial events %v", names)
	}
	ev := ws.next(t)
	if ev.Type != "BOOKMARK" {
		t.Fatalf("want BOOKMARK, got %s %s", ev.Type, ev.Object)
	}
	bm := eventWidget(t, ev)
	if bm.ResourceVersion == "" || bm.Annotations["k8s.io/initial-events-end"] != "true" {
		t.Errorf("bookmark %s", ev.Object)
	}
	ts.createWidget(t, "default", "three", `{}`)
	if ev := ws.next(t); ev.Type != "ADDED" || eventWidget(t, ev).Name != "three" {
		t.Fatalf("live event %s %s", ev.Type, ev.Object)
	}

	// Without allowWatchBookmarks kube-apiserver serves the watch too:
	// the initial events, no BOOKMARK, then the live ones.
	for i, cache := range []string{"", "&resourceVersion=0"} {
		plain := ts.openWatch(t, widgetsPath("default")+"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"+cache)
		if plain.resp.StatusCode != http.StatusOK {
			t.Fatalf("watch list without bookmarks: %d", plain.resp.StatusCode)
		}
		for j := 0; j < 3+i; j++ {
			if ev := plain.next(t); ev.Type != "ADDED" {
				t.Fatalf("initial event %d: %s %s", j, ev.Type, ev.Object)
			}
		}
		name := fmt.Sprintf("four-%d", i)
		ts.createWidget(t, "default", name, `{}`)
		if ev := plain.next(t); ev.Type != "ADDED" || eventWidget(t, ev).Name != name {
			t.Fatalf("after the initial events: %s %s, want ADDED %s and no BOOKMARK", ev.Type, ev.Object, name)
		}
	}

	// A legacy watch from "" or "0" that allows bookmarks is a watch list
	// (kube 1.37's SetListOptionsDefaults): the current state, then the
	// initial-events-end BOOKMARK, then the live events.
	for i, from := range []string{"", "&resourceVersion=0"} {
		legacy := ts.openWatch(t, widgetsPath("default")+"?watch=1&allowWatchBookmarks=true"+from)
		for j := 0; j < 5+i; j++ {
			if ev := legacy.next(t); ev.Type != "ADDED" {
				t.Fatalf("legacy watch%s: initial event %d: %s %s", from, j, ev.Type, ev.Object)
			}
		}
		ev := legacy.next(t)
		if ev.Type != "BOOKMARK" || eventWidget(t, ev).Annotations["k8s.io/initial-events-end"] != "true" {
			t.Fatalf("legacy watch%s: after the current state %s %s, want the initial-events-end BOOKMARK", from, ev.Type, ev.Object)
		}
		name := fmt.Sprintf("five-%d", i)
		ts.createWidget(t, "default", name, `{}`)
		if ev := legacy.next(t); ev.Type != "ADDED" || eventWidget(t, ev).Name != name {
			t.Fatalf("legacy watch%s: live event %s %s", from, ev.Type, ev.Object)
		}
	}
}

func TestWatchTable(t *testing.T) {
	ts := newServer(t)
	ts.createWidget(t, "default", "one", `{}`)
	ts.createWidget(t, "default", "two", `{}`)
	ws := ts.openWatch(t, widgetsPath("default")+"?watch=1&timeoutSeconds=30", "Accept", kubectlGet)
	for i := 0; i < 2; i++ {
		ev := ws.next(t)
		var table metav1.Table
		if err := json.Unmarshal(ev.Object, &table); err != nil {
			t.Fatal(err)
		}
		if ev.Type != "ADDED" || table.Kind != "Table" || table.APIVersion != "meta.k8s.io/v1" || len(table.Rows) != 1 {
			t.Fatalf("event %d: %s %s", i, ev.Type, ev.Object)
		}
		if (i == 0) != (len(table.ColumnDefinitions) > 0) {
			t.Errorf("event %d columnDefinitions %v: only the first event carries them", i, table.ColumnDefinitions)
		}
		var p metav1.PartialObjectMetadata
		_ = json.Unmarshal(table.Rows[0].Object.Raw, &p)
		if p.Kind != "PartialObjectMetadata" || p.Name == "" {
			t.Errorf("row object %s", table.Rows[0].Object.Raw)
		}
	}
}
