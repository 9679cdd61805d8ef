package fieldmanager

import (
	"reflect"
	"sort"
	"sync"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// structured-merge-diff's reflection turns an intstr.IntOrString (a
// json.Marshaler without ToUnstructured) into a number or string by
// marshalling it to JSON and decoding that with a json.Decoder, on every
// visit: about a tenth of a write's managedFields CPU. reflectValue is
// that reflection with IntOrString read directly. It covers only the
// structs, pointers and slices on the way to an IntOrString; every other
// field is the value structured-merge-diff's own reflection gives (taken
// from it), so emptiness, conversions and equality stay its own.

var intOrStringType = reflect.TypeFor[intstr.IntOrString]()

// reaches caches, per Go type, whether an IntOrString lies under it
// through structs, pointers to structs and slices.
var reaches sync.Map // reflect.Type -> bool

func reachesIntOrString(t reflect.Type) bool {
	if r, ok := reaches.Load(t); ok {
		return r.(bool)
	}
	r := reachesSeen(t, map[reflect.Type]bool{})
	reaches.Store(t, r)
	return r
}

func reachesSeen(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t.Kind() == reflect.Pointer {
		// One pointer: structured-merge-diff dereferences only one.
		return t.Elem().Kind() == reflect.Struct && reachesSeen(t.Elem(), seen)
	}
	if t == intOrStringType {
		return true
	}
	if seen[t] {
		return false // a cycle: another path answers
	}
	seen[t] = true
	e := value.TypeReflectEntryOf(t)
	if e.CanConvertToUnstructured() {
		return false
	}
	switch t.Kind() {
	case reflect.Slice:
		return t.Elem().Kind() != reflect.Uint8 && reachesSeen(t.Elem(), seen)
	case reflect.Struct:
		zero := reflect.New(t).Elem()
		for _, f := range e.OrderedFields() {
			if reachesSeen(f.GetFrom(zero).Type(), seen) {
				return true
			}
		}
	}
	return false
}

// newReflectValue is value.NewValueReflect(obj) (obj a pointer), with
// IntOrStrings read directly.
func newReflectValue(obj any) (value.Value, error) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || !reachesIntOrString(v.Type()) {
		return value.NewValueReflect(obj)
	}
	return wrapReflect(v), nil
}

// null is a new null each time: an allocator may take back (and reuse)
// any value it is given.
func null() value.Value { return value.NewValueInterface(nil) }

// wrapReflect is the value of v, whose type reaches an IntOrString.
func wrapReflect(v reflect.Value) value.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return null()
		}
		return wrapReflect(v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			return null()
		}
		return &reflectList{v: v}
	}
	if v.Type() == intOrStringType {
		return intOrStringValue(v)
	}
	return &reflectStruct{v: v, plan: planOf(v.Type())}
}

// structPlan is structured-merge-diff's cached reflection of a struct type
// and, per field in its order, whether the field reaches an IntOrString.
type structPlan struct {
	entry *value.TypeReflectCacheEntry
	wrap  map[*value.FieldCacheEntry]bool
}

var plans sync.Map // reflect.Type -> *structPlan

func planOf(t reflect.Type) *structPlan {
	if p, ok := plans.Load(t); ok {
		return p.(*structPlan)
	}
	e := value.TypeReflectEntryOf(t)
	p := &structPlan{entry: e, wrap: map[*value.FieldCacheEntry]bool{}}
	zero := reflect.New(t).Elem()
	for _, fe := range e.OrderedFields() {
		p.wrap[fe] = reachesIntOrString(fe.GetFrom(zero).Type())
	}
	plans.Store(t, p)
	return p
}

// iosHolder lets structured-merge-diff convert an IntOrString this file
// does not read itself.
type iosHolder struct {
	V intstr.IntOrString `json:"v"`
}

// intOrStringValue: the number or string IntOrString.MarshalJSON writes
// (JSON keeps a valid UTF-8 string as it is); anything else (invalid
// UTF-8, an impossible Type) is converted by structured-merge-diff itself.
func intOrStringValue(v reflect.Value) value.Value {
	var x intstr.IntOrString
	if v.CanAddr() {
		x = *v.Addr().Interface().(*intstr.IntOrString)
	} else {
		x = v.Interface().(intstr.IntOrString)
	}
	switch {
	case x.Type == intstr.Int:
		return value.NewValueInterface(int64(x.IntVal))
	case x.Type == intstr.String && utf8.ValidString(x.StrVal):
		return value.NewValueInterface(x.StrVal)
	}
	h, err := value.NewValueReflect(&iosHolder{V: x})
	if err != nil {
		return null() // not reached: a struct pointer always reflects
	}
	got, _ := h.AsMap().Get("v")
	return got
}

// notScalar implements the scalar half of value.Value for maps and lists
// (callers ask IsInt and the rest first).
type notScalar struct{}

func (notScalar) IsBool() bool     { return false }
func (notScalar) IsInt() bool      { return false }
func (notScalar) IsFloat() bool    { return false }
func (notScalar) IsString() bool   { return false }
func (notScalar) IsNull() bool     { return false }
func (notScalar) AsBool() bool     { return false }
func (notScalar) AsInt() int64     { return 0 }
func (notScalar) AsFloat() float64 { return 0 }
func (notScalar) AsString() string { return "" }

// reflectStruct is a struct reaching an IntOrString, as a map.
type reflectStruct struct {
	notScalar
	v    reflect.Value
	plan *structPlan
	smd  value.Map // structured-merge-diff's own map of v, made on first use
}

var (
	_ value.Value = (*reflectStruct)(nil)
	_ value.Map   = (*reflectStruct)(nil)
)

func (s *reflectStruct) IsMap() bool                          { return true }
func (s *reflectStruct) IsList() bool                         { return false }
func (s *reflectStruct) AsMap() value.Map                     { return s }
func (s *reflectStruct) AsMapUsing(value.Allocator) value.Map { return s }
func (s *reflectStruct) AsList() value.List                   { return nil }
func (s *reflectStruct) AsListUsing(value.Allocator) value.List {
	return nil
}

// own is structured-merge-diff's reflection of the struct, which gives
// the fields that do not reach an IntOrString.
func (s *reflectStruct) own() value.Map {
	if s.smd == nil {
		p := s.v
		if p.CanAddr() {
			p = p.Addr()
		} else {
			p = reflect.New(s.v.Type())
			p.Elem().Set(s.v)
		}
		v, err := value.NewValueReflect(p.Interface())
		if err != nil {
			return nil // not reached: a struct pointer always reflects
		}
		s.smd = v.AsMap()
	}
	return s.smd
}

// field is the value of a field; a from the caller, who frees it.
func (s *reflectStruct) field(a value.Allocator, fe *value.FieldCacheEntry, fv reflect.Value) value.Value {
	if s.plan.wrap[fe] {
		return wrapReflect(fv)
	}
	v, _ := s.own().GetUsing(a, fe.JsonName)
	return v
}

// each calls fn with the fields structured-merge-diff's reflection gives,
// in its order (by JSON name), omitted ones left out as it leaves them.
func (s *reflectStruct) each(fn func(name string, fe *value.FieldCacheEntry, fv reflect.Value) bool) bool {
	for _, fe := range s.plan.entry.OrderedFields() {
		fv := fe.GetFrom(s.v)
		if fe.CanOmit(fv) {
			continue
		}
		if !fn(fe.JsonName, fe, fv) {
			return false
		}
	}
	return true
}

func (s *reflectStruct) Get(key string) (value.Value, bool) {
	return s.GetUsing(value.HeapAllocator, key)
}

func (s *reflectStruct) GetUsing(a value.Allocator, key string) (value.Value, bool) {
	fe, ok := s.plan.entry.Fields()[key]
	if !ok {
		return nil, false
	}
	fv := fe.GetFrom(s.v)
	if fe.CanOmit(fv) {
		return nil, false
	}
	return s.field(a, fe, fv), true
}

func (s *reflectStruct) Has(key string) bool {
	_, ok := s.Get(key)
	return ok
}

func (s *reflectStruct) Set(key string, val value.Value) { s.own().Set(key, val) }
func (s *reflectStruct) Delete(key string)               { s.own().Delete(key) }

func (s *reflectStruct) Iterate(fn func(string, value.Value) bool) bool {
	return s.IterateUsing(value.HeapAllocator, fn)
}

// IterateUsing gives each value back to a once fn returns, as
// structured-merge-diff's reflection reuses one for every field.
func (s *reflectStruct) IterateUsing(a value.Allocator, fn func(string, value.Value) bool) bool {
	return s.each(func(name string, fe *value.FieldCacheEntry, fv reflect.Value) bool {
		v := s.field(a, fe, fv)
		defer a.Free(v)
		return fn(name, v)
	})
}

func (s *reflectStruct) Length() int {
	n := 0
	s.each(func(string, *value.FieldCacheEntry, reflect.Value) bool { n++; return true })
	return n
}

func (s *reflectStruct) Empty() bool {
	return s.each(func(string, *value.FieldCacheEntry, reflect.Value) bool { return false })
}

func (s *reflectStruct) Equals(other value.Map) bool {
	return value.MapEqualsUsing(value.HeapAllocator, s, other)
}

func (s *reflectStruct) EqualsUsing(a value.Allocator, other value.Map) bool {
	return value.MapEqualsUsing(a, s, other)
}

func (s *reflectStruct) Zip(other value.Map, order value.MapTraverseOrder, fn func(string, value.Value, value.Value) bool) bool {
	return s.ZipUsing(value.HeapAllocator, other, order, fn)
}

// ZipUsing pairs the fields of two structs of one type by field, as
// structured-merge-diff does; any other map by key.
func (s *reflectStruct) ZipUsing(a value.Allocator, other value.Map, order value.MapTraverseOrder, fn func(string, value.Value, value.Value) bool) bool {
	o, ok := other.(*reflectStruct)
	if !ok || o.v.Type() != s.v.Type() {
		return zipMaps(s, other, order, fn)
	}
	for _, fe := range s.plan.entry.OrderedFields() {
		lv, rv := fe.GetFrom(s.v), fe.GetFrom(o.v)
		lOmit, rOmit := fe.CanOmit(lv), fe.CanOmit(rv)
		if lOmit && rOmit {
			continue
		}
		if !zipField(a, fe.JsonName, s.fieldUnless(a, lOmit, fe, lv), o.fieldUnless(a, rOmit, fe, rv), fn) {
			return false
		}
	}
	return true
}

// fieldUnless is field, or nil for an omitted field.
func (s *reflectStruct) fieldUnless(a value.Allocator, omit bool, fe *value.FieldCacheEntry, fv reflect.Value) value.Value {
	if omit {
		return nil
	}
	return s.field(a, fe, fv)
}

// zipField calls fn and gives both values back to a.
func zipField(a value.Allocator, name string, l, r value.Value, fn func(string, value.Value, value.Value) bool) bool {
	if l != nil {
		defer a.Free(l)
	}
	if r != nil {
		defer a.Free(r)
	}
	return fn(name, l, r)
}

// zipMaps pairs the items of two maps by key: unordered, lhs's keys
// first, then those only rhs has; or in lexical order.
func zipMaps(lhs, rhs value.Map, order value.MapTraverseOrder, fn func(string, value.Value, value.Value) bool) bool {
	if order == value.LexicalKeyOrder {
		keys := map[string]bool{}
		for _, m := range []value.Map{lhs, rhs} {
			if m != nil {
				m.Iterate(func(k string, _ value.Value) bool { keys[k] = true; return true })
			}
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			l, _ := lhs.Get(k)
			var r value.Value
			if rhs != nil {
				r, _ = rhs.Get(k)
			}
			if !fn(k, l, r) {
				return false
			}
		}
		return true
	}
	if !lhs.Iterate(func(k string, l value.Value) bool {
		var r value.Value
		if rhs != nil {
			r, _ = rhs.Get(k)
		}
		return fn(k, l, r)
	}) {
		return false
	}
	if rhs == nil {
		return true
	}
	return rhs.Iterate(func(k string, r value.Value) bool {
		if lhs.Has(k) {
			return true
		}
		return fn(k, nil, r)
	})
}

func (s *reflectStruct) Unstructured() any {
	out := make(map[string]any, s.v.NumField())
	s.Iterate(func(k string, v value.Value) bool {
		out[k] = v.Unstructured()
		return true
	})
	return out
}

// reflectList is a slice whose items reach an IntOrString.
type reflectList struct {
	notScalar
	v reflect.Value
}

var (
	_ value.Value = (*reflectList)(nil)
	_ value.List  = (*reflectList)(nil)
)

func (l *reflectList) IsMap() bool                            { return false }
func (l *reflectList) IsList() bool                           { return true }
func (l *reflectList) AsMap() value.Map                       { return nil }
func (l *reflectList) AsMapUsing(value.Allocator) value.Map   { return nil }
func (l *reflectList) AsList() value.List                     { return l }
func (l *reflectList) AsListUsing(value.Allocator) value.List { return l }
func (l *reflectList) Length() int                            { return l.v.Len() }
func (l *reflectList) At(i int) value.Value                   { return wrapReflect(l.v.Index(i)) }
func (l *reflectList) AtUsing(_ value.Allocator, i int) value.Value {
	return l.At(i)
}
func (l *reflectList) Range() value.ListRange { return &reflectRange{l: l, i: -1} }
func (l *reflectList) RangeUsing(value.Allocator) value.ListRange {
	return l.Range()
}

func (l *reflectList) Equals(other value.List) bool {
	return l.EqualsUsing(value.HeapAllocator, other)
}

// EqualsUsing: two slices of one type are equal when reflect.DeepEqual
// says so, as structured-merge-diff decides for two reflected lists.
func (l *reflectList) EqualsUsing(a value.Allocator, other value.List) bool {
	if o, ok := other.(*reflectList); ok {
		return reflect.DeepEqual(l.v.Interface(), o.v.Interface())
	}
	return value.ListEqualsUsing(a, l, other)
}

func (l *reflectList) Unstructured() any {
	out := make([]any, l.v.Len())
	for i := range out {
		out[i] = l.At(i).Unstructured()
	}
	return out
}

type reflectRange struct {
	l *reflectList
	i int
}

func (r *reflectRange) Next() bool {
	r.i++
	return r.i < r.l.v.Len()
}

func (r *reflectRange) Item() (int, value.Value) { return r.i, r.l.At(r.i) }
