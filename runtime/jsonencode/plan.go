package jsonencode

import (
	"encoding"
	"encoding/json"
	"reflect"
	"sync"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubeforge/kubeforge/runtime/jsonfields"
)

// op is what the encoder writes for a Go type.
type op uint8

const (
	// opFallback: a type this package does not write (channels, funcs,
	// complex numbers, interfaces with methods of encoding/json's, map
	// keys it cannot name, ...): a value of it leaves the whole Marshal
	// to encoding/json, which writes it or returns its error.
	opFallback op = iota
	opBool
	opInt
	opUint
	opFloat
	opString
	opNumber // json.Number
	opBytes  // []byte (and other byte slices without methods): base64
	opSlice
	opArray
	opPtr
	opStruct
	opMap
	opMapStringString // map[string]string itself (labels, annotations, data)
	opInterface
	opMarshaler     // MarshalJSON, its output compacted
	opTextMarshaler // MarshalText, its output as a JSON string

	// Types whose MarshalJSON (apimachinery's, quoted in known.go) is
	// written here directly: the same bytes without its allocations or
	// its inner json.Marshal.
	opTime
	opMicroTime
	opDuration
	opIntOrString
)

// plan is how one Go type is written, compiled once from reflect. A type
// has up to three plans: for addressable values (reached through a
// pointer or a slice), for values that are not (the argument of Marshal,
// map values, interface contents), which matters to encoding/json for
// methods with pointer receivers, and with the ",string" option.
type plan struct {
	op     op
	typ    reflect.Type
	bits   int  // opInt, opUint, opFloat: the type's size in bits
	quoted bool // primitives: written inside a JSON string
	// iface: opMarshaler, opTextMarshaler of an interface type, whose
	// contents have the method.
	iface bool

	elem     *plan   // opPtr, opSlice, opArray, opMap: the element's plan
	elemSize uintptr // opSlice, opArray
	length   int     // opArray

	fields []field // opStruct

	// opMap: how keys are named (see mapKeyName).
	keyOp op
	// cr: written as a custom resource (customresource.go): an opMap
	// leaves out the keys whose value is null.
	cr bool
}

// field is one JSON member of a struct.
type field struct {
	name string // `"name":`, HTML-escaped as encoding/json writes it
	// derefs: offsets of the embedded pointers to follow from the struct,
	// each from the previous one's target; a nil one drops the field.
	derefs []uintptr
	offset uintptr // from the struct, or from the last embedded pointer's target
	plan   *plan
	// omit: how omitempty tests the value without a call, for the
	// common kinds (a string's or slice's length, a pointer); omitCall:
	// by empty.
	omit uint8
	// empty reports, for omitempty, whether the value is empty by
	// encoding/json's isEmptyValue; nil when the option is not set.
	empty func(unsafe.Pointer) bool
	// zero reports, for omitzero, whether the value is zero by encoding/json's
	// rules (an IsZero method, else reflect's IsZero); nil when not set.
	zero func(unsafe.Pointer) bool
	// dropNull: the member is left out when its value is written as
	// null; dropEmpty: when it is written as {} (a custom resource's
	// status, customresource.go).
	dropNull, dropEmpty bool
}

const (
	omitNever uint8 = iota
	omitString
	omitSlice
	omitNil
	omitCall
)

type planKey struct {
	t            reflect.Type
	addr, quoted bool
	cr           bool // written as a custom resource
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	isZeroerType      = reflect.TypeFor[interface{ IsZero() bool }]()
	numberType        = reflect.TypeFor[json.Number]()
	mapStringString   = reflect.TypeFor[map[string]string]()
	timeType          = reflect.TypeFor[metav1.Time]()

	knownOps = map[reflect.Type]op{
		timeType:                              opTime,
		reflect.TypeFor[metav1.MicroTime]():   opMicroTime,
		reflect.TypeFor[metav1.Duration]():    opDuration,
		reflect.TypeFor[intstr.IntOrString](): opIntOrString,
	}

	plans  sync.Map // planKey → *plan, complete plans only
	planMu sync.Mutex
	// byType: plans (not quoted) for values that are not addressable
	// ([0]) and for those that are ([1]), by reflect.Type: a lookup
	// cheaper than by planKey, done for every Marshal.
	byType [2]sync.Map
)

// planFor returns the compiled plan of t.
func planFor(t reflect.Type, addr bool) *plan {
	i := 0
	if addr {
		i = 1
	}
	if p, ok := byType[i].Load(t); ok {
		return p.(*plan)
	}
	return buildPlan(t, i)
}

// buildPlan builds the plan of t, addressable when i is 1, and caches it,
// under planMu so that RegisterCustomResource clears no plan that is
// being published.
func buildPlan(t reflect.Type, i int) *plan {
	planMu.Lock()
	defer planMu.Unlock()
	if p, ok := byType[i].Load(t); ok {
		return p.(*plan)
	}
	building := map[planKey]*plan{}
	p := build(planKey{t: t, addr: i == 1}, building)
	// Publish only whole graphs: a recursive type's plan is reachable
	// from its own fields before build returns.
	for k, bp := range building {
		plans.Store(k, bp)
	}
	byType[i].Store(t, p)
	return p
}

func build(k planKey, building map[planKey]*plan) *plan {
	if customResources[k.t] != nil {
		k.cr = true // and everything below it
	}
	if p, ok := plans.Load(k); ok {
		return p.(*plan)
	}
	if p, ok := building[k]; ok {
		return p
	}
	p := &plan{typ: k.t, cr: k.cr}
	building[k] = p
	buildInto(p, k, building)
	return p
}

// buildInto fills p, the plan of k.t. Its cases follow encoding/json's
// newTypeEncoder: methods first (through the pointer only when the value
// is addressable), then the kind.
func buildInto(p *plan, k planKey, building map[planKey]*plan) {
	t := k.t
	if t.Kind() == reflect.Pointer {
		// A pointer's methods are its element's, called on a non-nil
		// pointer, and nil writes null: the same as following the
		// pointer to an addressable element. A named pointer type has no
		// methods and follows its pointer too.
		p.op = opPtr
		p.elem = build(planKey{t: t.Elem(), addr: true, quoted: k.quoted, cr: k.cr}, building)
		return
	}
	if t.Kind() == reflect.Interface {
		// An interface with encoding/json's methods has them called on
		// its contents, even on a nil pointer (null for a nil interface).
		switch {
		case t.Implements(marshalerType):
			p.op, p.iface = opMarshaler, true
		case t.Implements(textMarshalerType):
			p.op, p.iface = opTextMarshaler, true
		default:
			p.op = opInterface
		}
		return
	}
	pt := reflect.PointerTo(t)
	switch {
	case k.addr && pt.Implements(marshalerType), t.Implements(marshalerType):
		p.op = opMarshaler
		if o, ok := knownOps[t]; ok {
			p.op = o
		}
		return
	case k.addr && pt.Implements(textMarshalerType), t.Implements(textMarshalerType):
		p.op = opTextMarshaler
		return
	}
	switch t.Kind() {
	case reflect.Bool:
		p.op = opBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.op, p.bits = opInt, t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.op, p.bits = opUint, t.Bits()
	case reflect.Float32, reflect.Float64:
		p.op, p.bits = opFloat, t.Bits()
	case reflect.String:
		p.op = opString
		if t == numberType {
			p.op = opNumber
		}
	case reflect.Slice:
		et := t.Elem()
		ept := reflect.PointerTo(et)
		if et.Kind() == reflect.Uint8 && !ept.Implements(marshalerType) && !ept.Implements(textMarshalerType) {
			p.op = opBytes
			return
		}
		p.op = opSlice
		p.elem = build(planKey{t: et, addr: true, cr: k.cr}, building)
		p.elemSize = et.Size()
	case reflect.Array:
		p.op = opArray
		p.elem = build(planKey{t: t.Elem(), addr: k.addr, cr: k.cr}, building)
		p.elemSize = t.Elem().Size()
		p.length = t.Len()
	case reflect.Map:
		buildMap(p, k, building)
	case reflect.Struct:
		buildStruct(p, k, building)
	}
	if p.op != opBool && p.op != opInt && p.op != opUint && p.op != opFloat && p.op != opString && p.op != opNumber {
		p.quoted = false
	} else {
		p.quoted = k.quoted
	}
}

func buildMap(p *plan, k planKey, building map[planKey]*plan) {
	t := k.t
	kt := t.Key()
	switch kt.Kind() {
	case reflect.String:
		p.keyOp = opString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.keyOp = opInt
	}
	// encoding/json names a key by its kind when it is a string, else by
	// the key type's own MarshalText, else by its integer value.
	if kt.Kind() != reflect.String && kt.Implements(textMarshalerType) {
		if kt.Kind() == reflect.Interface {
			return
		}
		p.keyOp = opTextMarshaler
	}
	if p.keyOp == opFallback {
		return
	}
	p.elem = build(planKey{t: t.Elem(), addr: false, cr: k.cr}, building)
	p.op = opMap
	if t == mapStringString {
		p.op = opMapStringString
	}
}

func buildStruct(p *plan, k planKey, building map[planKey]*plan) {
	t := k.t
	fs := jsonfields.Of(t)
	p.fields = make([]field, len(fs))
	for i, f := range fs {
		out := field{name: string(appendHTMLEscapedName(nil, f.Name))}
		st := t
		for j, x := range f.Index {
			if j > 0 && st.Kind() == reflect.Pointer {
				out.derefs = append(out.derefs, out.offset)
				out.offset = 0
				st = st.Elem()
			}
			out.offset += st.Field(x).Offset
			st = st.Field(x).Type
		}
		// A field is addressable when its struct is, or when it is
		// reached through an embedded pointer.
		addr := k.addr || len(out.derefs) > 0
		out.plan = build(planKey{t: f.Type, addr: addr, quoted: f.Quoted, cr: k.cr}, building)
		if k.cr {
			out.dropNull = !nullable[declaredField(t, f.Index)]
			cr := customResources[t]
			out.dropEmpty = cr != nil && cr.StatusSubresource && f.Name == "status" && len(f.Index) == 1
			if f.OmitEmpty && f.Type.Kind() == reflect.Struct {
				// What encoding/json cannot omit: an empty struct, and a
				// zero Quantity, Duration or IntOrString written as "0".
				out.dropEmpty = true
				if out.plan.op != opStruct && out.zero == nil {
					ft := f.Type
					out.zero = func(p unsafe.Pointer) bool { return reflect.NewAt(ft, p).Elem().IsZero() }
				}
			}
		}
		if f.OmitEmpty {
			out.empty = emptyFunc(f.Type)
			switch f.Type.Kind() {
			case reflect.String:
				out.omit = omitString
			case reflect.Slice:
				out.omit = omitSlice
			case reflect.Pointer:
				out.omit = omitNil
			default:
				out.omit = omitCall
			}
		}
		if f.OmitZero {
			out.zero = zeroFunc(f.Type)
		}
		p.fields[i] = out
	}
	p.op = opStruct
}

// appendHTMLEscapedName writes `"name":` with <, > and & escaped, as
// encoding/json precomputes its field names (a valid tag name has no
// quote, backslash or control character to escape).
func appendHTMLEscapedName(dst []byte, name string) []byte {
	dst = append(dst, '"')
	dst = appendStringContent(dst, name)
	return append(dst, '"', ':')
}

// emptyFunc is encoding/json's isEmptyValue for values of t.
func emptyFunc(t reflect.Type) func(unsafe.Pointer) bool {
	switch t.Kind() {
	case reflect.String:
		return func(p unsafe.Pointer) bool { return len(*(*string)(p)) == 0 }
	case reflect.Slice:
		return func(p unsafe.Pointer) bool { return (*sliceHeader)(p).len == 0 }
	case reflect.Pointer:
		return func(p unsafe.Pointer) bool { return *(*unsafe.Pointer)(p) == nil }
	case reflect.Bool:
		return func(p unsafe.Pointer) bool { return !*(*bool)(p) }
	case reflect.Map, reflect.Array:
		return func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Elem().Len() == 0 }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface:
		return func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Elem().IsZero() }
	}
	return func(unsafe.Pointer) bool { return false } // structs are never empty
}

// zeroFunc is encoding/json's omitzero test for values of t: the type's
// IsZero method when it has one (on the value or its pointer), else
// reflect's IsZero.
func zeroFunc(t reflect.Type) func(unsafe.Pointer) bool {
	type isZeroer interface{ IsZero() bool }
	switch {
	case t == timeType:
		return func(p unsafe.Pointer) bool { return (*metav1.Time)(p).IsZero() }
	case t.Kind() == reflect.Interface && t.Implements(isZeroerType):
		return func(p unsafe.Pointer) bool {
			v := reflect.NewAt(t, p).Elem()
			return v.IsNil() || (v.Elem().Kind() == reflect.Pointer && v.Elem().IsNil()) || v.Interface().(isZeroer).IsZero()
		}
	case t.Kind() == reflect.Pointer && t.Implements(isZeroerType):
		return func(p unsafe.Pointer) bool {
			v := reflect.NewAt(t, p).Elem()
			return v.IsNil() || v.Interface().(isZeroer).IsZero()
		}
	case t.Implements(isZeroerType), reflect.PointerTo(t).Implements(isZeroerType):
		// A value method is in the pointer's method set too.
		return func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Interface().(isZeroer).IsZero() }
	}
	return func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Elem().IsZero() }
}

// sliceHeader is the layout of a slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}
