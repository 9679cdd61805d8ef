package jsondecode_test

import (
	"reflect"
	"syscall"
	"testing"
	"time"

	sigsjson "sigs.k8s.io/json"

	shippingv1 "github.com/kubeforge/kubeforge/types/shipping/v1"

	"github.com/kubeforge/kubeforge/runtime/jsondecode"
)

// storedShipment is a Shipment as cmd/bench creates it and the apiserver
// stores it (1.1 KB): metadata with uid, creation time and managedFields.
const storedShipment = `{"kind":"Shipment","apiVersion":"shipping.kubeforge.dev/v1","metadata":{"name":"s-000042","namespace":"bench-0","uid":"6f1c2d3e-4b5a-4978-8c6d-5e4f3a2b1c0d","generation":1,"creationTimestamp":"2026-11-26T13:14:11Z","labels":{"bench":"true"},"managedFields":[{"manager":"bench","operation":"Update","apiVersion":"shipping.kubeforge.dev/v1","time":"2026-11-26T13:14:11Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:bench":{}}},"f:spec":{".":{},"f:destination":{".":{},"f:city":{},"f:country":{},"f:street":{}},"f:origin":{".":{},"f:city":{},"f:street":{}},"f:parcels":{},"f:priority":{},"f:tags":{}}}}]},"spec":{"priority":"Normal","origin":{"street":"Hauptstr. 1","city":"Berlin"},"destination":{"street":"High St 2","city":"London","country":"GB"},"parcels":[{"name":"box","weight":"2500","count":2}],"tags":["bench"],"handlingTime":"0s","delayTolerance":0},"status":{"phase":"Pending"}}`

// createBody is the body of cmd/bench's creates.
const createBody = `{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"labels":{"bench":"true"},"name":"s-000042","namespace":"bench-0"},"spec":{"destination":{"city":"London","country":"GB","street":"High St 2"},"origin":{"city":"Berlin","street":"Hauptstr. 1"},"parcels":[{"count":2,"name":"box","weight":"2500"}],"priority":"Normal","tags":["bench"]}}`

// BenchmarkDecodeRequestBody: a create's body as the handler decodes it
// with the default fieldValidation (Warn: UnmarshalStrict).
func BenchmarkDecodeRequestBody(b *testing.B) {
	data := []byte(createBody)
	b.Run("sigs.k8s.io/json", func(b *testing.B) {
		defer reportCPU(b)()
		b.ReportAllocs()
		for b.Loop() {
			var s shippingv1.Shipment
			if errs, err := sigsjson.UnmarshalStrict(data, &s); err != nil || errs != nil {
				b.Fatal(err, errs)
			}
		}
	})
	b.Run("jsondecode", func(b *testing.B) {
		defer reportCPU(b)()
		b.ReportAllocs()
		for b.Loop() {
			var s shippingv1.Shipment
			if errs, err := jsondecode.UnmarshalStrict(data, &s); err != nil || errs != nil {
				b.Fatal(err, errs)
			}
		}
	})
}

func TestStoredShipmentFast(t *testing.T) {
	var s shippingv1.Shipment
	if !jsondecode.Unmarshal([]byte(storedShipment), &s) {
		t.Fatal("the stored Shipment bailed out")
	}
	check(t, reflectTypeOf(&s), []byte(storedShipment))
	if !check(t, reflectTypeOf(&s), []byte(createBody)) {
		t.Fatal("the create body bailed out")
	}
}

func BenchmarkDecodeStoredShipment(b *testing.B) {
	data := []byte(storedShipment)
	b.Run("sigs.k8s.io/json", func(b *testing.B) {
		defer reportCPU(b)()
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var s shippingv1.Shipment
			if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, &s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jsondecode", func(b *testing.B) {
		defer reportCPU(b)()
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var s shippingv1.Shipment
			if !jsondecode.Unmarshal(data, &s) {
				b.Fatal("bailed out")
			}
		}
	})
}

func reflectTypeOf[T any](*T) reflect.Type { return reflect.TypeFor[T]() }

// reportCPU reports the process's CPU time per op (user and system, GC
// workers included), which other loads on the machine do not inflate as
// they do ns/op.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
