package fieldmanager

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// iosItem and iosObj hold IntOrStrings every way reflectValue reaches
// them (fields with and without omitempty, pointers, slices of them and
// of structs holding them, an inlined pointer struct) and ways it leaves
// to structured-merge-diff (a map of them).
type iosItem struct {
	Name string              `json:"name"`
	Port intstr.IntOrString  `json:"port"`
	P    *intstr.IntOrString `json:"p,omitempty"`
}

type IOSInline struct {
	In intstr.IntOrString `json:"in,omitempty"`
}

type iosObj struct {
	*IOSInline `json:",inline"`
	A          intstr.IntOrString            `json:"a"`
	B          intstr.IntOrString            `json:"b,omitempty"`
	C          *intstr.IntOrString           `json:"c,omitempty"`
	D          *intstr.IntOrString           `json:"d"`
	L          []intstr.IntOrString          `json:"l"`
	Items      []iosItem                     `json:"items,omitempty"`
	Nested     [][]iosItem                   `json:"nested,omitempty"`
	M          map[string]intstr.IntOrString `json:"m,omitempty"`
	PS         *iosItem                      `json:"ps,omitempty"`
	Q          resource.Quantity             `json:"q"`
	S          string                        `json:"s,omitempty"`
}

// iosSchema types iosObj with a keyed list, a set and an atomic list.
const iosSchema = `types:
- name: obj
  map:
    elementType: {namedType: __untyped_deduced_}
    fields:
    - name: items
      type: {list: {elementType: {namedType: item}, elementRelationship: associative, keys: [name]}}
    - name: l
      type: {list: {elementType: {scalar: untyped}, elementRelationship: associative}}
    - name: nested
      type: {list: {elementType: {namedType: __untyped_deduced_}, elementRelationship: atomic}}
- name: item
  map:
    elementType: {namedType: __untyped_deduced_}
    fields:
    - name: name
      type: {scalar: string}
- name: __untyped_deduced_
  scalar: untyped
  list:
    elementType: {namedType: __untyped_atomic_}
    elementRelationship: atomic
  map:
    elementType: {namedType: __untyped_deduced_}
    elementRelationship: separable
- name: __untyped_atomic_
  scalar: untyped
  list:
    elementType: {namedType: __untyped_atomic_}
    elementRelationship: atomic
  map:
    elementType: {namedType: __untyped_atomic_}
    elementRelationship: atomic
`

func iosFuzzer(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, 3).Funcs(
		func(s *string, c randfill.Continue) { *s = []string{"", "a", "b"}[c.Intn(3)] },
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(c.Int63n(3), resource.DecimalSI)
		},
		func(x *intstr.IntOrString, c randfill.Continue) {
			switch c.Intn(5) {
			case 0, 1:
				*x = intstr.FromInt32(c.Int31n(3) - 1)
			case 2:
				*x = intstr.FromString([]string{"", "1", "<a&b>", "\xff", "a\u2028"}[c.Intn(5)])
			case 3:
				// Equal to JSON, not to reflect.DeepEqual.
				*x = intstr.IntOrString{Type: intstr.Int, IntVal: 1, StrVal: "x"}
			default:
				*x = intstr.IntOrString{}
			}
		},
	)
}

// TestReflectValueMatchesSMD: on fuzzed pairs of objects, reflectValue
// gives what structured-merge-diff's reflection gives: the same JSON,
// equality, field sets, comparisons (keyed lists, sets, atomic lists,
// deduced maps) and merges, or the same error.
func TestReflectValueMatchesSMD(t *testing.T) {
	parser, err := typed.NewParser(iosSchema)
	if err != nil {
		t.Fatal(err)
	}
	types := []typed.ParseableType{parser.Type("obj"), typed.DeducedParseableType}
	f := iosFuzzer(1)
	compared := 0
	for i := range 400 {
		var x, y iosObj
		f.Fill(&x)
		if i%4 == 0 {
			y = x // equal but for what the fuzzer changes below
			f.Fill(&y.B)
		} else {
			f.Fill(&y)
		}
		for _, pt := range types {
			compared += matchSMD(t, pt, &x, &y)
		}
	}
	if compared < 200 {
		t.Errorf("only %d comparisons succeeded: the fuzzed objects test too little", compared)
	}
}

// matchSMD checks one pair under one type; 1 when the comparison succeeded.
func matchSMD(t *testing.T, pt typed.ParseableType, x, y *iosObj) int {
	t.Helper()
	mine := func(o *iosObj) *typed.TypedValue {
		v, err := newReflectValue(o)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := v.(*reflectStruct); !ok {
			t.Fatalf("%T: not read by reflectValue", o)
		}
		return typed.AsTypedUnvalidated(v, pt.Schema, pt.TypeRef)
	}
	theirs := func(o *iosObj) *typed.TypedValue {
		v, err := value.NewValueReflect(o)
		if err != nil {
			t.Fatal(err)
		}
		return typed.AsTypedUnvalidated(v, pt.Schema, pt.TypeRef)
	}
	mx, my, tx, ty := mine(x), mine(y), theirs(x), theirs(y)
	if got, want := mx.AsValue().Unstructured(), tx.AsValue().Unstructured(); !reflect.DeepEqual(got, want) {
		t.Fatalf("unstructured differ\n got %#v\nwant %#v", got, want)
	}
	if got, want := value.Equals(mx.AsValue(), my.AsValue()), value.Equals(tx.AsValue(), ty.AsValue()); got != want {
		t.Fatalf("equality %v, want %v for %+v / %+v", got, want, x, y)
	}
	if got, want := mx.AsValue().AsMap().Length(), tx.AsValue().AsMap().Length(); got != want {
		t.Fatalf("length %d, want %d", got, want)
	}
	same(t, "field set", mx.ToFieldSet, tx.ToFieldSet)
	same(t, "validation", func() (string, error) { return "", mx.Validate(typed.AllowDuplicates) }, func() (string, error) { return "", tx.Validate(typed.AllowDuplicates) })
	ok := same(t, "comparison", func() (*typed.Comparison, error) { return mx.Compare(my) }, func() (*typed.Comparison, error) { return tx.Compare(ty) })
	same(t, "merge", func() (any, error) { return unstructuredOf(mx.Merge(my)) }, func() (any, error) { return unstructuredOf(tx.Merge(ty)) })
	if ok {
		return 1
	}
	return 0
}

func unstructuredOf(v *typed.TypedValue, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return v.AsValue().Unstructured(), nil
}

// same runs both and wants equal results (Comparisons and field sets by
// their text) or errors; it reports whether both succeeded.
func same[T any](t *testing.T, what string, got, want func() (T, error)) bool {
	t.Helper()
	g, gerr := got()
	w, werr := want()
	if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
		t.Fatalf("%s: error %v, want %v", what, gerr, werr)
	}
	if gerr != nil {
		return false
	}
	if !reflect.DeepEqual(text(g), text(w)) {
		t.Fatalf("%s: %v, want %v", what, text(g), text(w))
	}
	return true
}

func text(v any) any {
	if s, ok := v.(interface{ String() string }); ok {
		return s.String()
	}
	return v
}
