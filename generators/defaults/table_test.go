package defaults_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	defsv1 "github.com/kubeforge/kubeforge/generators/defaults/testdata/generated/defs/v1"
	v1 "github.com/kubeforge/kubeforge/generators/defaults/testdata/types/defs/v1"
	"github.com/kubeforge/kubeforge/runtime/presence"
)

func ptr[T any](v T) *T { return &v }

// TestZeroFieldsDefaulted runs the generated SetObjectDefaults_Thing (from
// the committed golden output, kept fresh by TestGolden) on an empty object.
func TestZeroFieldsDefaulted(t *testing.T) {
	v1.Calls = nil
	obj := &v1.Thing{}
	defsv1.SetObjectDefaults_Thing(obj)
	s := obj.Spec
	checks := []struct {
		name      string
		got, want any
	}{
		{"mode", s.Mode, v1.Mode("fast")},
		{"small", s.Small, int16(-3)},
		{"big", s.Big, int64(9000000000)},
		{"ratio", s.Ratio, 0.5},
		{"enabled", s.Enabled, true},
		{"replicas allocated", s.Replicas, ptr(int32(2))},
		{"paused allocated", s.Paused, ptr(false)},
		{"timeout", s.Timeout, metav1.Duration{Duration: 30 * time.Second}},
		{"memory", s.Memory.String(), "512Mi"},
		{"surge", s.Surge, intstr.FromString("25%")},
		{"unavailable", s.Unavailable, intstr.FromInt32(1)},
		{"tags", s.Tags, []string{"a", "b"}},
		{"limits", s.Limits, map[string]string{"cpu": "1"}},
		{"window allocated from the object default", s.Window != nil, true},
		{"main struct default, then its nested default and hook", s.Main, v1.Item{Name: "main", Count: 1}},
		{"inline embedded struct", s.Region, "eu"},
		{"extension stays nil", s.Extension, (*runtime.RawExtension)(nil)},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %#v, want %#v", c.name, c.got, c.want)
		}
	}
	if s.Window != nil {
		want := v1.Window{Length: metav1.Duration{Duration: 90 * time.Minute}, Days: []string{"sat"}}
		if !reflect.DeepEqual(*s.Window, want) {
			t.Errorf("window: got %#v, want %#v (object default then nested default)", *s.Window, want)
		}
	}
	if want := []string{"Item:main", "Item:x", "Thing:fast"}; !reflect.DeepEqual(v1.Calls, want) {
		t.Errorf("hooks: got %v, want %v", v1.Calls, want)
	}
}

// TestNonZeroKept: values the user set are never overwritten.
func TestNonZeroKept(t *testing.T) {
	obj := &v1.Thing{Spec: v1.ThingSpec{
		Mode: "slow", Small: 7, Big: 1, Ratio: 0.25, Enabled: true, Replicas: ptr(int32(0)), Paused: ptr(true),
		Timeout: metav1.Duration{Duration: time.Minute}, Memory: resource.MustParse("0"),
		Surge: intstr.FromInt32(3), Unavailable: intstr.FromString("0%"), Tags: []string{"x"},
		Limits: map[string]string{"mem": "2"}, Window: &v1.Window{Length: metav1.Duration{Duration: time.Hour}},
		Main: v1.Item{Name: "mine", Count: 5}, Shared: v1.Shared{Region: "us", Zone: "b"},
		Kept: v1.Kept{Name: "k", On: true, Size: 1, Wait: metav1.Duration{Duration: time.Second}, Budget: resource.MustParse("2"), Spare: intstr.FromString("s"),
			Labels: map[string]string{}, Item: v1.Item{Name: "i", Count: 2}},
	}}
	want := obj.Spec
	want.Window = &v1.Window{Length: metav1.Duration{Duration: time.Hour}}
	defsv1.SetObjectDefaults_Thing(obj)
	got := obj.Spec
	if got.Memory.String() != "0" {
		t.Errorf("memory: a quantity set to 0 was defaulted to %s", got.Memory.String())
	}
	got.Memory, want.Memory = resource.Quantity{}, resource.Quantity{}
	if got.Kept.Budget.String() != "2" {
		t.Errorf("kept budget: %s", got.Kept.Budget.String())
	}
	got.Kept.Budget, want.Kept.Budget = resource.Quantity{}, resource.Quantity{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("set values changed:\n got %#v\nwant %#v", got, want)
	}
	if *obj.Spec.Replicas != 0 || !*obj.Spec.Paused {
		t.Errorf("pointers to zero values were overwritten: replicas=%d paused=%v", *obj.Spec.Replicas, *obj.Spec.Paused)
	}
}

// TestSlicesAndMapsDefaulted: slice items, map values and map pointers.
func TestSlicesAndMapsDefaulted(t *testing.T) {
	v1.Calls = nil
	obj := &v1.Thing{Spec: v1.ThingSpec{
		Items:  []v1.Item{{Name: "a"}, {Name: "b", Count: 9}},
		ByName: map[string]v1.Item{"x": {Name: "x"}},
		Refs:   map[string]*v1.Item{"p": {Name: "p"}, "nil": nil},
	}}
	defsv1.SetObjectDefaults_Thing(obj)
	if want := []v1.Item{{Name: "a", Count: 1}, {Name: "b", Count: 9}}; !reflect.DeepEqual(obj.Spec.Items, want) {
		t.Errorf("items: got %v, want %v", obj.Spec.Items, want)
	}
	if got := obj.Spec.ByName["x"]; got.Count != 1 {
		t.Errorf("map value: got %+v, want count 1", got)
	}
	if got := obj.Spec.Refs["p"]; got.Count != 1 {
		t.Errorf("map pointer value: got %+v, want count 1", got)
	}
	if obj.Spec.Refs["nil"] != nil {
		t.Error("a nil map pointer value was allocated")
	}
	// Items in order, then the map value, the pointer, main, and the kind last.
	want := []string{"Item:a", "Item:b", "Item:x", "Item:p", "Item:main", "Item:x", "Thing:fast"}
	if !reflect.DeepEqual(v1.Calls, want) {
		t.Errorf("hook order: got %v, want %v", v1.Calls, want)
	}
}

// TestListAndScheme: the list defaulter and RegisterDefaults.
func TestListAndScheme(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := defsv1.RegisterDefaults(scheme); err != nil {
		t.Fatalf("register defaults: %v", err)
	}
	list := &v1.ThingList{Items: []v1.Thing{{}, {Spec: v1.ThingSpec{Mode: "slow"}}}}
	scheme.Default(list)
	if list.Items[0].Spec.Mode != "fast" || list.Items[1].Spec.Mode != "slow" {
		t.Errorf("list items: got modes %q, %q; want fast, slow", list.Items[0].Spec.Mode, list.Items[1].Spec.Mode)
	}
	obj := &v1.Thing{}
	scheme.Default(obj)
	if obj.Spec.Region != "eu" {
		t.Errorf("scheme.Default(thing): region %q, want eu", obj.Spec.Region)
	}
}

// TestExplicitZerosKept runs the generated SetObjectDefaultsFrom_Thing on
// an object decoded from JSON: a field without omitempty whose key the JSON
// sets keeps its zero, an absent or null key is defaulted, wherever the
// field sits (nested, inline, list items, lists of lists, map values under
// named keys, behind a pointer). The zero Node defaults every zero, and
// presence.Marshaled none of those fields.
func TestExplicitZerosKept(t *testing.T) {
	zeros := `{"name":"","on":false,"size":0,"wait":"0s","budget":"0","spare":0,"labels":null,"item":{}}`
	data := []byte(`{"spec":{"zone":"","kept":` + zeros + `,
		"keptList":[` + zeros + `,{},{"size":0,"on":null}],
		"keptGrid":[[{}],[` + zeros + `,{"size":0}]],
		"keptByMode":{"fast":` + zeros + `,"slow":{}},
		"keptRef":` + zeros + `}}`)
	var obj v1.Thing
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	defsv1.SetObjectDefaultsFrom_Thing(&obj, presence.JSON(data))

	// The Item's hook names an unnamed item: hooks see every zero.
	kept := v1.Kept{Labels: map[string]string{"a": "b"}, Item: v1.Item{Name: "unnamed", Count: 1}}
	defaulted := v1.Kept{Name: "anon", On: true, Size: 3, Wait: metav1.Duration{Duration: time.Minute},
		Budget: resource.MustParse("1"), Spare: intstr.FromInt32(2), Labels: map[string]string{"a": "b"}, Item: v1.Item{Name: "x", Count: 1}}
	sizeOnly := defaulted
	sizeOnly.Size = 0
	s := obj.Spec
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"inline zone", s.Zone, ""},
		{"kept", s.Kept, kept},
		{"keptList", s.KeptList, []v1.Kept{kept, defaulted, sizeOnly}},
		{"keptGrid", s.KeptGrid, [][]v1.Kept{{defaulted}, {kept, sizeOnly}}},
		{"keptByMode", s.KeptByMode, map[v1.Mode]v1.Kept{"fast": kept, "slow": defaulted}},
		{"keptRef", *s.KeptRef, kept},
	} {
		if !equalKept(c.got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, c.got, c.want)
		}
	}

	var none, marshaled v1.Thing
	if json.Unmarshal(data, &none) != nil || json.Unmarshal(data, &marshaled) != nil {
		t.Fatal("decode")
	}
	defsv1.SetObjectDefaultsFrom_Thing(&none, presence.Node{})
	if k := none.Spec.Kept; k.Name != "anon" || !k.On || k.Size != 3 || none.Spec.Zone != "a" {
		t.Errorf("the zero Node kept a zero: %+v zone %q", none.Spec.Kept, none.Spec.Zone)
	}
	defsv1.SetObjectDefaultsFrom_Thing(&marshaled, presence.Marshaled)
	if !equalKept(marshaled.Spec.KeptList[1], kept) || marshaled.Spec.Zone != "" {
		t.Errorf("Marshaled defaulted a field without omitempty: %+v zone %q", marshaled.Spec.KeptList[1], marshaled.Spec.Zone)
	}
}

// equalKept compares as JSON: a Quantity's cached string differs after
// use.
func equalKept(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestAbsentObjectsNotDefaulted: as kube-apiserver defaults a custom
// resource, nothing below a struct field the request's JSON leaves out is
// defaulted (a struct default of its own still applies, and then its
// nested defaults); an empty object sent is defaulted. Without JSON (the
// zero Node) every zero is.
func TestAbsentObjectsNotDefaulted(t *testing.T) {
	decode := func(data string) *v1.Thing {
		t.Helper()
		var obj v1.Thing
		if err := json.Unmarshal([]byte(data), &obj); err != nil {
			t.Fatal(err)
		}
		defsv1.SetObjectDefaultsFrom_Thing(&obj, presence.JSON([]byte(data)))
		return &obj
	}
	if s := decode(`{"metadata":{"name":"x"}}`).Spec; s.Mode != "" || s.Region != "" || s.Kept.Name != "" {
		t.Errorf("an absent spec was defaulted: mode %q region %q kept %+v", s.Mode, s.Region, s.Kept)
	}
	s := decode(`{"spec":{}}`).Spec
	if s.Mode != "fast" || s.Region != "eu" {
		t.Errorf("an empty spec was not defaulted: mode %q region %q", s.Mode, s.Region)
	}
	if s.Kept.Name != "" || s.Kept.Size != 0 {
		t.Errorf("spec.kept, absent, was defaulted: %+v", s.Kept)
	}
	if s.Main != (v1.Item{Name: "main", Count: 1}) {
		t.Errorf("spec.main, absent with a default of its own: %+v, want the default and its nested defaults", s.Main)
	}
	if k := decode(`{"spec":{"kept":{}}}`).Spec.Kept; k.Name != "anon" || k.Size != 3 {
		t.Errorf("an empty spec.kept was not defaulted: %+v", k)
	}
	var none v1.Thing
	defsv1.SetObjectDefaultsFrom_Thing(&none, presence.Node{})
	if none.Spec.Mode != "fast" || none.Spec.Kept.Name != "anon" {
		t.Errorf("the zero Node left zeros: %+v", none.Spec)
	}
}
