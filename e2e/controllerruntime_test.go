package e2e

import (
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	shippingv1 "github.com/kubeforge/kubeforge/generated/shipping/v1"
	typesv1 "github.com/kubeforge/kubeforge/types/shipping/v1"
)

// TestControllerRuntimeClient uses a controller-runtime client over a scheme
// built with the generated AddToScheme: typed CRUD and the status subresource.
func TestControllerRuntimeClient(t *testing.T) {
	s := sharedServer(t)
	s.ensureNamespaces(t, "crt")
	scheme := runtime.NewScheme()
	if err := shippingv1.AddToScheme(scheme); err != nil {
		t.Fatalf("AddToScheme: %v", err)
	}
	c, err := client.New(s.config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatalf("controller-runtime client: %v", err)
	}
	ctx := ctx(t, time.Minute)

	obj := &typesv1.Shipment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "crt", Name: "typed", Labels: map[string]string{"app": "crt"}},
		Spec: typesv1.ShipmentSpec{
			Origin:      typesv1.Address{Street: "A 1", City: "Hamburg"},
			Destination: typesv1.Address{Street: "B 2", City: "Munich"},
			Parcels:     []typesv1.Parcel{{Name: "crate", Weight: resource.MustParse("12")}},
		},
	}
	if err := c.Create(ctx, obj); err != nil {
		t.Fatalf("create: %v", err)
	}
	if obj.UID == "" || obj.ResourceVersion == "" || obj.Spec.Priority != typesv1.PriorityNormal || obj.Spec.Parcels[0].Count != 1 {
		t.Fatalf("create did not return the stored object: uid=%q rv=%q priority=%q count=%d", obj.UID, obj.ResourceVersion, obj.Spec.Priority, obj.Spec.Parcels[0].Count)
	}

	var got typesv1.Shipment
	if err := c.Get(ctx, client.ObjectKey{Namespace: "crt", Name: "typed"}, &got); err != nil {
		t.Fatalf("get: %v", err)
	}
	if got.Spec.Destination.Country != "DE" || !got.Spec.Parcels[0].Weight.Equal(resource.MustParse("12")) {
		t.Fatalf("get: country=%q weight=%s", got.Spec.Destination.Country, got.Spec.Parcels[0].Weight.String())
	}

	var list typesv1.ShipmentList
	if err := c.List(ctx, &list, client.InNamespace("crt"), client.MatchingLabels{"app": "crt"}); err != nil {
		t.Fatalf("list: %v", err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "typed" {
		t.Fatalf("list: %d items", len(list.Items))
	}

	got.Spec.Priority = typesv1.PriorityUrgent
	if err := c.Update(ctx, &got); err != nil {
		t.Fatalf("update: %v", err)
	}
	if got.Generation != 2 {
		t.Errorf("update: generation %d, want 2", got.Generation)
	}

	got.Status.Phase = typesv1.PhaseDelivered
	got.Status.ObservedGeneration = got.Generation
	now := metav1.NewTime(time.Now().UTC().Truncate(time.Second))
	got.Status.DeliveredAt = &now
	if err := c.Status().Update(ctx, &got); err != nil {
		t.Fatalf("status update: %v", err)
	}
	var after typesv1.Shipment
	if err := c.Get(ctx, client.ObjectKeyFromObject(&got), &after); err != nil {
		t.Fatalf("get after status update: %v", err)
	}
	if after.Status.Phase != typesv1.PhaseDelivered || after.Status.DeliveredAt == nil || !after.Status.DeliveredAt.Equal(&now) || after.Generation != 2 {
		t.Fatalf("status after status update: phase=%q deliveredAt=%v generation=%d", after.Status.Phase, after.Status.DeliveredAt, after.Generation)
	}

	// A spec change through the status subresource is ignored.
	after.Spec.Priority = typesv1.PriorityLow
	after.Status.Attempts = 2
	if err := c.Status().Update(ctx, &after); err != nil {
		t.Fatalf("second status update: %v", err)
	}
	if after.Spec.Priority != typesv1.PriorityUrgent || after.Status.Attempts != 2 {
		t.Fatalf("status update changed the spec or dropped the status: priority=%q attempts=%d", after.Spec.Priority, after.Status.Attempts)
	}

	if err := c.Delete(ctx, &after); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(&after), &got); !apierrors.IsNotFound(err) {
		t.Fatalf("get after delete: want NotFound, got %v", err)
	}
}
