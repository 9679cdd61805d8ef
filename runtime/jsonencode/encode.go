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
	buf, ok := e.top(e.buf[:0], v)
	if !ok {
		e.release()
		return fallback(v)
	}
	encoded.Add(1)
	// One byte to spare: a response body gets a newline appended.
	out := make([]byte, len(buf), len(buf)+1)
	copy(out, buf)
	e.buf = buf
	e.release()
	return out, nil
}

// AppendMarshal appends encoding/json.Marshal(v) to dst. On an error dst
// is returned unchanged.
func AppendMarshal(dst []byte, v any) ([]byte, error) {
	e := encoders.Get().(*encoder)
	out, ok := e.top(dst, v)
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

// encoder is the state of one Marshal. Its methods append to the buffer
// they are given and return it, which keeps the buffer out of the heap
// object (no write barrier per append), and false when the value is to
// be left to encoding/json (the buffer is then garbage).
type encoder struct {
	buf   []byte // Marshal's buffer, kept between calls
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
func (e *encoder) top(b []byte, v any) ([]byte, bool) {
	if v == nil {
		return append(b, "null"...), true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return append(b, "null"...), true
		}
		return e.value(b, planFor(rv.Type().Elem(), true), rv.UnsafePointer())
	}
	if s, ok := v.(string); ok {
		return appendString(b, s), true
	}
	cp := reflect.New(rv.Type())
	cp.Elem().Set(rv)
	return e.value(b, planFor(rv.Type(), false), cp.UnsafePointer())
}

// value writes the value of p's type at ptr.
func (e *encoder) value(b []byte, p *plan, ptr unsafe.Pointer) ([]byte, bool) {
	switch p.op {
	case opString:
		if p.quoted {
			// encoding/json writes the string, then that as a string.
			inner := appendString(nil, *(*string)(ptr))
			return appendString(b, unsafe.String(unsafe.SliceData(inner), len(inner))), true
		}
		return appendString(b, *(*string)(ptr)), true
	case opStruct:
		return e.structValue(b, p, ptr)
	case opPtr:
		elem := *(*unsafe.Pointer)(ptr)
		if elem == nil {
			return append(b, "null"...), true
		}
		if e.depth++; e.depth > maxDepth {
			return b, false
		}
		b, ok := e.value(b, p.elem, elem)
		e.depth--
		return b, ok
	case opSlice:
		return e.slice(b, p, ptr)
	case opMapStringString:
		return e.mapStringString(b, *(*map[string]string)(ptr))
	case opMap:
		return e.mapValue(b, p, ptr)
	case opBool:
		b = quote(b, p)
		b = strconv.AppendBool(b, *(*bool)(ptr))
		b = quote(b, p)
	case opInt:
		b = quote(b, p)
		b = strconv.AppendInt(b, loadInt(ptr, p.bits), 10)
		b = quote(b, p)
	case opUint:
		b = quote(b, p)
		b = strconv.AppendUint(b, loadUint(ptr, p.bits), 10)
		b = quote(b, p)
	case opFloat:
		f := float64(*(*float32)(ptr))
		if p.bits == 64 {
			f = *(*float64)(ptr)
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return b, false // encoding/json's UnsupportedValueError
		}
		b = quote(b, p)
		b = appendFloat(b, f, p.bits)
		b = quote(b, p)
	case opNumber:
		n := *(*string)(ptr)
		if n == "" {
			n = "0" // encoding/json writes the zero Number as 0
		}
		if !validNumber(n) {
			return b, false
		}
		b = quote(b, p)
		b = append(b, n...)
		b = quote(b, p)
	case opBytes:
		data := *(*[]byte)(ptr)
		if data == nil {
			return append(b, "null"...), true
		}
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, data)
		b = append(b, '"')
	case opArray:
		b = append(b, '[')
		for i := range p.length {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = e.value(b, p.elem, unsafe.Add(ptr, uintptr(i)*p.elemSize)); !ok {
				return b, false
			}
		}
		b = append(b, ']')
	case opInterface:
		return e.iface(b, p, ptr)
	case opMarshaler:
		mv, null := p.methodValue(ptr)
		if null {
			return append(b, "null"...), true
		}
		m, ok := mv.(json.Marshaler)
		if !ok {
			return b, false
		}
		out, err := m.MarshalJSON()
		if err != nil {
			return b, false // encoding/json's MarshalerError
		}
		return appendCompact(b, out)
	case opTextMarshaler:
		mv, null := p.methodValue(ptr)
		if null {
			return append(b, "null"...), true
		}
		m, ok := mv.(encoding.TextMarshaler)
		if !ok {
			return b, false
		}
		out, err := m.MarshalText()
		if err != nil {
			return b, false
		}
		b = appendString(b, unsafe.String(unsafe.SliceData(out), len(out)))
	case opTime, opMicroTime, opDuration, opIntOrString:
		return appendKnown(b, p.op, ptr)
	default:
		return b, false
	}
	return b, true
}

// methodValue returns what to call p's MarshalJSON or MarshalText on: a
// pointer to the value (whose method set has the value's methods too),
// or an interface's contents; null when that is a nil interface.
func (p *plan) methodValue(ptr unsafe.Pointer) (v any, null bool) {
	if !p.iface {
		return reflect.NewAt(p.typ, ptr).Interface(), false
	}
	iv := reflect.NewAt(p.typ, ptr).Elem()
	if iv.IsNil() {
		return nil, true
	}
	return iv.Elem().Interface(), false
}

func quote(b []byte, p *plan) []byte {
	if p.quoted {
		b = append(b, '"')
	}
	return b
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

func (e *encoder) structValue(b []byte, p *plan, ptr unsafe.Pointer) ([]byte, bool) {
	first := true
	b = append(b, '{')
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
		switch f.omit {
		case omitString:
			if len(*(*string)(fp)) == 0 {
				continue
			}
		case omitSlice:
			if (*sliceHeader)(fp).len == 0 {
				continue
			}
		case omitNil:
			if *(*unsafe.Pointer)(fp) == nil {
				continue
			}
		case omitCall:
			if f.empty(fp) {
				continue
			}
		}
		if f.zero != nil && f.zero(fp) {
			continue
		}
		mark := len(b)
		if !first {
			b = append(b, ',')
		}
		b = append(b, f.name...)
		start := len(b)
		var ok bool
		if b, ok = e.value(b, f.plan, fp); !ok {
			return b, false
		}
		if f.dropNull && string(b[start:]) == "null" || f.dropEmpty && string(b[start:]) == "{}" {
			b = b[:mark]
			continue
		}
		first = false
	}
	return append(b, '}'), true
}

func (e *encoder) slice(b []byte, p *plan, ptr unsafe.Pointer) ([]byte, bool) {
	h := (*sliceHeader)(ptr)
	if h.data == nil {
		return append(b, "null"...), true
	}
	if e.depth++; e.depth > maxDepth {
		return b, false
	}
	b = append(b, '[')
	for i := range h.len {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = e.value(b, p.elem, unsafe.Add(h.data, uintptr(i)*p.elemSize)); !ok {
			return b, false
		}
	}
	e.depth--
	return append(b, ']'), true
}

// mapStringString writes a map[string]string without reflect.
func (e *encoder) mapStringString(b []byte, m map[string]string) ([]byte, bool) {
	if m == nil {
		return append(b, "null"...), true
	}
	start := len(e.keys)
	for k, v := range m {
		e.keys = append(e.keys, mapEntry{key: k, str: v})
	}
	entries := e.keys[start:]
	slices.SortFunc(entries, func(a, b mapEntry) int { return strings.Compare(a.key, b.key) })
	b = append(b, '{')
	for i := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, entries[i].key)
		b = append(b, ':')
		b = appendString(b, entries[i].str)
	}
	clear(entries)
	e.keys = e.keys[:start]
	return append(b, '}'), true
}

// mapValue writes any other map: keys named as encoding/json names them
// (the string, the integer, or MarshalText), sorted, and values that are
// not addressable, copied out of the map.
func (e *encoder) mapValue(b []byte, p *plan, ptr unsafe.Pointer) ([]byte, bool) {
	m := reflect.NewAt(p.typ, ptr).Elem()
	if m.IsNil() {
		return append(b, "null"...), true
	}
	if e.depth++; e.depth > maxDepth {
		return b, false
	}
	n := m.Len()
	vals := reflect.MakeSlice(reflect.SliceOf(p.typ.Elem()), n, n)
	valsPtr := vals.UnsafePointer()
	elemSize := p.typ.Elem().Size()
	start := len(e.keys)
	it := m.MapRange()
	for i := 0; it.Next(); i++ {
		if i >= n {
			return b, false // the map grew under us
		}
		name, ok := mapKeyName(p.keyOp, it.Key())
		if !ok {
			return b, false
		}
		vals.Index(i).SetIterValue(it)
		e.keys = append(e.keys, mapEntry{key: name, val: unsafe.Add(valsPtr, uintptr(i)*elemSize)})
	}
	entries := e.keys[start:]
	slices.SortFunc(entries, func(a, b mapEntry) int { return strings.Compare(a.key, b.key) })
	b = append(b, '{')
	ok := true
	first := true
	for i := range entries {
		mark := len(b)
		if !first {
			b = append(b, ',')
		}
		b = appendString(b, entries[i].key)
		b = append(b, ':')
		start := len(b)
		if b, ok = e.value(b, p.elem, entries[i].val); !ok {
			break
		}
		if p.cr && string(b[start:]) == "null" {
			b = b[:mark] // pruned as a custom resource's null
			continue
		}
		first = false
	}
	clear(entries)
	e.keys = e.keys[:start]
	e.depth--
	return append(b, '}'), ok
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
func (e *encoder) iface(b []byte, p *plan, ptr unsafe.Pointer) ([]byte, bool) {
	var x any
	if p.typ.NumMethod() == 0 {
		x = *(*any)(ptr)
	} else {
		v := reflect.NewAt(p.typ, ptr).Elem()
		if v.IsNil() {
			return append(b, "null"...), true
		}
		x = v.Elem().Interface()
	}
	switch x := x.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return appendString(b, x), true
	case bool:
		return strconv.AppendBool(b, x), true
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return b, false
		}
		return appendFloat(b, x, 64), true
	case int64:
		return strconv.AppendInt(b, x, 10), true
	}
	rv := reflect.ValueOf(x)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return append(b, "null"...), true
		}
		if e.depth++; e.depth > maxDepth {
			return b, false
		}
		b, ok := e.value(b, planFor(rv.Type().Elem(), true), rv.UnsafePointer())
		e.depth--
		return b, ok
	}
	cp := reflect.New(rv.Type())
	cp.Elem().Set(rv)
	return e.value(b, planFor(rv.Type(), false), cp.UnsafePointer())
}
