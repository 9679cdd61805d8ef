package endpoints

import (
	"fmt"
	"net"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

type walkInner struct {
	Deep []map[string][]int16 `json:"deep,omitempty"`
}

type walkEmbedded struct {
	Promoted bool `json:"promoted"`
}

type walkKind struct {
	metav1.TypeMeta `json:",inline"`
	walkEmbedded
	Inline  walkInner         `json:",inline"`
	Named   walkInner         `json:"named"`
	Skipped int               `json:"-"`
	Bytes   []byte            `json:"bytes"`
	Fixed   [2]uint8          `json:"fixed"`
	Small   uint8             `json:"small"`
	Any     any               `json:"any"`
	IP      net.IP            `json:"ip"` // decodes a string itself (UnmarshalText)
	Wait    metav1.Duration   `json:"wait"`
	Waits   []metav1.Duration `json:"waits"`
	Ptr     *struct {
		At metav1.MicroTime `json:"at"`
	} `json:"ptr"`
}

func TestTypeErrorsWalk(t *testing.T) {
	data := `{"kind":"K","promoted":"yes","deep":[{"a":[1,"x",70000]}],"named":{"deep":{"a":[]}},` +
		`"-":"anything","Skipped":1,"bytes":"aGk=","fixed":[1,300],"small":-1,"any":{"x":[1]},` +
		`"ip":"10.0.0.1","ptr":{"at":"2026-01-01T00:00:00.000001Z"},"unknown":{"z":1},` +
		`"wait":"soon","waits":["1h30m","1d"]}`
	got := map[string]string{}
	errs, unknown := typeErrors(reflect.TypeFor[walkKind](), []byte(data))
	for _, e := range errs {
		got[e.Field] = e.Detail
	}
	want := map[string]string{
		"promoted":     `promoted in body must be of type boolean: "string"`,
		"deep[0].a[1]": `deep[0].a[1] in body must be of type integer: "string"`,
		"deep[0].a[2]": "must fit in int16",
		"named.deep":   `named.deep in body must be of type array: "object"`,
		"fixed[1]":     "must fit in uint8",
		"small":        "must fit in uint8",
		"wait":         `wait in body must be a duration such as "1h30m": time: invalid duration "soon"`,
		"waits[1]":     `waits[1] in body must be a duration such as "1h30m": time: unknown unit "d" in duration "1d"`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("typeErrors:\n got  %v\n want %v", got, want)
	}
	// What a strict decode calls unknown: fields no struct field takes,
	// json:"-" and case variants included, not the inlined ones.
	if fmt.Sprint(unknown) != `[unknown field "-" unknown field "Skipped" unknown field "unknown"]` {
		t.Errorf("unknown fields %v", unknown)
	}
	if errs, _ := typeErrors(reflect.TypeFor[walkKind](), []byte(`[1]`)); errs != nil {
		t.Errorf("an array body: %v, want none (the decoder's 400 stands)", errs)
	}
	if errs, _ := typeErrors(reflect.TypeFor[walkKind](), []byte(`{"bytes":"@@@"}`)); len(errs) != 1 || errs[0].Detail != `bytes in body must be of type byte: "@@@"` || errs[0].Type != field.ErrorTypeTypeInvalid {
		t.Errorf("bytes that are not base64: %v, want the schema's format byte", errs)
	}
	if errs, _ := typeErrors(reflect.TypeFor[walkKind](), []byte(`{"ptr":{"at":"noon"}}`)); len(errs) != 1 || errs[0].Field != "ptr.at" {
		t.Errorf("a MicroTime that does not parse: %v, want ptr.at named", errs)
	}
}

// TestIntegerMessages: a value for a Go integer field gets the errors
// kube-openapi gives it against the schema the field publishes (integer,
// format int32 or int64), as kube-apiserver v1.37 answered them for the
// same CRD field: the format first for values with no format of their own.
func TestIntegerMessages(t *testing.T) {
	type ints struct {
		A int32  `json:"a"`
		B int64  `json:"b"`
		C uint32 `json:"c"`
		D int16  `json:"d"`
	}
	for _, tc := range []struct{ body, want string }{
		{`{"a":true}`, `[a: Invalid value: "": a in body must be of type int32: ""]`},
		{`{"a":{}}`, `[a: Invalid value: "": a in body must be of type int32: ""]`},
		{`{"a":[1]}`, `[a: Invalid value: "array": a in body must be of type integer: "array"]`},
		{`{"a":"5"}`, `[a: Invalid value: "string": a in body must be of type integer: "string"]`},
		{`{"a":2.5}`, `[a: Invalid value: "float64": a in body must be of type int32: "float64" <nil>: Invalid value: "": Checked value must be of type integer with format int32 in a]`},
		{`{"a":3000000000}`, `[<nil>: Invalid value: "": Checked value must be of type integer with format int32 in a]`},
		{`{"a":3.0}`, `[]`},
		{`{"b":2.5}`, `[b: Invalid value: "float64": b in body must be of type int64: "float64" <nil>: Invalid value: "": Checked value must be of type integer with format int64 in b]`},
		{`{"b":9223372036854775808}`, `[b: Invalid value: "float64": b in body must be of type int64: "float64" <nil>: Invalid value: "": Checked value must be of type integer with format int64 in b]`},
		{`{"c":-1}`, `[c: Invalid value: -1: must fit in uint32]`},
		{`{"d":70000}`, `[d: Invalid value: 70000: must fit in int16]`},
	} {
		errs, _ := typeErrors(reflect.TypeFor[ints](), []byte(tc.body))
		var got []string
		for _, e := range errs {
			got = append(got, e.Error())
		}
		if s := fmt.Sprint(got); s != tc.want {
			t.Errorf("%s: %s, want %s", tc.body, s, tc.want)
		}
	}
}
