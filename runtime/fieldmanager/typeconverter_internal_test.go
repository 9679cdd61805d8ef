package fieldmanager

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// fitSchema has one type per case; "any" is the deduced type any JSON fits.
const fitSchema = `types:
- name: item
  map:
    fields:
    - name: name
      type: {scalar: string}
    - name: port
      type: {scalar: numeric}
- name: keyed
  list:
    elementType: {namedType: item}
    elementRelationship: associative
    keys: [name]
- name: holder
  map:
    fields:
    - name: items
      type: {namedType: keyed}
- name: obj
  map:
    fields:
    - name: name
      type: {scalar: string}
    - name: count
      type: {scalar: numeric}
    - name: when
      type: {scalar: string}
    - name: tolerance
      type: {scalar: untyped}
    - name: labels
      type: {map: {elementType: {scalar: string}}}
    - name: items
      type: {namedType: keyed}
    - name: tags
      type: {list: {elementType: {scalar: string}, elementRelationship: associative}}
    - name: holders
      type: {list: {elementType: {namedType: holder}, elementRelationship: atomic}}
    - name: data
      type: {scalar: string}
`

type fitItem struct {
	Name string `json:"name"`
	Port int32  `json:"port,omitempty"`
}

type fitHolder struct {
	Items []fitItem `json:"items,omitempty"`
}

type fitInline struct {
	Count int `json:"count"`
}

type fitObj struct {
	fitInline `json:",inline"`
	Name      string             `json:"name"`
	When      *metav1.Time       `json:"when,omitempty"`
	Tolerance intstr.IntOrString `json:"tolerance"`
	Labels    map[string]string  `json:"labels,omitempty"`
	Items     []fitItem          `json:"items,omitempty"`
	Tags      []string           `json:"tags,omitempty"`
	Data      []byte             `json:"data,omitempty"`
	Skipped   any                `json:"-"`
}

type fitUndeclared struct {
	Name  string `json:"name"`
	Bogus string `json:"bogus"`
}

type fitWrongScalar struct {
	Name int `json:"name"`
}

type fitTolString struct {
	Name intstr.IntOrString `json:"name"`
}

type fitInterface struct {
	Name any `json:"name"`
}

type fitNestedKeyed struct {
	Holders []fitHolder `json:"holders"`
}

func TestFitsSchema(t *testing.T) {
	p, err := typed.NewParser(typed.YAMLObject(fitSchema))
	if err != nil {
		t.Fatal(err)
	}
	obj := p.Type("obj")
	for _, tc := range []struct {
		name string
		t    reflect.Type
		want bool
	}{
		{"declared fields of the schema's types, inlined, marshalers, []byte", reflect.TypeFor[*fitObj](), true},
		{"a field the schema does not declare", reflect.TypeFor[*fitUndeclared](), false},
		{"a number where the schema wants a string", reflect.TypeFor[*fitWrongScalar](), false},
		{"an IntOrString where the schema wants a string", reflect.TypeFor[*fitTolString](), false},
		{"an interface", reflect.TypeFor[*fitInterface](), false},
		{"a keyed list inside an atomic list", reflect.TypeFor[*fitNestedKeyed](), false},
	} {
		if got := fitsSchema(tc.t, obj.Schema, obj.TypeRef); got != tc.want {
			t.Errorf("%s (%v): fits %v, want %v", tc.name, tc.t, got, tc.want)
		}
	}
}
