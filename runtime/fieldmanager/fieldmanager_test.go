package fieldmanager_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	infrav1 "github.com/kubeforge/kubeforge/generated/infra/v1"
	shippingv1 "github.com/kubeforge/kubeforge/generated/shipping/v1"
	"github.com/kubeforge/kubeforge/runtime/fieldmanager"
	typesv1 "github.com/kubeforge/kubeforge/types/shipping/v1"
)

type thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              thingSpec `json:"spec,omitempty"`
}

type thingSpec struct {
	Items  []item            `json:"items,omitempty"`
	Labels map[string]item   `json:"labels,omitempty"`
	When   *metav1.Time      `json:"when,omitempty"`
	Free   map[string]any    `json:"free,omitempty"`
	Count  int32             `json:"count,omitempty"`
	Skip   string            `json:"-"`
	Extra  map[string]string `json:"extra,omitempty"`
}

type item struct {
	Name string `json:"name"`
	Port int32  `json:"port,omitempty"`
}

func (in *thing) DeepCopyObject() runtime.Object {
	data, err := json.Marshal(in)
	if err != nil {
		return nil
	}
	out := new(thing)
	if err := json.Unmarshal(data, out); err != nil {
		return nil
	}
	return out
}

var thingGVK = schema.GroupVersionKind{Group: "test.kubeforge.dev", Version: "v1", Kind: "Thing"}

var thingSchemas = map[string]json.RawMessage{
	"dev.kubeforge.test.v1.Thing": json.RawMessage(`{"type":"object","properties":{
		"apiVersion":{"type":"string"},"kind":{"type":"string"},
		"metadata":{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]},
		"spec":{"type":"object","properties":{"count":{"type":"integer"},
			"items":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"port":{"type":"integer"}}},
				"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"]}}}},
		"x-kubernetes-group-version-kind":[{"group":"test.kubeforge.dev","version":"v1","kind":"Thing"}]}`),
}

func TestPruneUnknown(t *testing.T) {
	var u map[string]any
	in := `{"apiVersion":"v","kind":"Thing","bogus":1,
		"metadata":{"name":"n","nmae":"typo","labels":{"a":"b"}},
		"spec":{"count":0,"typo":true,"when":"2026-01-01T00:00:00Z",
			"items":[{"name":"a","port":1,"extra":2}],
			"labels":{"x":{"name":"y","nope":1}},
			"free":{"any":{"thing":1}},"Skip":"x","-":"y"}}`
	if err := json.Unmarshal([]byte(in), &u); err != nil {
		t.Fatal(err)
	}
	fieldmanager.PruneUnknown(u, &thing{})
	want := `{"apiVersion":"v","kind":"Thing","metadata":{"labels":{"a":"b"},"name":"n"},"spec":{"count":0,"free":{"any":{"thing":1}},"items":[{"name":"a","port":1}],"labels":{"x":{"name":"y"}},"when":"2026-01-01T00:00:00Z"}}`
	got, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("pruned\n got %s\nwant %s", got, want)
	}
}

func TestManagerOrUserAgent(t *testing.T) {
	for _, c := range []struct{ manager, ua, want string }{
		{"mine", "kubectl/v1.37.0", "mine"},
		{"", "kubectl/v1.37.0 (linux/amd64) kubernetes/abc", "kubectl"},
		{"", "Go-http-client/1.1", "Go-http-client"},
		{"", "", ""},
		{"", "a\x07b/1", "ab"},
		{"", strings.Repeat("x", 200), strings.Repeat("x", 128)},
		{"", strings.Repeat("é", 100), strings.Repeat("é", 64)},
	} {
		if got := fieldmanager.ManagerOrUserAgent(c.manager, c.ua); got != c.want {
			t.Errorf("ManagerOrUserAgent(%q, %q) = %q, want %q", c.manager, c.ua, got, c.want)
		}
	}
}

func TestRegistry(t *testing.T) {
	reg := fieldmanager.NewRegistry()
	gv := thingGVK.GroupVersion()
	if err := reg.AddSchemas(gv, map[string]json.RawMessage{"x": json.RawMessage(`{`)}); err == nil {
		t.Error("AddSchemas accepted a malformed schema")
	}
	if err := reg.AddSchemas(gv, map[string]json.RawMessage{"x": json.RawMessage(`{"$ref":"#/components/schemas/missing"}`)}); err == nil {
		t.Error("AddSchemas accepted a dangling ref")
	}
	if err := reg.AddSchemas(gv, thingSchemas); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.FieldManager(fieldmanager.Kind{GVK: thingGVK}, ""); err == nil {
		t.Error("FieldManager without New succeeded")
	}
	defaulted := false
	k := fieldmanager.Kind{
		GVK:     thingGVK,
		New:     func() runtime.Object { return &thing{} },
		Default: func(obj runtime.Object) { defaulted = true; obj.(*thing).Spec.Count = 7 },
	}
	fm, err := reg.FieldManager(k, "")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := reg.FieldManager(k, ""); again != fm {
		t.Error("FieldManager is not cached")
	}

	live := &thing{}
	live.SetGroupVersionKind(thingGVK)
	patch := func(items ...any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": gv.String(), "kind": "Thing",
			"metadata": map[string]any{"name": "t"},
			"spec":     map[string]any{"items": items},
		}}
	}
	out, err := fm.Apply(live, patch(map[string]any{"name": "a", "port": int64(1)}), "alice", false)
	if err != nil {
		t.Fatal(err)
	}
	th, ok := out.(*thing)
	if !ok {
		t.Fatalf("Apply returned %T", out)
	}
	if !defaulted || th.Spec.Count != 7 {
		t.Error("Apply did not default through the Kind")
	}
	th.UID = "u"
	out, err = fm.Apply(th, patch(map[string]any{"name": "b", "port": int64(2)}), "bob", false)
	if err != nil {
		t.Fatal(err)
	}
	th = out.(*thing)
	if want := []item{{"a", 1}, {"b", 2}}; !reflect.DeepEqual(th.Spec.Items, want) {
		t.Errorf("items %+v, want %+v (list-map keyed by name)", th.Spec.Items, want)
	}
	if len(th.ManagedFields) != 2 {
		t.Errorf("managedFields %+v", th.ManagedFields)
	}
}

// TestGeneratedSchemas: the schemas the openapi generator writes type
// server-side apply: parcels merge by name, tags as a set.
func TestGeneratedSchemas(t *testing.T) {
	reg := fieldmanager.NewRegistry()
	if err := reg.AddSchemas(schema.GroupVersion{Group: infrav1.GroupName, Version: "v1"}, infrav1.OpenAPISchemas()); err != nil {
		t.Fatal(err)
	}
	if err := reg.AddSchemas(shippingv1.SchemeGroupVersion, shippingv1.OpenAPISchemas()); err != nil {
		t.Fatal(err)
	}
	s := shippingv1.ShipmentStrategy
	fm, err := reg.FieldManager(fieldmanager.Kind{
		GVK:       s.Info.GroupVersionKind(),
		New:       func() runtime.Object { return s.New() },
		Default:   func(obj runtime.Object) { s.Default(obj.(*typesv1.Shipment)) },
		HasStatus: s.Info.HasStatus(),
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	cfg := func(parcel, tag string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": shippingv1.SchemeGroupVersion.String(), "kind": "Shipment",
			"metadata": map[string]any{"name": "s", "namespace": "default"},
			"spec": map[string]any{
				"parcels": []any{map[string]any{"name": parcel, "weight": "1k"}},
				"tags":    []any{tag},
			},
		}}
	}
	live := s.New()
	live.SetGroupVersionKind(s.Info.GroupVersionKind())
	out, err := fm.Apply(live, cfg("a", "x"), "alice", false)
	if err != nil {
		t.Fatal(err)
	}
	out.(*typesv1.Shipment).UID = "u"
	out, err = fm.Apply(out, cfg("b", "y"), "bob", false)
	if err != nil {
		t.Fatal(err)
	}
	sh := out.(*typesv1.Shipment)
	if len(sh.Spec.Parcels) != 2 || len(sh.Spec.Tags) != 2 {
		t.Errorf("parcels %+v tags %v: want both managers' entries", sh.Spec.Parcels, sh.Spec.Tags)
	}
	if sh.Spec.Parcels[0].Count != 1 {
		t.Errorf("parcel not defaulted: %+v", sh.Spec.Parcels[0])
	}
}
