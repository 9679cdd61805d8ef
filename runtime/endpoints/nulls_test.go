package endpoints

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
)

type nullDock struct {
	ID   int32             `json:"id"`
	Tags []string          `json:"tags,omitempty"`
	Meta map[string]string `json:"meta,omitempty"`
}

type nullSpec struct {
	Zones    []string                     `json:"zones,omitempty"`
	Docks    []nullDock                   `json:"docks,omitempty"`
	Ptrs     []*nullDock                  `json:"ptrs,omitempty"`
	Hours    map[string]nullDock          `json:"hours,omitempty"`
	Nested   map[string]map[string]string `json:"nested,omitempty"`
	Times    []metav1.Time                `json:"times,omitempty"`
	Sizes    []resource.Quantity          `json:"sizes,omitempty"`
	Data     []byte                       `json:"data,omitempty"`
	Count    *int32                       `json:"count,omitempty"`
	Counts   []int64                      `json:"counts,omitempty"`
	Matrix   [][]string                   `json:"matrix,omitempty"`
	Optional *nullDock                    `json:"optional,omitempty"`
}

type nullKind struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              nullSpec `json:"spec"`
	Status            nullSpec `json:"status,omitempty"`
}

// TestSchemaNulls: a null list item is kube's 422 for a custom resource
// (its type named as the schema names it), a null map value is pruned (the
// entry is gone, not a zero value), a null member leaves its field unset;
// types that decode themselves are left to their decoder.
func TestSchemaNulls(t *testing.T) {
	body := `{"metadata":{"name":"n","labels":{"a":null,"b":"c"}},"spec":{
		"zones":["a",null],"docks":[{"id":1,"tags":[null]},null],"ptrs":[null],
		"hours":{"mon":null,"tue":{"id":2,"meta":{"x":null,"y":"z"}}},
		"nested":{"a":{"b":null,"c":"d"},"e":null},
		"times":[null],"sizes":[null],"counts":[1,null],"matrix":[[null]],"count":null,"optional":null}}`
	obj := &nullKind{}
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(body), obj); err != nil {
		t.Fatal(err)
	}
	errs := schemaNulls(obj, []byte(body), nullScope(false, ""))
	want := field.ErrorList{
		field.TypeInvalid(field.NewPath("spec", "zones").Index(1), "null", `spec.zones[1] in body must be of type string: "null"`),
		field.TypeInvalid(field.NewPath("spec", "docks").Index(0).Child("tags").Index(0), "null", `spec.docks[0].tags[0] in body must be of type string: "null"`),
		field.TypeInvalid(field.NewPath("spec", "docks").Index(1), "null", `spec.docks[1] in body must be of type object: "null"`),
		field.TypeInvalid(field.NewPath("spec", "ptrs").Index(0), "null", `spec.ptrs[0] in body must be of type object: "null"`),
		field.TypeInvalid(field.NewPath("spec", "times").Index(0), "null", `spec.times[0] in body must be of type string: "null"`),
		field.TypeInvalid(field.NewPath("spec", "counts").Index(1), "null", `spec.counts[1] in body must be of type integer: "null"`),
		field.TypeInvalid(field.NewPath("spec", "matrix").Index(0).Index(0), "null", `spec.matrix[0][0] in body must be of type string: "null"`),
	}
	if !reflect.DeepEqual(errs, want) {
		t.Errorf("errors:\n got %v\nwant %v", errs, want)
	}
	// metadata is kube's typed ObjectMeta: a null label value is "".
	if v, ok := obj.Labels["a"]; !ok || v != "" || obj.Labels["b"] != "c" {
		t.Errorf("labels: %v", obj.Labels)
	}
	if _, ok := obj.Spec.Hours["mon"]; ok {
		t.Errorf("hours: %v", obj.Spec.Hours)
	}
	if m := obj.Spec.Hours["tue"].Meta; len(m) != 1 || m["y"] != "z" {
		t.Errorf("hours.tue.meta: %v", m)
	}
	if n := obj.Spec.Nested; len(n) != 1 || len(n["a"]) != 1 || n["a"]["c"] != "d" {
		t.Errorf("nested: %v", n)
	}
	// No null, no walk: the object is left as decoded.
	if errs := schemaNulls(&nullKind{}, []byte(`{"spec":{"zones":["nullable"]}}`), nullScope(false, "")); errs != nil {
		t.Errorf("no null: %v", errs)
	}
	// What the write drops is not looked at: a create's or an update's
	// status, a status write's spec, when the kind has a status
	// subresource.
	for _, sub := range []string{"", "status"} {
		member := map[string]string{"": "status", "status": "spec"}[sub]
		data := []byte(`{"` + member + `":{"zones":[null]}}`)
		if errs := schemaNulls(&nullKind{}, data, nullScope(true, sub)); errs != nil {
			t.Errorf("%q write, null in %s: %v", sub, member, errs)
		}
		if errs := schemaNulls(&nullKind{}, data, nullScope(false, sub)); len(errs) != 1 {
			t.Errorf("%q write of a kind without status subresource, null in %s: %v", sub, member, errs)
		}
	}
}

// TestNullsOutsideMetadata: the walk is skipped for the nulls Go clients
// send in every new object's metadata, not for any other.
func TestNullsOutsideMetadata(t *testing.T) {
	for body, want := range map[string]bool{
		`{"metadata":{"name":"a","creationTimestamp":null},"spec":{"x":"null"}}`:           false,
		`{"kind":"K","metadata":{"labels":{"a":null},"ownerReferences":[null]},"spec":{}}`: false,
		`{"metadata":{"creationTimestamp":null},"spec":{"zones":[null]}}`:                  true,
		`{"spec":{"m":{"a":null}},"metadata":{"creationTimestamp":null}}`:                  true,
		`{"metadata":null}`:                      true,
		`{"spec":{"metadata":{"a":null}}}`:       true, // not the top-level metadata
		`{"metadata":{"a":{"b":[1]}},"x":null}`:  true,
		`{"a":"metadata","metadata":{"n":null}}`: false,
		`{"s":"\"null\""}`:                       false,
	} {
		if got := nullsOutsideMetadata([]byte(body)); got != want {
			t.Errorf("%s: %v, want %v", body, got, want)
		}
	}
}

// BenchmarkSchemaNulls: what a body costs that a Go client sends for a new
// object (creationTimestamp: null in its metadata, no other null).
func BenchmarkSchemaNulls(b *testing.B) {
	body := []byte(`{"kind":"Shipment","apiVersion":"shipping.kubeforge.dev/v1","metadata":{"name":"s1","namespace":"default","creationTimestamp":null,"labels":{"app":"x"}},` +
		`"spec":{"origin":{"street":"a","city":"b","country":"DE"},"destination":{"street":"c","city":"d","country":"FR"},"parcels":[{"name":"p1","count":1},{"name":"p2","count":2}],"priority":"Normal"},"status":{}}`)
	obj := &nullKind{}
	keep := nullScope(true, "")
	b.ReportAllocs()
	for b.Loop() {
		if errs := schemaNulls(obj, body, keep); errs != nil {
			b.Fatal(errs)
		}
	}
}
