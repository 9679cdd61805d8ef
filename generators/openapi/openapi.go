// Package openapi is the "openapi" generator. For every group-version with
// kinds it writes generated/<group>/<version>/zz_generated.openapi.go with
//
//	func OpenAPISchemas() map[string]json.RawMessage
//
// returning the OpenAPI v3 component schemas of every kind, its list, and
// every type they reach, including external apimachinery types
// (ObjectMeta, Time, Quantity, ...; see runtime/openapidefs). Each schema is
// one indented JSON document with sorted keys.
//
// Names: local types are "<reversed group>.<version>.<Type>"
// ("dev.kubeforge.shipping.v1.Shipment"), external types are named by their
// reversed import path ("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta").
// References are "#/components/schemas/<name>"; a reference with a
// description (or any other sibling) is wrapped in allOf, as kube-openapi's
// v3 builder does.
//
// Named non-struct types declared in the types packages (type Priority
// string) are inlined where they are used, with their validation, as
// kube-openapi and controller-gen do.
package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/ids"
	"github.com/kubeforge/kubeforge/generators/model"
	"github.com/kubeforge/kubeforge/runtime/openapidefs"
)

// FileName is the base name of the file written into each generated package.
const FileName = "zz_generated.openapi.go"

const (
	descAPIVersion = "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	descKind       = "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
	descObjectMeta = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
	descListMeta   = "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
	metav1Pkg      = "k8s.io/apimachinery/pkg/apis/meta/v1"
	extGVK         = "x-kubernetes-group-version-kind"
	// extSelectableFields lists a kind's +kubebuilder:selectablefield
	// labels, as kube-apiserver's OpenAPI of a CRD does.
	extSelectableFields = "x-kubernetes-selectable-fields"
	extListType         = "x-kubernetes-list-type"
	extListMapKeys      = "x-kubernetes-list-map-keys"
	extMapType          = "x-kubernetes-map-type"
	extPatchStrategy    = "x-kubernetes-patch-strategy"
	extPatchMergeKey    = "x-kubernetes-patch-merge-key"
	extEmbedded         = "x-kubernetes-embedded-resource"
	extPreserve         = "x-kubernetes-preserve-unknown-fields"
	extValidations      = "x-kubernetes-validations"
	extIntOrString      = "x-kubernetes-int-or-string"
	schemaRefPrefix     = openapidefs.RefPrefix
	maxInlineDepth      = 32
	generatedListDoc    = "%s is a list of %s objects."
)

// Generator writes the OpenAPI v3 schemas of each group-version.
type Generator struct{}

// Name implements genall.Generator.
func (Generator) Name() string { return "openapi" }

// Generate implements genall.Generator.
func (Generator) Generate(api *model.API) ([]genall.File, error) {
	var files []genall.File
	for _, g := range api.Groups {
		for _, v := range g.Versions {
			if len(v.Kinds) == 0 {
				continue
			}
			schemas, err := Schemas(v)
			if err != nil {
				return nil, fmt.Errorf("generate openapi for %s: %w", v.GroupVersion(), err)
			}
			f, err := render(api, v, schemas)
			if err != nil {
				return nil, fmt.Errorf("generate openapi for %s: %w", v.GroupVersion(), err)
			}
			files = append(files, f)
		}
	}
	return files, nil
}

// Schemas returns the indented JSON schemas of v's kinds, their lists and
// every type they reach, by component name.
func Schemas(v *model.Version) (map[string]json.RawMessage, error) {
	b := &builder{out: map[string]any{}, queued: map[string]bool{}}
	for _, k := range v.Kinds {
		if k.Type == nil {
			return nil, fmt.Errorf("build schema of kind %s: kind has no type", k.Name)
		}
		gvk := []any{map[string]any{"group": v.Group.Name, "version": v.Name, "kind": k.Name}}
		name := localName(k.Type)
		s, err := b.structSchema(k.Type, name)
		if err != nil {
			return nil, err
		}
		s[extGVK] = gvk
		if len(k.SelectableFields) > 0 && !v.External {
			// What kube-apiserver publishes for a CRD's selectableFields.
			var fields []any
			for _, f := range k.SelectableFields {
				fields = append(fields, map[string]any{"fieldPath": f.Label})
			}
			s[extSelectableFields] = fields
		}
		b.out[name] = s

		listKind := k.ListName
		if listKind == "" {
			listKind = k.Name + "List"
		}
		listName := versionTypeName(v, listKind)
		var ls map[string]any
		if k.List != nil {
			ls, err = b.structSchema(k.List, listName)
			if err != nil {
				return nil, err
			}
		} else {
			ls = generatedList(k, name)
			b.queueExternal(metav1Pkg, "ListMeta")
		}
		ls[extGVK] = []any{map[string]any{"group": v.Group.Name, "version": v.Name, "kind": listKind}}
		b.out[listName] = ls
	}
	if err := b.drain(); err != nil {
		return nil, err
	}
	out := make(map[string]json.RawMessage, len(b.out))
	for n, s := range b.out {
		raw, err := encode(s)
		if err != nil {
			return nil, fmt.Errorf("encode schema %s: %w", n, err)
		}
		out[n] = raw
	}
	return out, nil
}

func render(api *model.API, v *model.Version, schemas map[string]json.RawMessage) (genall.File, error) {
	importPath, dir, pkg := genall.GeneratedPackage(api, v)
	f := genall.NewFile(pkg, importPath)
	names := make([]string, 0, len(schemas))
	for n := range schemas {
		names = append(names, n)
	}
	sort.Strings(names)
	var items []jen.Code
	for _, n := range names {
		items = append(items, jen.Line().Lit(n).Op(":").Qual("encoding/json", "RawMessage").Call(jsonLit(schemas[n])))
	}
	items = append(items, jen.Line())
	f.Commentf("%s returns the OpenAPI v3 component schemas of %s: every kind, its list and every type they reach, by name. References are %q.", ids.OpenAPISchemas, v.GroupVersion(), schemaRefPrefix+"<name>")
	f.Func().Id(ids.OpenAPISchemas).Params().Map(jen.String()).Qual("encoding/json", "RawMessage").Block(
		jen.Return(jen.Map(jen.String()).Qual("encoding/json", "RawMessage").Values(items...)),
	)
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return genall.File{}, fmt.Errorf("render %s: %w", FileName, err)
	}
	return genall.File{Path: dir + "/" + FileName, Content: buf.Bytes()}, nil
}

// jsonLit writes JSON as a raw string literal when it can, so the generated
// file stays readable.
func jsonLit(raw json.RawMessage) jen.Code {
	s := string(raw)
	if strings.Contains(s, "`") || strings.Contains(s, "\r") {
		return jen.Lit(s)
	}
	return jen.Op("`" + s + "`")
}

func encode(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func localName(t *model.Type) string {
	return versionTypeName(t.Version, t.Name)
}

// versionTypeName names a type of a types package: by group and version
// ("dev.kubeforge.shipping.v1.Shipment"), or, for an external package
// (k8s.io/api), by reversed import path as Kubernetes does
// ("io.k8s.api.core.v1.Namespace").
func versionTypeName(v *model.Version, typeName string) string {
	if v.External {
		return openapidefs.Name(v.Package, typeName)
	}
	return openapidefs.LocalName(v.Group.Name, v.Name, typeName)
}

// builder collects schemas by name; queued types are built by drain.
type builder struct {
	out     map[string]any
	queued  map[string]bool
	pending []pending
}

type pending struct {
	name     string
	local    *model.Type
	pkg, typ string
	ext      *model.External
}

func (b *builder) queueLocal(t *model.Type) string {
	n := localName(t)
	if !b.queued[n] {
		b.queued[n] = true
		b.pending = append(b.pending, pending{name: n, local: t})
	}
	return n
}

func (b *builder) queueExternalRef(r *model.TypeRef) string {
	n := openapidefs.Name(r.Package, r.Name)
	if !b.queued[n] {
		b.queued[n] = true
		b.pending = append(b.pending, pending{name: n, pkg: r.Package, typ: r.Name, ext: r.External})
	}
	return n
}

func (b *builder) queueExternal(pkg, typ string) string {
	return b.queueExternalRef(&model.TypeRef{Kind: model.NamedRef, Package: pkg, Name: typ})
}

func (b *builder) drain() error {
	known := openapidefs.KnownSchemas()
	for len(b.pending) > 0 {
		p := b.pending[0]
		b.pending = b.pending[1:]
		if _, done := b.out[p.name]; done {
			continue
		}
		if p.local != nil {
			s, err := b.namedSchema(p.local, p.name)
			if err != nil {
				return err
			}
			b.out[p.name] = s
			continue
		}
		if raw, ok := known[p.name]; ok {
			s, err := decode(raw)
			if err != nil {
				return fmt.Errorf("decode well-known schema %s: %w", p.name, err)
			}
			b.out[p.name] = s
			refs, err := openapidefs.Refs(raw)
			if err != nil {
				return fmt.Errorf("read refs of well-known schema %s: %w", p.name, err)
			}
			for _, r := range refs {
				if !b.queued[r] {
					if _, ok := known[r]; !ok {
						return fmt.Errorf("resolve ref %s of well-known schema %s: not defined", r, p.name)
					}
					b.queued[r] = true
					b.pending = append(b.pending, pending{name: r})
				}
			}
			continue
		}
		s, err := b.externalSchema(p)
		if err != nil {
			return err
		}
		b.out[p.name] = s
	}
	return nil
}

func decode(raw json.RawMessage) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// externalSchema builds the schema of an external type the well-known set
// lacks, from the loader's description of it.
func (b *builder) externalSchema(p pending) (map[string]any, error) {
	s := map[string]any{}
	if p.ext == nil {
		// Unknown shape: accept anything rather than prune data.
		s["type"] = "object"
		s[extPreserve] = true
		return s, nil
	}
	if d := cleanDoc(p.ext.Doc); d != "" {
		s["description"] = d
	}
	if p.ext.Fields != nil {
		s["type"] = "object"
		if err := b.addFields(s, p.ext.Fields, p.name, 0); err != nil {
			return nil, err
		}
		if p.ext.StructType != "" {
			s[extMapType] = p.ext.StructType
		}
		return s, nil
	}
	switch p.ext.Known {
	case "JSON", "RawExtension":
		s[extPreserve] = true
		if p.ext.Known == "RawExtension" {
			s["type"] = "object"
		}
		return s, nil
	}
	if p.ext.Underlying != nil {
		u, err := b.refSchema(p.ext.Underlying, p.name, 0)
		if err != nil {
			return nil, err
		}
		for k, v := range u {
			s[k] = v
		}
		return s, nil
	}
	s["type"] = "object"
	s[extPreserve] = true
	return s, nil
}

// namedSchema is the component schema of a local named type.
func (b *builder) namedSchema(t *model.Type, name string) (map[string]any, error) {
	if t.Kind == model.StructKind {
		return b.structSchema(t, name)
	}
	if t.Underlying == nil {
		return nil, fmt.Errorf("build schema of %s: non-struct type has no underlying type", t.Name)
	}
	s, err := b.refSchema(t.Underlying, t.Name, 0)
	if err != nil {
		return nil, err
	}
	if d := cleanDoc(t.Doc); d != "" {
		s["description"] = d
	}
	applyValidation(s, t.Validation)
	if err := applyDoc(s, t.SchemaDoc); err != nil {
		return nil, fmt.Errorf("build schema of %s: %w", t.Name, err)
	}
	if t.Default != nil {
		if err := setDefault(s, t.Default); err != nil {
			return nil, fmt.Errorf("build schema of %s: %w", t.Name, err)
		}
	}
	return s, nil
}

func (b *builder) structSchema(t *model.Type, name string) (map[string]any, error) {
	s := map[string]any{"type": "object"}
	if d := cleanDoc(t.Doc); d != "" {
		s["description"] = d
	}
	if err := b.addFields(s, t.Fields, t.Name, 0); err != nil {
		return nil, err
	}
	if t.IsKind || t.IsList {
		props, _ := s["properties"].(map[string]any)
		if m, ok := props["metadata"].(map[string]any); ok {
			if _, has := m["description"]; !has {
				if t.IsList {
					m["description"] = descListMeta
				} else {
					m["description"] = descObjectMeta
				}
				props["metadata"] = wrapRef(m)
			}
		}
	}
	applyValidation(s, t.Validation)
	if err := applyDoc(s, t.SchemaDoc); err != nil {
		return nil, fmt.Errorf("build schema of %s: %w", t.Name, err)
	}
	if t.StructType != "" {
		s[extMapType] = t.StructType
	}
	return s, nil
}

// addFields adds the properties (and required names) of fields to the
// object schema s, flattening inline embedded structs.
func (b *builder) addFields(s map[string]any, fields []*model.Field, owner string, depth int) error {
	if depth > maxInlineDepth {
		return fmt.Errorf("build schema of %s: inline fields nest deeper than %d", owner, maxInlineDepth)
	}
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	req, _ := s["required"].([]any)
	for _, f := range fields {
		if f.JSONName == "-" {
			continue
		}
		if f.Inline || (f.Embedded && f.JSONName == "") {
			if len(req) > 0 {
				s["required"] = req
			}
			if err := b.addInline(s, props, f, owner, depth); err != nil {
				return err
			}
			req, _ = s["required"].([]any)
			continue
		}
		if f.JSONName == "" {
			continue
		}
		fs, err := b.fieldSchema(f, owner)
		if err != nil {
			return err
		}
		props[f.JSONName] = fs
		if f.Required {
			req = append(req, f.JSONName)
		}
	}
	if len(props) > 0 {
		s["properties"] = props
	}
	if len(req) > 0 {
		s["required"] = req
	}
	return nil
}

func (b *builder) addInline(s, props map[string]any, f *model.Field, owner string, depth int) error {
	r := f.Type
	for r != nil && r.Kind == model.PointerRef {
		r = r.Elem
	}
	if r == nil || r.Kind != model.NamedRef {
		return fmt.Errorf("build schema of %s.%s: inline field is not a named struct", owner, f.Name)
	}
	s["properties"] = props
	switch {
	case r.Local != nil:
		if err := b.addFields(s, r.Local.Fields, owner, depth+1); err != nil {
			return err
		}
		// Its CEL rules hold for the object it is flattened into, as
		// controller-gen merges them (Gateway API's "Must have port for
		// Service reference" on BackendObjectReference, inline in
		// BackendRef).
		applyValidation(s, model.Validation{XValidations: r.Local.Validation.XValidations})
		return nil
	case r.Package == metav1Pkg && r.Name == "TypeMeta", r.External != nil && r.External.Known == "TypeMeta":
		props["apiVersion"] = map[string]any{"type": "string", "description": descAPIVersion}
		props["kind"] = map[string]any{"type": "string", "description": descKind}
		return nil
	case r.External != nil && r.External.Fields != nil:
		return b.addFields(s, r.External.Fields, owner, depth+1)
	}
	return fmt.Errorf("build schema of %s.%s: inline type %s.%s has no known fields", owner, f.Name, r.Package, r.Name)
}

// fieldSchema is the property schema of one field.
func (b *builder) fieldSchema(f *model.Field, owner string) (map[string]any, error) {
	where := owner + "." + f.Name
	s, err := b.refSchema(f.Type, where, 0)
	if err != nil {
		return nil, err
	}
	if d := cleanDoc(f.Doc); d != "" {
		s["description"] = d
	}
	applyValidation(s, f.Validation)
	if err := applyDoc(s, f.SchemaDoc); err != nil {
		return nil, fmt.Errorf("build schema of %s: %w", where, err)
	}
	def := f.Default
	if def == nil {
		if t := namedLocal(f.Type); t != nil && t.Kind != model.StructKind {
			def = t.Default
		}
	}
	if def != nil {
		if err := setDefault(s, def); err != nil {
			return nil, fmt.Errorf("build schema of %s: %w", where, err)
		}
	}
	if f.ListType != "" {
		s[extListType] = f.ListType
	}
	if len(f.ListMapKeys) > 0 {
		keys := make([]any, len(f.ListMapKeys))
		for i, k := range f.ListMapKeys {
			keys[i] = k
		}
		s[extListMapKeys] = keys
	}
	if f.PatchStrategy != "" {
		s[extPatchStrategy] = f.PatchStrategy
	}
	if f.PatchMergeKey != "" {
		s[extPatchMergeKey] = f.PatchMergeKey
	}
	if f.MapType != "" {
		s[extMapType] = f.MapType
	} else if f.StructType != "" {
		s[extMapType] = f.StructType
	}
	if f.EmbeddedResource {
		s[extEmbedded] = true
		if _, ok := s["type"]; !ok {
			s["type"] = "object"
		}
		embeddedProperties(s)
	}
	if f.Markers.Has("nullable") {
		s["nullable"] = true
	}
	if f.PreserveUnknownFields {
		s[extPreserve] = true
	}
	return wrapRef(s), nil
}

// embeddedProperties gives an embedded resource without properties of its
// own (a RawExtension) the apiVersion, kind and metadata kube-apiserver
// publishes for one, apiVersion and kind required.
func embeddedProperties(s map[string]any) {
	if _, ok := s["properties"]; ok {
		return
	}
	if ref, _ := s["$ref"].(string); ref != "" && !strings.HasSuffix(ref, ".RawExtension") {
		return
	}
	delete(s, "$ref")
	s["properties"] = map[string]any{
		"apiVersion": map[string]any{"type": "string", "description": "apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"},
		"kind":       map[string]any{"type": "string", "description": "kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"},
		"metadata":   wrapRef(map[string]any{"$ref": schemaRefPrefix + openapidefs.ObjectMeta, "description": descObjectMeta}),
	}
	s["required"] = []any{"kind", "apiVersion"}
}

func namedLocal(r *model.TypeRef) *model.Type {
	for r != nil && r.Kind == model.PointerRef {
		r = r.Elem
	}
	if r != nil && r.Kind == model.NamedRef {
		return r.Local
	}
	return nil
}

func setDefault(s map[string]any, d *model.Default) error {
	if len(d.JSON) == 0 {
		return nil
	}
	v, err := decodeAny(d.JSON)
	if err != nil {
		return fmt.Errorf("decode default %s: %w", d.JSON, err)
	}
	s["default"] = v
	return nil
}

func decodeAny(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// wrapRef moves a $ref with siblings into allOf, as kube-openapi does for v3.
func wrapRef(s map[string]any) map[string]any {
	ref, ok := s["$ref"]
	if !ok || len(s) == 1 {
		return s
	}
	delete(s, "$ref")
	s["allOf"] = []any{map[string]any{"$ref": ref}}
	return s
}

func ref(name string) map[string]any { return map[string]any{"$ref": schemaRefPrefix + name} }

// refSchema is the schema of a use of a type: a fresh map the caller may add to.
func (b *builder) refSchema(r *model.TypeRef, where string, depth int) (map[string]any, error) {
	if r == nil {
		return nil, fmt.Errorf("build schema of %s: missing type", where)
	}
	if depth > maxInlineDepth {
		return nil, fmt.Errorf("build schema of %s: type nests deeper than %d", where, maxInlineDepth)
	}
	switch r.Kind {
	case model.PointerRef:
		return b.refSchema(r.Elem, where, depth+1)
	case model.BuiltinRef:
		return builtin(r.Name, where)
	case model.SliceRef, model.ArrayRef:
		if r.Elem != nil && r.Elem.Kind == model.BuiltinRef && (r.Elem.Name == "byte" || r.Elem.Name == "uint8") {
			return map[string]any{"type": "string", "format": "byte"}, nil
		}
		items, err := b.refSchema(r.Elem, where, depth+1)
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "array", "items": items}, nil
	case model.MapRef:
		if r.Key != nil && !isStringKey(r.Key) {
			return nil, fmt.Errorf("build schema of %s: map key %s is not a string", where, r.Key.Name)
		}
		vals, err := b.refSchema(r.Elem, where, depth+1)
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "object", "additionalProperties": vals}, nil
	case model.InterfaceRef:
		return map[string]any{extPreserve: true}, nil
	case model.NamedRef:
		if t := r.Local; t != nil {
			if t.Kind == model.StructKind {
				return ref(b.queueLocal(t)), nil
			}
			// Named non-struct types are inlined with their validation.
			if t.Underlying == nil {
				return nil, fmt.Errorf("build schema of %s: type %s has no underlying type", where, t.Name)
			}
			s, err := b.refSchema(t.Underlying, where, depth+1)
			if err != nil {
				return nil, err
			}
			applyValidation(s, t.Validation)
			if err := applyDoc(s, t.SchemaDoc); err != nil {
				return nil, fmt.Errorf("build schema of %s: %w", where, err)
			}
			return s, nil
		}
		if r.Package == "" {
			return nil, fmt.Errorf("build schema of %s: named type %s has no package and is not local", where, r.Name)
		}
		return ref(b.queueExternalRef(r)), nil
	}
	return nil, fmt.Errorf("build schema of %s: unsupported type kind %d", where, r.Kind)
}

func isStringKey(k *model.TypeRef) bool {
	if k.Kind == model.BuiltinRef {
		return k.Name == "string"
	}
	if k.Kind == model.NamedRef && k.Local != nil && k.Local.Underlying != nil {
		return isStringKey(k.Local.Underlying)
	}
	if k.Kind == model.NamedRef && k.External != nil && k.External.Underlying != nil {
		return isStringKey(k.External.Underlying)
	}
	return false
}

func builtin(name, where string) (map[string]any, error) {
	switch name {
	case "string":
		return map[string]any{"type": "string"}, nil
	case "bool":
		return map[string]any{"type": "boolean"}, nil
	case "int32", "int16", "int8", "uint16", "uint8", "byte":
		return map[string]any{"type": "integer", "format": "int32"}, nil
	case "int64", "int", "uint32", "uint", "uint64":
		return map[string]any{"type": "integer", "format": "int64"}, nil
	case "float64", "float32":
		return map[string]any{"type": "number", "format": "double"}, nil
	}
	return nil, fmt.Errorf("build schema of %s: unsupported builtin type %s", where, name)
}

// applyValidation writes every validation constraint in OpenAPI v3 form
// (exclusiveMinimum/Maximum as booleans, as Kubernetes' v3 and JSON Schema
// draft 4 have them).
func applyValidation(s map[string]any, v model.Validation) {
	if v.Minimum != nil {
		s["minimum"] = *v.Minimum
		if v.ExclusiveMinimum {
			s["exclusiveMinimum"] = true
		}
	}
	if v.Maximum != nil {
		s["maximum"] = *v.Maximum
		if v.ExclusiveMaximum {
			s["exclusiveMaximum"] = true
		}
	}
	if v.MultipleOf != nil {
		s["multipleOf"] = *v.MultipleOf
	}
	if v.MinLength != nil {
		s["minLength"] = *v.MinLength
	}
	if v.MaxLength != nil {
		s["maxLength"] = *v.MaxLength
	}
	if v.Pattern != "" {
		s["pattern"] = v.Pattern
	}
	if len(v.Enum) > 0 {
		s["enum"] = append([]any(nil), v.Enum...)
	}
	if v.MinItems != nil {
		s["minItems"] = *v.MinItems
	}
	if v.MaxItems != nil {
		s["maxItems"] = *v.MaxItems
	}
	if v.UniqueItems {
		s["uniqueItems"] = true
	}
	if v.MinProperties != nil {
		s["minProperties"] = *v.MinProperties
	}
	if v.MaxProperties != nil {
		s["maxProperties"] = *v.MaxProperties
	}
	if v.Format != "" {
		s["format"] = v.Format
	}
	if v.Items != nil {
		// +kubebuilder:validation:items:*: on the items schema, as
		// controller-gen writes them (a $ref with siblings goes into allOf).
		if items, ok := s["items"].(map[string]any); ok {
			applyValidation(items, v.Items.Validation)
			if v.Items.EmbeddedResource {
				items[extEmbedded] = true
				if _, ok := items["type"]; !ok {
					items["type"] = "object"
				}
			}
			if v.Items.PreserveUnknownFields {
				items[extPreserve] = true
			}
			s["items"] = wrapRef(items)
		}
	}
	if len(v.XValidations) > 0 {
		rules := make([]any, len(v.XValidations))
		for i, x := range v.XValidations {
			r := map[string]any{"rule": x.Rule}
			if x.Message != "" {
				r["message"] = x.Message
			}
			if x.MessageExpression != "" {
				r["messageExpression"] = x.MessageExpression
			}
			if x.Reason != "" {
				r["reason"] = x.Reason
			}
			if x.FieldPath != "" {
				r["fieldPath"] = x.FieldPath
			}
			if x.OptionalOldSelf {
				r["optionalOldSelf"] = true
			}
			rules[i] = r
		}
		prev, _ := s[extValidations].([]any) // an inline embedded struct's come first
		s[extValidations] = append(prev, rules...)
	}
}

// applyDoc writes the documentation markers: title, example and
// externalDocs, as controller-gen writes them into a CRD schema.
func applyDoc(s map[string]any, d model.SchemaDoc) error {
	if d.Title != "" {
		s["title"] = d.Title
	}
	if d.Example != nil {
		v, err := decodeAny(d.Example)
		if err != nil {
			return fmt.Errorf("decode example %s: %w", d.Example, err)
		}
		s["example"] = v
	}
	if d.ExternalDocs != nil {
		ed := map[string]any{"url": d.ExternalDocs.URL}
		if d.ExternalDocs.Description != "" {
			ed["description"] = d.ExternalDocs.Description
		}
		s["externalDocs"] = ed
	}
	return nil
}

// generatedList is the schema of a list the lists generator writes.
func generatedList(k *model.Kind, kindName string) map[string]any {
	listKind := k.ListName
	if listKind == "" {
		listKind = k.Name + "List"
	}
	return map[string]any{
		"type":        "object",
		"description": fmt.Sprintf(generatedListDoc, listKind, k.Name),
		"required":    []any{"items"},
		"properties": map[string]any{
			"apiVersion": map[string]any{"type": "string", "description": descAPIVersion},
			"kind":       map[string]any{"type": "string", "description": descKind},
			"metadata":   wrapRef(map[string]any{"$ref": schemaRefPrefix + openapidefs.ListMeta, "description": descListMeta}),
			"items":      map[string]any{"type": "array", "items": ref(kindName)},
		},
	}
}

// cleanDoc turns a doc comment into a description as kube-openapi does:
// marker lines (+...) dropped, lines of a paragraph joined with a space,
// paragraphs separated by a blank line.
func cleanDoc(doc string) string {
	var paras []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, strings.Join(cur, " "))
			cur = nil
		}
	}
	for _, line := range strings.Split(doc, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "//"))
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "+"):
			// a marker
		case strings.HasPrefix(line, "---"):
			// kube-openapi stops at a "---" line
			flush()
			return strings.Join(paras, "\n\n")
		default:
			cur = append(cur, line)
		}
	}
	flush()
	return strings.Join(paras, "\n\n")
}
