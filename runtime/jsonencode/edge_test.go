package jsonencode_test

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"

	"github.com/kubeforge/kubeforge/runtime/jsonencode"
)

// Types with every rule of encoding/json's field resolution, options,
// methods and addressability.

type inner struct {
	A string `json:"a"`
	B int    `json:"b,omitempty"`
}

type conflictA struct{ X int }
type conflictB struct{ X int }
type taggedY struct {
	Y int `json:"y"`
}
type untaggedY struct{ Y int }
type ptrInner struct {
	P string `json:"p"`
	Q *int   `json:"q,omitempty"`
}
type hidden struct {
	Exported string `json:"exported"`
}
type deep struct{ conflictA }

// embA and embB embed inner at one depth, which makes its fields
// ambiguous there.
type embA struct{ inner }
type embB struct{ inner }

// ptrMarshaler has MarshalJSON on the pointer only: encoding/json calls
// it for addressable values and writes the struct otherwise.
type ptrMarshaler struct{ V string }

func (p *ptrMarshaler) MarshalJSON() ([]byte, error) {
	v, err := json.Marshal(strings.ToUpper(p.V))
	return []byte(` { "v" : ` + string(v) + `, "html": "<&>\u2028` + "\u2028" + `" , "n" : [ 1 , -2.5e+3 ] } `), err
}

// valMarshaler has it on the value.
type valMarshaler struct{ V int }

func (v valMarshaler) MarshalJSON() ([]byte, error) {
	switch v.V {
	case 1:
		return nil, errors.New("one")
	case 2:
		return []byte(`{"bad"`), nil
	case 3:
		return []byte(`01`), nil
	case 4:
		return []byte(""), nil
	case 5:
		return []byte("\"\xff\x01\""), nil
	case 6:
		return []byte("\"\\x\""), nil
	case 7:
		return []byte("[1,]"), nil
	case 8:
		return []byte("\"\xff\xe2\x80\xa9\xe2\x80\""), nil
	}
	return []byte(" \"v\\u0041\\n\" "), nil
}

type ptrText struct{ V string }

func (p *ptrText) MarshalText() ([]byte, error) { return []byte("<" + p.V + ">\xff"), nil }

type valText int

func (v valText) MarshalText() ([]byte, error) {
	if v < 0 {
		return nil, errors.New("negative")
	}
	// Distinct keys get distinct names: for two keys of one name the
	// order depends on the map's, in encoding/json too.
	return []byte("t" + strings.Repeat("x", int(v)%4) + strconv.Itoa(int(v))), nil
}

type zeroer struct{ N int }

func (z zeroer) IsZero() bool { return z.N%2 == 0 }

type ptrZeroer struct{ N int }

func (z *ptrZeroer) IsZero() bool { return z.N > 5 }

type namedBytes []byte
type myByte uint8
type textByte uint8

func (b textByte) MarshalText() ([]byte, error) { return []byte{'b', byte(b)%26 + 'a'}, nil }

type namedPtr *inner
type namedString string
type namedInt int8
type namedFloat float32

type edge struct {
	inner
	conflictA
	conflictB
	taggedY
	untaggedY
	*ptrInner
	hidden
	deep

	Tagged     string `json:"tagged,omitempty"`
	Dash       string `json:"-"`
	DashComma  string `json:"-,"`
	Invalid    string `json:"a\"b"`
	unexported string
	Options    string `json:",omitempty"`

	StrInt   int          `json:"strInt,string"`
	StrPtr   *int64       `json:"strPtr,string,omitempty"`
	StrBool  bool         `json:"strBool,string"`
	StrStr   string       `json:"strStr,string"`
	StrFloat float64      `json:"strFloat,string"`
	StrUint  uint16       `json:"strUint,string"`
	StrSlice []int        `json:"strSlice,string"`
	StrNum   json.Number  `json:"strNum,string"`
	StrMarsh valMarshaler `json:"strMarsh,string"`

	F32  float32    `json:"f32"`
	F64  float64    `json:"f64"`
	NF   namedFloat `json:"nf,omitempty"`
	I8   namedInt   `json:"i8"`
	U    uint       `json:"u,omitempty"`
	UP   uintptr    `json:"up"`
	Str  string     `json:"str"`
	NS   namedString
	Num  json.Number `json:"num,omitempty"`
	Raw  json.RawMessage
	RawP *json.RawMessage `json:",omitempty"`

	Bytes      []byte
	NamedBytes namedBytes
	MyBytes    []myByte
	TextBytes  []textByte
	Array      [3]int
	ByteArray  [2]byte
	EmptyArray [0]int `json:",omitempty"`
	PtrArray   *[2]ptrMarshaler

	Iface  any
	Ifaces []any
	Err    error `json:",omitempty"`
	Marsh  json.Marshaler

	PM    ptrMarshaler
	PMP   *ptrMarshaler
	PMs   []ptrMarshaler
	PMMap map[string]ptrMarshaler
	VM    valMarshaler
	VMP   *valMarshaler
	PT    ptrText
	PTs   [1]ptrText
	VT    valText
	NP    namedPtr

	MapSS     map[string]string
	MapNamed  map[namedString]int
	MapInt    map[int]string
	MapUint   map[uint8]bool
	MapText   map[valText]int
	MapPText  map[*ptrText]int
	MapNested map[string]map[string][]int
	MapAny    map[string]any

	Z    zeroer          `json:",omitzero"`
	ZP   *zeroer         `json:",omitzero"`
	PZ   ptrZeroer       `json:",omitzero"`
	PZP  *ptrZeroer      `json:",omitzero"`
	ZI   any             `json:",omitzero"`
	ZS   struct{ A int } `json:",omitzero"`
	ZF   float64         `json:",omitzero"`
	ZT   metav1.Time     `json:",omitzero,omitempty"`
	ET   metav1.Time     `json:",omitempty"`
	EF   float64         `json:",omitempty"`
	EI   any             `json:",omitempty"`
	EM   map[string]int  `json:",omitempty"`
	ES   []int           `json:",omitempty"`
	EP   *int            `json:",omitempty"`
	EB   bool            `json:",omitempty"`
	EStr struct{}        `json:",omitempty"`

	Time   metav1.Time
	TimeP  *metav1.Time
	Micro  metav1.MicroTime
	MicroP *metav1.MicroTime
	Dur    metav1.Duration
	IOS    intstr.IntOrString
	IOSP   *intstr.IntOrString
	Q      apiresource.Quantity
	QP     *apiresource.Quantity
	Ext    runtime.RawExtension
	FV1    *metav1.FieldsV1
	Addr   netip.Addr
	GoTime time.Time
	GoDur  time.Duration
}

// fillEdge fills an edge with values that reach every case.
func edgeFuzzer(seed int64, bad bool) *randfill.Filler {
	base := fuzzer(seed)
	// pick returns a random index below n, below good when !bad: the
	// choices from good on are values encoding/json refuses.
	pick := func(c randfill.Continue, good, n int) int {
		if bad {
			return c.Intn(n)
		}
		return c.Intn(good)
	}
	floats := []float64{0, math.Copysign(0, -1), 1e-7, 1e-6, 1e21, 1e20, 123456789e-20, math.MaxFloat64, math.SmallestNonzeroFloat64, 1.5, -3.25e100, float64(math.MaxFloat32), 1e-45}
	strs := []string{"", "<>&", "\u2028\u2029", "\xff\xfe", "\xe2\x80", "\x7f", "é", "\t\"\\/", "ok"}
	return base.Funcs(
		func(f *float64, c randfill.Continue) {
			if bad && c.Intn(8) == 0 {
				*f = []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[c.Intn(3)]
				return
			}
			*f = floats[c.Intn(len(floats))]
		},
		func(f *float32, c randfill.Continue) {
			*f = float32(floats[c.Intn(len(floats))])
			if c.Intn(3) == 0 {
				*f = c.Float32() * float32(math.Pow(10, float64(c.Intn(60)-30)))
			}
		},
		func(n *json.Number, c randfill.Continue) {
			*n = json.Number([]string{"", "0", "-1.5e+10", "12", "0.0E-0", "01", "1.", "abc", "-", "1e"}[pick(c, 5, 10)])
		},
		func(r *json.RawMessage, c randfill.Continue) {
			*r = []json.RawMessage{nil, json.RawMessage(`{"a" : [1, 2]}`), json.RawMessage(" \"<\" "), json.RawMessage(`bad`)}[pick(c, 3, 4)]
		},
		func(v *valMarshaler, c randfill.Continue) {
			v.V = []int{0, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8}[pick(c, 3, 11)]
		},
		func(v *valText, c randfill.Continue) {
			*v = valText(c.Intn(11))
			if bad && c.Intn(12) == 0 {
				*v = -1
			}
		},
		func(s *namedString, c randfill.Continue) { *s = namedString(strs[c.Intn(len(strs))]) },
		func(x *any, c randfill.Continue) {
			switch i := pick(c, 12, 13); i {
			case 0:
				*x = nil
			case 1:
				*x = strs[c.Intn(len(strs))]
			case 2:
				*x = floats[c.Intn(len(floats))]
			case 3:
				*x = map[string]any{"k": []any{true, nil, 1.5, "<"}, "n": int64(-3)}
			case 4:
				*x = &ptrMarshaler{V: "p"}
			case 5:
				*x = ptrMarshaler{V: "v"}
			case 6:
				*x = map[int]string{2: "b", 10: "a"}
			case 7:
				*x = (*inner)(nil)
			case 12:
				*x = make(chan int)
			case 8:
				*x = uint8(7)
			case 9:
				*x = []byte("bytes")
			case 10:
				*x = intstr.FromString("<x>")
			default:
				*x = namedString("n")
			}
		},
		func(e *error, c randfill.Continue) {
			if c.Bool() {
				*e = errors.New("x")
			}
		},
		func(m *json.Marshaler, c randfill.Continue) {
			if c.Bool() {
				*m = valMarshaler{V: []int{0, 9, 1, 2}[pick(c, 2, 4)]}
			}
		},
		func(m *map[*ptrText]int, c randfill.Continue) {
			if c.Bool() {
				*m = map[*ptrText]int{{V: "a"}: 1}
			}
		},
		func(a *netip.Addr, c randfill.Continue) {
			*a = []netip.Addr{{}, netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("::1")}[c.Intn(3)]
		},
		func(t *time.Time, c randfill.Continue) {
			*t = time.Unix(c.Int63n(1e10), c.Int63n(1e9)).In(time.FixedZone("", c.Intn(20)*900))
		},
	)
}

// TestParityEdge: random edges encode as encoding/json encodes them,
// errors included (NaN, failing and invalid MarshalJSON, invalid
// Numbers, channels inside interfaces).
func TestParityEdge(t *testing.T) {
	good, bad := edgeFuzzer(3, false), edgeFuzzer(5, true)
	fast, errs := 0, 0
	for i := range 3000 {
		var e edge
		if i%2 == 0 {
			good.Fill(&e)
		} else {
			bad.Fill(&e)
		}
		same(t, &e, false)
		same(t, e, false)
		same(t, map[string]any{"e": e}, false)
		if _, ok := jsonFast(&e); ok {
			fast++
		}
		if _, err := json.Marshal(&e); err != nil {
			errs++
		}
	}
	t.Logf("%d of 3000 on the fast path, %d errors", fast, errs)
	if fast < 1000 || errs < 1000 {
		t.Errorf("want at least 1000 values on the fast path and 1000 errors, got %d and %d", fast, errs)
	}
}

// TestEdgeCases: values chosen by hand.
func TestEdgeCases(t *testing.T) {
	one := 1
	cyclic := &cycle{}
	cyclic.Next = cyclic
	cycMap := map[string]any{}
	cycMap["self"] = cycMap
	deepSlice := []any{}
	for range 1500 {
		deepSlice = []any{deepSlice}
	}
	for _, v := range []any{
		nil, 1, "<s>", true, 1.5, float32(0.1), math.NaN(), []int(nil), []int{}, map[string]int(nil), map[string]int{},
		(*int)(nil), &one, []byte(nil), []byte{}, []byte{0, 1, 2, 255}, [0]int{}, struct{}{},
		ptrMarshaler{V: "x"}, &ptrMarshaler{V: "x"}, []ptrMarshaler{{V: "s"}}, map[string]ptrMarshaler{"k": {V: "m"}},
		[1]ptrMarshaler{{V: "a"}}, &[1]ptrMarshaler{{V: "a"}}, ptrText{V: "t"}, &ptrText{V: "t"},
		valMarshaler{}, valMarshaler{V: 1}, valMarshaler{V: 2}, &valMarshaler{V: 5}, valMarshaler{V: 8},
		map[valText]int{1: 1, 2: 2, 5: 5}, map[valText]int{-1: 1}, map[int8]int{-1: 1, 3: 2, 20: 3}, map[uint64]string{math.MaxUint64: "m"},
		map[[2]int]int{{1, 2}: 3}, map[bool]int{true: 1}, map[float64]int{1: 1}, make(chan int), func() {}, complex(1, 2),
		map[string]any{"<": math.Inf(1)}, []any{json.Number("bad")}, json.Number(""), json.RawMessage(nil), json.RawMessage(" [ ] "),
		cyclic, cycMap, deepSlice, strings.Repeat("日本\xff<", 100), metav1.Time{}, &metav1.Time{}, metav1.NewTime(time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC)),
		intstr.IntOrString{Type: 7}, intstr.FromInt32(-5), &intstr.IntOrString{Type: intstr.String, StrVal: "\u2028"},
		runtime.RawExtension{Raw: []byte("  {\"a\" :\n 1}")}, runtime.RawExtension{Object: &metav1.Status{Message: "<m>"}},
		metav1.Duration{Duration: 1500 * time.Microsecond}, namedPtr(&inner{A: "np"}), []namedPtr{nil},
		sameTag(),
		struct {
			*ptrInner
			P string
		}{},
		struct{ *ptrInner }{},
		struct{ *ptrInner }{&ptrInner{P: "x", Q: &one}},
		struct{ hidden }{hidden{Exported: "e"}},
		struct {
			embA
			embB
			C int
		}{embA{inner{A: "x"}}, embB{inner{A: "y"}}, 1},
	} {
		same(t, v, false)
	}
}

type cycle struct {
	Next *cycle `json:"next"`
}

// TestStringsMatch: strings of every escape, invalid and valid UTF-8,
// encode as encoding/json encodes them, as values, keys, ,string fields,
// and inside MarshalJSON output.
func TestStringsMatch(t *testing.T) {
	parts := []string{"a", `"`, `\`, "/", "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "é", "\u2028", "\u2029", "\xe2\x80", "\xe2\x80\xa8",
		"\xff", "\xc3", "\xed\xa0\x80", "\xf0\x9f\x98\x80", "\xf4\x90\x80\x80", "<", ">", "&", "\ufffd", "日"}
	type s struct {
		S  string            `json:"s"`
		M  map[string]string `json:"m"`
		Q  string            `json:"q,string"`
		R  json.RawMessage   `json:"r"`
		IS intstr.IntOrString
	}
	r := rand.New(rand.NewSource(4))
	for range 5000 {
		var str string
		for range r.Intn(6) {
			str += parts[r.Intn(len(parts))]
		}
		raw, _ := json.Marshal(str)
		same(t, s{S: str, M: map[string]string{str: str, "k": str}, Q: str, R: raw, IS: intstr.FromString(str)}, true)
		same(t, json.RawMessage(`"`+str+`"`), false)
	}
}

func jsonFast(v any) ([]byte, bool) { return jsonencode.Fast(v) }

// sameTag is a struct of two fields tagged "a" (built by reflect: vet
// refuses the literal), of which encoding/json writes neither.
func sameTag() any {
	t := reflect.StructOf([]reflect.StructField{
		{Name: "A", Type: reflect.TypeFor[int](), Tag: `json:"a"`},
		{Name: "B", Type: reflect.TypeFor[int](), Tag: `json:"a"`},
		{Name: "C", Type: reflect.TypeFor[int](), Tag: `json:"c"`},
	})
	v := reflect.New(t).Elem()
	v.Field(0).SetInt(1)
	v.Field(2).SetInt(3)
	return v.Interface()
}
