package storage

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

func policy(p metav1.DeletionPropagation) *metav1.DeletionPropagation { return &p }
func boolp(b bool) *bool                                              { return &b }

// TestDeletePropagation: the store's half of garbage collection, as
// kube's registry store with EnableGarbageCollection.
func TestDeletePropagation(t *testing.T) {
	f := newFixture(t, true, true)
	mark := func(name string, opts DeleteOptions, wantFinalizers ...string) *Widget {
		t.Helper()
		d, deleted, err := f.st.Delete(ctx, "ns", name, opts)
		if err != nil || deleted {
			t.Fatalf("delete %s = %v %v, want marked", name, deleted, err)
		}
		if d.DeletionTimestamp == nil || !slices.Equal(d.Finalizers, wantFinalizers) {
			t.Fatalf("delete %s: finalizers %v deletionTimestamp %v, want %v", name, d.Finalizers, d.DeletionTimestamp, wantFinalizers)
		}
		got, err := f.st.Get(ctx, "ns", name, GetOptions{})
		if err != nil || !slices.Equal(got.Finalizers, wantFinalizers) || got.ResourceVersion != d.ResourceVersion {
			t.Fatalf("stored %s = %+v %v", name, got, err)
		}
		return d
	}
	gone := func(name string, opts DeleteOptions) {
		t.Helper()
		if _, deleted, err := f.st.Delete(ctx, "ns", name, opts); err != nil || !deleted {
			t.Fatalf("delete %s = %v %v, want deleted", name, deleted, err)
		}
		_, err := f.st.Get(ctx, "ns", name, GetOptions{})
		wantStatus(t, err, 404, metav1.StatusReasonNotFound, "")
	}

	// Background (and no policy: the default of a custom kind) deletes now.
	mustCreate(t, f, widget("ns", "bg", 1))
	gone("bg", DeleteOptions{PropagationPolicy: policy(metav1.DeletePropagationBackground)})
	mustCreate(t, f, widget("ns", "plain", 1))
	gone("plain", DeleteOptions{})
	mustCreate(t, f, widget("ns", "od-false", 1))
	gone("od-false", DeleteOptions{OrphanDependents: boolp(false)})

	// Orphan and Foreground mark the object with their finalizer.
	w := mustCreate(t, f, widget("ns", "orphan", 1))
	d := mark("orphan", DeleteOptions{PropagationPolicy: policy(metav1.DeletePropagationOrphan)}, metav1.FinalizerOrphanDependents)
	if d.Generation != w.Generation+1 || *d.DeletionGracePeriodSeconds != 0 {
		t.Fatalf("orphan delete: %+v", d.ObjectMeta)
	}
	mustCreate(t, f, widget("ns", "od-true", 1))
	mark("od-true", DeleteOptions{OrphanDependents: boolp(true)}, metav1.FinalizerOrphanDependents)
	mustCreate(t, f, widget("ns", "fg", 1))
	fg := mark("fg", DeleteOptions{PropagationPolicy: policy(metav1.DeletePropagationForeground)}, metav1.FinalizerDeleteDependents)

	// A later delete with no policy keeps what the object has, with no write.
	again, deleted, err := f.st.Delete(ctx, "ns", "fg", DeleteOptions{})
	if err != nil || deleted || again.ResourceVersion != fg.ResourceVersion || !again.DeletionTimestamp.Equal(fg.DeletionTimestamp) {
		t.Fatalf("second delete = %+v %v %v", again.ObjectMeta, deleted, err)
	}
	// A later orphan request replaces foregroundDeletion with orphan; the
	// deletionTimestamp and generation stay.
	o := mark("fg", DeleteOptions{PropagationPolicy: policy(metav1.DeletePropagationOrphan)}, metav1.FinalizerOrphanDependents)
	if !o.DeletionTimestamp.Equal(fg.DeletionTimestamp) || o.Generation != fg.Generation {
		t.Fatalf("later orphan: %+v, was %+v", o.ObjectMeta, fg.ObjectMeta)
	}
	mark("fg", DeleteOptions{PropagationPolicy: policy(metav1.DeletePropagationForeground)}, metav1.FinalizerDeleteDependents)
	// A later background request removes the collector's finalizer: with
	// nothing left the object goes.
	gone("fg", DeleteOptions{PropagationPolicy: policy(metav1.DeletePropagationBackground)})

	// Other finalizers are kept, and keep the object.
	w = widget("ns", "held", 1)
	w.Finalizers = []string{"example.dev/hold"}
	mustCreate(t, f, w)
	mark("held", DeleteOptions{PropagationPolicy: policy(metav1.DeletePropagationForeground)}, "example.dev/hold", metav1.FinalizerDeleteDependents)
	mark("held", DeleteOptions{PropagationPolicy: policy(metav1.DeletePropagationBackground)}, "example.dev/hold")

	// The update that removes the last finalizer of an object being
	// deleted deletes it (the collector's last step).
	o, err = f.st.GuaranteedUpdate(ctx, "ns", "orphan", "", func(cur *Widget) (*Widget, error) {
		cur.Finalizers = nil
		return cur, nil
	}, UpdateOptions{})
	if err != nil || o.Name != "orphan" {
		t.Fatalf("remove the orphan finalizer = %v %v", o, err)
	}
	_, err = f.st.Get(ctx, "ns", "orphan", GetOptions{})
	wantStatus(t, err, 404, metav1.StatusReasonNotFound, "")

	// Both options: 422 on DeleteOptions, nothing written.
	mustCreate(t, f, widget("ns", "both", 1))
	_, _, err = f.st.Delete(ctx, "ns", "both", DeleteOptions{OrphanDependents: boolp(true), PropagationPolicy: policy(metav1.DeletePropagationOrphan)})
	se := wantStatus(t, err, 422, metav1.StatusReasonInvalid, "~orphanDependents and deletionPropagation cannot be both set")
	if se.ErrStatus.Details.Kind != "DeleteOptions" || se.ErrStatus.Details.Group != "meta.k8s.io" || se.ErrStatus.Details.Causes[0].Field != "propagationPolicy" {
		t.Fatalf("details = %+v", se.ErrStatus.Details)
	}
	_, _, err = f.st.Delete(ctx, "ns", "both", DeleteOptions{PropagationPolicy: policy("Sideways")})
	wantStatus(t, err, 422, metav1.StatusReasonInvalid, "")
	if _, err := f.st.Get(ctx, "ns", "both", GetOptions{}); err != nil {
		t.Fatal(err)
	}

	// A dry run marks nothing.
	d, deleted, err = f.st.Delete(ctx, "ns", "both", DeleteOptions{DryRun: true, PropagationPolicy: policy(metav1.DeletePropagationOrphan)})
	if err != nil || deleted || !slices.Equal(d.Finalizers, []string{metav1.FinalizerOrphanDependents}) {
		t.Fatalf("dry-run orphan = %+v %v %v", d.ObjectMeta, deleted, err)
	}
	if got, _ := f.st.Get(ctx, "ns", "both", GetOptions{}); got.DeletionTimestamp != nil || len(got.Finalizers) != 0 {
		t.Fatalf("dry run wrote %+v", got.ObjectMeta)
	}

	// DeleteAllInNamespace deletes in the background, as kube's namespace
	// controller: an orphan finalizer added earlier is taken off.
	mustCreate(t, f, widget("ns2", "x", 1))
	if _, _, err := f.st.Delete(ctx, "ns2", "x", DeleteOptions{PropagationPolicy: policy(metav1.DeletePropagationOrphan)}); err != nil {
		t.Fatal(err)
	}
	if n, err := f.st.DeleteAllInNamespace(ctx, "ns2"); err != nil || n != 0 {
		t.Fatalf("delete all = %d %v", n, err)
	}
}

// TestDeletePropagationWithoutCollector: with garbage collection off the
// policies add nothing.
func TestDeletePropagationWithoutCollector(t *testing.T) {
	b := NewBackend(testEtcd.Client(), "/nogc", BackendOptions{NoGarbageCollection: true, WatchCache: testWatchCache})
	t.Cleanup(b.Close)
	st := NewStore(b, widgetStrategy(true, false))
	if _, err := st.Create(ctx, widget("ns", "a", 1), CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, deleted, err := st.Delete(ctx, "ns", "a", DeleteOptions{PropagationPolicy: policy(metav1.DeletePropagationForeground)}); err != nil || !deleted {
		t.Fatalf("foreground without a collector = %v %v, want deleted", deleted, err)
	}
}

func TestGCFinalizerRules(t *testing.T) {
	orphan, fg := metav1.FinalizerOrphanDependents, metav1.FinalizerDeleteDependents
	for _, tc := range []struct {
		name   string
		policy GCPolicy
		cur    []string
		opts   DeleteOptions
		want   []string
		change bool
	}{
		{"default custom kind", GCDeleteDependents, nil, DeleteOptions{}, nil, false},
		{"default orphaning kind", GCOrphanDependents, nil, DeleteOptions{}, []string{orphan}, true},
		{"orphaning kind, background", GCOrphanDependents, nil, DeleteOptions{PropagationPolicy: policy(metav1.DeletePropagationBackground)}, nil, false},
		{"existing finalizer beats the default", GCOrphanDependents, []string{fg}, DeleteOptions{}, []string{fg}, false},
		{"option beats the finalizer", GCDeleteDependents, []string{"a", fg}, DeleteOptions{OrphanDependents: boolp(true)}, []string{"a", orphan}, true},
		{"orphanDependents false is background", GCDeleteDependents, []string{fg}, DeleteOptions{OrphanDependents: boolp(false)}, []string{}, true},
		{"unsupported never orphans", GCUnsupported, nil, DeleteOptions{PropagationPolicy: policy(metav1.DeletePropagationOrphan)}, nil, false},
		{"unsupported drops the collector's finalizers", GCUnsupported, []string{orphan, "a"}, DeleteOptions{}, []string{"a"}, true},
	} {
		change, got := gcFinalizers(tc.cur, shouldOrphanDependents(tc.policy, tc.cur, tc.opts), shouldDeleteDependentsInForeground(tc.policy, tc.cur, tc.opts))
		if change != tc.change || len(got) != len(tc.want) || (len(got) > 0 && !slices.Equal(got, tc.want)) {
			t.Errorf("%s: %v %v, want %v %v", tc.name, change, got, tc.change, tc.want)
		}
	}
	// A namespace's first delete: explicit options decide, orphanDependents
	// false is foreground there, otherwise what it has stays.
	if c, got := namespaceDeletionFinalizers(nil, DeleteOptions{OrphanDependents: boolp(false)}); !c || !slices.Equal(got, []string{fg}) {
		t.Errorf("namespace orphanDependents=false: %v %v", c, got)
	}
	if c, got := namespaceDeletionFinalizers([]string{orphan}, DeleteOptions{}); c || !slices.Equal(got, []string{orphan}) {
		t.Errorf("namespace keeps orphan: %v %v", c, got)
	}
	for info, want := range map[*resource.Info]GCPolicy{
		{Group: "", Version: "v1", Plural: "events"}:                          GCUnsupported,
		{Group: "events.k8s.io", Version: "v1", Plural: "events"}:             GCUnsupported,
		{Group: "", Version: "v1", Plural: "replicationcontrollers"}:          GCOrphanDependents,
		{Group: "", Version: "v1", Plural: "configmaps"}:                      GCDeleteDependents,
		{Group: "shipping.kubeforge.dev", Version: "v1", Plural: "shipments"}: GCDeleteDependents,
	} {
		if got := DefaultGCPolicy(info); got != want {
			t.Errorf("DefaultGCPolicy(%s) = %s, want %s", info.GroupResource(), got, want)
		}
	}
}
