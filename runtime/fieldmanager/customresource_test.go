package fieldmanager_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforge/kubeforge/runtime/fieldmanager"
	"github.com/kubeforge/kubeforge/runtime/jsonencode"
	shippingv1 "github.com/kubeforge/kubeforge/types/shipping/v1"
)

// TestCustomResourceFields: with the shipped user kinds registered as
// custom resources (as their generated strategies register them), the
// field manager sees the JSON they are written as, as kube's sees a
// custom resource: the fast create and update paths give what
// structured-merge-diff gives over that JSON (the unproven field
// manager), and a zero Quantity with omitempty, which Go writes as "0"
// and kube never holds, is owned by no one. Registration is global, so
// the test runs in a process of its own.
func TestCustomResourceFields(t *testing.T) {
	if os.Getenv("FIELDMANAGER_CR_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCustomResourceFields$", "-test.v")
		cmd.Env = append(os.Environ(), "FIELDMANAGER_CR_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if !bytes.Contains(out, []byte("--- PASS: TestCustomResourceFields")) {
			t.Fatalf("the child process ran no test:\n%s", out)
		}
		return
	}
	reg, kinds := shippedKinds(t)
	followed := 0
	for _, k := range kinds {
		if k.GVK.Group != "shipping.kubeforge.dev" && k.GVK.Group != "infra.kubeforge.dev" {
			continue
		}
		typ := reflect.TypeOf(k.New()).Elem()
		jsonencode.RegisterCustomResource(jsonencode.CustomResource{Type: typ, StatusSubresource: k.GVK.Kind == "Shipment"})
		k.CustomResource, k.HasStatus = true, k.GVK.Kind == "Shipment"
		t.Run(k.GVK.String(), func(t *testing.T) {
			fast, err := reg.FieldManager(k, "")
			if err != nil {
				t.Fatal(err)
			}
			slow, err := fieldmanager.UnprovenFieldManager(reg, k, "")
			if err != nil {
				t.Fatal(err)
			}
			var prev runtime.Object
			for seed := range int64(100) {
				obj, live := fuzzedCreate(k, seed)
				want, err := slow.Update(live.DeepCopyObject(), obj.DeepCopyObject(), "m")
				if err != nil {
					continue // duplicates, refused by both
				}
				got, err := fast.Update(live.DeepCopyObject(), obj.DeepCopyObject(), "m")
				if err != nil {
					t.Fatalf("seed %d: create: %v", seed, err)
				}
				sameEntries(t, fmt.Sprintf("seed %d: create", seed), got, want)
				followed++
				if prev != nil {
					// An update by another manager of the previous object.
					next := obj.DeepCopyObject()
					next.(metav1.Object).SetManagedFields(prev.(metav1.Object).GetManagedFields())
					want, werr := slow.Update(prev.DeepCopyObject(), next.DeepCopyObject(), "n")
					got, gerr := fast.Update(prev.DeepCopyObject(), next.DeepCopyObject(), "n")
					if (werr == nil) != (gerr == nil) {
						t.Fatalf("seed %d: update: %v, structured-merge-diff: %v", seed, gerr, werr)
					}
					if werr == nil {
						sameEntries(t, fmt.Sprintf("seed %d: update", seed), got, want)
					}
				}
				prev = want
			}
		})
	}
	if followed < 100 {
		t.Errorf("%d creates compared", followed)
	}

	// A parcel sent without weight: kube's object has none, so no one owns it.
	var shipment fieldmanager.Kind
	for _, k := range kinds {
		if k.GVK.Group == "shipping.kubeforge.dev" && k.GVK.Version == "v1" && k.GVK.Kind == "Shipment" {
			shipment = k
		}
	}
	shipment.CustomResource, shipment.HasStatus = true, true
	fm, err := reg.FieldManager(shipment, "")
	if err != nil {
		t.Fatal(err)
	}
	newShipment := func(weight resource.Quantity) runtime.Object {
		s := &shippingv1.Shipment{Spec: shippingv1.ShipmentSpec{Parcels: []shippingv1.Parcel{{Name: "p", Weight: weight}}}}
		s.SetGroupVersionKind(shipment.GVK)
		return s
	}
	for _, c := range []struct {
		weight resource.Quantity
		owned  bool
	}{{resource.Quantity{}, false}, {resource.MustParse("0"), true}, {resource.MustParse("2"), true}} {
		out, err := fm.Update(newShipment(resource.Quantity{}), newShipment(c.weight), "m")
		if err != nil {
			t.Fatal(err)
		}
		mf := out.(metav1.Object).GetManagedFields()
		if len(mf) != 1 || bytes.Contains(mf[0].FieldsV1.Raw, []byte(`"f:weight"`)) != c.owned {
			t.Errorf("weight %#v: owned %v, want %v: %s", c.weight, !c.owned, c.owned, mf)
		}
	}
}

func sameEntries(t *testing.T, what string, got, want runtime.Object) {
	t.Helper()
	g, w := got.(metav1.Object).GetManagedFields(), want.(metav1.Object).GetManagedFields()
	if len(g) != len(w) {
		t.Fatalf("%s: %d entries, structured-merge-diff %d:\n %+v\n %+v", what, len(g), len(w), g, w)
	}
	for i := range g {
		if g[i].Manager != w[i].Manager || !bytes.Equal(g[i].FieldsV1.Raw, w[i].FieldsV1.Raw) {
			t.Fatalf("%s: entry %d:\n fast:                  %s %s\n structured-merge-diff: %s %s", what, i, g[i].Manager, g[i].FieldsV1.Raw, w[i].Manager, w[i].FieldsV1.Raw)
		}
	}
}
