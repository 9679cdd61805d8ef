package openapi

import (
	"encoding/json"

	"github.com/kubeforge/kubeforge/generators/model"
)

// testModule is the import path of testdata/, a directory of this module:
// the goldens under testdata/generated compile as packages.
const testModule = "github.com/kubeforge/kubeforge/generators/openapi/testdata"

const meta = "k8s.io/apimachinery/pkg/apis/meta/v1"

func f64(v float64) *float64 { return &v }
func i64(v int64) *int64     { return &v }

func def(js string) *model.Default {
	var v any
	_ = json.Unmarshal([]byte(js), &v)
	return &model.Default{JSON: json.RawMessage(js), Value: v}
}

func builtinRef(n string) *model.TypeRef  { return &model.TypeRef{Kind: model.BuiltinRef, Name: n} }
func ptr(r *model.TypeRef) *model.TypeRef { return &model.TypeRef{Kind: model.PointerRef, Elem: r} }
func slice(r *model.TypeRef) *model.TypeRef {
	return &model.TypeRef{Kind: model.SliceRef, Elem: r}
}
func local(t *model.Type) *model.TypeRef {
	return &model.TypeRef{Kind: model.NamedRef, Name: t.Name, Package: t.Version.Package, Local: t}
}
func ext(name, known string) *model.TypeRef {
	return &model.TypeRef{Kind: model.NamedRef, Name: name, Package: meta, External: &model.External{Known: known}}
}

// acceptanceAPI hand-builds the model the loader produces for the v1
// acceptance types in testdata/types/acceptance/v1 (until the loader lands).
func acceptanceAPI() *model.API {
	api := &model.API{Module: testModule}
	g := &model.Group{Name: "acceptance.example.dev", Short: "acceptance"}
	api.Groups = []*model.Group{g}
	v := &model.Version{Group: g, Name: "v1", PackageName: "v1", Dir: "types/acceptance/v1"}
	v.Package = testModule + "/" + v.Dir
	g.Versions = []*model.Version{v}

	typ := func(name, doc string, fields ...*model.Field) *model.Type {
		t := &model.Type{Version: v, Name: name, Kind: model.StructKind, Doc: doc, Fields: fields}
		for _, f := range fields {
			f.Parent = t
		}
		return t
	}
	fld := func(name, json string, r *model.TypeRef, doc string, required bool) *model.Field {
		return &model.Field{Name: name, JSONName: json, Type: r, Doc: doc, Required: required, Optional: !required, OmitEmpty: !required}
	}
	typeMeta := &model.Field{Name: "TypeMeta", Embedded: true, Inline: true, Type: ext("TypeMeta", "TypeMeta")}

	size := fld("Size", "size", builtinRef("string"), "Size of the gadget.\n+kubebuilder:validation:Enum=small;medium;large\n+kubebuilder:default=medium\n+optional", false)
	size.Validation.Enum = []any{"small", "medium", "large"}
	size.Default = def(`"medium"`)
	replicas := fld("Replicas", "replicas", ptr(builtinRef("int32")), "Replicas is how many copies of the gadget run.", false)
	replicas.Validation.Minimum, replicas.Validation.Maximum = f64(0), f64(100)
	replicas.Default = def(`1`)
	owner := fld("Owner", "owner", builtinRef("string"), "Owner is who to call when the gadget breaks.", true)
	owner.Validation.MinLength, owner.Validation.MaxLength = i64(1), i64(64)
	tags := fld("Tags", "tags", slice(builtinRef("string")), "Tags label the gadget for humans.", false)
	tags.ListType = "set"
	tags.Validation.MaxItems = i64(8)

	pname := fld("Name", "name", builtinRef("string"), "Name identifies the part within the gadget.", true)
	pname.Validation.Pattern = `^[a-z][a-z0-9-]*$`
	count := fld("Count", "count", builtinRef("int32"), "Count of this part.", false)
	count.Validation.Minimum = f64(1)
	count.Default = def(`1`)
	part := typ("Part", "Part is one component of a gadget.", pname, count)

	parts := fld("Parts", "parts", slice(local(part)), "Parts the gadget is built from, keyed by name.", false)
	parts.ListType, parts.ListMapKeys = "map", []string{"name"}
	settings := fld("Settings", "settings", &model.TypeRef{Kind: model.MapRef, Key: builtinRef("string"), Elem: builtinRef("string")}, "Settings are free-form key/value pairs.", false)

	dur := fld("Duration", "duration", ext("Duration", "Duration"), "Duration of each window.", false)
	dur.Default = def(`"1h0m0s"`)
	window := typ("MaintenanceWindow", "MaintenanceWindow is a recurring time slot.",
		fld("Start", "start", ext("Time", "Time"), "Start of the first window.", true), dur)
	spec := typ("GadgetSpec", "GadgetSpec is what the owner of a gadget asks for.",
		size, replicas, owner, tags, parts, settings,
		fld("Window", "window", ptr(local(window)), "Window is when the gadget may be serviced.", false))

	conds := fld("Conditions", "conditions", slice(ext("Condition", "")), "Conditions in the usual Kubernetes form.", false)
	conds.ListType, conds.ListMapKeys = "map", []string{"type"}
	status := typ("GadgetStatus", "GadgetStatus is what the system observed about a gadget.",
		fld("Phase", "phase", builtinRef("string"), "Phase is a one-word summary.", false),
		fld("ObservedGeneration", "observedGeneration", builtinRef("int64"), "ObservedGeneration is the spec generation the status describes.", false),
		conds)

	gadget := typ("Gadget", "Gadget is a namespaced thing with a status subresource.",
		typeMeta,
		&model.Field{Name: "ObjectMeta", Embedded: true, JSONName: "metadata", OmitEmpty: true, Type: ext("ObjectMeta", "ObjectMeta")},
		fld("Spec", "spec", local(spec), "", false),
		fld("Status", "status", local(status), "", false))
	gadget.IsKind = true
	gadgetList := typ("GadgetList", "GadgetList is a list of Gadgets. It is written out here; Zone's list is not,\nand the generator is expected to supply it.",
		typeMeta,
		&model.Field{Name: "ListMeta", Embedded: true, JSONName: "metadata", OmitEmpty: true, Type: ext("ListMeta", "ListMeta")},
		fld("Items", "items", slice(local(gadget)), "", true))
	gadgetList.IsList = true

	region := fld("Region", "region", builtinRef("string"), "Region the zone belongs to.", true)
	region.Validation.MinLength = i64(1)
	capacity := fld("Capacity", "capacity", builtinRef("int64"), "Capacity in abstract units.", false)
	capacity.Validation.Minimum = f64(1)
	capacity.Default = def(`10`)
	zoneSpec := typ("ZoneSpec", "ZoneSpec describes a failure domain.", region, capacity)
	zone := typ("Zone", "Zone is a cluster-scoped resource without a status subresource.",
		typeMeta,
		&model.Field{Name: "ObjectMeta", Embedded: true, JSONName: "metadata", OmitEmpty: true, Type: ext("ObjectMeta", "ObjectMeta")},
		fld("Spec", "spec", local(zoneSpec), "", false))
	zone.IsKind = true

	v.Types = []*model.Type{gadget, gadgetList, spec, status, window, part, zone, zoneSpec}
	v.Kinds = []*model.Kind{
		{Version: v, Name: "Gadget", Type: gadget, ListName: "GadgetList", List: gadgetList, Plural: "gadgets", Singular: "gadget",
			Namespaced: true, StatusSubresource: true, Storage: true, Served: true},
		{Version: v, Name: "Zone", Type: zone, ListName: "ZoneList", Plural: "zones", Singular: "zone", Storage: true, Served: true},
	}
	return api
}
