package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/kubeforge/kubeforge/runtime/jsonencode"
)

// TestEncodeOnFastPath: what a store writes is encoded by
// runtime/jsonencode, not by its fallback (so that its speed-up cannot
// quietly vanish), and is byte for byte encoding/json's encoding of the
// object (storage kind, no resourceVersion).
func TestEncodeOnFastPath(t *testing.T) {
	f := newFixture(t, true, false)
	fastBefore, fallbackBefore := jsonencode.Counts()
	for i := range 20 {
		w := widget("ns", fmt.Sprintf("enc%02d", i), i)
		w.Labels = map[string]string{"a": "<b>", "c": "d\u2028"}
		w.Annotations = map[string]string{"x": "é&"}
		mustCreate(t, f, w)
	}
	fast, fallback := jsonencode.Counts()
	if fallback != fallbackBefore {
		t.Fatalf("%d stored values fell back to encoding/json", fallback-fallbackBefore)
	}
	if fast < fastBefore+20 {
		t.Fatalf("%d encodes on the fast path, want 20 at least", fast-fastBefore)
	}
	for i := range 20 {
		name := fmt.Sprintf("enc%02d", i)
		resp, err := testEtcd.Client().Get(context.Background(), f.st.key("ns", name))
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("read %s from etcd: %v", name, err)
		}
		got, err := f.st.Get(ctx, "ns", name, GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got.ResourceVersion = ""
		want, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(resp.Kvs[0].Value, want) {
			t.Fatalf("stored %s\n got %s\nwant %s", name, resp.Kvs[0].Value, want)
		}
	}
}
