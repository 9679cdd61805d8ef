package fieldmanager_test

import (
	"github.com/kubeforge/kubeforge/runtime/presence"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	shippingv1 "github.com/kubeforge/kubeforge/generated/shipping/v1"
	"github.com/kubeforge/kubeforge/runtime/fieldmanager"
	typesv1 "github.com/kubeforge/kubeforge/types/shipping/v1"
)

// benchShipment is the object cmd/bench creates, defaulted as the
// handler defaults it.
func benchShipment() *typesv1.Shipment {
	s := shippingv1.ShipmentStrategy.New()
	s.SetGroupVersionKind(shippingv1.ShipmentInfo.GroupVersionKind())
	s.Name, s.Namespace = "s-000001", "bench-0"
	s.Labels = map[string]string{"bench": "true"}
	s.Spec.Priority = "Normal"
	s.Spec.Origin = typesv1.Address{Street: "Hauptstr. 1", City: "Berlin"}
	s.Spec.Destination = typesv1.Address{Street: "High St 2", City: "London", Country: "GB"}
	s.Spec.Parcels = []typesv1.Parcel{{Name: "box", Count: 2}}
	s.Spec.Parcels[0].Weight.Set(2500)
	s.Spec.Tags = []string{"bench"}
	shippingv1.ShipmentStrategy.Default(s, presence.Node{})
	return s
}

func benchManager(b *testing.B) *fieldmanager.FieldManager {
	b.Helper()
	reg := shippingRegistry(&testing.T{}, true)
	s := shippingv1.ShipmentStrategy
	fm, err := reg.FieldManager(fieldmanager.Kind{
		GVK:       s.Info.GroupVersionKind(),
		New:       func() runtime.Object { return s.New() },
		Default:   func(obj runtime.Object, in presence.Node) { s.Default(obj.(*typesv1.Shipment), in) },
		HasStatus: s.Info.HasStatus(),
	}, "")
	if err != nil {
		b.Fatal(err)
	}
	return fm
}

// BenchmarkUpdateCreate is the managedFields work of a create.
func BenchmarkUpdateCreate(b *testing.B) {
	fm := benchManager(b)
	obj := benchShipment()
	b.ReportAllocs()
	for b.Loop() {
		live := shippingv1.ShipmentStrategy.New()
		live.SetGroupVersionKind(shippingv1.ShipmentInfo.GroupVersionKind())
		if _, err := fm.Update(live, obj.DeepCopy(), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdateUpdate is the managedFields work of an update by the
// manager that created the object, changing one field.
func BenchmarkUpdateUpdate(b *testing.B) {
	fm := benchManager(b)
	live := shippingv1.ShipmentStrategy.New()
	live.SetGroupVersionKind(shippingv1.ShipmentInfo.GroupVersionKind())
	created, err := fm.Update(live, benchShipment(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	cur := created.(*typesv1.Shipment)
	cur.UID, cur.ResourceVersion = "u", "2"
	cur.CreationTimestamp = metav1.Now()
	next := cur.DeepCopy()
	next.Spec.Priority = "Urgent"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := fm.Update(cur, next.DeepCopy(), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdatePaths is the managedFields work of updates of a
// Shipment through the update path ("path") and through apimachinery's
// field manager alone ("kube"): by the creator changing one field, by
// another manager changing it (the creator loses it), and a status
// update.
func BenchmarkUpdatePaths(b *testing.B) {
	reg := shippingRegistry(&testing.T{}, true)
	s := shippingv1.ShipmentStrategy
	kind := fieldmanager.Kind{
		GVK:       s.Info.GroupVersionKind(),
		New:       func() runtime.Object { return s.New() },
		Default:   func(obj runtime.Object, in presence.Node) { s.Default(obj.(*typesv1.Shipment), in) },
		HasStatus: s.Info.HasStatus(),
	}
	main, err := reg.FieldManager(kind, "")
	if err != nil {
		b.Fatal(err)
	}
	status, err := reg.FieldManager(kind, "status")
	if err != nil {
		b.Fatal(err)
	}
	live := s.New()
	live.SetGroupVersionKind(shippingv1.ShipmentInfo.GroupVersionKind())
	created, err := main.Update(live, benchShipment(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	cur := created.(*typesv1.Shipment)
	cur.UID, cur.ResourceVersion = "u", "2"
	cur.CreationTimestamp = metav1.Now()
	next := cur.DeepCopy()
	next.Spec.Priority = "Urgent"
	withStatus := cur.DeepCopy()
	withStatus.Status.Phase = typesv1.PhaseDelivered
	cases := []struct {
		name    string
		fm      *fieldmanager.FieldManager
		obj     *typesv1.Shipment
		manager string
	}{
		{"creator", main, next, "bench"},
		{"other", main, next, "other"},
		{"status", status, withStatus, "controller"},
	}
	for _, c := range cases {
		for _, via := range []string{"path", "kube"} {
			b.Run(c.name+"/"+via, func(b *testing.B) {
				update := c.fm.Update
				if via == "kube" {
					update = c.fm.FieldManager.Update
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := update(cur, c.obj.DeepCopy(), c.manager); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
