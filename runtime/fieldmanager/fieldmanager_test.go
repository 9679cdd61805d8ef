package fieldmanager_test

import (
	"encoding/json"
	"errors"
	"github.com/kubeforge/kubeforge/runtime/presence"
	"reflect"
	"sort"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	infrav1 "github.com/kubeforge/kubeforge/generated/infra/v1"
	shippingv1 "github.com/kubeforge/kubeforge/generated/shipping/v1"
	shippingv1alpha1 "github.com/kubeforge/kubeforge/generated/shipping/v1alpha1"
	"github.com/kubeforge/kubeforge/runtime/fieldmanager"
	typesv1 "github.com/kubeforge/kubeforge/types/shipping/v1"
	typesv1alpha1 "github.com/kubeforge/kubeforge/types/shipping/v1alpha1"
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
		{"", "a b~c\x7fd/1", "a b~cd"},
		{"", strings.Repeat("y", 128), strings.Repeat("y", 128)},
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
		Default: func(obj runtime.Object, _ presence.Node) { defaulted = true; obj.(*thing).Spec.Count = 7 },
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
		Default:   func(obj runtime.Object, in presence.Node) { s.Default(obj.(*typesv1.Shipment), in) },
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

// shippingRegistry is a registry typed by both shipping versions' schemas,
// with v1alpha1's generated conversions when convert is set.
func shippingRegistry(t *testing.T, convert bool) *fieldmanager.Registry {
	t.Helper()
	reg := fieldmanager.NewRegistry()
	if err := reg.AddSchemas(shippingv1.SchemeGroupVersion, shippingv1.OpenAPISchemas()); err != nil {
		t.Fatal(err)
	}
	if err := reg.AddSchemas(shippingv1alpha1.SchemeGroupVersion, shippingv1alpha1.OpenAPISchemas()); err != nil {
		t.Fatal(err)
	}
	if convert {
		for _, c := range shippingv1alpha1.Conversions() {
			if err := reg.AddConversion(c); err != nil {
				t.Fatal(err)
			}
		}
	}
	return reg
}

func shipmentManagers(t *testing.T, reg *fieldmanager.Registry) (alpha, v1 *fieldmanager.FieldManager) {
	t.Helper()
	a, h := shippingv1alpha1.ShipmentStrategy, shippingv1.ShipmentStrategy
	alpha, err := reg.FieldManager(fieldmanager.Kind{
		GVK: a.Info.GroupVersionKind(), New: func() runtime.Object { return a.New() }, HasStatus: true,
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	v1, err = reg.FieldManager(fieldmanager.Kind{
		GVK: h.Info.GroupVersionKind(), New: func() runtime.Object { return h.New() }, HasStatus: true,
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	return alpha, v1
}

func managers(objMeta metav1.Object) []string {
	var out []string
	for _, e := range objMeta.GetManagedFields() {
		out = append(out, e.Manager+" "+e.APIVersion)
	}
	sort.Strings(out)
	return out
}

// TestConversions: with the generated conversions, an entry written
// through v1alpha1 survives an update through v1 and conflicts with a v1
// apply of the same field (named as v1alpha1 names it); entries of a
// version nothing converts to are dropped, as kube-apiserver drops those
// of a version no longer served.
func TestConversions(t *testing.T) {
	alphaApply := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "shipping.kubeforge.dev/v1alpha1", "kind": "Shipment",
		"metadata": map[string]any{"name": "s", "namespace": "default"},
		"spec": map[string]any{
			"from":    map[string]any{"street": "1 Old Road", "city": "Bonn"},
			"urgent":  true,
			"parcels": []any{map[string]any{"name": "box"}},
		},
	}}
	// run applies alice's configuration through v1alpha1, then updates
	// notify through v1 as bob, returning the v1 object.
	run := func(reg *fieldmanager.Registry) (*typesv1.Shipment, *fieldmanager.FieldManager) {
		fmAlpha, fmV1 := shipmentManagers(t, reg)
		live := shippingv1alpha1.ShipmentStrategy.New()
		live.SetGroupVersionKind(shippingv1alpha1.ShipmentInfo.GroupVersionKind())
		out, err := fmAlpha.Apply(live, alphaApply.DeepCopy(), "alice", false)
		if err != nil {
			t.Fatal(err)
		}
		out.(*typesv1alpha1.Shipment).UID = "u"
		hub, err := shippingv1alpha1.ShipmentToHub(out.(*typesv1alpha1.Shipment))
		if err != nil {
			t.Fatal(err)
		}
		changed := hub.DeepCopy()
		changed.Spec.Notify = "ops@example.dev"
		updated, err := fmV1.Update(hub, changed, "bob")
		if err != nil {
			t.Fatal(err)
		}
		return updated.(*typesv1.Shipment), fmV1
	}

	reg := shippingRegistry(t, true)
	sh, fmV1 := run(reg)
	if got := strings.Join(managers(sh), ", "); got != "alice shipping.kubeforge.dev/v1alpha1, bob shipping.kubeforge.dev/v1" {
		t.Fatalf("entries %s: want alice's v1alpha1 entry kept beside bob's", got)
	}
	_, err := fmV1.Apply(sh, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "shipping.kubeforge.dev/v1", "kind": "Shipment",
		"metadata": map[string]any{"name": "s", "namespace": "default"},
		"spec":     map[string]any{"origin": map[string]any{"city": "Berlin"}},
	}}, "carol", false)
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Code != 409 {
		t.Fatalf("v1 apply of origin.city: %v, want a conflict", err)
	}
	if d := status.Status().Details; d == nil || len(d.Causes) != 1 || d.Causes[0].Field != ".spec.from.city" || !strings.Contains(d.Causes[0].Message, `"alice"`) {
		t.Fatalf("conflict %+v: want alice's .spec.from.city", status.Status().Details)
	}

	// An entry of a version nothing converts to is dropped by the next
	// write, without an error.
	sh.ManagedFields = append(sh.ManagedFields, metav1.ManagedFieldsEntry{
		Manager: "old", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "shipping.kubeforge.dev/v0",
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:carrier":{}}}`)},
	})
	changed := sh.DeepCopy()
	dhl := "dhl"
	changed.Spec.Carrier = &dhl
	out, err := fmV1.Update(sh, changed, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(managers(out.(*typesv1.Shipment)), ", "); got != "alice shipping.kubeforge.dev/v1alpha1, bob shipping.kubeforge.dev/v1" {
		t.Fatalf("entries %s: want the v0 entry dropped", got)
	}

	// Without the conversions, the v1alpha1 entry is dropped.
	sh, _ = run(shippingRegistry(t, false))
	if got := strings.Join(managers(sh), ", "); got != "bob shipping.kubeforge.dev/v1" {
		t.Fatalf("entries without conversions %s", got)
	}
}

func TestAddConversionErrors(t *testing.T) {
	good := shippingv1alpha1.Conversions()[0]
	for _, c := range []struct {
		name string
		edit func(*fieldmanager.Conversion)
		want string
	}{
		{"no kind", func(c *fieldmanager.Conversion) { c.GVK.Kind = "" }, "need a version and a kind"},
		{"own hub", func(c *fieldmanager.Conversion) { c.Hub = c.GVK }, "its own hub"},
		{"no ToHub", func(c *fieldmanager.Conversion) { c.ToHub = nil }, "are required"},
	} {
		bad := good
		c.edit(&bad)
		if err := fieldmanager.NewRegistry().AddConversion(bad); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	reg := fieldmanager.NewRegistry()
	if err := reg.AddConversion(good); err != nil {
		t.Fatal(err)
	}
	if err := reg.AddConversion(good); err == nil || !strings.Contains(err.Error(), "already added") {
		t.Errorf("twice: %v", err)
	}
	chained := good
	chained.GVK, chained.Hub = schema.GroupVersionKind{Group: good.GVK.Group, Version: "v0", Kind: "Shipment"}, good.GVK
	if err := reg.AddConversion(chained); err == nil || !strings.Contains(err.Error(), "is itself converted") {
		t.Errorf("to a spoke: %v", err)
	}
	hubAsSpoke := good
	hubAsSpoke.GVK, hubAsSpoke.Hub = good.Hub, schema.GroupVersionKind{Group: good.GVK.Group, Version: "v2", Kind: "Shipment"}
	if err := reg.AddConversion(hubAsSpoke); err == nil || !strings.Contains(err.Error(), "already the hub") {
		t.Errorf("hub as spoke: %v", err)
	}
	// A conversion given the wrong type fails, it does not panic.
	if _, err := good.ToHub(&typesv1.Shipment{}); err == nil {
		t.Error("ToHub of a v1 object succeeded")
	}
}
