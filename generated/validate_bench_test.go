package generated_test

import (
	"encoding/json"
	"testing"

	shipv1 "github.com/kubeforge/kubeforge/generated/shipping/v1"
	"github.com/kubeforge/kubeforge/runtime/presence"
	typesv1 "github.com/kubeforge/kubeforge/types/shipping/v1"
)

// BenchmarkValidateShipment: the generated validation of a Shipment as
// cmd/bench creates it, asking the request's JSON (json: the zero
// omitempty fields with markers ask whether they were sent) and not
// (none).
func BenchmarkValidateShipment(b *testing.B) {
	body := []byte(`{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":"s1","namespace":"default","creationTimestamp":null},"spec":{"origin":{"street":"Hauptstr. 1","city":"Berlin"},"destination":{"street":"Ring 2","city":"Hamburg"},"parcels":[{"name":"box","weight":"2500","count":2}]},"status":{}}`)
	var s typesv1.Shipment
	if err := json.Unmarshal(body, &s); err != nil {
		b.Fatal(err)
	}
	shipv1.SetObjectDefaultsFrom_Shipment(&s, presence.JSON(body))
	for _, tc := range []struct {
		name string
		in   presence.Node
	}{{"json", presence.JSON(body)}, {"none", presence.Node{}}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if errs := shipv1.ValidateShipmentFrom(&s, tc.in); len(errs) != 0 {
					b.Fatal(errs)
				}
			}
		})
	}
}
