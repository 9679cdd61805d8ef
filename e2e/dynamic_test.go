package e2e

import (
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// shipment returns a valid Shipment.
func shipment(namespace, name string, labels map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "shipping.kubeforge.dev/v1",
		"kind":       "Shipment",
		"metadata":   map[string]any{"name": name, "namespace": namespace},
		"spec": map[string]any{
			"origin":      map[string]any{"street": "Hauptstr. 1", "city": "Berlin"},
			"destination": map[string]any{"street": "High St 2", "city": "London", "country": "GB", "postalCode": "sw1a 1aa"},
			"parcels":     []any{map[string]any{"name": "box", "weight": "2500"}},
		},
	}}
	if labels != nil {
		u.SetLabels(labels)
	}
	return u
}

// warehouse returns a valid Warehouse.
func warehouse(name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "infra.kubeforge.dev/v1",
		"kind":       "Warehouse",
		"metadata":   map[string]any{"name": name},
		"spec":       map[string]any{"region": "eu-central"},
	}}
}

func TestDynamicShipmentCRUD(t *testing.T) {
	s := sharedServer(t)
	s.ensureNamespaces(t, "crud")
	c := s.dynamic(t).Resource(shipmentsGVR).Namespace("crud")
	ctx := ctx(t, time.Minute)

	created, err := c.Create(ctx, shipment("crud", "s1", map[string]string{"team": "a"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if created.GetUID() == "" || created.GetResourceVersion() == "" || created.GetGeneration() != 1 {
		t.Fatalf("create: system fields not set: uid=%q rv=%q generation=%d", created.GetUID(), created.GetResourceVersion(), created.GetGeneration())
	}
	// Defaults were applied (marker default and the hand-written hook).
	if p, _, _ := unstructured.NestedString(created.Object, "spec", "priority"); p != "Normal" {
		t.Errorf("spec.priority = %q, want the default Normal", p)
	}
	if pc, _, _ := unstructured.NestedString(created.Object, "spec", "destination", "postalCode"); pc != "SW1A 1AA" {
		t.Errorf("spec.destination.postalCode = %q, want SW1A 1AA (SetDefaults_Address)", pc)
	}

	if _, err := c.Create(ctx, shipment("crud", "s1", nil), metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Fatalf("second create: want AlreadyExists, got %v", err)
	}

	got, err := c.Get(ctx, "s1", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if got.GetResourceVersion() != created.GetResourceVersion() || got.GetUID() != created.GetUID() {
		t.Fatalf("get: rv/uid %s/%s, want %s/%s", got.GetResourceVersion(), got.GetUID(), created.GetResourceVersion(), created.GetUID())
	}

	// Update the spec: generation goes up, rv changes.
	if err := unstructured.SetNestedField(got.Object, "Urgent", "spec", "priority"); err != nil {
		t.Fatal(err)
	}
	updated, err := c.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if updated.GetGeneration() != 2 || updated.GetResourceVersion() == got.GetResourceVersion() {
		t.Fatalf("update: generation=%d rv=%s (was %s), want generation 2 and a new rv", updated.GetGeneration(), updated.GetResourceVersion(), got.GetResourceVersion())
	}

	// Status through the subresource; the main resource keeps the old status.
	if err := unstructured.SetNestedField(updated.Object, "InTransit", "status", "phase"); err != nil {
		t.Fatal(err)
	}
	st, err := c.UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update status: %v", err)
	}
	if ph, _, _ := unstructured.NestedString(st.Object, "status", "phase"); ph != "InTransit" || st.GetGeneration() != 2 {
		t.Fatalf("update status: phase=%q generation=%d, want InTransit and 2", ph, st.GetGeneration())
	}

	patched, err := c.Patch(ctx, "s1", types.MergePatchType, []byte(`{"spec":{"tags":["fast"]},"status":{"phase":"Lost"}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("merge patch: %v", err)
	}
	if ph, _, _ := unstructured.NestedString(patched.Object, "status", "phase"); ph != "InTransit" {
		t.Errorf("merge patch of the main resource changed status.phase to %q", ph)
	}
	if tags, _, _ := unstructured.NestedStringSlice(patched.Object, "spec", "tags"); len(tags) != 1 || tags[0] != "fast" {
		t.Errorf("merge patch: spec.tags = %v", tags)
	}
	patched, err = c.Patch(ctx, "s1", types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/priority","value":"Low"}]`), metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("json patch: %v", err)
	}
	if p, _, _ := unstructured.NestedString(patched.Object, "spec", "priority"); p != "Low" {
		t.Errorf("json patch: spec.priority = %q", p)
	}

	// Invalid: 422 with the field path.
	bad := shipment("crud", "bad", nil)
	_ = unstructured.SetNestedField(bad.Object, "Whenever", "spec", "priority")
	if _, err := c.Create(ctx, bad, metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Fatalf("create invalid: want 422 Invalid, got %v", err)
	}

	if err := c.Delete(ctx, "s1", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := c.Get(ctx, "s1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get after delete: want NotFound, got %v", err)
	}
	if err := c.Delete(ctx, "s1", metav1.DeleteOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("second delete: want NotFound, got %v", err)
	}
}

func TestDynamicWarehouseCRUD(t *testing.T) {
	s := sharedServer(t)
	c := s.dynamic(t).Resource(warehousesGVR)
	ctx := ctx(t, time.Minute)

	created, err := c.Create(ctx, warehouse("wh-crud"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if created.GetNamespace() != "" {
		t.Errorf("cluster-scoped object has namespace %q", created.GetNamespace())
	}
	if dn, _, _ := unstructured.NestedString(created.Object, "spec", "displayName"); dn != "wh-crud" {
		t.Errorf("spec.displayName = %q, want the name (SetDefaults_Warehouse)", dn)
	}
	if b, found, _ := unstructured.NestedBool(created.Object, "spec", "bonded"); !found || b {
		t.Errorf("spec.bonded = %v (found %v), want the default false", b, found)
	}
	_ = unstructured.SetNestedField(created.Object, "eu-west", "spec", "region")
	updated, err := c.Update(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if updated.GetGeneration() != 2 {
		t.Errorf("update: generation %d, want 2", updated.GetGeneration())
	}
	list, err := c.List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=wh-crud"})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	if len(list.Items) != 1 || list.Items[0].GetName() != "wh-crud" {
		t.Fatalf("list by name: %d items", len(list.Items))
	}
	if err := c.Delete(ctx, "wh-crud", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := c.Get(ctx, "wh-crud", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get after delete: want NotFound, got %v", err)
	}
}

func TestDynamicSelectors(t *testing.T) {
	s := sharedServer(t)
	s.ensureNamespaces(t, "sel-a", "sel-b")
	dyn := s.dynamic(t)
	ctx := ctx(t, time.Minute)
	for i, ns := range []string{"sel-a", "sel-b"} {
		c := dyn.Resource(shipmentsGVR).Namespace(ns)
		for j := 0; j < 3; j++ {
			tier := "gold"
			if j > 0 {
				tier = "silver"
			}
			name := fmt.Sprintf("s%d", j)
			if _, err := c.Create(ctx, shipment(ns, name, map[string]string{"tier": tier, "idx": fmt.Sprint(i*3 + j)}), metav1.CreateOptions{}); err != nil {
				t.Fatalf("create %s/%s: %v", ns, name, err)
			}
		}
	}
	count := func(ns string, opts metav1.ListOptions) int {
		t.Helper()
		var (
			l   *unstructured.UnstructuredList
			err error
		)
		if ns == "" {
			l, err = dyn.Resource(shipmentsGVR).List(ctx, opts)
		} else {
			l, err = dyn.Resource(shipmentsGVR).Namespace(ns).List(ctx, opts)
		}
		if err != nil {
			t.Fatalf("list %q %+v: %v", ns, opts, err)
		}
		n := 0
		for _, it := range l.Items {
			if it.GetNamespace() == "sel-a" || it.GetNamespace() == "sel-b" {
				n++
			}
		}
		return n
	}
	cases := []struct {
		ns   string
		opts metav1.ListOptions
		want int
	}{
		{"sel-a", metav1.ListOptions{}, 3},
		{"sel-a", metav1.ListOptions{LabelSelector: "tier=gold"}, 1},
		{"sel-a", metav1.ListOptions{LabelSelector: "tier!=gold"}, 2},
		{"sel-a", metav1.ListOptions{LabelSelector: "tier in (gold,silver),idx notin (1)"}, 2},
		{"", metav1.ListOptions{LabelSelector: "tier=silver"}, 4},
		{"", metav1.ListOptions{FieldSelector: "metadata.namespace=sel-b"}, 3},
		{"", metav1.ListOptions{FieldSelector: "metadata.name=s0"}, 2},
		{"sel-b", metav1.ListOptions{FieldSelector: "metadata.name=s2", LabelSelector: "tier=silver"}, 1},
		{"sel-b", metav1.ListOptions{FieldSelector: "metadata.name!=s2"}, 2},
	}
	for _, tc := range cases {
		if got := count(tc.ns, tc.opts); got != tc.want {
			t.Errorf("list ns=%q label=%q field=%q: %d items, want %d", tc.ns, tc.opts.LabelSelector, tc.opts.FieldSelector, got, tc.want)
		}
	}
}

func TestDynamicPagination(t *testing.T) {
	s := sharedServer(t)
	s.ensureNamespaces(t, "pages")
	c := s.dynamic(t).Resource(shipmentsGVR).Namespace("pages")
	ctx := ctx(t, 2*time.Minute)
	const n = 50
	want := map[string]bool{}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("p%02d", i)
		want[name] = true
		if _, err := c.Create(ctx, shipment("pages", name, nil), metav1.CreateOptions{}); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
	}
	seen := map[string]int{}
	var listRV, cont string
	pages := 0
	for {
		l, err := c.List(ctx, metav1.ListOptions{Limit: 1, Continue: cont})
		if err != nil {
			t.Fatalf("list page %d: %v", pages, err)
		}
		pages++
		if pages == 1 {
			listRV = l.GetResourceVersion()
			// A write after the first page must not show up in later pages.
			if _, err := c.Create(ctx, shipment("pages", "zz-late", nil), metav1.CreateOptions{}); err != nil {
				t.Fatalf("create during pagination: %v", err)
			}
		} else if l.GetResourceVersion() != listRV {
			t.Fatalf("page %d: list resourceVersion %s, want %s as on the first page", pages, l.GetResourceVersion(), listRV)
		}
		if len(l.Items) > 1 {
			t.Fatalf("page %d: %d items with limit=1", pages, len(l.Items))
		}
		for _, it := range l.Items {
			seen[it.GetName()]++
		}
		cont = l.GetContinue()
		if cont == "" {
			break
		}
		if pages > n+5 {
			t.Fatalf("more than %d pages", pages)
		}
	}
	if pages != n {
		t.Errorf("%d pages, want %d", pages, n)
	}
	for name := range want {
		if seen[name] != 1 {
			t.Errorf("%s seen %d times, want once", name, seen[name])
		}
	}
	if seen["zz-late"] != 0 {
		t.Errorf("object created after the first page appeared in a later page")
	}
	if len(seen) != n {
		t.Errorf("%d distinct objects, want %d", len(seen), n)
	}
}

func TestDynamicConflict(t *testing.T) {
	s := sharedServer(t)
	s.ensureNamespaces(t, "conflict")
	c := s.dynamic(t).Resource(shipmentsGVR).Namespace("conflict")
	ctx := ctx(t, time.Minute)
	created, err := c.Create(ctx, shipment("conflict", "c1", nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	stale := created.DeepCopy()
	_ = unstructured.SetNestedField(created.Object, "Urgent", "spec", "priority")
	if _, err := c.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("first update: %v", err)
	}
	_ = unstructured.SetNestedField(stale.Object, "Low", "spec", "priority")
	_, err = c.Update(ctx, stale, metav1.UpdateOptions{})
	if !apierrors.IsConflict(err) {
		t.Fatalf("update with a stale resourceVersion: want 409 Conflict, got %v", err)
	}
	got, err := c.Get(ctx, "c1", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if p, _, _ := unstructured.NestedString(got.Object, "spec", "priority"); p != "Urgent" {
		t.Fatalf("after the conflict spec.priority = %q, want Urgent", p)
	}
	// A delete precondition on the stale resourceVersion is a conflict too.
	rv := stale.GetResourceVersion()
	if err := c.Delete(ctx, "c1", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &rv}}); !apierrors.IsConflict(err) {
		t.Fatalf("delete with a stale precondition: want 409 Conflict, got %v", err)
	}
}
