package model

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/markers"
)

func load(t *testing.T, dir string) *API {
	t.Helper()
	api, err := Load(dir, LoadOptions{})
	if err != nil {
		t.Fatalf("Load(%s): %v", dir, err)
	}
	return api
}

func mustVersion(t *testing.T, api *API, group, version string) *Version {
	t.Helper()
	for _, g := range api.Groups {
		if g.Name != group {
			continue
		}
		for _, v := range g.Versions {
			if v.Name == version {
				return v
			}
		}
	}
	t.Fatalf("no version %s/%s", group, version)
	return nil
}

func mustField(t *testing.T, v *Version, typ, field string) *Field {
	t.Helper()
	ty := v.Type(typ)
	if ty == nil {
		t.Fatalf("no type %s in %s", typ, v.Dir)
	}
	for _, f := range ty.Fields {
		if f.Name == field {
			return f
		}
	}
	t.Fatalf("no field %s.%s", typ, field)
	return nil
}

func groupNames(api *API) []string {
	var out []string
	for _, g := range api.Groups {
		var vs []string
		for _, v := range g.Versions {
			vs = append(vs, v.Name)
		}
		out = append(out, g.Name+"="+strings.Join(vs, ","))
	}
	return out
}

func defJSON(f *Field) string {
	if f.Default == nil {
		return ""
	}
	return string(f.Default.JSON)
}

// TestLoadShipped loads the repository's own types/.
func TestLoadShipped(t *testing.T) {
	t.Parallel()
	api := load(t, "../..")
	if api.Module != "github.com/kubeforge/kubeforge" {
		t.Errorf("Module = %q", api.Module)
	}
	if got, want := strings.Join(groupNames(api), " "), "=v1 admissionregistration.k8s.io=v1 coordination.k8s.io=v1 events.k8s.io=v1 infra.kubeforge.dev=v1 rbac.authorization.k8s.io=v1 shipping.kubeforge.dev=v1,v1alpha1"; got != want {
		t.Errorf("groups = %s, want %s", got, want)
	}
	v1 := mustVersion(t, api, "shipping.kubeforge.dev", "v1")
	if v1.Group.Short != "shipping" || v1.PackageName != "v1" || v1.Dir != "types/shipping/v1" ||
		v1.Package != "github.com/kubeforge/kubeforge/types/shipping/v1" {
		t.Errorf("version fields: %+v", v1)
	}
	if !v1.Funcs["Validate_Shipment"] || !v1.Funcs["SetDefaults_Address"] || v1.HasSchemeBuilder {
		t.Errorf("Funcs = %v, HasSchemeBuilder = %v", v1.Funcs, v1.HasSchemeBuilder)
	}
	if !strings.HasPrefix(v1.Doc, "Package v1 is the shipping API") || strings.Contains(v1.Doc, "+groupName") {
		t.Errorf("Doc = %q", v1.Doc)
	}
	k := v1.Kind("Shipment")
	if k == nil {
		t.Fatal("no kind Shipment")
	}
	if k.Plural != "shipments" || k.Singular != "shipment" || !k.Namespaced || !k.StatusSubresource ||
		!k.Storage || !k.Served || k.List == nil || !k.List.IsList || k.List.Generated || k.StatusField == nil || k.SpecField == nil {
		t.Errorf("Shipment kind = %+v", k)
	}
	if strings.Join(k.ShortNames, ",") != "shp" || strings.Join(k.Categories, ",") != "all,logistics" {
		t.Errorf("short names %v categories %v", k.ShortNames, k.Categories)
	}
	if len(k.PrinterColumns) != 6 {
		t.Fatalf("printer columns = %d", len(k.PrinterColumns))
	}
	dest := k.PrinterColumns[1]
	if dest.Name != "Destination" || len(dest.Path) != 3 || dest.Path[2].Name != "City" || dest.Path[0].JSONName != "spec" {
		t.Errorf("Destination column = %+v", dest)
	}
	if c := k.PrinterColumns[3]; c.Priority != 1 || c.Path[1].Name != "Carrier" {
		t.Errorf("Carrier column = %+v", c)
	}
	if c := k.PrinterColumns[4]; c.Name != "Ready" || !c.Dynamic || c.Path != nil {
		t.Errorf("Ready column = %+v", c)
	}
	if c := k.PrinterColumns[5]; c.Type != "date" || c.Path != nil || c.JSONPath != ".metadata.creationTimestamp" {
		t.Errorf("Age column = %+v", c)
	}
	alpha := mustVersion(t, api, "shipping.kubeforge.dev", "v1alpha1")
	if ak := alpha.Kind("Shipment"); ak.Storage || ak.List != nil {
		t.Errorf("v1alpha1 Shipment: Storage=%v List=%v", ak.Storage, ak.List)
	}
	if gl := alpha.Type("ShipmentList"); gl == nil || !gl.Generated || !gl.IsList || len(gl.Fields) != 3 {
		t.Errorf("v1alpha1 generated ShipmentList = %+v", gl)
	}
	if v1.Group.StorageVersion("Shipment") != v1 {
		t.Errorf("storage version of Shipment is not v1")
	}

	// Fields: required rule, defaults, validation, lists, externals.
	tests := []struct {
		typ, field       string
		json             string
		required         bool
		def              string
		listType, mapKey string
	}{
		{"Address", "Street", "street", true, "", "", ""},
		{"Address", "Country", "country", false, `"DE"`, "", ""},
		{"Parcel", "Count", "count", false, "1", "", ""},
		{"ShipmentSpec", "Priority", "priority", false, `"Normal"`, "", ""},
		{"ShipmentSpec", "Parcels", "parcels", true, "", "map", "name"},
		{"ShipmentSpec", "Tags", "tags", false, "", "set", ""},
		{"ShipmentSpec", "HandlingTime", "handlingTime", false, `"24h0m0s"`, "", ""},
		{"ShipmentSpec", "DelayTolerance", "delayTolerance", false, `"10%"`, "", ""},
		{"ShipmentStatus", "Conditions", "conditions", false, "", "map", "type"},
		{"Tracking", "IntervalMinutes", "intervalMinutes", false, "15", "", ""},
	}
	for _, tt := range tests {
		f := mustField(t, v1, tt.typ, tt.field)
		if f.JSONName != tt.json || f.Required != tt.required || f.Optional == tt.required || defJSON(f) != tt.def ||
			f.ListType != tt.listType || strings.Join(f.ListMapKeys, ",") != tt.mapKey {
			t.Errorf("%s.%s: json=%q required=%v default=%s list=%s keys=%v", tt.typ, tt.field, f.JSONName, f.Required, defJSON(f), f.ListType, f.ListMapKeys)
		}
	}
	tracking := mustField(t, v1, "ShipmentSpec", "Tracking")
	if !tracking.Inline || !tracking.Embedded || tracking.JSONName != "" || tracking.Type.Local != v1.Type("Tracking") {
		t.Errorf("Tracking = %+v", tracking)
	}
	prio := mustField(t, v1, "ShipmentSpec", "Priority")
	if len(prio.Validation.Enum) != 3 || prio.Validation.Enum[2] != "Urgent" || prio.Type.Local == nil || prio.Type.Local.Kind != BasicKind {
		t.Errorf("Priority enum merged from type = %v", prio.Validation.Enum)
	}
	name := mustField(t, v1, "Parcel", "Name")
	if name.Validation.Pattern != "^[a-z][a-z0-9-]*$" || *name.Validation.MaxLength != 63 {
		t.Errorf("Parcel.Name validation = %+v", name.Validation)
	}
	if name.Pos.String() != "types/shipping/v1/types.go:60:2" {
		t.Errorf("Parcel.Name pos = %s", name.Pos)
	}
	iv := mustField(t, v1, "Tracking", "IntervalMinutes")
	if *iv.Validation.Minimum != 5 || *iv.Validation.MultipleOf != 5 {
		t.Errorf("IntervalMinutes validation = %+v", iv.Validation)
	}
	weight := mustField(t, v1, "Parcel", "Weight")
	if weight.Type.External == nil || weight.Type.External.Known != "Quantity" || weight.Type.External.Fields != nil {
		t.Errorf("Weight external = %+v", weight.Type.External)
	}
	pickup := mustField(t, v1, "ShipmentSpec", "PickupAfter")
	if pickup.Type.Kind != PointerRef || pickup.Type.Elem.External.Known != "Time" || !pickup.Type.Elem.External.HasDeepCopyInto {
		t.Errorf("PickupAfter = %+v", pickup.Type)
	}
	conds := mustField(t, v1, "ShipmentStatus", "Conditions")
	cond := conds.Type.Elem.External
	if conds.Type.Elem.Package != "k8s.io/apimachinery/pkg/apis/meta/v1" || cond == nil || !cond.Struct || len(cond.Fields) < 5 {
		t.Fatalf("Condition external = %+v", cond)
	}
	ctype := findJSON(cond.Fields, "type")
	if ctype == nil || !ctype.Required || ctype.Validation.MaxLength == nil {
		t.Errorf("Condition.type = %+v", ctype)
	}
	om := mustField(t, v1, "Shipment", "ObjectMeta")
	if om.JSONName != "metadata" || om.Type.External.Known != "ObjectMeta" || findJSON(om.Type.External.Fields, "creationTimestamp") == nil {
		t.Errorf("ObjectMeta = %+v", om.Type.External)
	}

	infra := mustVersion(t, api, "infra.kubeforge.dev", "v1")
	wh := infra.Kind("Warehouse")
	if wh.Namespaced || wh.List != nil || wh.Plural != "warehouses" || !wh.Storage {
		t.Errorf("Warehouse = %+v", wh)
	}
	if gl := infra.Type("WarehouseList"); gl == nil || !gl.Generated {
		t.Errorf("WarehouseList not modelled as generated")
	}
	if f := mustField(t, infra, "Dock", "Kind"); defJSON(f) != `"Truck"` {
		t.Errorf("Dock.Kind default = %s", defJSON(f))
	}
	if f := mustField(t, infra, "WarehouseSpec", "Bonded"); defJSON(f) != "false" {
		t.Errorf("Bonded default = %s", defJSON(f))
	}
	if !infra.Funcs["SetDefaults_Warehouse"] {
		t.Errorf("Funcs = %v", infra.Funcs)
	}
}

// TestLoadAcceptance loads a copy of ../shared/acceptance/types.
func TestLoadAcceptance(t *testing.T) {
	t.Parallel()
	api := load(t, "testdata/acceptance")
	if api.Module != "github.com/kubeforge/kubeforge/generators/model/testdata/acceptance" {
		t.Errorf("Module = %q", api.Module)
	}
	if got := strings.Join(groupNames(api), " "); got != "acceptance.example.dev=v1,v1alpha1" {
		t.Errorf("groups = %s", got)
	}
	v1 := mustVersion(t, api, "acceptance.example.dev", "v1")
	g := v1.Kind("Gadget")
	if g == nil || !g.Storage || g.List == nil || g.Plural != "gadgets" || !g.StatusSubresource || strings.Join(g.ShortNames, ",") != "gd" {
		t.Fatalf("Gadget = %+v", g)
	}
	z := v1.Kind("Zone")
	if z == nil || z.Namespaced || z.List != nil || z.StatusSubresource || z.Plural != "zones" {
		t.Fatalf("Zone = %+v", z)
	}
	if zl := v1.Type("ZoneList"); zl == nil || !zl.Generated || zl.Fields[2].Type.Elem.Local != z.Type {
		t.Errorf("ZoneList = %+v", zl)
	}
	size := mustField(t, v1, "GadgetSpec", "Size")
	if defJSON(size) != `"medium"` || len(size.Validation.Enum) != 3 {
		t.Errorf("Size default=%s enum=%v", defJSON(size), size.Validation.Enum)
	}
	rep := mustField(t, v1, "GadgetSpec", "Replicas")
	if defJSON(rep) != "1" || *rep.Validation.Maximum != 100 || rep.Type.Kind != PointerRef {
		t.Errorf("Replicas = %+v", rep)
	}
	start := mustField(t, v1, "MaintenanceWindow", "Start")
	if !start.Required || start.Type.External.Known != "Time" {
		t.Errorf("Start (no omitempty, no marker) must be required: %+v", start)
	}
	if d := mustField(t, v1, "MaintenanceWindow", "Duration"); defJSON(d) != `"1h0m0s"` || d.Type.External.Known != "Duration" {
		t.Errorf("Duration = %s", defJSON(d))
	}
	if c := g.PrinterColumns[1]; c.Type != "integer" || c.Path[1].Name != "Replicas" {
		t.Errorf("Replicas column = %+v", c)
	}
	alpha := mustVersion(t, api, "acceptance.example.dev", "v1alpha1")
	if ak := alpha.Kind("Gadget"); ak.Storage || !ak.Served {
		t.Errorf("v1alpha1 Gadget = %+v", ak)
	}
	if f := mustField(t, alpha, "GadgetSpec", "Size"); defJSON(f) != `"small"` {
		t.Errorf("v1alpha1 size default = %s", defJSON(f))
	}
}

// TestLoadKubebuilderStyle: a package that does not type-check (init
// registers &Widget{} before DeepCopyObject exists) still loads; //+marker
// without a space works; marker blocks one blank line above a declaration
// (package, type, field) count; trailing comments and other tools' markers
// are left alone.
func TestLoadKubebuilderStyle(t *testing.T) {
	t.Parallel()
	api := load(t, "testdata/kubebuilder")
	v := mustVersion(t, api, "widgets.example.dev", "v1")
	if !v.HasSchemeBuilder {
		t.Error("HasSchemeBuilder = false")
	}
	w := v.Kind("Widget")
	if w == nil || !w.StatusSubresource || strings.Join(w.ShortNames, ",") != "wd" || w.List == nil || len(w.PrinterColumns) != 2 {
		t.Fatalf("Widget = %+v", w)
	}
	if c := w.PrinterColumns[1]; !c.Dynamic || c.Path != nil || w.PrinterColumns[0].Dynamic {
		t.Errorf("kubebuilder's Ready column (a JSONPath filter) = %+v, want Dynamic", c)
	}
	if !strings.HasPrefix(w.Type.Doc, "Widget is a kubebuilder-style kind") {
		t.Errorf("Widget doc = %q", w.Type.Doc)
	}
	if p := v.Kind("Policy"); p == nil || p.Plural != "policies" || p.Namespaced {
		t.Errorf("Policy = %+v", p)
	}
	size := mustField(t, v, "WidgetSpec", "Size")
	if defJSON(size) != "3" || *size.Validation.Minimum != 1 || size.Required {
		t.Errorf("Size (//+ markers) = default %s, validation %+v", defJSON(size), size.Validation)
	}
	if pos := size.Markers["kubebuilder:validation:Minimum"][0].Pos.String(); pos != "types/widgets/v1/widget_types.go:27:4" {
		t.Errorf("marker pos = %s", pos)
	}
	color := mustField(t, v, "WidgetSpec", "Color")
	if color.Required || defJSON(color) != `"red"` || len(color.Validation.Enum) != 3 {
		t.Errorf("Color: the trailing +required must be ignored; required=%v default=%s", color.Required, defJSON(color))
	}
	label := mustField(t, v, "WidgetSpec", "Label")
	if label.Validation.MaxLength == nil || *label.Validation.MaxLength != 8 || label.Validation.MinLength == nil || *label.Validation.MinLength != 2 || !label.Required {
		t.Errorf("Label: detached field block and type block: %+v", label.Validation)
	}
	if lt := v.Type("Label"); lt.Validation.MinLength == nil || lt.Default == nil || string(lt.Default.JSON) != `"xy"` || lt.Doc != "Label is a short label; its marker block is one blank line above its doc." {
		t.Errorf("Label type = %+v", lt)
	}
	if p := mustField(t, v, "WidgetSpec", "Policy"); !p.Markers.Has("genclient") || p.Markers.Has("some-tool:foo") {
		t.Errorf("Policy markers = %v", p.Markers)
	}
	port := mustField(t, v, "WidgetSpec", "Port")
	if a := port.Type.Local; a == nil || !a.Alias || a.Name != "PortNumber" || a.Validation.Maximum == nil || *a.Validation.Maximum != 65535 || a.Underlying == nil || a.Underlying.Name != "int32" {
		t.Errorf("Port's alias type = %+v", port.Type)
	}
	if st := mustField(t, v, "Widget", "Status"); st.Default == nil || st.Default.Literal.Kind != StructLit || Comparable(st.Type) {
		t.Errorf("Status default = %+v (a struct with a list: not comparable)", st.Default)
	}
}

// TestLoadBadMarkers: every kind of bad input is reported, all together,
// sorted by position, with file:line:col relative to the root.
func TestLoadBadMarkers(t *testing.T) {
	t.Parallel()
	_, err := Load("testdata/bad", LoadOptions{})
	if err == nil {
		t.Fatal("no error")
	}
	var list markers.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error is not a markers.ErrorList: %v", err)
	}
	want := []string{
		`types/bad/v1/types.go:17:5: unknown marker "kubebuilder:validation:Minimun": did you mean "kubebuilder:validation:Minimum"?`,
		`types/bad/v1/types.go:21:5: marker "kubebuilder:validation:MaxLength": invalid integer "ten"`,
		`types/bad/v1/types.go:25:5: marker "kubebuilder:subresource:status" may stand on type, not on a field`,
		`types/bad/v1/types.go:29:5: field ThingSpec.D: +listMapKey needs +listType=map (got "")`,
		`types/bad/v1/types.go:33:5: field ThingSpec.E: invalid default abc: not JSON: invalid character 'a' looking for beginning of value`,
		`types/bad/v1/types.go:38:5: field ThingSpec.F: +listMapKey=name names an optional field without a default; map keys must be required or defaulted`,
		`types/bad/v1/types.go:42:5: unknown marker "optinal": did you mean "optional"?`,
		`types/bad/v1/types.go:46:5: field ThingSpec.H: +listMapKey=idd is not a JSON field of the list items: did you mean "id"?`,
		`types/bad/v1/types.go:50:5: field ThingSpec.I: +patchStrategy=merge on a list of structs needs +patchMergeKey (or +listType=map with +listMapKey)`,
		`types/bad/v1/types.go:55:5: field ThingSpec.J: +patchMergeKey=ide is not a JSON field of the list items: did you mean "id"?`,
		`types/bad/v1/types.go:59:5: field ThingSpec.K: +patchMergeKey needs a list of structs`,
		`types/bad/v1/types.go:63:5: field ThingSpec.L: format "emial" is unknown (known: email, uri, url, uuid, date-time, date, hostname, ipv4, ipv6, cidr, byte, duration, ...)`,
		`types/bad/v1/types.go:67:5: field ThingSpec.M: multipleOf 0 must be greater than 0`,
		`types/bad/v1/types.go:74:4: kind Thing: printcolumn "X": JSONPath .spec.nope: no field "nope": did you mean "e"?`,
		`types/bad/v1/types.go:75:4: marker "kubebuilder:resource": argument "scope": invalid value "Clster", want one of Namespaced|Cluster`,
		`types/bad/v1/types.go:76:4: kind Thing: +kubebuilder:subresource:status needs a field with JSON name "status"`,
		`types/bad/v1/types.go:77:4: kind Thing: scale specpath .spec.g must be an int32 (or *int32), not a string`,
		`types/bad/v1/types.go:77:4: kind Thing: scale statuspath .metadata.x must be under .status`,
		`types/bad/v1/types.go:95:5: field Other.N: +listMapKey=tags must name a string, integer or boolean field, not a list`,
		`types/bad/v1/types.go:103:5: field Narrow.O: invalid default 300: 300 does not fit int8`,
		`types/bad/v1/types.go:107:5: field Narrow.P: invalid default [1,2,3]: 3 items do not fit [2]int32`,
		`types/bad/v1/types.go:109:2: field Narrow.P: a Go array ([2]) cannot be served: Kubernetes' unstructured converter and structured-merge-diff (apply, managedFields, CEL rules) do not support arrays; use a slice with +kubebuilder:validation:MaxItems=2`,
		`types/bad/v1/types.go:111:2: field Narrow.q: an API type cannot have unexported fields (encoding/json skips them and Kubernetes' unstructured converter cannot set them); export it with a json tag or keep it out of the type`,
		"types/bad/v1/types.go:113:2: field Narrow.R: no json tag: give it one (`json:\"r,omitempty\"`), or `json:\"-\"` to keep it out of the API",
		`types/bad/v1/types.go:115:2: field Narrow.S: uint64 cannot be served: structured-merge-diff (apply, managedFields) does not support it; use int64, as Kubernetes' API conventions ask`,
		`types/bad/v1/types.go:116:2: field Narrow.T: an interface value (interface{}) cannot be served: it has no schema, and structured-merge-diff (apply, managedFields) cannot handle it; use runtime.RawExtension or apiextensionsv1.JSON with +kubebuilder:pruning:PreserveUnknownFields`,
		`types/bad/v1/types.go:122:4: kind Widget: printcolumn "Ready": JSONPath .status.conditions[?(@.type=="Ready": unterminated filter`,
		`types/bad/v1/types.go:123:4: kind Widget: printcolumn "First": JSONPath .spec.items[0].name: no field "spec"`,
		`types/bad/v1/types.go:124:6: kind Widget: resource name "things" is also kind Thing's (plural things, singular thing); set +kubebuilder:resource:path= (or singular=, shortName=) so the names of group bad.example.dev differ`,
		`types/bad/v1/types.go:139:6: type Hours: markers on an alias of Narrow are not applied; put them on Narrow or on the fields`,
		`types/bad/v1/types.go:142:6: type Loose: an alias of struct{A string} is not supported in API types; declare a named type`,
		`types/bad/v2/types.go:9:6: kind Thing of group bad.example.dev is in versions v2, v1 but none is the storage version: add // +kubebuilder:storageversion to the Thing type of the version to store`,
		`types/nogroup/v1/doc.go:2:1: package types/nogroup/v1: no +groupName=<group> marker in the package doc comment (doc.go)`,
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Error())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(err.Error(), "load types from testdata/bad: ") {
		t.Errorf("error not wrapped with the operation: %v", err)
	}
}

// TestLoadParseError: syntax errors stop loading.
func TestLoadParseError(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "parseerr", "types", "p", "v1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "// +groupName=p.example.dev\npackage v1\n\ntype T struct {\n"
	if err := os.WriteFile(filepath.Join(dir, "types.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Join("testdata", "parseerr")) })
	_, err := Load("testdata/parseerr", LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "\ntypes/p/v1/types.go:4:17: expected") {
		t.Fatalf("want a parse error naming types/p/v1/types.go:4:17, got %v", err)
	}
}

// TestPlural wants controller-gen's resource names for user kinds (flect's
// irregular English included: a kubebuilder project's manifests use them)
// and Kubernetes' for built-in kinds.
func TestPlural(t *testing.T) {
	for in, want := range map[string]string{
		"Policy": "policies", "Status": "statuses", "Class": "classes", "Gadget": "gadgets",
		"Box": "boxes", "Mesh": "meshes", "Gateway": "gateways", "Match": "matches",
		"Gizmo": "gizmoes", "Person": "people", "Index": "indices", "Leaf": "leaves",
		"Data": "data", "Sheep": "sheep", "Redis": "redis", "Photo": "photos", "CronJob": "cronjobs",
	} {
		if got := Plural(in); got != want {
			t.Errorf("Plural(%s) = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"Endpoints": "endpoints", "Ingress": "ingresses", "NetworkPolicy": "networkpolicies", "Status": "statuses",
	} {
		if got := builtinPlural(in); got != want {
			t.Errorf("builtinPlural(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestVersionOrder(t *testing.T) {
	in := []string{"v1alpha1", "v2beta1", "v1", "v1beta2", "v2", "v1beta1", "v10alpha3", "foo"}
	want := "v2 v1 v2beta1 v1beta2 v1beta1 v10alpha3 v1alpha1 foo"
	sortVersions := append([]string(nil), in...)
	for i := range sortVersions {
		for j := i + 1; j < len(sortVersions); j++ {
			if versionLess(sortVersions[j], sortVersions[i]) {
				sortVersions[i], sortVersions[j] = sortVersions[j], sortVersions[i]
			}
		}
	}
	if got := strings.Join(sortVersions, " "); got != want {
		t.Errorf("order = %s, want %s", got, want)
	}
}

func TestDecodeDefault(t *testing.T) {
	str := &TypeRef{Kind: BuiltinRef, Name: "string"}
	i32 := &TypeRef{Kind: BuiltinRef, Name: "int32"}
	boolp := &TypeRef{Kind: PointerRef, Elem: &TypeRef{Kind: BuiltinRef, Name: "bool"}}
	strs := &TypeRef{Kind: SliceRef, Elem: str}
	dur := &TypeRef{Kind: NamedRef, Name: "Duration", External: &External{Known: "Duration", Struct: true}}
	qty := &TypeRef{Kind: NamedRef, Name: "Quantity", External: &External{Known: "Quantity", Struct: true}}
	tests := []struct {
		raw  string
		typ  *TypeRef
		want string // canonical JSON, or "error"
	}{
		{"medium", str, `"medium"`},
		{`"medium"`, str, `"medium"`},
		{"true", str, `"true"`},
		{"5", i32, "5"},
		{"5.5", i32, "error"},
		{`"5"`, i32, "error"},
		{"false", boolp, "false"},
		{"yes", boolp, "error"},
		{`["a","b"]`, strs, `["a","b"]`},
		{`[1]`, strs, "error"},
		{"1h", dur, `"1h"`},
		{"soon", dur, "error"},
		{"1Gi", qty, `"1Gi"`},
		{"lots", qty, "error"},
	}
	for _, tt := range tests {
		v, err := decodeDefault(tt.raw, tt.typ)
		got := "error"
		if err == nil {
			b, _ := json.Marshal(v)
			got = string(b)
		}
		if got != tt.want {
			t.Errorf("decodeDefault(%s) = %s (%v), want %s", tt.raw, got, err, tt.want)
		}
	}
}

// TestLoadExternalFromExportData: dependencies come from export data, built
// without the ignore_autogenerated tag, so apimachinery's own generated
// deepcopy counts (metav1.Condition has DeepCopyInto); fields and JSON tags
// come from go/types, doc comments and markers from the module cache source.
func TestLoadExternalFromExportData(t *testing.T) {
	t.Parallel()
	api := load(t, "testdata/acceptance")
	v1 := mustVersion(t, api, "acceptance.example.dev", "v1")
	var cond *External
	for _, ty := range v1.Types {
		for _, f := range ty.Fields {
			if r := f.Type; r.Kind == SliceRef && r.Elem.Kind == NamedRef && r.Elem.Name == "Condition" {
				cond = r.Elem.External
			}
		}
	}
	if cond == nil {
		t.Fatal("no []metav1.Condition field")
	}
	if !cond.HasDeepCopyInto || !cond.HasDeepCopy || !cond.Struct || cond.Known != "" {
		t.Errorf("Condition = %+v", cond)
	}
	var names []string
	for _, f := range cond.Fields {
		names = append(names, f.JSONName)
		if f.JSONName == "status" && (f.Type.Kind != NamedRef || f.Type.External == nil || f.Type.External.Underlying == nil || f.Type.External.Underlying.Name != "string") {
			t.Errorf("Condition.Status type = %+v", f.Type)
		}
		if f.JSONName == "type" && (!f.Required || f.Validation.MaxLength == nil || f.Doc == "") {
			t.Errorf("Condition.Type: required=%v maxLength=%v doc=%q (markers from the source file)", f.Required, f.Validation.MaxLength, f.Doc)
		}
	}
	if got := strings.Join(names, ","); got != "type,status,observedGeneration,lastTransitionTime,reason,message" {
		t.Errorf("Condition fields = %s", got)
	}
}

// TestLoadHidesGenerated: files the ignore_autogenerated tag excludes never
// feed back in, even stale ones with imports that no longer resolve.
func TestLoadHidesGenerated(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "stale", "types", "s", "v1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Join("testdata", "stale")) })
	files := map[string]string{
		"doc.go":   "// +groupName=s.example.dev\npackage v1\n",
		"types.go": "package v1\n\n// Thing is hand-written.\ntype Thing struct {\n\tName string `json:\"name\"`\n}\n",
		"zz_generated.deepcopy.go": "//go:build !ignore_autogenerated\n\n// Package v1 stale doc.\npackage v1\n\nimport _ \"example.com/gone/forever\"\n\n" +
			"// +kubebuilder:object:root=true\ntype Ghost struct{}\n\nfunc (in *Thing) DeepCopyInto(out *Thing) { *out = *in }\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	api := load(t, "testdata/stale")
	v := mustVersion(t, api, "s.example.dev", "v1")
	if v.Type("Ghost") != nil || len(v.Types) != 1 {
		t.Errorf("types = %d, Ghost = %v: generated code fed back in", len(v.Types), v.Type("Ghost"))
	}
	if th := v.Type("Thing"); th == nil || th.HasDeepCopy {
		t.Errorf("Thing = %+v: generated DeepCopyInto counted as hand-written", th)
	}
	if v.Doc != "" || v.Pos.File != "types/s/v1/doc.go" {
		t.Errorf("package doc %q at %s", v.Doc, v.Pos)
	}
}
