package jsonencode_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforge/kubeforge/runtime/jsonencode"
)

type crKind struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              crSpec   `json:"spec,omitempty"`
	Status            crStatus `json:"status,omitempty"`
}

type crSpec struct {
	Items    []string             `json:"items"`
	Kept     []string             `json:"kept"` // +nullable
	Ptr      *int32               `json:"ptr"`
	When     metav1.Time          `json:"when"`
	Values   map[string]*crItem   `json:"values"`
	Nested   crItem               `json:"nested,omitempty"`
	Any      any                  `json:"any"`
	Raw      runtime.RawExtension `json:"raw"`
	List     []crItem             `json:"list,omitempty"`
	Template metav1.ObjectMeta    `json:"template"`
	Free     map[string]any       `json:"free,omitempty"`
	Weight   resource.Quantity    `json:"weight,omitempty"`
	Wait     metav1.Duration      `json:"wait,omitempty"`
	Inline   `json:",inline"`
}

type Inline struct {
	Deep *crItem `json:"deep"` // +nullable
}

type crItem struct {
	Name  string   `json:"name,omitempty"`
	Tags  []string `json:"tags"`
	Count *int64   `json:"count"`
}

type crStatus struct {
	Phase   string   `json:"phase,omitempty"`
	Parents []string `json:"parents"`
}

// crPlain is written as a custom resource without the status
// subresource, its status without omitempty.
type crPlain struct {
	metav1.TypeMeta `json:",inline"`
	Status          crStatus `json:"status"`
}

type crList struct {
	metav1.TypeMeta `json:",inline"`
	Items           []crKind `json:"items"`
}

type crEvent struct {
	Type   string `json:"type"`
	Object any    `json:"object"`
}

func registerCR(t *testing.T) {
	t.Helper()
	for _, cr := range []jsonencode.CustomResource{
		{Type: reflect.TypeFor[crKind](), StatusSubresource: true, Nullable: []jsonencode.Field{
			{Struct: reflect.TypeFor[crSpec](), Name: "Kept"},
			{Struct: reflect.TypeFor[Inline](), Name: "Deep"},
		}},
		{Type: reflect.TypeFor[crPlain]()},
	} {
		jsonencode.RegisterCustomResource(cr)
	}
}

func TestCustomResource(t *testing.T) {
	registerCR(t)
	one := int64(1)
	for _, c := range []struct {
		name string
		v    any
		want string
	}{
		{"nulls and empty structs left out", &crKind{TypeMeta: metav1.TypeMeta{Kind: "K"}},
			`{"kind":"K","spec":{"kept":null,"template":{},"deep":null}}`},
		{"values kept", &crKind{
			ObjectMeta: metav1.ObjectMeta{Name: "a"},
			Spec: crSpec{
				Items: []string{}, Kept: []string{"k"},
				Values: map[string]*crItem{"b": {Count: &one}},
				Nested: crItem{Tags: []string{"x"}},
				Any:    map[string]any{"null": nil},
				List:   []crItem{{Name: "n"}},
				Free:   map[string]any{"x": 1.0},
				Weight: resource.MustParse("0"),
				Wait:   metav1.Duration{Duration: time.Second},
				Inline: Inline{Deep: &crItem{}},
			},
			Status: crStatus{Phase: "Ready"},
		}, `{"metadata":{"name":"a"},"spec":{"items":[],"kept":["k"],"values":{"b":{"count":1}},"nested":{"tags":["x"]},"any":{"null":null},"list":[{"name":"n"}],"template":{},"free":{"x":1},"weight":"0","wait":"1s","deep":{}},"status":{"phase":"Ready"}}`},
		{"a map's nulls pruned", &crKind{Spec: crSpec{
			Values: map[string]*crItem{"a": nil, "b": {}, "c": nil},
			Free:   map[string]any{"gone": nil, "x": nil},
		}}, `{"spec":{"kept":null,"values":{"b":{}},"template":{},"free":{},"deep":null}}`},
		{"a status of nulls", &crKind{Status: crStatus{Parents: []string{}}},
			`{"spec":{"kept":null,"template":{},"deep":null},"status":{"parents":[]}}`},
		{"without the status subresource", crPlain{}, `{"status":{}}`},
		{"a list keeps its null items", &crList{}, `{"items":null}`},
		{"a list's items", &crList{Items: []crKind{{Status: crStatus{Phase: "P"}}}},
			`{"items":[{"spec":{"kept":null,"template":{},"deep":null},"status":{"phase":"P"}}]}`},
		{"in a watch event", crEvent{Type: "ADDED", Object: &crPlain{}}, `{"type":"ADDED","object":{"status":{}}}`},
		{"a nil one in a watch event", crEvent{Type: "ADDED", Object: (*crKind)(nil)}, `{"type":"ADDED","object":null}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := jsonencode.Marshal(c.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
			app, err := jsonencode.AppendMarshal([]byte("x"), c.v)
			if err != nil || string(app) != "x"+c.want {
				t.Errorf("AppendMarshal: %s, %v", app, err)
			}
			if _, ok := c.v.(crEvent); ok || strings.Contains(c.name, "map's nulls") {
				return // maps with and without the nulls
			}
			// What is left out decodes as encoding/json's null and {} do
			// (except in maps, whose keys kube prunes with their nulls).
			std, err := json.Marshal(c.v)
			if err != nil {
				t.Fatal(err)
			}
			fromStd, fromCR := reflect.New(reflect.TypeOf(c.v)), reflect.New(reflect.TypeOf(c.v))
			if err := json.Unmarshal(std, fromStd.Interface()); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(got, fromCR.Interface()); err != nil {
				t.Fatal(err)
			}
			// A zero Quantity left out decodes as the zero value, "0" as
			// a parsed one: equal as values.
			if !equality.Semantic.DeepEqual(fromStd.Interface(), fromCR.Interface()) {
				t.Errorf("decoded differently:\n  encoding/json's %s\n  ours            %s", std, got)
			}
		})
	}
}

type crLate struct {
	A []string `json:"a"`
	B *int     `json:"b"`
}

func TestRegisterCustomResource(t *testing.T) {
	// A type written before it is registered is written as a custom
	// resource after, alone or inside another type.
	wrapped := struct{ L []crLate }{L: []crLate{{}}}
	for _, c := range []struct {
		cr          *jsonencode.CustomResource
		alone, deep string
	}{
		{nil, `{"a":null,"b":null}`, `{"L":[{"a":null,"b":null}]}`},
		{&jsonencode.CustomResource{Type: reflect.TypeFor[crLate]()}, `{}`, `{"L":[{}]}`},
		{&jsonencode.CustomResource{Type: reflect.TypeFor[crLate](), Nullable: []jsonencode.Field{
			{Struct: reflect.TypeFor[crLate](), Name: "B"},
			{Struct: reflect.TypeFor[crLate](), Name: "NoSuchField"},
		}}, `{"b":null}`, `{"L":[{"b":null}]}`},
	} {
		if c.cr != nil {
			jsonencode.RegisterCustomResource(*c.cr)
		}
		if got, _ := jsonencode.Marshal(&crLate{}); string(got) != c.alone {
			t.Errorf("%+v: %s, want %s", c.cr, got, c.alone)
		}
		if got, _ := jsonencode.Marshal(wrapped); string(got) != c.deep {
			t.Errorf("%+v: inside another type: %s, want %s", c.cr, got, c.deep)
		}
	}
}
