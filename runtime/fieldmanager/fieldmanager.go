// Package fieldmanager builds the server-side apply field managers
// (k8s.io/apimachinery/pkg/util/managedfields) of the served kinds, without
// k8s.io/apiserver.
//
// A Registry is shared by the server and every handler:
//
//   - the server adds each group-version's generated OpenAPI v3 component
//     schemas (AddSchemas, from server.AddGroupVersion). They give the
//     structured-merge-diff type of every kind: list-map keys and sets come
//     from x-kubernetes-list-type and x-kubernetes-list-map-keys, kinds from
//     x-kubernetes-group-version-kind;
//   - the server adds the generated conversion of every served version of
//     a kind to and from its hub (storage) version (AddConversion, from
//     the generated Install). Every managedFields entry records the
//     apiVersion it was written through; a write through another version
//     converts the live and new objects to each entry's version to find
//     what that manager loses or conflicts on, as kube-apiserver does. So
//     entries of every served version are kept, conflicts are found across
//     versions and named in the owner's version. Without a conversion, an
//     entry of another version is dropped by the next write;
//   - a handler asks for the FieldManager of its kind and subresource
//     (FieldManager), describing the kind with a Kind: its Go type (New) and
//     defaulting. The object convertor, creater and defaulter the field
//     manager needs are built from that and the conversions, so generated
//     code needs no runtime.Scheme.
//
// Add every schema and conversion before the first FieldManager call:
// field managers built earlier keep what they were built with.
//
// Kinds whose schemas were never added get a deduced type converter (every
// field, list included, is atomic), as custom resources without a schema do.
package fieldmanager

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kubeforge/kubeforge/runtime/conversion"
	"github.com/kubeforge/kubeforge/runtime/openapidefs"
	"github.com/kubeforge/kubeforge/runtime/presence"
)

// Kind describes one served kind to the Registry.
type Kind struct {
	// GVK is the kind's group, version and kind.
	GVK schema.GroupVersionKind
	// New returns an empty object of the kind (a pointer to its Go struct).
	New func() runtime.Object
	// Default applies the kind's defaults to an object of its own version,
	// given the JSON it came from (a zero that in sets in a field without
	// omitempty is kept); nil means none. The field manager defaults the
	// result of an apply, from its unstructured form.
	Default func(obj runtime.Object, in presence.Node)
	// HasStatus: the status subresource is served, so the main resource
	// does not own .status and the status subresource owns only .status.
	HasStatus bool
	// CustomResource: one of the user's kinds, whose managedFields are
	// those kube-apiserver records for a custom resource (a create owns
	// the structs it sets at the root with their own entry, "f:spec":
	// {".": {}}); built-in kinds keep those of their Go types.
	CustomResource bool
}

type managerKey struct {
	gvk         schema.GroupVersionKind
	subresource string
}

// Registry holds the schemas, conversions and field managers of a server.
// It is safe for concurrent use. The zero value is not usable; use
// NewRegistry.
type Registry struct {
	mu       sync.Mutex
	schemas  map[string]*spec.Schema
	names    map[schema.GroupVersionKind]string // kind -> schema name
	tc       *typeConverter                     // over schemas; nil when none
	versions map[schema.GroupVersionKind]*version
	managers map[managerKey]*FieldManager
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry {
	return &Registry{
		schemas:  map[string]*spec.Schema{},
		names:    map[schema.GroupVersionKind]string{},
		versions: map[schema.GroupVersionKind]*version{},
		managers: map[managerKey]*FieldManager{},
	}
}

// AddSchemas adds the OpenAPI v3 component schemas of a group-version
// (refs "#/components/schemas/<name>"); the well-known apimachinery
// schemas they refer to are added from runtime/openapidefs. Add every
// group-version before the first FieldManager call: field managers built
// earlier keep the types they were built with.
func (r *Registry) AddSchemas(gv schema.GroupVersion, schemas map[string]json.RawMessage) error {
	if len(schemas) == 0 {
		return nil
	}
	all := openapidefs.KnownSchemas()
	roots := make([]string, 0, len(schemas))
	for name, raw := range schemas {
		all[name] = raw
		roots = append(roots, name)
	}
	sort.Strings(roots)
	closure, err := openapidefs.Closure(all, roots...)
	if err != nil {
		return fmt.Errorf("field manager schemas of %s: %w", gv.String(), err)
	}
	parsed := make(map[string]*spec.Schema, len(closure))
	for name, raw := range closure {
		s := new(spec.Schema)
		if err := json.Unmarshal(raw, s); err != nil {
			return fmt.Errorf("field manager schemas of %s: decode schema %q: %w", gv.String(), name, err)
		}
		parsed[name] = s
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	merged := make(map[string]*spec.Schema, len(r.schemas)+len(parsed))
	for k, v := range r.schemas {
		merged[k] = v
	}
	for k, v := range parsed {
		merged[k] = v
	}
	names := make(map[schema.GroupVersionKind]string, len(r.names))
	for gvk, name := range r.names {
		names[gvk] = name
	}
	for name, s := range parsed {
		for _, gvk := range schemaGVKs(s) {
			names[gvk] = name
		}
	}
	tc, err := newTypeConverter(merged, names)
	if err != nil {
		return fmt.Errorf("field manager schemas of %s: %w", gv.String(), err)
	}
	r.schemas, r.tc, r.names = merged, tc, names
	return nil
}

// FieldManager returns the field manager of k for subresource ("" or
// "status"), building it on first use.
func (r *Registry) FieldManager(k Kind, subresource string) (*FieldManager, error) {
	if k.New == nil {
		return nil, fmt.Errorf("field manager of %s: no New func", k.GVK)
	}
	key := managerKey{gvk: k.GVK, subresource: subresource}
	r.mu.Lock()
	defer r.mu.Unlock()
	if fm, ok := r.managers[key]; ok {
		return fm, nil
	}
	fm, err := r.build(k, subresource, false)
	if err != nil {
		return nil, err
	}
	r.managers[key] = fm
	return fm, nil
}

// build makes the field manager of k for subresource; alwaysCopy makes
// its convertor copy objects it need not (tests compare the two). Callers
// hold r.mu.
func (r *Registry) build(k Kind, subresource string, alwaysCopy bool) (*FieldManager, error) {
	tc := managedfields.NewDeducedTypeConverter()
	if _, typed := r.names[k.GVK]; typed && r.tc != nil {
		tc = r.tc.forKind(k.GVK, k.New())
	}
	return r.buildWith(k, subresource, alwaysCopy, tc)
}

// buildWith is build with the type converter tc. Callers hold r.mu.
func (r *Registry) buildWith(k Kind, subresource string, alwaysCopy bool, tc managedfields.TypeConverter) (*FieldManager, error) {
	conv := newKindConvertor(k, r.family(k), alwaysCopy)
	// The field manager's hub is the kind's own version, the version of
	// the objects the handler gives it and wants back; the convertor
	// converts between any two versions of the kind through the real hub.
	gv := k.GVK.GroupVersion()
	reset := map[fieldpath.APIVersion]fieldpath.Filter{}
	var ownReset *fieldpath.Set // the kind's own version's
	for gvk, v := range conv.versions {
		if set := resetFields(k.HasStatus, subresource, r.schemas[r.names[gvk]], !v.isHub()); set != nil {
			reset[fieldpath.APIVersion(gvk.GroupVersion().String())] = fieldpath.NewExcludeSetFilter(set)
			if gvk == k.GVK {
				ownReset = set
			}
		}
	}
	if len(reset) == 0 {
		reset = nil
	}
	fm, err := managedfields.NewDefaultFieldManager(tc, conv, conv, conv, k.GVK, gv, subresource, reset)
	if err != nil {
		return nil, fmt.Errorf("field manager of %s: %w", k.GVK, err)
	}
	out := &FieldManager{FieldManager: fm}
	if ktc, ok := tc.(*kindTypeConverter); ok {
		out.create = newCreatePath(ktc, subresource, ownReset)
		if out.create != nil {
			out.create.emptyLive = k.CustomResource
		} else {
			out.custom = newCustomCreate(ktc, k, subresource, ownReset)
		}
		out.update = newUpdatePath(ktc, subresource, ownReset)
	}
	return out, nil
}

// resetFields are the fields a write may not own, in one version (s is
// its schema, nil when unknown): .status on the main resource when the
// status subresource is served; everything but metadata and .status on the
// status subresource; and in a spoke version (converted) the
// kubeforge.dev/conversion-data annotation, which only carries fields of
// the storage version (owned there, in their own version) and changes with
// them.
func resetFields(hasStatus bool, subresource string, s *spec.Schema, converted bool) *fieldpath.Set {
	var paths []fieldpath.Path
	switch {
	case subresource == "status":
		if s != nil && len(s.Properties) > 0 {
			props := make([]string, 0, len(s.Properties))
			for p := range s.Properties {
				switch p {
				case "apiVersion", "kind", "metadata", "status":
				default:
					props = append(props, p)
				}
			}
			sort.Strings(props)
			for _, p := range props {
				paths = append(paths, fieldpath.MakePathOrDie(p))
			}
		} else {
			paths = append(paths, fieldpath.MakePathOrDie("spec"))
		}
	case hasStatus:
		paths = append(paths, fieldpath.MakePathOrDie("status"))
	}
	if converted {
		paths = append(paths, fieldpath.MakePathOrDie("metadata", "annotations", conversion.DataAnnotation))
	}
	if len(paths) == 0 {
		return nil
	}
	return fieldpath.NewSet(paths...)
}

// schemaGVKs reads x-kubernetes-group-version-kind (an array in v3
// component schemas, an object in operations).
func schemaGVKs(s *spec.Schema) []schema.GroupVersionKind {
	ext, ok := s.Extensions["x-kubernetes-group-version-kind"]
	if !ok {
		return nil
	}
	var items []any
	switch v := ext.(type) {
	case []any:
		items = v
	case map[string]any:
		items = []any{v}
	}
	var out []schema.GroupVersionKind
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		g, _ := m["group"].(string)
		v, _ := m["version"].(string)
		k, _ := m["kind"].(string)
		if v != "" && k != "" {
			out = append(out, schema.GroupVersionKind{Group: g, Version: v, Kind: k})
		}
	}
	return out
}

// ManagerOrUserAgent is the manager name of a non-apply write, as
// kube-apiserver names it: the fieldManager parameter, else the User-Agent
// up to its first "/", printable characters only, at most 128 bytes.
func ManagerOrUserAgent(manager, userAgent string) string {
	if manager != "" {
		return manager
	}
	m, _, _ := strings.Cut(userAgent, "/")
	if printableASCII(m) {
		// What the loop below keeps, without copying it.
		return m[:min(len(m), validation.FieldManagerMaxLength)]
	}
	var buf bytes.Buffer
	for _, r := range m {
		if !unicode.IsPrint(r) {
			continue
		}
		if buf.Len()+utf8.RuneLen(r) > validation.FieldManagerMaxLength {
			break
		}
		buf.WriteRune(r)
	}
	return buf.String()
}

// printableASCII: every byte of s is a printable ASCII character.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// PruneUnknown deletes from u, an object decoded from JSON, the fields
// the Go type of obj does not declare (what a strict decode reports as
// unknown), so that an applied configuration decoded with
// fieldValidation Warn or Ignore does not claim fields the kind lacks.
// Known fields are kept whatever their value, zero values included.
func PruneUnknown(u map[string]any, obj any) {
	prune(u, reflect.TypeOf(obj))
}

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

func prune(v any, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) || t.Implements(jsonUnmarshaler) {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		fields := map[string]reflect.Type{}
		jsonFields(t, fields)
		for k, fv := range m {
			ft, ok := fields[k]
			if !ok {
				delete(m, k)
				continue
			}
			prune(fv, ft)
		}
	case reflect.Map:
		if m, ok := v.(map[string]any); ok {
			for _, fv := range m {
				prune(fv, t.Elem())
			}
		}
	case reflect.Slice, reflect.Array:
		if l, ok := v.([]any); ok {
			for _, ev := range l {
				prune(ev, t.Elem())
			}
		}
	}
}

// jsonFields collects the JSON names of t's fields, following embedded
// structs that encoding/json inlines.
func jsonFields(t reflect.Type, out map[string]reflect.Type) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct || strings.Contains(","+opts+",", ",inline,") && ft.Kind() == reflect.Struct {
			jsonFields(ft, out)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
}
