package jsondecode

import (
	"reflect"
	"slices"
	"strconv"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	sigsjson "sigs.k8s.io/json"

	"github.com/kubeforge/kubeforge/runtime/jsonfields"
	infrav1 "github.com/kubeforge/kubeforge/types/infra/v1"
	shippingv1 "github.com/kubeforge/kubeforge/types/shipping/v1"
	shippingv1alpha1 "github.com/kubeforge/kubeforge/types/shipping/v1alpha1"
)

// Embedding puzzles: encoding/json's dominance rules and their quirks.
type (
	pzA      struct{ X, Y int }
	pzB      struct{ X int }
	pzTagged struct {
		Z int `json:"X"`
	}
	pzDeep    struct{ pzA }
	pzTwiceIn struct {
		W int
		pzDeep
	}
	pzUnexp struct{ Exported, other int }
	PzStr   string
	pzStr   string
	pzPtr   struct{ P int }
	pzOdd   struct {
		Q int `json:"q,string"`
	}
	pzBadTags struct {
		A int `json:"a\"b"`
		B int `json:"-,"`
		C int `json:"-"`
		D int `json:",omitempty"`
		E int `json:"e e"`
		F int `json:"ü"`
	}
	puzzle struct {
		pzA
		pzB
		pzTagged
		pzDeep
		pzTwiceIn
		pzUnexp
		PzStr
		pzStr
		*pzPtr
		pzOdd
		pzBadTags
		Named pzA `json:"named"`
		Y     string
	}
	// twice: pzA embedded twice at depth 2 (through t1 and t2), so its
	// fields are ambiguous, but not those of what pzA embeds (none here)
	// nor t1's and t2's own distinct ones.
	t1    struct{ pzA }
	t2    struct{ pzA }
	twice struct {
		t1
		t2
		V int
	}
)

// TestFieldsMatchDecoder: for every struct type the shipped types reach
// and the puzzles above, a JSON name is one of jsonfields.Of's exactly when
// sigs.k8s.io/json's strict decoder knows it, over every name a tag or a
// Go field anywhere in the struct's embedding tree offers.
func TestFieldsMatchDecoder(t *testing.T) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		admissionregistrationv1.AddToScheme, coordinationv1.AddToScheme, corev1.AddToScheme, eventsv1.AddToScheme,
		rbacv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[reflect.Type]bool{}
	var structs []reflect.Type
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			walk(t.Elem())
		case reflect.Struct:
			structs = append(structs, t)
			for i := range t.NumField() {
				walk(t.Field(i).Type)
			}
		}
	}
	for _, typ := range scheme.AllKnownTypes() {
		walk(typ)
	}
	walk(reflect.TypeFor[infrav1.WarehouseList]())
	walk(reflect.TypeFor[shippingv1.ShipmentList]())
	walk(reflect.TypeFor[shippingv1alpha1.ShipmentList]())
	walk(reflect.TypeFor[puzzle]())
	walk(reflect.TypeFor[twice]())
	if len(structs) < 200 {
		t.Fatalf("%d struct types reached", len(structs))
	}
	for _, st := range structs {
		if pt := reflect.PointerTo(st); pt.Implements(unmarshalerType) || pt.Implements(textUnmarshalerType) {
			continue // decoded by its method
		}
		var names []string
		for _, f := range jsonfields.Of(st) {
			names = append(names, f.Name)
		}
		for _, name := range candidateNames(st, nil) {
			known := decoderKnows(st, name)
			if ours := slices.Contains(names, name); ours != known {
				t.Errorf("%v: name %q: jsonfields.Of has it %v, the decoder knows it %v", st, name, ours, known)
			}
		}
	}
}

// candidateNames: the Go names and tag names of st's fields and of the
// structs it embeds, recursively.
func candidateNames(st reflect.Type, seen map[reflect.Type]bool) []string {
	if seen == nil {
		seen = map[reflect.Type]bool{}
	}
	if seen[st] {
		return nil
	}
	seen[st] = true
	var out []string
	for i := range st.NumField() {
		sf := st.Field(i)
		name, _, _ := fieldNameForTest(sf)
		out = append(out, sf.Name, name)
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if sf.Anonymous && ft.Kind() == reflect.Struct {
			out = append(out, candidateNames(ft, seen)...)
		}
	}
	return out
}

func fieldNameForTest(sf reflect.StructField) (string, string, bool) {
	tag := sf.Tag.Get("json")
	for i := range tag {
		if tag[i] == ',' {
			return tag[:i], tag[i+1:], true
		}
	}
	return tag, "", true
}

// decoderKnows: sigs.k8s.io/json's strict decoder reports no unknown
// field for {name: null} (null fails no known field but one whose
// UnmarshalJSON refuses it).
func decoderKnows(st reflect.Type, name string) bool {
	if name == "" {
		return false
	}
	strictErrs, err := sigsjson.UnmarshalStrict([]byte(`{`+strconv.Quote(name)+`:null}`), reflect.New(st).Interface())
	if err != nil {
		return true // the field's UnmarshalJSON refused null: it was found
	}
	return len(strictErrs) == 0
}

// TestFieldQuirks pins down the puzzles' answers.
func TestFieldQuirks(t *testing.T) {
	got := map[string]string{}
	for _, f := range jsonfields.Of(reflect.TypeFor[puzzle]()) {
		got[f.Name] = strconv.Itoa(len(f.Index)) + strconv.FormatBool(f.Quoted)
	}
	want := map[string]string{
		"X": "2false", "Y": "1false", "W": "2false", "Exported": "2false", "PzStr": "1false",
		"P": "2false", "q": "2true", "A": "2false", "-": "2false", "D": "2false", "e e": "2false", "ü": "2false",
		"named": "1false",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("puzzle fields %v, want %v", got, want)
	}
}
