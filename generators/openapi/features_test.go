package openapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/model"
	"github.com/kubeforge/kubeforge/runtime/openapidefs"
)

// featuresVersion is a small hand-built model exercising what the
// acceptance types do not: Quantity, IntOrString, inline embedding, named
// enum types, []byte, exclusive bounds, CEL rules, generated lists,
// embedded resources and an external struct described by the loader.
func featuresVersion() *model.Version {
	g := &model.Group{Name: "shipping.kubeforge.dev", Short: "shipping"}
	v := &model.Version{Group: g, Name: "v1", Package: "example.com/api/types/shipping/v1"}
	g.Versions = []*model.Version{v}
	prio := &model.Type{Version: v, Name: "Priority", Kind: model.BasicKind, Underlying: builtinRef("string"),
		Validation: model.Validation{Enum: []any{"Low", "Normal"}}, Default: def(`"Normal"`)}
	tracking := &model.Type{Version: v, Name: "Tracking", Kind: model.StructKind, Fields: []*model.Field{
		{Name: "Notify", JSONName: "notify", Type: builtinRef("string"), Doc: "Notify is where\ntracking updates go.\n\nSecond paragraph.", Validation: model.Validation{Format: "email"}},
		{Name: "Every", JSONName: "every", Type: builtinRef("int32"), Required: true,
			Validation: model.Validation{Minimum: f64(5), ExclusiveMinimum: true, MultipleOf: f64(5)}},
	}}
	labelSel := &model.External{Doc: "A label selector.", Fields: []*model.Field{
		{Name: "MatchLabels", JSONName: "matchLabels", Type: &model.TypeRef{Kind: model.MapRef, Key: builtinRef("string"), Elem: builtinRef("string")}, MapType: "atomic"},
	}}
	spec := &model.Type{Version: v, Name: "ShipmentSpec", Kind: model.StructKind, Doc: "ShipmentSpec is the spec.", Fields: []*model.Field{
		{Name: "Priority", JSONName: "priority", Type: local(prio), Doc: "Priority of the shipment."},
		{Name: "Weight", JSONName: "weight", Required: true, Type: &model.TypeRef{Kind: model.NamedRef, Name: "Quantity", Package: "k8s.io/apimachinery/pkg/api/resource", External: &model.External{Known: "Quantity"}}},
		{Name: "Tolerance", JSONName: "tolerance", Type: &model.TypeRef{Kind: model.NamedRef, Name: "IntOrString", Package: "k8s.io/apimachinery/pkg/util/intstr", External: &model.External{Known: "IntOrString"}}, Default: def(`"10%"`)},
		{Name: "Blob", JSONName: "blob", Type: slice(builtinRef("byte"))},
		{Name: "Ratio", JSONName: "ratio", Type: builtinRef("float64"), Validation: model.Validation{Maximum: f64(1.5), ExclusiveMaximum: true}},
		{Name: "Payload", JSONName: "payload", Type: &model.TypeRef{Kind: model.NamedRef, Name: "RawExtension", Package: "k8s.io/apimachinery/pkg/runtime", External: &model.External{Known: "RawExtension"}}, EmbeddedResource: true},
		{Name: "Extra", JSONName: "extra", Type: &model.TypeRef{Kind: model.InterfaceRef}, PreserveUnknownFields: true},
		{Name: "Selector", JSONName: "selector", Type: ptr(&model.TypeRef{Kind: model.NamedRef, Name: "LabelSelector", Package: "example.com/ext/v1", External: labelSel})},
		{Name: "Tracking", Embedded: true, Inline: true, Type: local(tracking)},
		{Name: "Ignored", JSONName: "-", Type: builtinRef("string")},
		{Name: "Note", JSONName: "note", Type: ptr(builtinRef("string")), Markers: model.Markers{"nullable": {{Value: true}}}},
	}, Validation: model.Validation{XValidations: []model.XValidation{{Rule: "self.ratio != 2.0", Message: "ratio"}}}}
	kind := &model.Type{Version: v, Name: "Shipment", Kind: model.StructKind, IsKind: true, Fields: []*model.Field{
		{Name: "TypeMeta", Embedded: true, Inline: true, Type: ext("TypeMeta", "TypeMeta")},
		{Name: "ObjectMeta", Embedded: true, JSONName: "metadata", Type: ext("ObjectMeta", "ObjectMeta")},
		{Name: "Spec", JSONName: "spec", Type: local(spec)},
	}}
	v.Types = []*model.Type{prio, kind, spec, tracking}
	v.Kinds = []*model.Kind{{Version: v, Name: "Shipment", Type: kind, ListName: "ShipmentList", Storage: true, Served: true}}
	return v
}

func TestFeatures(t *testing.T) {
	out, err := Schemas(featuresVersion())
	if err != nil {
		t.Fatal(err)
	}
	get := func(n string) map[string]any {
		t.Helper()
		raw, ok := out[n]
		if !ok {
			t.Fatalf("no schema %s; have %v", n, keys(out))
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	const gv = "dev.kubeforge.shipping.v1."
	spec := get(gv + "ShipmentSpec")
	props := spec["properties"].(map[string]any)
	want := map[string]string{
		"priority":  `{"default":"Normal","description":"Priority of the shipment.","enum":["Low","Normal"],"type":"string"}`,
		"weight":    `{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"}`,
		"tolerance": `{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString"}],"default":"10%"}`,
		"blob":      `{"format":"byte","type":"string"}`,
		"ratio":     `{"exclusiveMaximum":true,"format":"double","maximum":1.5,"type":"number"}`,
		"payload":   `{"properties":{"apiVersion":{"description":"apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources","type":"string"},"kind":{"description":"kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds","type":"string"},"metadata":{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}],"description":"Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"}},"required":["kind","apiVersion"],"type":"object","x-kubernetes-embedded-resource":true}`,
		"extra":     `{"x-kubernetes-preserve-unknown-fields":true}`,
		"note":      `{"nullable":true,"type":"string"}`,
		"selector":  `{"$ref":"#/components/schemas/com.example.ext.v1.LabelSelector"}`,
		"notify":    `{"description":"Notify is where tracking updates go.\n\nSecond paragraph.","format":"email","type":"string"}`,
		"every":     `{"exclusiveMinimum":true,"format":"int32","minimum":5,"multipleOf":5,"type":"integer"}`,
	}
	if len(props) != len(want) {
		t.Errorf("properties %v, want %d (inline flattened, json:\"-\" dropped)", keys2(props), len(want))
	}
	for p, w := range want {
		got, _ := json.Marshal(props[p])
		if string(got) != w {
			t.Errorf("%s = %s\nwant %s", p, got, w)
		}
	}
	if !reflect.DeepEqual(spec["required"], []any{"weight", "every"}) {
		t.Errorf("required = %v", spec["required"])
	}
	if got, _ := json.Marshal(spec["x-kubernetes-validations"]); string(got) != `[{"message":"ratio","rule":"self.ratio != 2.0"}]` {
		t.Errorf("x-kubernetes-validations = %s", got)
	}
	if q := get(openapidefs.Quantity); q["x-kubernetes-int-or-string"] != true || q["pattern"] == nil {
		t.Errorf("Quantity = %v", q)
	}
	sel := get("com.example.ext.v1.LabelSelector")
	if got, _ := json.Marshal(sel); string(got) != `{"description":"A label selector.","properties":{"matchLabels":{"additionalProperties":{"type":"string"},"type":"object","x-kubernetes-map-type":"atomic"}},"type":"object"}` {
		t.Errorf("LabelSelector = %s", got)
	}
	list := get(gv + "ShipmentList")
	if got, _ := json.Marshal(list["x-kubernetes-group-version-kind"]); string(got) != `[{"group":"shipping.kubeforge.dev","kind":"ShipmentList","version":"v1"}]` {
		t.Errorf("generated list gvk = %s", got)
	}
	if _, ok := out[openapidefs.ListMeta]; !ok {
		t.Error("generated list does not bring ListMeta")
	}
	if _, ok := out[gv+"Priority"]; ok {
		t.Error("named string type got its own schema; it should be inlined")
	}
	if _, err := openapidefs.Closure(out, keys(out)...); err != nil {
		t.Errorf("output not closed under $ref: %v", err)
	}
	for n, raw := range out {
		if strings.Contains(string(raw), `\u003c`) {
			t.Errorf("%s: HTML-escaped JSON", n)
		}
	}
}

func TestErrors(t *testing.T) {
	v := featuresVersion()
	v.Types[2].Fields = append(v.Types[2].Fields, &model.Field{Name: "Bad", JSONName: "bad", Type: &model.TypeRef{Kind: model.MapRef, Key: builtinRef("int32"), Elem: builtinRef("string")}})
	_, err := Schemas(v)
	if err == nil || !strings.Contains(err.Error(), "ShipmentSpec.Bad") || !strings.Contains(err.Error(), "map key") {
		t.Errorf("want a map key error naming ShipmentSpec.Bad, got %v", err)
	}
	v = featuresVersion()
	v.Types[2].Fields = append(v.Types[2].Fields, &model.Field{Name: "C", JSONName: "c", Type: builtinRef("complex128")})
	if _, err := Schemas(v); err == nil || !strings.Contains(err.Error(), "ShipmentSpec.C") {
		t.Errorf("want an unsupported type error naming ShipmentSpec.C, got %v", err)
	}
}

func TestCleanDoc(t *testing.T) {
	got := cleanDoc("Size of the gadget.\nMore words.\n+kubebuilder:default=medium\n\n+optional\nNext.\n---\nhidden")
	if got != "Size of the gadget. More words.\n\nNext." {
		t.Errorf("cleanDoc = %q", got)
	}
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func keys2(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestTypeLevelStructType: +structType on a struct type's declaration,
// of the project's types or of a dependency's (k8s.io/api's
// ObjectReference and RoleRef are atomic), goes on the type's schema, as
// kube-openapi and controller-gen write them; server-side apply then owns
// such a field as a whole.
func TestTypeLevelStructType(t *testing.T) {
	g := &model.Group{Name: "shipping.kubeforge.dev", Short: "shipping"}
	v := &model.Version{Group: g, Name: "v1", Package: "example.com/api/types/shipping/v1"}
	g.Versions = []*model.Version{v}
	ref := &model.Type{Version: v, Name: "Ref", Kind: model.StructKind, StructType: "atomic", Fields: []*model.Field{
		{Name: "Name", JSONName: "name", Type: builtinRef("string")},
	}}
	objRef := &model.TypeRef{Kind: model.NamedRef, Name: "ObjectReference", Package: "k8s.io/api/core/v1", External: &model.External{
		Struct: true, StructType: "atomic", Fields: []*model.Field{{Name: "Kind", JSONName: "kind", Type: builtinRef("string")}}}}
	spec := &model.Type{Version: v, Name: "ShipmentSpec", Kind: model.StructKind, Fields: []*model.Field{
		{Name: "Ref", JSONName: "ref", Type: local(ref)},
		{Name: "Target", JSONName: "target", Type: objRef},
	}}
	kind := &model.Type{Version: v, Name: "Shipment", Kind: model.StructKind, IsKind: true, Fields: []*model.Field{
		{Name: "TypeMeta", Embedded: true, Inline: true, Type: ext("TypeMeta", "TypeMeta")},
		{Name: "ObjectMeta", Embedded: true, JSONName: "metadata", Type: ext("ObjectMeta", "ObjectMeta")},
		{Name: "Spec", JSONName: "spec", Type: local(spec)},
	}}
	v.Types = []*model.Type{kind, spec, ref}
	v.Kinds = []*model.Kind{{Version: v, Name: "Shipment", Type: kind, ListName: "ShipmentList", Storage: true, Served: true}}
	out, err := Schemas(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"dev.kubeforge.shipping.v1.Ref", "io.k8s.api.core.v1.ObjectReference"} {
		var m map[string]any
		if err := json.Unmarshal(out[name], &m); err != nil {
			t.Fatalf("%s: %v (have %v)", name, err, keys(out))
		}
		if m["x-kubernetes-map-type"] != "atomic" {
			t.Errorf("%s: x-kubernetes-map-type %v, want atomic: %s", name, m["x-kubernetes-map-type"], out[name])
		}
	}
	var s map[string]any
	if err := json.Unmarshal(out["dev.kubeforge.shipping.v1.ShipmentSpec"], &s); err != nil || s["x-kubernetes-map-type"] != nil {
		t.Errorf("a type without the marker: %v %s", err, out["dev.kubeforge.shipping.v1.ShipmentSpec"])
	}
}

// TestSelectableFieldsExtension: a kind's +kubebuilder:selectablefield
// labels are published as kube-apiserver publishes a CRD's
// (x-kubernetes-selectable-fields, fieldPath without the leading dot); a
// kind without them, and built-in kinds, have none.
func TestSelectableFieldsExtension(t *testing.T) {
	g := &model.Group{Name: "shipping.kubeforge.dev", Short: "shipping"}
	v := &model.Version{Group: g, Name: "v1", Package: "example.com/api/types/shipping/v1"}
	g.Versions = []*model.Version{v}
	kindType := func(name string) *model.Type {
		return &model.Type{Version: v, Name: name, Kind: model.StructKind, IsKind: true, Fields: []*model.Field{
			{Name: "TypeMeta", Embedded: true, Inline: true, Type: ext("TypeMeta", "TypeMeta")},
			{Name: "ObjectMeta", Embedded: true, JSONName: "metadata", Type: ext("ObjectMeta", "ObjectMeta")},
		}}
	}
	with, without := kindType("Shipment"), kindType("Depot")
	v.Types = []*model.Type{with, without}
	v.Kinds = []*model.Kind{
		{Version: v, Name: "Shipment", Type: with, ListName: "ShipmentList", Storage: true, Served: true,
			SelectableFields: []model.SelectableField{{JSONPath: ".spec.carrier", Label: "spec.carrier"}, {JSONPath: ".status.phase", Label: "status.phase"}}},
		{Version: v, Name: "Depot", Type: without, ListName: "DepotList", Storage: true, Served: true},
	}
	for _, external := range []bool{false, true} {
		v.External = external
		out, err := Schemas(v)
		if err != nil {
			t.Fatal(err)
		}
		want, prefix := `[{"fieldPath":"spec.carrier"},{"fieldPath":"status.phase"}]`, "dev.kubeforge.shipping.v1."
		if external {
			want, prefix = "null", "com.example.api.types.shipping.v1." // named by package
		}
		for name, w := range map[string]string{prefix + "Shipment": want, prefix + "Depot": "null"} {
			var m map[string]any
			if err := json.Unmarshal(out[name], &m); err != nil {
				t.Fatalf("external=%v %s: %v (have %v)", external, name, err, keys(out))
			}
			got, _ := json.Marshal(m["x-kubernetes-selectable-fields"])
			if string(got) != w {
				t.Errorf("external=%v %s: x-kubernetes-selectable-fields %s, want %s", external, name, got, w)
			}
		}
	}
}
