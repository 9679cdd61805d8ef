// Package jsonencode writes Go values as JSON, byte for byte as
// encoding/json.Marshal writes them, faster: each type's encoding is
// compiled once into a plan (plan.go) that reads values through unsafe
// pointers, with strings, numbers and known apimachinery types appended
// directly. A value the plans do not cover, or one encoding/json would
// refuse (NaN, a failing MarshalJSON, invalid JSON from one, a cycle),
// is left whole to encoding/json, which writes it or returns its error,
// so that the output and the errors are always encoding/json's.
package jsonencode

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

var encoded, fellBack atomic.Uint64

// Counts returns how many values were written here (fast) and how many
// were left to encoding/json (fallback), in this process.
func Counts() (fast, fallback uint64) { return encoded.Load(), fellBack.Load() }

// Marshal returns encoding/json.Marshal(v).
func Marshal(v any) ([]byte, error) {
	e := encoders.Get().(*encoder)
	e.buf = e.buf[:0]
	if !e.top(v) {
		e.release()
		return fallback(v)
	}
	encoded.Add(1)
	out := make([]byte, len(e.buf))
	copy(out, e.buf)
	e.release()
	return out, nil
}

// AppendMarshal appends encoding/json.Marshal(v) to dst. On an error dst
// is returned unchanged.
func AppendMarshal(dst []byte, v any) ([]byte, error) {
	e := encoders.Get().(*encoder)
	saved := e.buf
	e.buf = dst
	ok := e.top(v)
	out := e.buf
	e.buf = saved
	e.release()
	if !ok {
		data, err := fallback(v)
		if err != nil {
			return dst[:len(dst):len(dst)], err
		}
		return append(dst[:len(dst)], data...), nil
	}
	encoded.Add(1)
	return out, nil
}

func fallback(v any) ([]byte, error) {
	fellBack.Add(1)
	return json.Marshal(v)
}

// maxDepth bounds the pointers, slices and maps the encoder follows one
// inside the other: encoding/json checks for cycles past 1000 of them,
// and a deeper value is left to it.
const maxDepth = 1000

// encoder is the state of one Marshal. Every method returns false when
// the value is to be left to encoding/json; e.buf is then garbage.
type encoder struct {
	buf   []byte
	depth int
	// keys is scratch for sorting map keys, reused across maps.
	keys []mapEntry
}

type mapEntry struct {
	key string
	val unsafe.Pointer // the value, or for map[string]string the string
	str string
}

var encoders = sync.Pool{New: func() any { return &encoder{buf: make([]byte, 0, 1024)} }}

func (e *encoder) release() {
	if cap(e.buf) > 1<<20 {
		e.buf = make([]byte, 0, 1024) // a huge list's buffer is not kept
	}
	clear(e.keys)
	e.keys = e.keys[:0]
	if cap(e.keys) > 1024 {
		e.keys = nil
	}
	e.depth = 0
	encoders.Put(e)
}

// top writes Marshal's argument, which encoding/json holds as a value
// that is not addressable (what a pointer points to is).
func (e *encoder) top(v any) bool {
	if v == nil {
		e.buf = append(e.buf, "null"...)
		return true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			e.buf = append(e.buf, "null"...)
			return true
		}
		return e.value(planFor(rv.Type().Elem(), true), rv.UnsafePointer())
	}
	if s, ok := v.(string); ok {
		e.buf = appendString(e.buf, s)
		return true
	}
	cp := reflect.New(rv.Type())
	cp.Elem().Set(rv)
	return e.value(planFor(rv.Type(), false), cp.UnsafePointer())
}

// value writes the value of p's type at ptr.
func (e *encoder) value(p *plan, ptr unsafe.Pointer) bool {
	switch p.op {
	case opString:
		if p.quoted {
			// encoding/json writes the string, then that as a string.
			inner := appendString(nil, *(*string)(ptr))
			e.buf = appendString(e.buf, unsafe.String(unsafe.SliceData(inner), len(inner)))
			return true
		}
		e.buf = appendString(e.buf, *(*string)(ptr))
	case opStruct:
		return e.structValue(p, ptr)
	case opPtr:
		elem := *(*unsafe.Pointer)(ptr)
		if elem == nil {
			e.buf = append(e.buf, "null"...)
			return true
		}
		if e.depth++; e.depth > maxDepth {
			return false
		}
		ok := e.value(p.elem, elem)
		e.depth--
		return ok
	case opSlice:
		return e.slice(p, ptr)
	case opMapStringString:
		return e.mapStringString(*(*map[string]string)(ptr))
	case opMap:
		return e.mapValue(p, ptr)
	case opBool:
		e.quote(p)
		e.buf = strconv.AppendBool(e.buf, *(*bool)(ptr))
		e.quote(p)
	case opInt:
		e.quote(p)
		e.buf = strconv.AppendInt(e.buf, loadInt(ptr, p.bits), 10)
		e.quote(p)
	case opUint:
		e.quote(p)
		e.buf = strconv.AppendUint(e.buf, loadUint(ptr, p.bits), 10)
		e.quote(p)
	case opFloat:
		f := float64(*(*float32)(ptr))
		if p.bits == 64 {
			f = *(*float64)(ptr)
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return false
		}
		e.quote(p)
		e.buf = appendFloat(e.buf, f, p.bits)
		e.quote(p)
	case opNumber:
		n := *(*string)(ptr)
		if n == "" {
			n = "0" // encoding/json writes the zero Number as 0
		}
		if !validNumber(n) {
			return false
		}
		e.quote(p)
		e.buf = append(e.buf, n...)
		e.quote(p)
	case opBytes:
		b := *(*[]byte)(ptr)
		if b == nil {
			e.buf = append(e.buf, "null"...)
			return true
		}
		e.buf = append(e.buf, '"')
		e.buf = base64.StdEncoding.AppendEncode(e.buf, b)
		e.buf = append(e.buf, '"')
	case opArray:
		e.buf = append(e.buf, '[')
		for i := range p.length {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			if !e.value(p.elem, unsafe.Add(ptr, uintptr(i)*p.elemSize)) {
				return false
			}
		}
		e.buf = append(e.buf, ']')
	case opInterface:
		return e.iface(p, ptr)
	case opMarshaler:
		m, ok := reflect.NewAt(p.typ, ptr).Interface().(json.Marshaler)
		if !ok {
			return false
		}
		out, err := m.MarshalJSON()
		if err != nil {
			return false
		}
		e.buf, ok = appendCompact(e.buf, out)
		return ok
	case opTextMarshaler:
		m, ok := reflect.NewAt(p.typ, ptr).Interface().(encoding.TextMarshaler)
		if !ok {
			return false
		}
		out, err := m.MarshalText()
		if err != nil {
			return false
		}
		e.buf = appendString(e.buf, unsafe.String(unsafe.SliceData(out), len(out)))
	case opTime, opMicroTime, opDuration, opIntOrString:
		return e.known(p.op, ptr)
	default:
		return false
	}
	return true
}

func (e *encoder) quote(p *plan) {
	if p.quoted {
		e.buf = append(e.buf, '"')
	}
}

func loadInt(ptr unsafe.Pointer, bits int) int64 {
	switch bits {
	case 8:
		return int64(*(*int8)(ptr))
	case 16:
		return int64(*(*int16)(ptr))
	case 32:
		return int64(*(*int32)(ptr))
	}
	return *(*int64)(ptr)
}

func loadUint(ptr unsafe.Pointer, bits int) uint64 {
	switch bits {
	case 8:
		return uint64(*(*uint8)(ptr))
	case 16:
		return uint64(*(*uint16)(ptr))
	case 32:
		return uint64(*(*uint32)(ptr))
	}
	return *(*uint64)(ptr)
}

func (e *encoder) structValue(p *plan, ptr unsafe.Pointer) bool {
	first := true
	e.buf = append(e.buf, '{')
fields:
	for i := range p.fields {
		f := &p.fields[i]
		base := ptr
		for _, off := range f.derefs {
			base = *(*unsafe.Pointer)(unsafe.Add(base, off))
			if base == nil {
				continue fields
			}
		}
		fp := unsafe.Add(base, f.offset)
		if (f.empty != nil && f.empty(fp)) || (f.zero != nil && f.zero(fp)) {
			continue
		}
		if !first {
			e.buf = append(e.buf, ',')
		}
		first = false
		e.buf = append(e.buf, f.name...)
		if !e.value(f.plan, fp) {
			return false
		}
	}
	e.buf = append(e.buf, '}')
	return true
}

func (e *encoder) slice(p *plan, ptr unsafe.Pointer) bool {
	h := (*sliceHeader)(ptr)
	if h.data == nil {
		e.buf = append(e.buf, "null"...)
		return true
	}
	if e.depth++; e.depth > maxDepth {
		return false
	}
	e.buf = append(e.buf, '[')
	for i := range h.len {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if !e.value(p.elem, unsafe.Add(h.data, uintptr(i)*p.elemSize)) {
			return false
		}
	}
	e.buf = append(e.buf, ']')
	e.depth--
	return true
}

// mapStringString writes a map[string]string without reflect.
func (e *encoder) mapStringString(m map[string]string) bool {
	if m == nil {
		e.buf = append(e.buf, "null"...)
		return true
	}
	start := len(e.keys)
	for k, v := range m {
		e.keys = append(e.keys, mapEntry{key: k, str: v})
	}
	entries := e.keys[start:]
	slices.SortFunc(entries, func(a, b mapEntry) int { return strings.Compare(a.key, b.key) })
	e.buf = append(e.buf, '{')
	for i := range entries {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = appendString(e.buf, entries[i].key)
		e.buf = append(e.buf, ':')
		e.buf = appendString(e.buf, entries[i].str)
	}
	e.buf = append(e.buf, '}')
	clear(entries)
	e.keys = e.keys[:start]
	return true
}

// mapValue writes any other map: keys named as encoding/json names them
// (the string, the integer, or MarshalText), sorted, and values that are
// not addressable, copied out of the map.
func (e *encoder) mapValue(p *plan, ptr unsafe.Pointer) bool {
	m := reflect.NewAt(p.typ, ptr).Elem()
	if m.IsNil() {
		e.buf = append(e.buf, "null"...)
		return true
	}
	if e.depth++; e.depth > maxDepth {
		return false
	}
	n := m.Len()
	vals := reflect.MakeSlice(reflect.SliceOf(p.typ.Elem()), n, n)
	valsPtr := vals.UnsafePointer()
	elemSize := p.typ.Elem().Size()
	start := len(e.keys)
	it := m.MapRange()
	for i := 0; it.Next(); i++ {
		if i >= n {
			return false // the map grew under us
		}
		name, ok := mapKeyName(p.keyOp, it.Key())
		if !ok {
			return false
		}
		vals.Index(i).SetIterValue(it)
		e.keys = append(e.keys, mapEntry{key: name, val: unsafe.Add(valsPtr, uintptr(i)*elemSize)})
	}
	entries := e.keys[start:]
	slices.SortFunc(entries, func(a, b mapEntry) int { return strings.Compare(a.key, b.key) })
	e.buf = append(e.buf, '{')
	ok := true
	for i := range entries {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = appendString(e.buf, entries[i].key)
		e.buf = append(e.buf, ':')
		if !e.value(p.elem, entries[i].val) {
			ok = false
			break
		}
	}
	e.buf = append(e.buf, '}')
	clear(entries)
	e.keys = e.keys[:start]
	e.depth--
	return ok
}

// mapKeyName names a map key as encoding/json's resolveKeyName does.
func mapKeyName(keyOp op, k reflect.Value) (string, bool) {
	switch keyOp {
	case opString:
		return k.String(), true
	case opTextMarshaler:
		if k.Kind() == reflect.Pointer && k.IsNil() {
			return "", true
		}
		b, err := k.Interface().(encoding.TextMarshaler).MarshalText()
		return string(b), err == nil
	}
	if k.CanInt() {
		return strconv.FormatInt(k.Int(), 10), true
	}
	return strconv.FormatUint(k.Uint(), 10), true
}

// iface writes an interface's contents, which encoding/json holds as a
// value that is not addressable. The types of decoded JSON are written
// without reflect.
func (e *encoder) iface(p *plan, ptr unsafe.Pointer) bool {
	var x any
	if p.typ.NumMethod() == 0 {
		x = *(*any)(ptr)
	} else {
		v := reflect.NewAt(p.typ, ptr).Elem()
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return true
		}
		x = v.Elem().Interface()
	}
	switch x := x.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
		return true
	case string:
		e.buf = appendString(e.buf, x)
		return true
	case bool:
		e.buf = strconv.AppendBool(e.buf, x)
		return true
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return false
		}
		e.buf = appendFloat(e.buf, x, 64)
		return true
	case int64:
		e.buf = strconv.AppendInt(e.buf, x, 10)
		return true
	}
	rv := reflect.ValueOf(x)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			e.buf = append(e.buf, "null"...)
			return true
		}
		if e.depth++; e.depth > maxDepth {
			return false
		}
		ok := e.value(planFor(rv.Type().Elem(), true), rv.UnsafePointer())
		e.depth--
		return ok
	}
	cp := reflect.New(rv.Type())
	cp.Elem().Set(rv)
	return e.value(planFor(rv.Type(), false), cp.UnsafePointer())
}
