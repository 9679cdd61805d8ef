package jsondecode

import (
	"encoding"
	"encoding/json"
	"reflect"
	"sync"
	"unsafe"

	"github.com/kubeforge/kubeforge/runtime/jsonfields"
)

// op is what the decoder does with a JSON value for a Go type.
type op uint8

const (
	// opBail: a type this package does not decode (interfaces, arrays,
	// named pointer types, TextUnmarshalers, json.Number, map keys that
	// are not strings, ...); any value for it, null included, bails out.
	opBail op = iota
	opString
	opBool
	opInt
	opUint
	opFloat
	opBytes // []byte: a base64 string or an array of numbers
	opStruct
	opPtr
	opSlice
	opMap
	opMapStringString // map[string]string itself (labels, annotations)
	opUnmarshaler     // a named type whose pointer has UnmarshalJSON

	// Types whose UnmarshalJSON is apimachinery's known code (known.go),
	// done here for its plain inputs, the method called for the rest.
	opTime
	opMicroTime
	opDuration
	opIntOrString
)

// plan is how one Go type is decoded, compiled once from reflect.
type plan struct {
	op   op
	typ  reflect.Type
	bits int // opInt, opUint, opFloat: the type's size in bits

	elem     *plan   // opPtr, opSlice, opBytes, opMap: the element's plan
	elemSize uintptr // opSlice, opBytes

	// opStruct: the JSON names, in field index order (encoding/json's
	// output order, so that a marshaled object's next key is usually
	// the field after the last one), and the index by name.
	fields []field
	byName map[string]int
}

// field is one JSON name of a struct.
type field struct {
	name   string
	offset uintptr // from the struct's start, through embedded structs
	plan   *plan
	// bail: a field encoding/json fills in a way not handled here: through
	// an embedded pointer (allocated, or an error for an unexported
	// type), or with a ",string" option.
	bail bool
}

// maxFields bounds the fields of a struct: the decoder's seen-set is a
// [maxFields/64]uint64 on the stack.
const maxFields = 256

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	numberType          = reflect.TypeFor[json.Number]()
	byteType            = reflect.TypeFor[byte]()
	mapStringString     = reflect.TypeFor[map[string]string]()

	plans  sync.Map // reflect.Type → *plan, complete plans only
	planMu sync.Mutex
)

// planFor returns the compiled plan of t.
func planFor(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	planMu.Lock()
	defer planMu.Unlock()
	building := map[reflect.Type]*plan{}
	p := build(t, building)
	// Publish only whole graphs: a recursive type's plan is reachable
	// from its own fields before build returns.
	for t, bp := range building {
		plans.Store(t, bp)
	}
	return p
}

func build(t reflect.Type, building map[reflect.Type]*plan) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	if p, ok := building[t]; ok {
		return p
	}
	p := &plan{typ: t}
	building[t] = p
	buildInto(p, t, building)
	return p
}

// buildInto fills p, the plan of t. Its cases follow encoding/json's
// indirect and its object, array and literalStore.
func buildInto(p *plan, t reflect.Type, building map[reflect.Type]*plan) {
	pt := reflect.PointerTo(t)
	if t.Kind() != reflect.Pointer {
		hasMethods := pt.Implements(unmarshalerType) || pt.Implements(textUnmarshalerType)
		switch {
		case t.Name() != "" && pt.Implements(unmarshalerType):
			// encoding/json takes the address of a named value and
			// calls its UnmarshalJSON with the value's bytes (for null
			// too).
			p.op = opUnmarshaler
			if k, ok := knownOps[t]; ok {
				p.op = k
			}
			return
		case hasMethods:
			// A TextUnmarshaler, or an unnamed type with promoted
			// methods, which encoding/json calls only through a pointer.
			return
		}
	}
	switch t.Kind() {
	case reflect.Pointer:
		// A named pointer type has no methods, and encoding/json then
		// skips the element's UnmarshalJSON: left to it.
		if t.Name() == "" {
			p.op = opPtr
			p.elem = build(t.Elem(), building)
		}
	case reflect.String:
		if t != numberType {
			p.op = opString
		}
	case reflect.Bool:
		p.op = opBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.op, p.bits = opInt, t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		p.op, p.bits = opUint, t.Bits()
	case reflect.Float32, reflect.Float64:
		p.op, p.bits = opFloat, t.Bits()
	case reflect.Slice:
		buildSlice(p, t, building)
	case reflect.Map:
		buildMap(p, t, building)
	case reflect.Struct:
		buildStruct(p, t, building)
	}
}

func buildSlice(p *plan, t reflect.Type, building map[reflect.Type]*plan) {
	et := t.Elem()
	switch {
	case et == byteType:
		p.op = opBytes
	case et.Kind() == reflect.Uint8:
		// A named byte type: encoding/json takes a string as base64
		// and an array element by element. Left to it.
		return
	default:
		p.op = opSlice
	}
	p.elem = build(et, building)
	p.elemSize = et.Size()
}

func buildMap(p *plan, t reflect.Type, building map[reflect.Type]*plan) {
	kt := t.Key()
	if kt.Kind() != reflect.String || reflect.PointerTo(kt).Implements(textUnmarshalerType) {
		return
	}
	p.elem = build(t.Elem(), building)
	if t == mapStringString {
		p.op = opMapStringString
		return
	}
	p.op = opMap
}

func buildStruct(p *plan, t reflect.Type, building map[reflect.Type]*plan) {
	fs := jsonfields.Of(t)
	if len(fs) > maxFields {
		return
	}
	p.fields = make([]field, len(fs))
	p.byName = make(map[string]int, len(fs))
	for i, f := range fs {
		out := field{name: f.Name, bail: f.Quoted}
		st := t
		var ft reflect.Type
		for _, x := range f.Index {
			if st.Kind() == reflect.Pointer {
				out.bail = true
				break
			}
			sf := st.Field(x)
			out.offset += sf.Offset
			ft = sf.Type
			st = sf.Type
		}
		if !out.bail {
			out.plan = build(ft, building)
		}
		p.fields[i] = out
		p.byName[f.Name] = i
	}
	p.op = opStruct
}

// unmarshaler returns the UnmarshalJSON of the value of p's type at ptr.
func (p *plan) unmarshaler(ptr unsafe.Pointer) json.Unmarshaler {
	return reflect.NewAt(p.typ, ptr).Interface().(json.Unmarshaler)
}
