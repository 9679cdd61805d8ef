package jsondecode_test

import (
	"math/rand"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"

	shippingv1 "github.com/kubeforge/kubeforge/types/shipping/v1"
)

// fuzzTypes are the types FuzzUnmarshal decodes each input into.
var fuzzTypes = []reflect.Type{reflect.TypeFor[shippingv1.Shipment](), reflect.TypeFor[corev1.Pod](), reflect.TypeFor[edge]()}

// FuzzUnmarshal: any input decodes on the fast path exactly as
// sigs.k8s.io/json decodes it, or bails out leaving the value zero. Seeded
// with marshaled objects, their mutations and the edge cases.
func FuzzUnmarshal(f *testing.F) {
	f.Add([]byte(storedShipment))
	for _, in := range edgeInputs {
		f.Add([]byte(in))
	}
	r := rand.New(rand.NewSource(1))
	for _, typ := range fuzzTypes[:2] {
		for _, data := range samples(f, typ, 7, 2) {
			f.Add(data)
			for _, m := range mutations(r, data, 3)[:10] {
				f.Add(m)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, typ := range fuzzTypes {
			check(t, typ, data)
		}
	})
}

// TestStringsMatch: strings of escapes, surrogates (paired, lone, in the
// wrong order), invalid and valid UTF-8 decode as sigs.k8s.io/json
// decodes them, as values and as keys of a map.
func TestStringsMatch(t *testing.T) {
	parts := []string{`a`, `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0000`, `\u00e9`, `\uFFFD`, `\ud83d`, `\ude00`, `\uD83D\uDE00`,
		`\ud800\u0041`, `\udc00\ud800`, "\xff", "\xc3", "\xc3\xa9", "\xed\xa0\x80", "\xf0\x9f\x98\x80", "\xf4\x90\x80\x80", "é", "\u2028", `<`, `&`}
	r := rand.New(rand.NewSource(2))
	typ := reflect.TypeFor[struct {
		S string            `json:"s"`
		M map[string]string `json:"m"`
		B []byte            `json:"b"`
	}]()
	for range 3000 {
		s := ""
		for range r.Intn(6) {
			s += parts[r.Intn(len(parts))]
		}
		q := `"` + s + `"`
		for _, doc := range []string{`{"s":` + q + `}`, `{"m":{` + q + `:` + q + `}}`, `{` + q + `:1}`, `{"b":` + q + `}`, `{"m":{"k":"v",` + q + `:"w"}}`} {
			check(t, typ, []byte(doc))
		}
	}
	if !check(t, typ, []byte(`{"s":"x\ud83d\ude00\udc00\u00e9\n"}`)) {
		t.Fatal("an escaped string bailed out")
	}
}
