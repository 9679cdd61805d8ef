package jsondecode_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubeforge/kubeforge/runtime/jsondecode"
)

// Types with every rule of encoding/json's field resolution and
// indirection that the fast path must follow or refuse.

type inner struct {
	A string `json:"a"`
	B int    `json:"b"`
}

type conflictA struct{ X int }
type conflictB struct{ X int }
type taggedA struct {
	Y int `json:"y"`
}
type untaggedY struct{ Y int }

type hidden struct {
	Exported string `json:"exported"`
}

type ptrInner struct {
	P string `json:"p"`
}

// upper has UnmarshalJSON on the value receiver.
type upper string

func (u *upper) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*u = "NULL"
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*u = upper(strings.ToUpper(s))
	return nil
}

// failing fails on "bad".
type failing struct{ V string }

func (f *failing) UnmarshalJSON(b []byte) error {
	if string(b) == `"bad"` {
		return errors.New("bad")
	}
	f.V = string(b)
	return nil
}

type text struct{ V string }

func (t *text) UnmarshalText(b []byte) error { t.V = string(b); return nil }

type timeWrapper struct{ metav1.Time }

type namedPtr *inner
type namedBytes []byte
type myByte uint8
type namedMap map[string]int

type edge struct {
	inner
	conflictA
	conflictB
	taggedA
	untaggedY
	hidden
	*ptrInner

	Str       string                 `json:"str"`
	Bool      bool                   `json:"bool"`
	I8        int8                   `json:"i8"`
	I16       int16                  `json:"i16"`
	I32       int32                  `json:"i32"`
	I64       int64                  `json:"i64"`
	I         int                    `json:"i"`
	U8        uint8                  `json:"u8"`
	U16       uint16                 `json:"u16"`
	U32       uint32                 `json:"u32"`
	U64       uint64                 `json:"u64"`
	F32       float32                `json:"f32"`
	F64       float64                `json:"f64"`
	Bytes     []byte                 `json:"bytes"`
	NamedB    namedBytes             `json:"namedB"`
	MyBytes   []myByte               `json:"myBytes"`
	Ptr       *inner                 `json:"ptr"`
	PtrPtr    **inner                `json:"ptrPtr"`
	NamedPtr  namedPtr               `json:"namedPtr"`
	Slice     []inner                `json:"slice"`
	PSlice    []*inner               `json:"pSlice"`
	Strs      []string               `json:"strs"`
	Labels    map[string]string      `json:"labels"`
	NamedMap  namedMap               `json:"namedMap"`
	MapPtr    map[string]*inner      `json:"mapPtr"`
	IntKeys   map[int]string         `json:"intKeys"`
	Iface     interface{}            `json:"iface"`
	Array     [2]int                 `json:"array"`
	Quoted    int                    `json:"quoted,string"`
	QuotedS   []int                  `json:"quotedS,string"`
	Upper     upper                  `json:"upper"`
	UpperP    *upper                 `json:"upperP"`
	Uppers    []upper                `json:"uppers"`
	UpperMap  map[string]upper       `json:"upperMap"`
	Failing   failing                `json:"failing"`
	Text      text                   `json:"text"`
	Time      metav1.Time            `json:"time"`
	TimeP     *metav1.Time           `json:"timeP"`
	Wrapper   timeWrapper            `json:"wrapper"`
	Anon      struct{ metav1.Time }  `json:"anon"`
	AnonP     *struct{ metav1.Time } `json:"anonP"`
	IOS       intstr.IntOrString     `json:"ios"`
	Raw       runtime.RawExtension   `json:"raw"`
	Number    json.Number            `json:"number"`
	RawMsg    json.RawMessage        `json:"rawMsg"`
	Untagged  string
	Dash      string   `json:"-"`
	DashComma string   `json:"-,"`
	BadTag    string   `json:"bad\"tag"`
	unexp     string   //nolint:unused
	Empty     struct{} `json:"empty"`
}

var edgeInputs = []string{
	`{}`, ` { } `, `null`, `{"a":"x","b":1}`, `{"X":1}`, `{"y":2}`, `{"Y":2}`, `{"exported":"e"}`, `{"p":"x"}`,
	`{"str":"s","bool":true,"i8":-128,"i16":32767,"i32":-2147483648,"i64":-9223372036854775808,"i":9223372036854775807}`,
	`{"u8":255,"u16":65535,"u32":4294967295,"u64":18446744073709551615}`,
	`{"i8":128}`, `{"i8":-129}`, `{"u8":256}`, `{"u8":-0}`, `{"i8":-0}`, `{"u64":18446744073709551616}`, `{"i64":9223372036854775808}`,
	`{"i":1.0}`, `{"i":1e2}`, `{"i":01}`, `{"i":-}`, `{"i":"1"}`, `{"i":true}`, `{"i":null}`, `{"u32":-1}`,
	`{"f32":3.4e38}`, `{"f32":3.5e38}`, `{"f64":1e309}`, `{"f64":-0}`, `{"f64":0.1}`, `{"f32":1e-50}`, `{"f64":1E+2}`, `{"f64":1.}`, `{"f64":.5}`,
	`{"bytes":"AAEC"}`, `{"bytes":""}`, `{"bytes":"A"}`, `{"bytes":[1,2,3]}`, `{"bytes":[256]}`, `{"bytes":[]}`, `{"bytes":null}`, `{"bytes":"AA\u003d\u003d"}`,
	`{"namedB":"AAEC"}`, `{"namedB":[1]}`, `{"myBytes":"AAEC"}`, `{"myBytes":[1]}`,
	`{"ptr":{"a":"x"}}`, `{"ptr":null}`, `{"ptr":{}}`, `{"ptrPtr":{"a":"x"}}`, `{"ptrPtr":null}`, `{"namedPtr":{"a":"x"}}`, `{"namedPtr":null}`,
	`{"slice":[{"a":"x"},{},null]}`, `{"slice":[]}`, `{"slice":null}`, `{"pSlice":[null,{"b":2}]}`, `{"strs":["a",null,"b","c","d","e"]}`,
	`{"labels":{"a":"b","c":null}}`, `{"labels":{}}`, `{"labels":{"a":"b","a":"c"}}`, `{"labels":{"a":1}}`, `{"labels":{"\u0061":"b","a":"c"}}`,
	`{"namedMap":{"a":1,"b":2}}`, `{"namedMap":{"a":1,"a":2}}`, `{"mapPtr":{"a":null,"b":{"a":"x"}}}`, `{"intKeys":{"1":"a"}}`,
	`{"iface":null}`, `{"iface":1}`, `{"array":[1,2]}`, `{"quoted":"1"}`, `{"quotedS":[1]}`,
	`{"upper":"abc"}`, `{"upper":null}`, `{"upperP":"abc"}`, `{"upperP":null}`, `{"uppers":["a",null]}`, `{"upperMap":{"k":"v","n":null}}`,
	`{"failing":"ok"}`, `{"failing":"bad"}`, `{"failing":{"x":[1,2,{"y":null}]}}`, `{"failing":null}`, `{"failing": 1.5e3 }`,
	`{"text":"t"}`, `{"text":null}`,
	`{"time":"2024-01-02T03:04:05Z"}`, `{"time":null}`, `{"time":"bad"}`, `{"timeP":"2024-01-02T03:04:05Z"}`, `{"timeP":null}`,
	`{"wrapper":"2024-01-02T03:04:05Z"}`, `{"wrapper":null}`, `{"anon":"2024-01-02T03:04:05Z"}`, `{"anon":{}}`, `{"anonP":"2024-01-02T03:04:05Z"}`, `{"anonP":null}`,
	`{"ios":1}`, `{"ios":"a"}`, `{"ios":null}`, `{"raw":{"a":[1,2]}}`, `{"raw":null}`, `{"number":1}`, `{"number":"1"}`, `{"rawMsg":{"a":1}}`,
	`{"Untagged":"u"}`, `{"untagged":"u"}`, `{"Dash":"d"}`, `{"-":"d"}`, `{"BadTag":"b"}`, `{"bad\"tag":"b"}`, `{"unexp":"u"}`, `{"empty":{}}`, `{"empty":{"a":1}}`,
	`{"str":"a\u00e9\ud83d\ude00\ud800x\"\\\/\b\f\n\r\t"}`, "{\"str\":\"\xff\xc3(\"}", `{"str":"\'"}`, "{\"str\":\"\x01\"}", `{"str":"\u00"}`,
	`{"s\u0074r":"s"}`, `{"str":"a","str":"b"}`, `{"Str":"s"}`, `{"str":"a"} x`, `{"str":"a"}}`, `{"str":"a",}`, `{"str" "a"}`, `{,}`, `[]`, `""`, ``, ` `,
	`{"slice":[{"a":"x"},]}`, `{"str":"a"`, "{\"str\":\"a\"}\n\t ", `{"str":tru}`, `{"bool":truex}`, `{"bool":nul}`,
	`{"raw":` + strings.Repeat("[", 1100) + strings.Repeat("]", 1100) + `}`,
	`{"raw":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
	`{"a":"x","b":1,"a":"y"}`, `{"b":1,"a":"x","str":"s","bool":false}`,
}

// TestEdgeCases: every input either decodes exactly as sigs.k8s.io/json
// decodes it or bails out; and the plain ones do decode on the fast path.
func TestEdgeCases(t *testing.T) {
	typ := reflect.TypeFor[edge]()
	mustFast := map[string]bool{
		`{}`: true, ` { } `: true, `null`: true, `{"a":"x","b":1}`: true, `{"y":2}`: true, `{"exported":"e"}`: true,
		`{"bytes":"AAEC"}`: true, `{"bytes":[1,2,3]}`: true, `{"bytes":""}`: true, `{"slice":[{"a":"x"},{},null]}`: true,
		`{"upper":null}`: true, `{"upperP":null}`: true, `{"uppers":["a",null]}`: true, `{"upperMap":{"k":"v","n":null}}`: true,
		`{"failing":{"x":[1,2,{"y":null}]}}`: true, `{"time":null}`: true, `{"timeP":null}`: true, `{"wrapper":null}`: true,
		`{"ios":1}`: true, `{"Untagged":"u"}`: true, `{"str":"a\u00e9\ud83d\ude00\ud800x\"\\\/\b\f\n\r\t"}`: true,
		"{\"str\":\"\xff\xc3(\"}": true, `{"s\u0074r":"s"}`: true, `{"b":1,"a":"x","str":"s","bool":false}`: true,
		`{"mapPtr":{"a":null,"b":{"a":"x"}}}`: true, `{"strs":["a",null,"b","c","d","e"]}`: true, `{"f32":1e-50}`: true,
	}
	for _, in := range edgeInputs {
		fast := check(t, typ, []byte(in))
		if mustFast[in] && !fast {
			t.Errorf("%q: bailed out, want the fast path", in)
		}
	}
}

// TestNotZero: a value that is not zero is left to sigs.k8s.io/json.
func TestNotZero(t *testing.T) {
	v := inner{A: "set"}
	if jsondecode.Unmarshal([]byte(`{"b":1}`), &v) || v.A != "set" {
		t.Fatalf("decoded into a value that was not zero: %+v", v)
	}
	var nilPtr *inner
	if jsondecode.Unmarshal([]byte(`{}`), nilPtr) || jsondecode.Unmarshal([]byte(`{}`), inner{}) {
		t.Fatal("decoded into a nil pointer or a non-pointer")
	}
}

// TestConcurrentFirstUse: goroutines decoding types no one decoded before
// build and share their plans safely (run with -race), recursive types
// included.
func TestConcurrentFirstUse(t *testing.T) {
	type node struct {
		Name     string           `json:"name"`
		Children []node           `json:"children"`
		Next     *node            `json:"next"`
		ByName   map[string]*node `json:"byName"`
	}
	type holder struct {
		Node node                 `json:"node"`
		Time metav1.Time          `json:"time"`
		Raw  runtime.RawExtension `json:"raw"`
	}
	data := []byte(`{"node":{"name":"a","children":[{"name":"b","next":{"name":"c"}}],"byName":{"d":{"name":"d","children":[]}}},"time":"2024-01-02T03:04:05Z","raw":{"x":[1]}}`)
	done := make(chan bool)
	for range 8 {
		go func() {
			var h holder
			done <- jsondecode.Unmarshal(data, &h) && h.Node.Children[0].Next.Name == "c" && h.Node.ByName["d"].Children != nil
		}()
	}
	for range 8 {
		if !<-done {
			t.Fatal("a concurrent first decode failed")
		}
	}
	check(t, reflect.TypeFor[holder](), data)
}
