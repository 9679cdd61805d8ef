// Package roundtrip checks the generated conversions by property: random hub
// objects survive hub -> spoke -> hub, random spoke objects spoke -> hub ->
// spoke, for the project's shipping types, its events.k8s.io/v1 Event over
// core/v1 Event and the acceptance testdata.
package roundtrip

import (
	"encoding/json"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	k8seventsv1 "k8s.io/api/events/v1"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"

	eventsv1 "github.com/kubeforge/kubeforge/generated/events/v1"
	shippingv1alpha1 "github.com/kubeforge/kubeforge/generated/shipping/v1alpha1"
	acceptancev1alpha1 "github.com/kubeforge/kubeforge/generators/conversion/testdata/accept/generated/acceptance/v1alpha1"
	accv1 "github.com/kubeforge/kubeforge/generators/conversion/testdata/accept/types/acceptance/v1"
	accv1alpha1 "github.com/kubeforge/kubeforge/generators/conversion/testdata/accept/types/acceptance/v1alpha1"
	kfconversion "github.com/kubeforge/kubeforge/runtime/conversion"
	v1 "github.com/kubeforge/kubeforge/types/shipping/v1"
	v1alpha1 "github.com/kubeforge/kubeforge/types/shipping/v1alpha1"
)

const iterations = 500

// filler fills values randomly; times at second precision and canonical
// quantities, as they come out of JSON (the annotation is JSON).
func filler(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0.2).NumElements(0, 3).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(c.Int63n(1<<40), resource.DecimalSI)
		},
		func(t *metav1.Time, c randfill.Continue) {
			*t = metav1.Unix(c.Int63n(4e9), 0).Rfc3339Copy()
		},
		func(t *metav1.MicroTime, c randfill.Continue) {
			*t = metav1.NewMicroTime(time.Unix(c.Int63n(4e9), c.Int63n(1e6)*1e3))
		},
		func(x *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*x = intstr.FromInt32(c.Int31())
			} else {
				*x = intstr.FromString(c.String(6))
			}
		},
		func(tm *metav1.TypeMeta, c randfill.Continue) { *tm = metav1.TypeMeta{} },
		func(m *metav1.ObjectMeta, c randfill.Continue) {
			c.FillNoCustom(m)
			m.CreationTimestamp = metav1.Unix(c.Int63n(4e9), 0).Rfc3339Copy()
			m.DeletionTimestamp = nil
			m.ManagedFields = nil
			delete(m.Annotations, kfconversion.DataAnnotation)
		},
		// Some keys repeat so keyed restoration meets duplicates.
		func(p *v1.Parcel, c randfill.Continue) {
			c.FillNoCustom(p)
			p.Name = string(rune('a' + c.Intn(3)))
			c.Fill(&p.Weight)
		},
		func(p *v1alpha1.Parcel, c randfill.Continue) {
			c.FillNoCustom(p)
			p.Name = string(rune('a' + c.Intn(3)))
		},
		func(p *v1.Priority, c randfill.Continue) {
			*p = []v1.Priority{"", v1.PriorityLow, v1.PriorityNormal, v1.PriorityUrgent, v1.Priority(c.String(4))}[c.Intn(5)]
		},
	)
}

// wire sends obj through JSON, as a client reading and writing it does.
func wire[T any](t *testing.T, obj *T) *T {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	out := new(T)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	return out
}

func dump(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// hubRoundTrip checks hub -> spoke (over the wire) -> hub is the identity.
func hubRoundTrip[H, S any](t *testing.T, from func(*H) (*S, error), to func(*S) (*H, error), reset func(*H)) {
	t.Helper()
	f := filler(1)
	for i := 0; i < iterations; i++ {
		h := new(H)
		f.Fill(h)
		reset(h)
		s, err := from(h)
		if err != nil {
			t.Fatalf("from hub: %v", err)
		}
		back, err := to(wire(t, s))
		if err != nil {
			t.Fatalf("to hub: %v", err)
		}
		reset(back)
		if !equality.Semantic.DeepEqual(h, back) {
			t.Fatalf("iteration %d: hub -> spoke -> hub changed the object\nhub:\n%s\nspoke:\n%s\nback:\n%s", i, dump(h), dump(s), dump(back))
		}
	}
}

// spokeRoundTrip checks spoke -> hub -> spoke is the identity and adds no
// annotation.
func spokeRoundTrip[S, H any](t *testing.T, to func(*S) (*H, error), from func(*H) (*S, error), reset func(*S)) {
	t.Helper()
	f := filler(2)
	for i := 0; i < iterations; i++ {
		s := new(S)
		f.Fill(s)
		reset(s)
		h, err := to(s)
		if err != nil {
			t.Fatalf("to hub: %v", err)
		}
		back, err := from(wire(t, h))
		if err != nil {
			t.Fatalf("from hub: %v", err)
		}
		reset(back)
		if !equality.Semantic.DeepEqual(s, back) {
			t.Fatalf("iteration %d: spoke -> hub -> spoke changed the object\nspoke:\n%s\nhub:\n%s\nback:\n%s", i, dump(s), dump(h), dump(back))
		}
	}
}

func TestShippingRoundTrip(t *testing.T) {
	t.Run("hub", func(t *testing.T) {
		hubRoundTrip(t, shippingv1alpha1.ShipmentFromHub, shippingv1alpha1.ShipmentToHub, func(o *v1.Shipment) { o.TypeMeta = metav1.TypeMeta{} })
	})
	t.Run("spoke", func(t *testing.T) {
		spokeRoundTrip(t, shippingv1alpha1.ShipmentToHub, shippingv1alpha1.ShipmentFromHub, func(o *v1alpha1.Shipment) { o.TypeMeta = metav1.TypeMeta{} })
	})
	t.Run("hubList", func(t *testing.T) {
		hubRoundTrip(t, shippingv1alpha1.ShipmentListFromHub, shippingv1alpha1.ShipmentListToHub, func(o *v1.ShipmentList) {
			o.TypeMeta = metav1.TypeMeta{}
			for i := range o.Items {
				o.Items[i].TypeMeta = metav1.TypeMeta{}
			}
		})
	})
}

func TestAcceptanceRoundTrip(t *testing.T) {
	t.Run("hub", func(t *testing.T) {
		hubRoundTrip(t, acceptancev1alpha1.GadgetFromHub, acceptancev1alpha1.GadgetToHub, func(o *accv1.Gadget) { o.TypeMeta = metav1.TypeMeta{} })
	})
	t.Run("spoke", func(t *testing.T) {
		spokeRoundTrip(t, acceptancev1alpha1.GadgetToHub, acceptancev1alpha1.GadgetFromHub, func(o *accv1alpha1.Gadget) { o.TypeMeta = metav1.TypeMeta{} })
	})
}

// TestEventsRoundTrip: events.k8s.io/v1 Event is stored as core/v1 Event
// (+kubeforge:external storedAs=). The two express the same fields, so
// both directions are the identity and nothing is ever kept in the
// conversion-data annotation.
func TestEventsRoundTrip(t *testing.T) {
	t.Run("core", func(t *testing.T) {
		hubRoundTrip(t, eventsv1.EventFromHub, eventsv1.EventToHub, func(o *corev1.Event) { o.TypeMeta = metav1.TypeMeta{} })
	})
	t.Run("events", func(t *testing.T) {
		spokeRoundTrip(t, eventsv1.EventToHub, eventsv1.EventFromHub, func(o *k8seventsv1.Event) { o.TypeMeta = metav1.TypeMeta{} })
	})
	t.Run("coreList", func(t *testing.T) {
		hubRoundTrip(t, eventsv1.EventListFromHub, eventsv1.EventListToHub, func(o *corev1.EventList) {
			o.TypeMeta = metav1.TypeMeta{}
			for i := range o.Items {
				o.Items[i].TypeMeta = metav1.TypeMeta{}
			}
		})
	})
	t.Run("no annotation", func(t *testing.T) {
		f := filler(3)
		for i := 0; i < iterations; i++ {
			h := new(corev1.Event)
			f.Fill(h)
			s, err := eventsv1.EventFromHub(h)
			if err != nil {
				t.Fatal(err)
			}
			if v, ok := s.Annotations[kfconversion.DataAnnotation]; ok {
				t.Fatalf("iteration %d: core/v1 Event kept %s=%s through events.k8s.io/v1", i, kfconversion.DataAnnotation, v)
			}
		}
	})
}

// TestEventsFields: the fields events.k8s.io/v1 renamed map to their core/v1
// counterparts, as in kube-apiserver.
func TestEventsFields(t *testing.T) {
	first, last := metav1.Unix(100, 0), metav1.Unix(200, 0)
	when := metav1.NewMicroTime(time.Unix(300, 123456000))
	ev := &k8seventsv1.Event{
		ObjectMeta:               metav1.ObjectMeta{Name: "e", Namespace: "ns"},
		EventTime:                when,
		Series:                   &k8seventsv1.EventSeries{Count: 2, LastObservedTime: when},
		ReportingController:      "example.dev/ctl",
		ReportingInstance:        "ctl-1",
		Action:                   "Dispatch",
		Reason:                   "Dispatched",
		Regarding:                corev1.ObjectReference{Kind: "Shipment", Name: "first"},
		Related:                  &corev1.ObjectReference{Kind: "Pod", Name: "p"},
		Note:                     "in transit",
		Type:                     corev1.EventTypeNormal,
		DeprecatedSource:         corev1.EventSource{Component: "c", Host: "h"},
		DeprecatedFirstTimestamp: first,
		DeprecatedLastTimestamp:  last,
		DeprecatedCount:          4,
	}
	core, err := eventsv1.EventToHub(ev)
	if err != nil {
		t.Fatal(err)
	}
	want := &corev1.Event{
		TypeMeta:            metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta:          ev.ObjectMeta,
		InvolvedObject:      ev.Regarding,
		Reason:              "Dispatched",
		Message:             "in transit",
		Source:              ev.DeprecatedSource,
		FirstTimestamp:      first,
		LastTimestamp:       last,
		Count:               4,
		Type:                corev1.EventTypeNormal,
		EventTime:           when,
		Series:              &corev1.EventSeries{Count: 2, LastObservedTime: when},
		Action:              "Dispatch",
		Related:             ev.Related,
		ReportingController: "example.dev/ctl",
		ReportingInstance:   "ctl-1",
	}
	if !equality.Semantic.DeepEqual(core, want) {
		t.Errorf("core/v1 Event:\n%s\nwant:\n%s", dump(core), dump(want))
	}
	back, err := eventsv1.EventFromHub(core)
	if err != nil {
		t.Fatal(err)
	}
	if back.APIVersion != "events.k8s.io/v1" || back.Kind != "Event" {
		t.Errorf("TypeMeta %+v", back.TypeMeta)
	}
	back.TypeMeta = metav1.TypeMeta{}
	if !equality.Semantic.DeepEqual(back, ev) {
		t.Errorf("events.k8s.io/v1 Event back:\n%s\nwant:\n%s", dump(back), dump(ev))
	}
	// Series of the two groups are different types, converted by the
	// scheme functions too.
	s := runtime.NewScheme()
	if err := eventsv1.RegisterConversions(s); err != nil {
		t.Fatal(err)
	}
	var series k8seventsv1.EventSeries
	if err := s.Convert(&corev1.EventSeries{Count: 7, LastObservedTime: when}, &series, nil); err != nil || series.Count != 7 || !series.LastObservedTime.Equal(&when) {
		t.Errorf("convert EventSeries: %v %+v", err, series)
	}
}

func shipment() *v1.Shipment {
	return &v1.Shipment{
		ObjectMeta: metav1.ObjectMeta{Name: "s1", Namespace: "ns"},
		Spec: v1.ShipmentSpec{
			Priority:    v1.PriorityLow,
			Origin:      v1.Address{Street: "1 Main St", City: "Leeds", PostalCode: "LS1 1AA", Country: "GB"},
			Destination: v1.Address{City: "Berlin", PostalCode: "10115"},
			Parcels: []v1.Parcel{
				{Name: "a", Weight: resource.MustParse("1k"), Count: 1},
				{Name: "b", Weight: resource.MustParse("2k"), Count: 2, Fragile: true},
			},
			Tags: []string{"x"},
		},
	}
}

// TestReadModifyWrite edits through v1alpha1 and checks the v1 result.
func TestReadModifyWrite(t *testing.T) {
	h := shipment()
	s, err := shippingv1alpha1.ShipmentFromHub(h)
	if err != nil {
		t.Fatal(err)
	}
	if s.APIVersion != "shipping.kubeforge.dev/v1alpha1" || s.Kind != "Shipment" {
		t.Errorf("TypeMeta = %+v", s.TypeMeta)
	}
	if s.Spec.Urgent || s.Spec.From.City != "Leeds" {
		t.Errorf("spoke spec = %+v", s.Spec)
	}
	if _, ok := s.Annotations[kfconversion.DataAnnotation]; !ok {
		t.Fatalf("no %s annotation on the spoke", kfconversion.DataAnnotation)
	}

	// Unchanged: everything comes back, the annotation does not.
	back, err := shippingv1alpha1.ShipmentToHub(wire(t, s))
	if err != nil {
		t.Fatal(err)
	}
	if back.APIVersion != "shipping.kubeforge.dev/v1" || back.Kind != "Shipment" || back.Annotations != nil {
		t.Errorf("hub TypeMeta %+v annotations %v", back.TypeMeta, back.Annotations)
	}
	back.TypeMeta = metav1.TypeMeta{}
	if !equality.Semantic.DeepEqual(h, back) {
		t.Errorf("round trip changed the object:\n%s\n%s", dump(h), dump(back))
	}

	// urgent=true wins over the saved Low; reordered parcels keep their weights.
	s2 := wire(t, s)
	s2.Spec.Urgent = true
	s2.Spec.Parcels[0], s2.Spec.Parcels[1] = s2.Spec.Parcels[1], s2.Spec.Parcels[0]
	back, err = shippingv1alpha1.ShipmentToHub(s2)
	if err != nil {
		t.Fatal(err)
	}
	if back.Spec.Priority != v1.PriorityUrgent {
		t.Errorf("priority = %q, want Urgent", back.Spec.Priority)
	}
	if back.Spec.Parcels[0].Name != "b" || back.Spec.Parcels[0].Weight.String() != "2k" || !back.Spec.Parcels[0].Fragile || back.Spec.Parcels[1].Weight.String() != "1k" {
		t.Errorf("parcels = %+v", back.Spec.Parcels)
	}
	if back.Spec.Origin.PostalCode != "LS1 1AA" || back.Spec.Destination.PostalCode != "10115" {
		t.Errorf("postal codes lost: %+v %+v", back.Spec.Origin, back.Spec.Destination)
	}

	// Urgent read as urgent=true, set to false: Normal, not the saved Urgent.
	h.Spec.Priority = v1.PriorityUrgent
	s, err = shippingv1alpha1.ShipmentFromHub(h)
	if err != nil {
		t.Fatal(err)
	}
	s.Spec.Urgent = false
	back, err = shippingv1alpha1.ShipmentToHub(s)
	if err != nil {
		t.Fatal(err)
	}
	if back.Spec.Priority != v1.PriorityNormal {
		t.Errorf("priority = %q, want Normal", back.Spec.Priority)
	}

	// A changed origin through "from" drops the saved origin (its postal code).
	s, _ = shippingv1alpha1.ShipmentFromHub(shipment())
	s.Spec.From.City = "York"
	back, err = shippingv1alpha1.ShipmentToHub(s)
	if err != nil {
		t.Fatal(err)
	}
	if back.Spec.Origin.City != "York" || back.Spec.Origin.PostalCode != "" {
		t.Errorf("origin = %+v", back.Spec.Origin)
	}
}

// TestAnnotationEdited: a deleted or garbled annotation is ignored without
// error (the v1-only fields are then empty) and never reaches the hub.
func TestAnnotationEdited(t *testing.T) {
	for name, value := range map[string]*string{"deleted": nil, "garbage": ptr("{not json"), "wrong type": ptr(`{"spec":{"tags":7}}`)} {
		t.Run(name, func(t *testing.T) {
			s, err := shippingv1alpha1.ShipmentFromHub(shipment())
			if err != nil {
				t.Fatal(err)
			}
			delete(s.Annotations, kfconversion.DataAnnotation)
			if value != nil {
				s.Annotations[kfconversion.DataAnnotation] = *value
			}
			back, err := shippingv1alpha1.ShipmentToHub(s)
			if err != nil {
				t.Fatalf("ToHub: %v", err)
			}
			if _, ok := back.Annotations[kfconversion.DataAnnotation]; ok {
				t.Errorf("annotation reached the hub")
			}
			if back.Spec.Tags != nil || back.Spec.Parcels[0].Weight.Sign() != 0 || back.Spec.Priority != v1.PriorityNormal {
				t.Errorf("v1-only fields restored from a bad annotation: %+v", back.Spec)
			}
		})
	}
}

func ptr(s string) *string { return &s }

// TestScheme: RegisterConversions makes scheme.Convert work, kinds with the
// annotation, inner types with the typed functions.
func TestScheme(t *testing.T) {
	s := runtime.NewScheme()
	if err := shippingv1alpha1.RegisterConversions(s); err != nil {
		t.Fatal(err)
	}
	sp := &v1alpha1.Shipment{}
	if err := s.Convert(shipment(), sp, nil); err != nil {
		t.Fatal(err)
	}
	if sp.Spec.From.City != "Leeds" || sp.Annotations[kfconversion.DataAnnotation] == "" {
		t.Errorf("converted spoke = %s", dump(sp))
	}
	h := &v1.Shipment{}
	if err := s.Convert(sp, h, nil); err != nil {
		t.Fatal(err)
	}
	h.TypeMeta = metav1.TypeMeta{}
	if !equality.Semantic.DeepEqual(shipment(), h) {
		t.Errorf("scheme round trip:\n%s", dump(h))
	}
	addr := &v1.Address{}
	if err := s.Convert(&v1alpha1.Address{City: "Rome"}, addr, nil); err != nil || addr.City != "Rome" {
		t.Errorf("convert Address: %v %+v", err, addr)
	}
}
