package jsonencode_test

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"

	shippingv1 "github.com/kubeforge/kubeforge/types/shipping/v1"
)

// fuzzTypes are the types FuzzMarshal decodes each input into, to encode
// what was decoded (a failed decode leaves a partial value, encoded too).
var fuzzTypes = []reflect.Type{reflect.TypeFor[shippingv1.Shipment](), reflect.TypeFor[corev1.Pod](), reflect.TypeFor[edge](), reflect.TypeFor[any]()}

// FuzzMarshal: values decoded from the input, the input as a string, as
// map keys, as the output of a MarshalJSON (json.RawMessage: compaction
// and its errors) and as floats of both sizes encode as encoding/json
// encodes them, bytes and errors.
func FuzzMarshal(f *testing.F) {
	for _, in := range []string{storedShipment, storedConfigMap, storedEvent, `{"a" : [1, 2.5e-7, "<\u2028>"]}`, "\"\xff\xe2\x80\xa8\"", `01`, `[1,]`, ``, ` null `, `{"Marsh":null,"Z":{"N":2}}`} {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, typ := range fuzzTypes {
			v := reflect.New(typ)
			_ = json.Unmarshal(data, v.Interface())
			same(t, v.Interface(), false)
			same(t, v.Elem().Interface(), false)
		}
		s := string(data)
		same(t, s, true)
		same(t, map[string]string{s: s, "k": s}, true)
		same(t, json.RawMessage(data), false)
		same(t, struct {
			Q string `json:"q,string"`
			N json.Number
		}{Q: s, N: json.Number(s)}, false)
		if len(data) >= 8 {
			bits := binary.LittleEndian.Uint64(data)
			same(t, math.Float64frombits(bits), false)
			same(t, math.Float32frombits(uint32(bits)), false)
		}
	})
}
