// Package proptest checks the generated deepcopy code of the project's types
// and of the generator's testdata by property: random values, DeepCopy
// compared with a reflection copy, then every reachable leaf of the original
// mutated to prove the copy shares nothing.
package proptest

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	shapesv1 "github.com/kubeforge/kubeforge/generators/deepcopy/testdata/shapes/types/shapes/v1"
	infrav1 "github.com/kubeforge/kubeforge/types/infra/v1"
	shippingv1 "github.com/kubeforge/kubeforge/types/shipping/v1"
	shippingv1alpha1 "github.com/kubeforge/kubeforge/types/shipping/v1alpha1"
)

const iterations = 300

// Kinds and lists are runtime.Objects; the lists marked (generated) come
// from the lists generator.
var (
	_ runtime.Object = &shippingv1.Shipment{}
	_ runtime.Object = &shippingv1.ShipmentList{}
	_ runtime.Object = &shippingv1alpha1.Shipment{}
	_ runtime.Object = &shippingv1alpha1.ShipmentList{} // generated
	_ runtime.Object = &infrav1.Warehouse{}
	_ runtime.Object = &infrav1.WarehouseList{} // generated
	_ runtime.Object = &shapesv1.Widget{}
	_ runtime.Object = &shapesv1.WidgetList{}
	_ runtime.Object = &shapesv1.Gizmo{}
	_ runtime.Object = &shapesv1.GizmoList{} // generated
	_ runtime.Object = &shapesv1.Gadget{}    // hand-written DeepCopyObject
	_ runtime.Object = &shapesv1.GadgetList{}
)

// gizmo fills runtime.Object fields (shapes' Payload, RawExtension.Object).
func gizmo(f *filler, depth int) runtime.Object {
	g := &shapesv1.Gizmo{}
	f.fill(reflect.ValueOf(g).Elem(), depth)
	return g
}

func TestShipping(t *testing.T) {
	t.Run("Shipment", check[shippingv1.Shipment])
	t.Run("ShipmentList", check[shippingv1.ShipmentList])
	t.Run("ShipmentSpec", check[shippingv1.ShipmentSpec])
	t.Run("ShipmentStatus", check[shippingv1.ShipmentStatus])
	t.Run("Address", check[shippingv1.Address])
	t.Run("Parcel", check[shippingv1.Parcel])
	t.Run("Tracking", check[shippingv1.Tracking])
	t.Run("v1alpha1.Shipment", check[shippingv1alpha1.Shipment])
	t.Run("v1alpha1.ShipmentList", check[shippingv1alpha1.ShipmentList])
}

func TestInfra(t *testing.T) {
	t.Run("Warehouse", check[infrav1.Warehouse])
	t.Run("WarehouseList", check[infrav1.WarehouseList])
	t.Run("WarehouseSpec", check[infrav1.WarehouseSpec])
	t.Run("Dock", check[infrav1.Dock])
	t.Run("Hours", check[infrav1.Hours])
}

func TestShapes(t *testing.T) {
	t.Run("Widget", check[shapesv1.Widget])
	t.Run("WidgetList", check[shapesv1.WidgetList])
	t.Run("WidgetSpec", check[shapesv1.WidgetSpec])
	t.Run("Gizmo", check[shapesv1.Gizmo])
	t.Run("GizmoList", check[shapesv1.GizmoList])
	t.Run("Gadget", check[shapesv1.Gadget])
	t.Run("GadgetList", check[shapesv1.GadgetList])
	t.Run("Custom", check[shapesv1.Custom])
	t.Run("Names", check[shapesv1.Names])
	t.Run("Labels", check[shapesv1.Labels])
	t.Run("Matrix", check[shapesv1.Matrix])
	t.Run("Parts", check[shapesv1.Parts])
	t.Run("PartsByName", check[shapesv1.PartsByName])
	t.Run("PartRefs", check[shapesv1.PartRefs])
}

// deepCopy calls T's generated DeepCopy: func (*T) DeepCopy() *T for
// structs, func (T) DeepCopy() T for named slices and maps.
func deepCopy[T any](t *testing.T, in *T) *T {
	t.Helper()
	switch c := any(in).(type) {
	case interface{ DeepCopy() *T }:
		return c.DeepCopy()
	case interface{ DeepCopy() T }:
		out := c.DeepCopy()
		return &out
	}
	t.Fatalf("%T has no DeepCopy method", in)
	return nil
}

// deepCopyInto calls T's DeepCopyInto.
func deepCopyInto[T any](t *testing.T, in, out *T) {
	t.Helper()
	switch c := any(in).(type) {
	case interface{ DeepCopyInto(*T) }:
		c.DeepCopyInto(out)
		return
	}
	t.Fatalf("%T has no DeepCopyInto method", in)
}

func check[T any](t *testing.T) {
	mutated := 0
	for seed := range uint64(iterations) {
		f := &filler{r: rand.New(rand.NewPCG(seed, 0x5eed)), objects: gizmo}
		orig := new(T)
		f.fill(reflect.ValueOf(orig).Elem(), 0)
		want := snapshot(t, reflect.ValueOf(orig).Elem()).Interface().(T)
		if !reflect.DeepEqual(*orig, want) {
			t.Fatalf("seed %d: reflection snapshot differs from the original", seed)
		}

		got := deepCopy(t, orig)
		if !reflect.DeepEqual(*got, want) {
			t.Fatalf("seed %d: DeepCopy differs from the original at %s", seed, diff(reflect.ValueOf(*got), reflect.ValueOf(want), ""))
		}

		// DeepCopyInto over a dirty destination leaves no trace of it.
		into := new(T)
		f.fill(reflect.ValueOf(into).Elem(), 0)
		deepCopyInto(t, orig, into)
		if !reflect.DeepEqual(*into, want) {
			t.Fatalf("seed %d: DeepCopyInto over a filled value differs from the original at %s", seed, diff(reflect.ValueOf(*into), reflect.ValueOf(want), ""))
		}

		var obj runtime.Object
		if o, ok := any(orig).(runtime.Object); ok {
			obj = o.DeepCopyObject()
			if c, ok := any(obj).(*T); !ok || c == orig || !reflect.DeepEqual(*c, want) {
				t.Fatalf("seed %d: DeepCopyObject returned a %T, want a new %T equal to the original", seed, obj, orig)
			}
		}

		n := mutate(t, reflect.ValueOf(orig).Elem())
		mutated += n
		if n > 0 && reflect.DeepEqual(*orig, want) {
			t.Fatalf("seed %d: mutating %d leaves did not change the original", seed, n)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Fatalf("seed %d: the DeepCopy changed when the original was mutated, it shares memory at %s", seed, diff(reflect.ValueOf(*got), reflect.ValueOf(want), ""))
		}
		if !reflect.DeepEqual(*into, want) {
			t.Fatalf("seed %d: the DeepCopyInto target changed when the original was mutated, it shares memory at %s", seed, diff(reflect.ValueOf(*into), reflect.ValueOf(want), ""))
		}
		if obj != nil && !reflect.DeepEqual(*any(obj).(*T), want) {
			t.Fatalf("seed %d: the DeepCopyObject result changed when the original was mutated: it shares memory", seed)
		}
	}
	if mutated == 0 {
		t.Fatalf("no leaf was ever mutated in %d iterations: the test proves nothing", iterations)
	}
}

// TestNil checks nil receivers and that nil stays nil (not empty).
func TestNil(t *testing.T) {
	if (*shippingv1.Shipment)(nil).DeepCopy() != nil {
		t.Error("(*Shipment)(nil).DeepCopy() is not nil")
	}
	if (*infrav1.WarehouseList)(nil).DeepCopyObject() != nil {
		t.Error("(*WarehouseList)(nil).DeepCopyObject() is not nil")
	}
	if shapesv1.Names(nil).DeepCopy() != nil {
		t.Error("Names(nil).DeepCopy() is not nil")
	}
	out := shapesv1.Labels{"stale": "x"}
	shapesv1.Labels(nil).DeepCopyInto(&out)
	if out != nil {
		t.Errorf("Labels(nil).DeepCopyInto(&out) left %v, want nil", out)
	}
	s := shippingv1.ShipmentSpec{Tags: []string{}}
	if c := s.DeepCopy(); c.Tags == nil || c.Parcels != nil {
		t.Errorf("DeepCopy changed nil/empty: Tags %#v Parcels %#v", c.Tags, c.Parcels)
	}
}

// diff returns the path of the first difference between a and b, as
// reflect.DeepEqual sees it, with both values there.
func diff(a, b reflect.Value, path string) string {
	if a.Kind() != b.Kind() || a.Type() != b.Type() {
		return fmt.Sprintf("%s: %v vs %v", path, a.Type(), b.Type())
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return fmt.Sprintf("%s: nil %v vs nil %v", path, a.IsNil(), b.IsNil())
		}
		return diff(a.Elem(), b.Elem(), path)
	case reflect.Slice, reflect.Array:
		if a.Kind() == reflect.Slice && a.IsNil() != b.IsNil() {
			return fmt.Sprintf("%s: nil %v vs nil %v", path, a.IsNil(), b.IsNil())
		}
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: len %d vs %d", path, a.Len(), b.Len())
		}
		for i := range a.Len() {
			if !reflect.DeepEqual(a.Index(i).Interface(), b.Index(i).Interface()) {
				return diff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
		}
	case reflect.Map:
		if a.IsNil() != b.IsNil() {
			return fmt.Sprintf("%s: nil %v vs nil %v", path, a.IsNil(), b.IsNil())
		}
		iter := a.MapRange()
		for iter.Next() {
			bv := b.MapIndex(iter.Key())
			if !bv.IsValid() {
				return fmt.Sprintf("%s[%v]: missing", path, iter.Key())
			}
			if !reflect.DeepEqual(iter.Value().Interface(), bv.Interface()) {
				return diff(iter.Value(), bv, fmt.Sprintf("%s[%v]", path, iter.Key()))
			}
		}
		return fmt.Sprintf("%s: len %d vs %d", path, a.Len(), b.Len())
	case reflect.Struct:
		for i := range a.NumField() {
			if !a.Type().Field(i).IsExported() {
				continue
			}
			if !reflect.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) {
				return diff(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name)
			}
		}
	}
	if a.CanInterface() {
		return fmt.Sprintf("%s: %#v vs %#v", path, a.Interface(), b.Interface())
	}
	return path
}
