package fieldmanager

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/schemaconv"
	"k8s.io/kube-openapi/pkg/validation/spec"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/kubeforge/kubeforge/runtime/jsonencode"
)

// typeConverter holds the structured-merge-diff types of the typed
// kinds: the schemas converted and parsed as managedfields.NewTypeConverter
// does. It is read-only once built.
type typeConverter struct {
	parser *typed.Parser
	types  map[schema.GroupVersionKind]typed.ParseableType
}

// newTypeConverter converts the OpenAPI schemas as
// managedfields.NewTypeConverter does; names maps kinds to their schemas.
func newTypeConverter(schemas map[string]*spec.Schema, names map[schema.GroupVersionKind]string) (*typeConverter, error) {
	s, err := schemaconv.ToSchemaFromOpenAPI(schemas, false)
	if err != nil {
		return nil, fmt.Errorf("convert schemas to structured-merge-diff types: %w", err)
	}
	c := &typeConverter{
		parser: &typed.Parser{Schema: smdschema.Schema{Types: s.Types}},
		types:  make(map[schema.GroupVersionKind]typed.ParseableType, len(names)),
	}
	for gvk, name := range names {
		c.types[gvk] = c.parser.Type(name)
	}
	return c, nil
}

// forKind is the managedfields.TypeConverter of one kind's field manager
// (obj is an object of the kind's Go type).
func (c *typeConverter) forKind(gvk schema.GroupVersionKind, obj runtime.Object) *kindTypeConverter {
	k := &kindTypeConverter{types: c}
	t := reflect.TypeOf(obj)
	k.cr = t.Kind() == reflect.Pointer && jsonencode.IsCustomResource(t.Elem())
	if p, ok := c.types[gvk]; ok && t.Kind() == reflect.Pointer && fitsSchema(t, p.Schema, p.TypeRef) {
		k.proven, k.gvk = t, gvk
	}
	return k
}

// kindTypeConverter converts objects to typed values exactly as
// managedfields.NewTypeConverter's converter does, validating them against
// their schema, except one: an object of the kind's own Go type (proven),
// proven to fit its schema, when the field manager asks for a value that
// may hold duplicates (its Update's new and live objects, Apply's live
// object).
//
// Why that changes nothing: validation with duplicates allowed finds
// three kinds of fault. Fields the schema does not declare and scalars of
// the wrong type depend only on the Go type where it fits the schema
// (fitsSchema), so they cannot occur; items of keyed lists and sets that
// give no path element are found again by the Compare or Merge every such
// value goes through next, which fails the write the same way. Validation
// was a third of the managedFields work of a write.
type kindTypeConverter struct {
	types  *typeConverter
	proven reflect.Type // nil when the kind's Go type was not proven
	gvk    schema.GroupVersionKind
	// cr: the kind's objects are written as a custom resource's
	// (jsonencode.CustomResource), so its field manager sees that JSON,
	// as kube's sees a custom resource, not the Go object.
	cr bool
}

var _ managedfields.TypeConverter = (*kindTypeConverter)(nil)

// ObjectToTyped implements managedfields.TypeConverter.
func (c *kindTypeConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	p, ok := c.types.types[gvk]
	if !ok {
		// kube's converter's own error: the field manager drops the
		// entries of a version it cannot type on that error alone.
		return noTypes.ObjectToTyped(obj, opts...)
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return p.FromUnstructured(u.UnstructuredContent(), opts...)
	}
	if c.cr {
		u, err := customResourceContent(obj)
		if err != nil {
			return nil, err
		}
		return p.FromUnstructured(u, opts...)
	}
	if c.proven != nil && gvk == c.gvk && len(opts) == 1 && opts[0] == typed.AllowDuplicates && reflect.TypeOf(obj) == c.proven && entriesAreObjects(obj) {
		v, err := newReflectValue(obj)
		if err != nil {
			return nil, fmt.Errorf("reflect %v for structured-merge-diff: %w", gvk, err)
		}
		return typed.AsTypedUnvalidated(v, p.Schema, p.TypeRef), nil
	}
	return p.FromStructured(obj, opts...)
}

// entriesAreObjects: every managedFields entry of obj holds a JSON object
// or nothing, as fitsSchema assumed (an entry written by another program
// into etcd may hold anything).
func entriesAreObjects(obj runtime.Object) bool {
	m, ok := obj.(metav1.Object)
	if !ok {
		return false
	}
	for _, e := range m.GetManagedFields() {
		if e.FieldsV1 == nil {
			continue
		}
		if raw := e.FieldsV1.GetRawBytes(); len(raw) > 0 && raw[0] != '{' {
			return false
		}
	}
	return true
}

// TypedToObject implements managedfields.TypeConverter: an unstructured
// object, whatever the type (the deduced converter does just that).
func (c *kindTypeConverter) TypedToObject(v *typed.TypedValue) (runtime.Object, error) {
	return deduced.TypedToObject(v)
}

var deduced = managedfields.NewDeducedTypeConverter()

// noTypes is a converter of no kinds, for the error it gives.
var noTypes = func() managedfields.TypeConverter {
	tc, err := managedfields.NewTypeConverter(map[string]*spec.Schema{}, false)
	if err != nil {
		return deduced // not reached: no schemas convert without error
	}
	return tc
}()

// scalarsOf are the JSON scalars structured-merge-diff's reflection makes
// of the values of a type that converts itself (json.Marshaler,
// ToUnstructured), null aside. FieldsV1 is taken for a JSON object: it
// is one in every managedFields entry the field manager wrote, and
// kindTypeConverter checks the object's entries before it relies on
// that; elsewhere it makes anything. A type not listed may make anything.
var scalarsOf = map[reflect.Type][]smdschema.Scalar{
	reflect.TypeFor[metav1.Time]():        {smdschema.String},
	reflect.TypeFor[metav1.MicroTime]():   {smdschema.String},
	reflect.TypeFor[metav1.Duration]():    {smdschema.String},
	reflect.TypeFor[resource.Quantity]():  {smdschema.String},
	reflect.TypeFor[intstr.IntOrString](): {smdschema.String, smdschema.Numeric},
}

var (
	fieldsV1Type     = reflect.TypeFor[metav1.FieldsV1]()
	managedEntryType = reflect.TypeFor[metav1.ManagedFieldsEntry]()
)

// fitsSchema reports whether every value structured-merge-diff's
// reflection can make of a Go value of type t validates against tr in s,
// but for the items of keyed lists and sets (which Compare and Merge
// check again): every struct field and map key it can give is declared,
// with a type that fits, and every scalar has the schema's type. It
// answers false for what it cannot tell (interfaces, types that convert
// themselves to anything under a typed schema), and for keyed lists and
// sets inside atomic lists and maps, whose items Compare and Merge do not
// visit.
func fitsSchema(t reflect.Type, s *smdschema.Schema, tr smdschema.TypeRef) bool {
	f := fitter{s: s, seen: map[fitKey]bool{}}
	return f.fits(t, tr)
}

type fitKey struct {
	t               reflect.Type
	tr              string
	inEntry, atomic bool
}

type fitter struct {
	s *smdschema.Schema
	// inEntry: the struct being checked is a ManagedFieldsEntry.
	inEntry bool
	// atomic: the value is inside an atomic list or map.
	atomic bool
	seen   map[fitKey]bool // pairs being or already checked: recursive types fit unless a path shows otherwise
}

func refKey(tr smdschema.TypeRef) string {
	if tr.NamedType != nil {
		return *tr.NamedType
	}
	return fmt.Sprintf("inline:%p", tr.Inlined.Map) + fmt.Sprintf("%p/%p", tr.Inlined.List, tr.Inlined.Scalar)
}

func (f *fitter) fits(t reflect.Type, tr smdschema.TypeRef) bool {
	key := fitKey{t, refKey(tr), f.inEntry, f.atomic}
	if ok, done := f.seen[key]; done {
		return ok
	}
	f.seen[key] = true
	ok := f.check(t, tr)
	f.seen[key] = ok
	return ok
}

func (f *fitter) check(t reflect.Type, tr smdschema.TypeRef) bool {
	a, ok := f.s.Resolve(tr)
	if !ok {
		return false
	}
	if value.TypeReflectEntryOf(t).CanConvertToUnstructured() {
		base := t
		for base.Kind() == reflect.Pointer {
			base = base.Elem()
		}
		if base == fieldsV1Type && f.inEntry {
			return a.Map != nil && len(a.Map.Fields) == 0 && f.anyJSON(a.Map.ElementType)
		}
		scalars, known := scalarsOf[base]
		if !known {
			return f.anyJSON(tr)
		}
		for _, sc := range scalars {
			if !scalarFits(a, sc) {
				return false
			}
		}
		return true
	}
	switch t.Kind() {
	case reflect.Pointer:
		return f.fits(t.Elem(), tr)
	case reflect.Struct:
		return a.Map != nil && f.inside(a.Map.ElementRelationship, func() bool { return f.structFits(t, a.Map) })
	case reflect.Map:
		return t.Key().Kind() == reflect.String && a.Map != nil &&
			f.inside(a.Map.ElementRelationship, func() bool { return f.mapFits(t.Elem(), a.Map) })
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return scalarFits(a, smdschema.String)
		}
		if a.List == nil || f.atomic && a.List.ElementRelationship == smdschema.Associative {
			return false
		}
		return f.inside(a.List.ElementRelationship, func() bool { return f.fits(t.Elem(), a.List.ElementType) })
	case reflect.String:
		return scalarFits(a, smdschema.String)
	case reflect.Bool:
		return scalarFits(a, smdschema.Boolean)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Float32, reflect.Float64:
		return scalarFits(a, smdschema.Numeric)
	}
	return false // interfaces, arrays, uint64 and the rest: not told
}

// inside runs check with atomic set while inside an atomic list or map.
func (f *fitter) inside(rel smdschema.ElementRelationship, check func() bool) bool {
	was := f.atomic
	f.atomic = was || rel == smdschema.Atomic
	ok := check()
	f.atomic = was
	return ok
}

// structFits: every field the reflection gives (its JSON names, inlined
// structs followed) is declared, or the map has an element type, and fits.
func (f *fitter) structFits(t reflect.Type, m *smdschema.Map) bool {
	zero := reflect.New(t).Elem()
	for name, fe := range value.TypeReflectEntryOf(t).Fields() {
		ft := fe.GetFrom(zero).Type()
		f.inEntry = t == managedEntryType
		tr := m.ElementType
		if sf, ok := m.FindField(name); ok {
			tr = sf.Type
		} else if (tr == smdschema.TypeRef{}) {
			return false
		}
		if !f.fits(ft, tr) {
			return false
		}
	}
	return true
}

// mapFits: a Go map may hold any key, so its values must fit the element
// type and every declared field.
func (f *fitter) mapFits(elem reflect.Type, m *smdschema.Map) bool {
	if (m.ElementType == smdschema.TypeRef{}) || !f.fits(elem, m.ElementType) {
		return false
	}
	for _, sf := range m.Fields {
		if !f.fits(elem, sf.Type) {
			return false
		}
	}
	return true
}

// anyJSON: every JSON value validates against tr (an untyped scalar, and
// lists that are not sets or keyed and maps without declared fields, of
// such values).
func (f *fitter) anyJSON(tr smdschema.TypeRef) bool {
	key := fitKey{nil, refKey(tr), false, false}
	if ok, done := f.seen[key]; done {
		return ok
	}
	f.seen[key] = true
	a, ok := f.s.Resolve(tr)
	ok = ok && a.Scalar != nil && *a.Scalar == smdschema.Untyped &&
		a.List != nil && a.List.ElementRelationship != smdschema.Associative && f.anyJSON(a.List.ElementType) &&
		a.Map != nil && len(a.Map.Fields) == 0 && (a.Map.ElementType != smdschema.TypeRef{}) && f.anyJSON(a.Map.ElementType)
	f.seen[key] = ok
	return ok
}

// scalarFits: a scalar of kind sc validates against atom a.
func scalarFits(a smdschema.Atom, sc smdschema.Scalar) bool {
	return a.Scalar != nil && (*a.Scalar == sc || *a.Scalar == smdschema.Untyped)
}

// customResourceContent is obj as the unstructured content of the JSON
// it is written as: a user's kind as a custom resource, without the
// nulls and empty structs Go holds (jsonencode.CustomResource).
func customResourceContent(obj runtime.Object) (map[string]any, error) {
	data, err := jsonencode.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", obj, err)
	}
	var u map[string]any
	if err := utiljson.Unmarshal(data, &u); err != nil {
		return nil, fmt.Errorf("decode %T: %w", obj, err)
	}
	return u, nil
}
