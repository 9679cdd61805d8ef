package storage

import (
	"bytes"
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestWrittenJSON: what a create or an update hands back is json.Marshal
// of the object it returns, byte for byte (metadata before and after
// resourceVersion, generated names, unicode and escapes, the status
// subresource), and nothing for another object or a write that wrote
// nothing.
func TestWrittenJSON(t *testing.T) {
	f := newFixture(t, true, true)
	check := func(what string, w *Written, obj *Widget) {
		t.Helper()
		got, ok := w.JSON(obj)
		if !ok {
			t.Fatalf("%s: no JSON handed back", what)
		}
		want, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s:\n got %s\nwant %s", what, got, want)
		}
		if _, ok := w.JSON(obj.DeepCopyObject()); ok {
			t.Fatalf("%s: JSON handed back for a copy", what)
		}
	}

	wctx, w := WithWritten(ctx)
	in := widget("ns", "", 3)
	in.GenerateName = "gen-"
	in.Labels = map[string]string{"a": "<é>&\u2028"}
	in.Annotations = map[string]string{"note": `"quoted"\`}
	in.Finalizers = []string{"x/y"}
	created, err := f.st.Create(wctx, in, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check("create", w, created)

	wctx, w = WithWritten(ctx)
	upd := created.DeepCopyObject().(*Widget)
	upd.Spec.Color = "blue"
	upd.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "K", Name: "o", UID: "u"}}
	updated, err := put(wctx, f.st, upd, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check("update", w, updated)

	wctx, w = WithWritten(ctx)
	st := updated.DeepCopyObject().(*Widget)
	st.Status.Phase = "Ready"
	status, err := f.st.GuaranteedUpdate(wctx, "ns", st.Name, "status", func(*Widget) (*Widget, error) { return st, nil }, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check("status update", w, status)

	// An update that changes nothing writes nothing: nothing handed back.
	wctx, w = WithWritten(ctx)
	same, err := put(wctx, f.st, status.DeepCopyObject().(*Widget), UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if data, ok := w.JSON(same); ok {
		t.Fatalf("a write that wrote nothing handed back %s", data)
	}

	// A cluster-scoped object: metadata without a namespace.
	cf := newFixture(t, false, false)
	wctx, w = WithWritten(ctx)
	c, err := cf.st.Create(wctx, widget("", "c", 1), CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check("cluster-scoped create", w, c)
}
