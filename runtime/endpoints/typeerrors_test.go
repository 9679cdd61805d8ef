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
