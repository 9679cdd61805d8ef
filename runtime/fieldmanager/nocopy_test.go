package fieldmanager_test

import (
	"github.com/kubeforge/kubeforge/runtime/presence"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	shippingv1 "github.com/kubeforge/kubeforge/generated/shipping/v1"
	shippingv1alpha1 "github.com/kubeforge/kubeforge/generated/shipping/v1alpha1"
	"github.com/kubeforge/kubeforge/runtime/fieldmanager"
	typesv1 "github.com/kubeforge/kubeforge/types/shipping/v1"
	typesv1alpha1 "github.com/kubeforge/kubeforge/types/shipping/v1alpha1"
)

// fmPair is one kind's field manager as the registry builds it (no copy
// of objects it converts to their own version) and as built with a
// convertor that copies them, as runtime.Scheme's does.
type fmPair struct{ fast, ref *fieldmanager.FieldManager }

func newFMPair(t *testing.T, reg *fieldmanager.Registry, k fieldmanager.Kind, sub string) fmPair {
	t.Helper()
	fast, err := reg.FieldManager(k, sub)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := fieldmanager.CopyingFieldManager(reg, k, sub)
	if err != nil {
		t.Fatal(err)
	}
	return fmPair{fast, ref}
}

// withoutTimes is obj's managedFields with their times cleared (the two
// managers may run either side of a second).
func withoutTimes(t *testing.T, obj runtime.Object) runtime.Object {
	t.Helper()
	out := obj.DeepCopyObject()
	m, ok := out.(metav1.Object)
	if !ok {
		t.Fatalf("%T has no metadata", out)
	}
	mf := m.GetManagedFields()
	for i := range mf {
		if mf[i].Time == nil {
			t.Errorf("entry of %s has no time", mf[i].Manager)
		}
		mf[i].Time = nil
	}
	m.SetManagedFields(mf)
	return out
}

// step runs one write through both managers and fails unless the results
// (object and managedFields) are the same and the fast manager left the
// live object as it was.
func step(t *testing.T, name string, fast, ref func(live runtime.Object) (runtime.Object, error), liveFast, liveRef runtime.Object) (runtime.Object, runtime.Object) {
	t.Helper()
	before := liveFast.DeepCopyObject()
	outFast, errFast := fast(liveFast)
	outRef, errRef := ref(liveRef)
	if (errFast == nil) != (errRef == nil) {
		t.Fatalf("%s: errors differ: %v / %v", name, errFast, errRef)
	}
	if errFast != nil {
		return liveFast, liveRef
	}
	if !reflect.DeepEqual(liveFast, before) {
		t.Errorf("%s: the live object changed", name)
	}
	if got, want := withoutTimes(t, outFast), withoutTimes(t, outRef); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: results differ\n fast %+v\n  ref %+v", name, got, want)
	}
	return outFast, outRef
}

func update(fm *fieldmanager.FieldManager, obj runtime.Object, manager string) func(runtime.Object) (runtime.Object, error) {
	return func(live runtime.Object) (runtime.Object, error) {
		return fm.Update(live, obj.DeepCopyObject(), manager)
	}
}

func apply(fm *fieldmanager.FieldManager, cfg *unstructured.Unstructured, manager string) func(runtime.Object) (runtime.Object, error) {
	return func(live runtime.Object) (runtime.Object, error) {
		return fm.Apply(live, cfg.DeepCopy(), manager, false)
	}
}

// TestNoCopyConversion: field managers that convert an object to its own
// version without copying it record exactly what the copying ones
// record, over creates and updates by several managers, applies, the
// status subresource and a write through another version, on objects
// with nested maps, keyed lists, sets, IntOrString, quantities, times and
// absent or emptied fields.
func TestNoCopyConversion(t *testing.T) {
	reg := shippingRegistry(t, true)
	s, a := shippingv1.ShipmentStrategy, shippingv1alpha1.ShipmentStrategy
	k := fieldmanager.Kind{GVK: s.Info.GroupVersionKind(), New: func() runtime.Object { return s.New() },
		Default: func(obj runtime.Object, in presence.Node) { s.Default(obj.(*typesv1.Shipment), in) }, HasStatus: true}
	main := newFMPair(t, reg, k, "")
	status := newFMPair(t, reg, k, "status")
	alpha := newFMPair(t, reg, fieldmanager.Kind{GVK: a.Info.GroupVersionKind(), New: func() runtime.Object { return a.New() }, HasStatus: true}, "")

	empty := func() runtime.Object {
		o := s.New()
		o.SetGroupVersionKind(s.Info.GroupVersionKind())
		return o
	}
	when := metav1.Date(2026, 11, 26, 6, 0, 0, 0, time.UTC)
	obj := s.New()
	obj.SetGroupVersionKind(s.Info.GroupVersionKind())
	obj.Name, obj.Namespace, obj.UID = "s", "default", "u"
	obj.Labels = map[string]string{"a": "1", "b": "2"}
	obj.Spec = typesv1.ShipmentSpec{
		Priority:       "Normal",
		Origin:         typesv1.Address{Street: "Hauptstr. 1", City: "Berlin"},
		Destination:    typesv1.Address{Street: "High St 2", City: "London", Country: "GB", PostalCode: "sw1"},
		Parcels:        []typesv1.Parcel{{Name: "box", Weight: resource.MustParse("2500"), Count: 2}, {Name: "crate", Weight: resource.MustParse("1.5Gi"), Fragile: true}},
		Tags:           []string{"x", "y"},
		Instructions:   map[string]string{"door": "back", "bell": "twice"},
		DelayTolerance: intstr.FromInt32(3),
		PickupAfter:    &when,
		Tracking:       typesv1.Tracking{Notify: "ops@example.dev", IntervalMinutes: 5},
	}
	s.Default(obj, presence.Node{})

	lf, lr := step(t, "create", update(main.fast, obj, "creator"), update(main.ref, obj, "creator"), empty(), empty())
	if mf := lf.(metav1.Object).GetManagedFields(); len(mf) != 1 || mf[0].Manager != "creator" {
		t.Fatalf("create: managedFields %+v, want the creator's entry", mf)
	}
	lf, lr = step(t, "create again by the same manager", update(main.fast, lf, "creator"), update(main.ref, lr, "creator"), lf, lr)

	changed := lf.DeepCopyObject().(*typesv1.Shipment)
	changed.Spec.Priority = "Urgent"
	changed.Spec.Parcels = changed.Spec.Parcels[:1]
	changed.Spec.Instructions["gate"] = "code 12"
	changed.Spec.DelayTolerance = intstr.FromString("20%")
	changed.Spec.PickupAfter = nil
	lf, lr = step(t, "update by the creator", update(main.fast, changed, "creator"), update(main.ref, changed, "creator"), lf, lr)

	other := lf.DeepCopyObject().(*typesv1.Shipment)
	dhl := "dhl"
	other.Spec.Carrier = &dhl
	other.Spec.Parcels[0].Weight = resource.MustParse("3k")
	other.Labels["c"] = "3"
	lf, lr = step(t, "update by another manager", update(main.fast, other, "other"), update(main.ref, other, "other"), lf, lr)

	cfg := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": s.Info.GroupVersionKind().GroupVersion().String(), "kind": "Shipment",
		"metadata": map[string]any{"name": "s", "namespace": "default", "annotations": map[string]any{"by": "applier"}},
		"spec": map[string]any{
			"tags":           []any{"z"},
			"parcels":        []any{map[string]any{"name": "bag", "weight": "1"}},
			"delayTolerance": int64(7),
			"instructions":   map[string]any{"porch": "ok"},
		},
	}}
	lf, lr = step(t, "apply", apply(main.fast, cfg, "applier"), apply(main.ref, cfg, "applier"), lf, lr)

	st := lf.DeepCopyObject().(*typesv1.Shipment)
	st.Status = typesv1.ShipmentStatus{Phase: "InTransit", Attempts: 1, DeliveredAt: &when,
		Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Moving", LastTransitionTime: when}}}
	lf, lr = step(t, "status update", update(status.fast, st, "statuser"), update(status.ref, st, "statuser"), lf, lr)

	emptied := lf.DeepCopyObject().(*typesv1.Shipment)
	emptied.Spec.Tags = nil
	emptied.Spec.Instructions = map[string]string{}
	emptied.Spec.Carrier = nil
	emptied.Labels = nil
	lf, lr = step(t, "update emptying fields", update(main.fast, emptied, "other"), update(main.ref, emptied, "other"), lf, lr)

	// A write through v1alpha1: the v1 entries are compared in v1, the
	// writer's in v1alpha1.
	toAlpha := func(o runtime.Object) runtime.Object {
		out, err := shippingv1alpha1.ShipmentFromHub(o.(*typesv1.Shipment))
		if err != nil {
			t.Fatal(err)
		}
		out.SetGroupVersionKind(a.Info.GroupVersionKind())
		return out
	}
	af, ar := toAlpha(lf), toAlpha(lr)
	next := af.DeepCopyObject().(*typesv1alpha1.Shipment)
	next.Spec.Urgent = false
	next.Spec.From.City = "Hamburg"
	af, _ = step(t, "update through v1alpha1", update(alpha.fast, next, "alpha-writer"), update(alpha.ref, next, "alpha-writer"), af, ar)
	if got := managers(af.(metav1.Object)); len(got) < 3 || got[0] != "alpha-writer shipping.kubeforge.dev/v1alpha1" {
		t.Errorf("entries after every write %v, want alpha-writer's v1alpha1 entry beside the v1 ones", got)
	}

	minimal := s.New()
	minimal.SetGroupVersionKind(s.Info.GroupVersionKind())
	minimal.Name, minimal.Namespace = "m", "default"
	step(t, "create of a minimal object", update(main.fast, minimal, "creator"), update(main.ref, minimal, "creator"), empty(), empty())
	step(t, "create by apply", apply(main.fast, cfg, "applier"), apply(main.ref, cfg, "applier"), empty(), empty())
}
