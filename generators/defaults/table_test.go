package defaults_test

import (
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	defsv1 "github.com/kubeforge/kubeforge/generators/defaults/testdata/generated/defs/v1"
	v1 "github.com/kubeforge/kubeforge/generators/defaults/testdata/types/defs/v1"
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
	if want := []string{"Item:main", "Thing:fast"}; !reflect.DeepEqual(v1.Calls, want) {
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
		Main: v1.Item{Name: "mine", Count: 5}, Shared: v1.Shared{Region: "us"},
	}}
	want := obj.Spec
	want.Window = &v1.Window{Length: metav1.Duration{Duration: time.Hour}}
	defsv1.SetObjectDefaults_Thing(obj)
	got := obj.Spec
	if got.Memory.String() != "0" {
		t.Errorf("memory: a quantity set to 0 was defaulted to %s", got.Memory.String())
	}
	got.Memory, want.Memory = resource.Quantity{}, resource.Quantity{}
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
	want := []string{"Item:a", "Item:b", "Item:x", "Item:p", "Item:main", "Thing:fast"}
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
