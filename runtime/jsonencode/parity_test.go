package jsonencode_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"

	"github.com/kubeforge/kubeforge/internal/shipped"
	"github.com/kubeforge/kubeforge/runtime/jsonencode"
)

// shippedTypes are the Go types of every generated group-version
// (internal/shipped).
func shippedTypes(t testing.TB) []shipped.Type {
	t.Helper()
	types, err := shipped.Types()
	if err != nil {
		t.Fatal(err)
	}
	return types
}

// fuzzer fills objects of any type with values that stress the encoder:
// strings with characters encoding/json escapes or replaces, times of
// every precision and zone, quantities, IntOrStrings of both kinds, raw
// JSON with whitespace and HTML characters in RawExtension and FieldsV1,
// and floats of every magnitude.
func fuzzer(seed int64) *randfill.Filler {
	strs := []string{"", "a", "TCP", "<a&b>", "\xff", "a\u2028b\u2029", "é", `"q"\`, "line\nbreak\ttab\r", "\x00\x1f\x7f", "日本", "\U0001F600", "x/y", "\xed\xa0\x80", "\xc3"}
	raws := []string{`{"x":1,"y":[true,null,"\u00e9"]}`, `"s"`, " { \"a\" : [ 1 , 2.5e-3 ,\n\"<&>\u2028\" ] } ", `[]`, `{}`, `null`, `-0.0E+1`}
	floats := []float64{0, 1, -1, 0.1, 1e-6, 9.99e-7, 1e20, 1e21, 123456789.125, 3.4e38, 1e-320, 5e-324, -0.5}
	return randfill.NewWithSeed(seed).NilChance(0.2).NumElements(0, 3).Funcs(
		func(s *string, c randfill.Continue) {
			if c.Intn(4) == 0 {
				*s = c.String(12)
				return
			}
			*s = strs[c.Intn(len(strs))]
		},
		func(f *float64, c randfill.Continue) {
			if c.Bool() {
				*f = floats[c.Intn(len(floats))]
				return
			}
			*f = c.NormFloat64() * float64(int64(1)<<c.Intn(60))
		},
		func(q *apiresource.Quantity, c randfill.Continue) {
			switch c.Intn(4) {
			case 0:
				*q = *apiresource.NewQuantity(c.Int63n(1<<40), apiresource.DecimalSI)
			case 1:
				*q = *apiresource.NewMilliQuantity(c.Int63n(1<<20), apiresource.BinarySI)
			case 2:
				*q = apiresource.Quantity{}
			default:
				*q = apiresource.MustParse("1.5Gi")
			}
		},
		func(t *metav1.Time, c randfill.Continue) {
			switch c.Intn(3) {
			case 0:
				*t = metav1.Time{}
			case 1:
				*t = metav1.NewTime(time.Unix(c.Int63n(4e9), c.Int63n(1e9)).In(time.FixedZone("x", 3600)))
			default:
				*t = metav1.Unix(c.Int63n(4e9), 0).Rfc3339Copy()
			}
		},
		func(t *metav1.MicroTime, c randfill.Continue) {
			if c.Intn(4) == 0 {
				*t = metav1.MicroTime{}
				return
			}
			*t = metav1.NewMicroTime(time.Unix(c.Int63n(4e9), c.Int63n(1e9)))
		},
		func(x *intstr.IntOrString, c randfill.Continue) {
			switch c.Intn(3) {
			case 0:
				*x = intstr.FromInt32(c.Int31() - 1<<30)
			case 1:
				*x = intstr.FromString(strs[c.Intn(len(strs))])
			default:
				*x = intstr.IntOrString{}
			}
		},
		func(raw *runtime.RawExtension, c randfill.Continue) {
			*raw = runtime.RawExtension{}
			if c.Intn(4) > 0 {
				raw.Raw = []byte(raws[c.Intn(len(raws))])
			}
		},
		func(f *metav1.FieldsV1, c randfill.Continue) {
			*f = metav1.FieldsV1{}
			if c.Bool() {
				f.Raw = []byte(` {"f:metadata":{"f:labels":{".":{}, "f:<a>":{}}}}`)
			}
		},
	)
}

// same checks that jsonencode.Marshal and AppendMarshal of v return what
// encoding/json.Marshal returns, bytes and error; fast says v must not
// be left to encoding/json.
func same(t testing.TB, v any, fast bool) {
	t.Helper()
	want, wantErr := json.Marshal(v)
	got, err := jsonencode.Marshal(v)
	if (err != nil) != (wantErr != nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("%T: error %v, want %v", v, err, wantErr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%T:\n got %s\nwant %s", v, got, want)
	}
	prefix := []byte("prefix")
	app, err := jsonencode.AppendMarshal(prefix, v)
	if (err != nil) != (wantErr != nil) || !bytes.Equal(app, append(prefix, want...)) {
		t.Fatalf("%T: AppendMarshal %q, %v, want %q, %v", v, app, err, append(prefix, want...), wantErr)
	}
	if fastOut, ok := jsonencode.Fast(v); !ok && fast {
		t.Fatalf("%T: left to encoding/json: %s", v, want)
	} else if ok && !bytes.Equal(fastOut, want) {
		t.Fatalf("%T: fast path wrote\n %s\nwant %s", v, fastOut, want)
	}
}

// TestParityShippedTypes: random values of every shipped type encode as
// encoding/json encodes them, through a pointer (addressable), as a
// value (not addressable) and inside an interface, a map and a slice;
// a stored kind's objects all on the fast path, so that the speed-up
// cannot quietly vanish behind a fallback.
func TestParityShippedTypes(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 10
	}
	for _, st := range shippedTypes(t) {
		t.Run(st.Name, func(t *testing.T) {
			f := fuzzer(int64(len(st.Name)) * 1000)
			for range n {
				v := reflect.New(st.Type)
				f.Fill(v.Interface())
				same(t, v.Interface(), st.Stored)
				same(t, v.Elem().Interface(), st.Stored)
				same(t, []any{v.Elem().Interface(), v.Interface()}, st.Stored)
				m := reflect.MakeMap(reflect.MapOf(reflect.TypeFor[string](), st.Type))
				m.SetMapIndex(reflect.ValueOf("<k>"), v.Elem())
				same(t, m.Interface(), st.Stored)
				s := reflect.MakeSlice(reflect.SliceOf(st.Type), 1, 1)
				s.Index(0).Set(v.Elem())
				same(t, s.Interface(), st.Stored)
			}
		})
	}
}
