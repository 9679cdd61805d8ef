package jsonencode_test

import (
	"encoding/json"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	shippingv1 "github.com/kubeforge/kubeforge/types/shipping/v1"

	"github.com/kubeforge/kubeforge/runtime/jsonencode"
)

// storedShipment is a Shipment as cmd/bench creates it and the apiserver
// stores it (1.1 KB): metadata with uid, creation time and managedFields.
const storedShipment = `{"kind":"Shipment","apiVersion":"shipping.kubeforge.dev/v1","metadata":{"name":"s-000042","namespace":"bench-0","uid":"6f1c2d3e-4b5a-4978-8c6d-5e4f3a2b1c0d","resourceVersion":"123","generation":1,"creationTimestamp":"2026-11-26T13:14:11Z","labels":{"bench":"true"},"managedFields":[{"manager":"bench","operation":"Update","apiVersion":"shipping.kubeforge.dev/v1","time":"2026-11-26T13:14:11Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:bench":{}}},"f:spec":{".":{},"f:destination":{".":{},"f:city":{},"f:country":{},"f:street":{}},"f:origin":{".":{},"f:city":{},"f:street":{}},"f:parcels":{},"f:priority":{},"f:tags":{}}}}]},"spec":{"priority":"Normal","origin":{"street":"Hauptstr. 1","city":"Berlin"},"destination":{"street":"High St 2","city":"London","country":"GB"},"parcels":[{"name":"box","weight":"2500","count":2}],"tags":["bench"],"handlingTime":"0s","delayTolerance":0},"status":{"phase":"Pending"}}`

// storedConfigMap is a ConfigMap with a few keys, as kubectl creates one.
const storedConfigMap = `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"app-config","namespace":"default","uid":"0b6a4f4e-8f7b-4a57-9f0b-1c2d3e4f5a6b","resourceVersion":"4711","creationTimestamp":"2026-11-26T13:14:11Z","labels":{"app":"web","tier":"frontend"},"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"data\":{\"LOG_LEVEL\":\"info\"},\"kind\":\"ConfigMap\"}\n"},"managedFields":[{"manager":"kubectl-client-side-apply","operation":"Update","apiVersion":"v1","time":"2026-11-26T13:14:11Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:LOG_LEVEL":{},"f:config.yaml":{}},"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}},"f:labels":{".":{},"f:app":{},"f:tier":{}}}}}]},"data":{"LOG_LEVEL":"info","config.yaml":"server:\n  port: 8080\n  host: \\u003call\\u003e\nfeatures: [a, b]\n"}}`

// storedEvent is a core/v1 Event as client-go's recorder writes one.
const storedEvent = `{"kind":"Event","apiVersion":"v1","metadata":{"name":"web-7d4b9c.17a2b3c4d5e6f789","namespace":"default","uid":"3c2b1a09-8f7e-4d6c-5b4a-392817161514","resourceVersion":"5120","creationTimestamp":"2026-11-26T13:14:11Z","managedFields":[{"manager":"kubelet","operation":"Update","apiVersion":"v1","time":"2026-11-26T13:14:11Z","fieldsType":"FieldsV1","fieldsV1":{"f:count":{},"f:firstTimestamp":{},"f:involvedObject":{},"f:lastTimestamp":{},"f:message":{},"f:reason":{},"f:reportingComponent":{},"f:reportingInstance":{},"f:source":{"f:component":{},"f:host":{}},"f:type":{}}}]},"involvedObject":{"kind":"Pod","namespace":"default","name":"web-7d4b9c","uid":"9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d","apiVersion":"v1","resourceVersion":"5100","fieldPath":"spec.containers{web}"},"reason":"Pulled","message":"Successfully pulled image \"nginx:1.27\" in 1.2s (1.2s including waiting). Image size: 72 MB.","source":{"component":"kubelet","host":"node-1"},"firstTimestamp":"2026-11-26T13:14:11Z","lastTimestamp":"2026-11-26T13:14:11Z","count":1,"type":"Normal","eventTime":null,"reportingComponent":"kubelet","reportingInstance":"node-1"}`

func TestBenchObjectsFast(t *testing.T) {
	for _, v := range benchObjects(t) {
		same(t, v.obj, true)
		if got, _ := json.Marshal(v.obj); string(got) != v.data {
			t.Errorf("%s: the stored JSON does not round-trip: %s", v.name, got)
		}
	}
}

type benchObject struct {
	name string
	data string
	obj  any
}

func benchObjects(t testing.TB) []benchObject {
	out := []benchObject{
		{name: "Shipment", data: storedShipment, obj: &shippingv1.Shipment{}},
		{name: "ConfigMap", data: storedConfigMap, obj: &corev1.ConfigMap{}},
		{name: "Event", data: storedEvent, obj: &corev1.Event{}},
	}
	for _, o := range out {
		if err := json.Unmarshal([]byte(o.data), o.obj); err != nil {
			t.Fatalf("%s: %v", o.name, err)
		}
	}
	return out
}

// BenchmarkMarshal: stored objects as the storage layer encodes them.
func BenchmarkMarshal(b *testing.B) {
	for _, o := range benchObjects(b) {
		b.Run(o.name+"/encoding-json", func(b *testing.B) {
			defer reportCPU(b)()
			b.ReportAllocs()
			b.SetBytes(int64(len(o.data)))
			for b.Loop() {
				if _, err := json.Marshal(o.obj); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(o.name+"/jsonencode", func(b *testing.B) {
			defer reportCPU(b)()
			b.ReportAllocs()
			b.SetBytes(int64(len(o.data)))
			for b.Loop() {
				if _, err := jsonencode.Marshal(o.obj); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(o.name+"/jsonencode-append", func(b *testing.B) {
			defer reportCPU(b)()
			b.ReportAllocs()
			b.SetBytes(int64(len(o.data)))
			buf := make([]byte, 0, 4096)
			for b.Loop() {
				var err error
				if buf, err = jsonencode.AppendMarshal(buf[:0], o.obj); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

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
