package storage

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforge/kubeforge/runtime/jsondecode"
)

// TestListParallelDecode lists more objects than parallelDecodeMin, so the
// items are decoded by several goroutines: order, resourceVersions and
// filtering must be those of a sequential read, and one corrupt value must
// fail the list.
func TestListParallelDecode(t *testing.T) {
	f := newFixture(t, true, false)
	const n = 3*parallelDecodeMin + 7
	for i := range n {
		w := widget("ns", fmt.Sprintf("w%04d", i), i)
		if i%3 == 0 {
			w.Labels = map[string]string{"third": "yes"}
		}
		mustCreate(t, f, w)
	}
	raw, err := testEtcd.Client().Get(context.Background(), f.st.listPrefix("ns"), clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	l, err := f.st.List(ctx, "ns", ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != n || len(raw.Kvs) != n {
		t.Fatalf("listed %d, stored %d, want %d", len(l.Items), len(raw.Kvs), n)
	}
	for i, it := range l.Items {
		if want := fmt.Sprintf("w%04d", i); it.Name != want || it.Spec.Size != i {
			t.Fatalf("item %d is %s (size %d), want %s", i, it.Name, it.Spec.Size, want)
		}
		if want := fmt.Sprint(raw.Kvs[i].ModRevision); it.ResourceVersion != want {
			t.Fatalf("item %d resourceVersion %s, want %s", i, it.ResourceVersion, want)
		}
		if it.Kind != "Widget" {
			t.Fatalf("item %d kind %q", i, it.Kind)
		}
	}
	sel := mustSelector(t, "third=yes")
	l, err = f.st.List(ctx, "ns", ListOptions{LabelSelector: sel})
	if err != nil {
		t.Fatal(err)
	}
	if want := (n + 2) / 3; len(l.Items) != want {
		t.Fatalf("selected %d, want %d", len(l.Items), want)
	}
	for i, it := range l.Items {
		if it.Spec.Size != 3*i {
			t.Fatalf("selected item %d has size %d, want %d", i, it.Spec.Size, 3*i)
		}
	}

	if _, err := testEtcd.Client().Put(context.Background(), f.st.key("ns", "w0500"), "{not json"); err != nil {
		t.Fatal(err)
	}
	// An unreadable value in a parallel decode is left out, the rest kept
	// in order.
	l, err = f.st.List(ctx, "ns", ListOptions{})
	if err != nil || len(l.Items) != n-1 || l.Items[499].Name != "w0499" || l.Items[500].Name != "w0501" {
		t.Fatalf("list with an unreadable value: %d items, %v", len(l.Items), err)
	}
	_, err = f.st.Get(ctx, "ns", "w0500", GetOptions{})
	wantStatus(t, err, http.StatusInternalServerError, metav1.StatusReasonInternalError, "~decode stored")
}

// TestDecodeOnFastPath: stored values are decoded by runtime/jsondecode
// (reads from etcd and the watch cache's events), not by its fallback,
// so that its speed-up cannot quietly vanish (a New that returns a value
// not zero would make every decode fall back); the object read is the one
// written.
func TestDecodeOnFastPath(t *testing.T) {
	f := newFixture(t, true, false)
	fastBefore, fallbackBefore := jsondecode.Counts()
	for i := range 20 {
		w := widget("ns", fmt.Sprintf("fast%02d", i), i)
		w.Labels = map[string]string{"a": "b"}
		mustCreate(t, f, w)
	}
	for i := range 20 {
		got, err := f.st.Get(ctx, "ns", fmt.Sprintf("fast%02d", i), GetOptions{})
		if err != nil || got.Spec.Size != i || got.Labels["a"] != "b" || got.Kind != "Widget" || got.ResourceVersion == "" {
			t.Fatalf("get %d: %+v, %v", i, got, err)
		}
	}
	waitFor(t, func() bool {
		fast, _ := jsondecode.Counts()
		return fast >= fastBefore+20 // each value once at least
	})
	if _, fallback := jsondecode.Counts(); fallback != fallbackBefore {
		t.Fatalf("%d stored values fell back to sigs.k8s.io/json", fallback-fallbackBefore)
	}
}
