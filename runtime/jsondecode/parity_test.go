package jsondecode_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/randfill"

	"github.com/kubeforge/kubeforge/internal/shipped"
	"github.com/kubeforge/kubeforge/runtime/jsondecode"
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

// fuzzer fills objects of any type with values that stress the decoder:
// strings that JSON escapes or replaces, times, quantities and
// IntOrStrings of both kinds, raw JSON in RawExtension and FieldsV1.
func fuzzer(seed int64) *randfill.Filler {
	strs := []string{"", "a", "b", "TCP", "<a&b>", "\xff", "a\u2028b", "é", `"q"\`, "line\nbreak\ttab", "\x00\x1f", "日本", "\U0001F600", "x/y", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}
	return randfill.NewWithSeed(seed).NilChance(0.2).NumElements(0, 3).Funcs(
		func(s *string, c randfill.Continue) {
			if c.Intn(4) == 0 {
				*s = c.String(12)
				return
			}
			*s = strs[c.Intn(len(strs))]
		},
		func(q *apiresource.Quantity, c randfill.Continue) {
			switch c.Intn(3) {
			case 0:
				*q = *apiresource.NewQuantity(c.Int63n(1<<40), apiresource.DecimalSI)
			case 1:
				*q = *apiresource.NewMilliQuantity(c.Int63n(1<<20), apiresource.BinarySI)
			default:
				*q = apiresource.MustParse("1.5Gi")
			}
		},
		func(t *metav1.Time, c randfill.Continue) { *t = metav1.Unix(c.Int63n(4e9), 0).Rfc3339Copy() },
		func(t *metav1.MicroTime, c randfill.Continue) {
			*t = metav1.NewMicroTime(time.Unix(c.Int63n(4e9), c.Int63n(1e6)*1e3))
		},
		func(x *intstr.IntOrString, c randfill.Continue) {
			switch c.Intn(3) {
			case 0:
				*x = intstr.FromInt32(c.Int31())
			case 1:
				*x = intstr.FromString(c.String(3))
			default:
				*x = intstr.IntOrString{}
			}
		},
		func(raw *runtime.RawExtension, c randfill.Continue) {
			*raw = runtime.RawExtension{}
			switch c.Intn(3) {
			case 0:
				raw.Raw = []byte(`{"x":1,"y":[true,null,"\u00e9"]}`)
			case 1:
				raw.Raw = []byte(`"s"`)
			}
		},
		func(f *metav1.FieldsV1, c randfill.Continue) {
			*f = metav1.FieldsV1{}
			if c.Bool() {
				f.Raw = []byte(`{"f:metadata":{"f:labels":{".":{}}}}`)
			}
		},
	)
}

// check decodes data into a new value of typ with both decoders: the fast
// path must either agree exactly with sigs.k8s.io/json (which then finds
// no strict error either) or bail out leaving the value zero. It reports
// whether the fast path decoded.
func check(t testing.TB, typ reflect.Type, data []byte) bool {
	t.Helper()
	got := reflect.New(typ)
	if !jsondecode.Unmarshal(data, got.Interface()) {
		if !got.Elem().IsZero() {
			t.Fatalf("%v: bailed out leaving the value set, input %q", typ, data)
		}
		return false
	}
	want := reflect.New(typ)
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, want.Interface()); err != nil {
		t.Fatalf("%v: fast path decoded what sigs.k8s.io/json rejects (%v), input %q", typ, err, data)
	}
	if path := diff(want.Elem(), got.Elem(), ""); path != "" {
		t.Fatalf("%v: decoders differ at %s, input %q", typ, path, data)
	}
	strict := reflect.New(typ)
	strictErrs, err := sigsjson.UnmarshalStrict(data, strict.Interface())
	if err != nil || len(strictErrs) > 0 {
		t.Fatalf("%v: fast path decoded what UnmarshalStrict rejects (%v, %v), input %q", typ, err, strictErrs, data)
	}
	if path := diff(strict.Elem(), got.Elem(), ""); path != "" {
		t.Fatalf("%v: fast path and UnmarshalStrict differ at %s, input %q", typ, path, data)
	}
	return true
}

// diff returns the path of a difference by reflect.DeepEqual's rules, or
// "" (nil and empty slices and maps differ).
func diff(a, b reflect.Value, path string) string {
	if reflect.DeepEqual(a.Interface(), b.Interface()) {
		return ""
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return fmt.Sprintf("%s: nil %v, %v", path, a.IsNil(), b.IsNil())
		}
		return diff(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		for i := range a.NumField() {
			if !a.Type().Field(i).IsExported() {
				continue
			}
			if p := diff(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); p != "" {
				return p
			}
		}
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return fmt.Sprintf("%s: nil %v, %v; len %d, %d", path, a.IsNil(), b.IsNil(), a.Len(), b.Len())
		}
		for i := range a.Len() {
			if p := diff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return fmt.Sprintf("%s: nil %v, %v; len %d, %d", path, a.IsNil(), b.IsNil(), a.Len(), b.Len())
		}
		for _, k := range a.MapKeys() {
			bv := b.MapIndex(k)
			if !bv.IsValid() {
				return fmt.Sprintf("%s[%v]: missing", path, k)
			}
			if p := diff(a.MapIndex(k), bv, fmt.Sprintf("%s[%v]", path, k)); p != "" {
				return p
			}
		}
	}
	return fmt.Sprintf("%s: %#v != %#v", path, a.Interface(), b.Interface())
}

// samples marshals n random values of typ.
func samples(t testing.TB, typ reflect.Type, seed int64, n int) [][]byte {
	t.Helper()
	f := fuzzer(seed)
	var out [][]byte
	for range n {
		v := reflect.New(typ)
		f.Fill(v.Interface())
		data, err := json.Marshal(v.Interface())
		if err != nil {
			t.Fatalf("%v: marshal: %v", typ, err)
		}
		out = append(out, data)
	}
	return out
}

// TestParityShippedTypes: random values of every shipped type, marshaled,
// decode on the fast path exactly as sigs.k8s.io/json decodes them; and
// every stored kind's objects all decode on the fast path, so that the
// speed-up cannot quietly vanish behind a fallback.
func TestParityShippedTypes(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 8
	}
	for _, st := range shippedTypes(t) {
		t.Run(st.Name, func(t *testing.T) {
			fast := 0
			for i, data := range samples(t, st.Type, int64(len(st.Name))*1000, n) {
				if check(t, st.Type, data) {
					fast++
				} else if st.Stored {
					t.Errorf("object %d of a stored kind fell back: %s", i, data)
				}
			}
			if fast == 0 {
				t.Errorf("no value decoded on the fast path")
			}
			t.Logf("%d of %d on the fast path", fast, n)
		})
	}
}

// TestParityMutated: inputs edited in every way the fast path must refuse
// or agree on: random byte edits, unknown, duplicate, case-variant and
// escaped keys, null or a value of another type at every field, numbers
// that do not fit, escapes and invalid UTF-8 in strings, deep nesting.
func TestParityMutated(t *testing.T) {
	n, rounds := 6, 30
	if testing.Short() {
		n, rounds = 2, 10
	}
	for _, st := range shippedTypes(t) {
		t.Run(st.Name, func(t *testing.T) {
			r := rand.New(rand.NewSource(int64(len(st.Name))))
			fast, total := 0, 0
			for _, data := range samples(t, st.Type, int64(len(st.Name)), n) {
				for _, m := range mutations(r, data, rounds) {
					total++
					if check(t, st.Type, m) {
						fast++
					}
				}
			}
			t.Logf("%d of %d on the fast path", fast, total)
		})
	}
}

// mutations returns edits of data: rounds random byte edits and rounds
// structural edits of random nodes, plus null at every node.
func mutations(r *rand.Rand, data []byte, rounds int) [][]byte {
	var out [][]byte
	for range rounds {
		out = append(out, byteEdit(r, data))
	}
	root, err := parseTree(data)
	if err != nil {
		return out
	}
	nodes := root.walk(nil)
	// null at every node, or at 100 of them in a big value.
	nulls := nodes
	if len(nulls) > 100 {
		nulls = make([]*node, 100)
		for i := range nulls {
			nulls[i] = nodes[r.Intn(len(nodes))]
		}
	}
	for _, n := range nulls {
		saved := *n
		*n = node{kind: 'l', lit: "null"}
		out = append(out, root.encode(nil))
		*n = saved
	}
	for range rounds {
		n := nodes[r.Intn(len(nodes))]
		saved := *n
		mutateNode(r, n)
		out = append(out, root.encode(nil))
		*n = saved
	}
	return out
}

const editBytes = "{}[]\":,0123456789-+.eEtrufalsn \t\\/u\x00\x7f\xff\xc3\xa9a"

func byteEdit(r *rand.Rand, data []byte) []byte {
	b := append([]byte(nil), data...)
	for range 1 + r.Intn(2) {
		i := r.Intn(len(b) + 1)
		c := editBytes[r.Intn(len(editBytes))]
		switch r.Intn(3) {
		case 0:
			b = append(b[:i], append([]byte{c}, b[i:]...)...)
		case 1:
			if i < len(b) {
				b = append(b[:i], b[i+1:]...)
			}
		default:
			if i < len(b) {
				b[i] = c
			}
		}
	}
	return b
}

var otherValues = []string{
	"null", "true", "false", "0", "-0", "1", "-1", "1.5", "1e3", "1E+2", "-1.0e-2",
	"127", "128", "-129", "255", "256", "32767", "32768", "2147483647", "2147483648", "-2147483649",
	"4294967296", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
	"-9223372036854775809", "18446744073709551615", "18446744073709551616", "99999999999999999999999",
	"1e400", `""`, `"a"`, `"\u00e9\ud83d\ude00"`, `"\ud800"`, `"\/\b\f\n\r\t"`, `"AAEC"`, `"AA=="`, `"!!"`,
	`"2024-01-02T03:04:05Z"`, `"2024-01-02T03:04:05.123456Z"`, `"1Gi"`, `"1m"`, `"1h2m"`,
	"[]", "{}", "[null]", "[1,2]", `["a"]`, `[{}]`, `{"a":"b"}`, `{"a":null}`, `{"a":1}`, `{"":""}`,
}

// mutateNode changes n in one random way.
func mutateNode(r *rand.Rand, n *node) {
	switch op := r.Intn(8); {
	case op < 3:
		*n = node{kind: 'l', lit: otherValues[r.Intn(len(otherValues))]}
	case op == 3 && n.kind == 'o':
		n.keys = append(append([]string(nil), n.keys...), "unknownField")
		n.vals = append(append([]*node(nil), n.vals...), &node{kind: 'l', lit: "1"})
	case op == 4 && n.kind == 'o' && len(n.keys) > 0:
		i := r.Intn(len(n.keys))
		n.keys = append(append([]string(nil), n.keys...), n.keys[i])
		v := n.vals[i]
		if r.Intn(2) == 0 {
			v = &node{kind: 'l', lit: otherValues[r.Intn(len(otherValues))]}
		}
		n.vals = append(append([]*node(nil), n.vals...), v)
	case op == 5 && n.kind == 'o' && len(n.keys) > 0:
		i := r.Intn(len(n.keys))
		keys := append([]string(nil), n.keys...)
		switch r.Intn(3) {
		case 0:
			keys[i] = strings.ToUpper(keys[i][:1]) + keys[i][1:]
		case 1:
			keys[i] = strings.ToLower(keys[i])
		default:
			keys[i] = keys[i] + " "
		}
		n.keys = keys
		n.escapeKeys = r.Intn(2) == 0
	case op == 5 && n.kind == 's':
		n.escape = true
	case op == 6:
		inner := *n
		depth := 1 + r.Intn(1200)
		open, close := strings.Repeat("[", depth), strings.Repeat("]", depth)
		if r.Intn(2) == 0 {
			open, close = strings.Repeat(`{"a":`, depth), strings.Repeat("}", depth)
		}
		*n = node{kind: 'w', lit: open, close: close, inner: &inner}
	default:
		if n.kind == 's' {
			n.str += string([]byte{0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80})
			n.raw = true
		} else {
			n.space = true
		}
	}
}
