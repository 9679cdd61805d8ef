// Package jsondecode decodes JSON into Go API objects several times
// faster than sigs.k8s.io/json, producing exactly what
// sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts produces, or
// saying it did not (and leaving the object as it found it) so that the
// caller runs that decoder instead.
//
// The plan of each Go type is compiled once from reflect (plan.go),
// following encoding/json's rules for field names (fields.go), strings
// (unquote.go) and indirection. The decoder is one pass over the input: no
// validity pre-scan, no per-byte state machine, values written through
// unsafe offsets. It bails out on anything whose outcome is not plainly
// the same as encoding/json's: syntax errors, unknown or duplicate keys
// (so also keys differing only in case), type mismatches, numbers that
// do not fit, interface{} fields, ",string" options, fields reached
// through embedded pointers, a failing UnmarshalJSON, deep nesting. Hence
// a decode that succeeds is also one in which sigs.k8s.io/json's
// UnmarshalStrict would have found no strict error. See
// docs/architecture.md, "The JSON decoder".
package jsondecode

import (
	"encoding/base64"
	"reflect"
	"sync/atomic"
	"unsafe"

	sigsjson "sigs.k8s.io/json"
)

// maxDepth is the deepest nesting decoded here (encoding/json allows
// 10000): deeper input bails out, to the decoder's own limit and error.
const maxDepth = 1000

// Unmarshal decodes data into v, a non-nil pointer to a zero value, as
// sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts would, and
// reports true; or it reports false, with *v zero again, when it cannot
// be sure of that result (the caller then runs that decoder). It also
// reports false when *v is not zero.
func Unmarshal(data []byte, v any) bool {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return false
	}
	t := rv.Type().Elem()
	p := planFor(t)
	if p.op == opBail {
		return false
	}
	ptr := rv.UnsafePointer()
	if !isZero(ptr, t.Size()) {
		return false
	}
	d := decoder{data: data}
	i, ok := d.value(p, ptr, skipSpace(data, 0))
	if ok && skipSpace(data, i) == len(data) {
		decoded.Add(1)
		return true
	}
	rv.Elem().SetZero()
	bailed.Add(1)
	return false
}

// decoded and bailed count Unmarshal's outcomes (a value that was not
// zero, or of a type this package does not decode, counts as neither).
var decoded, bailed atomic.Uint64

// Counts returns how many decodes were done here and how many bailed
// out, since the process started: for tests that check a path stays on
// the fast decoder.
func Counts() (fast, fallback uint64) { return decoded.Load(), bailed.Load() }

// UnmarshalCaseSensitivePreserveInts is sigs.k8s.io/json's, faster when
// *v is zero and the input is plain: Unmarshal, else that decoder.
func UnmarshalCaseSensitivePreserveInts(data []byte, v any) error {
	if Unmarshal(data, v) {
		return nil
	}
	return sigsjson.UnmarshalCaseSensitivePreserveInts(data, v)
}

// UnmarshalStrict is sigs.k8s.io/json's UnmarshalStrict (every strict
// option), faster when *v is zero and the input is plain: a successful
// Unmarshal met no unknown or duplicate field, so there are no strict
// errors; anything else is that decoder's, errors and all.
func UnmarshalStrict(data []byte, v any) (strictErrors []error, err error) {
	if Unmarshal(data, v) {
		return nil, nil
	}
	return sigsjson.UnmarshalStrict(data, v)
}

// isZero reports whether the size bytes at p are all zero: the zero
// value of every Go type.
func isZero(p unsafe.Pointer, size uintptr) bool {
	b := unsafe.Slice((*byte)(p), size)
	for len(b) >= 8 {
		if *(*uint64)(unsafe.Pointer(&b[0])) != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

type decoder struct {
	data  []byte
	depth int
}

// value decodes the value starting at data[i] (not a space) into the zero
// value at ptr, of p's type, and returns the index after it. ok is false
// when the decode bails out.
func (d *decoder) value(p *plan, ptr unsafe.Pointer, i int) (int, bool) {
	data := d.data
	if i >= len(data) {
		return 0, false
	}
	c := data[i]
	switch p.op {
	case opTime, opMicroTime, opDuration, opIntOrString:
		if end, ok, done := d.known(p.op, ptr, i); done {
			return end, ok
		}
		fallthrough
	case opUnmarshaler:
		// encoding/json checks the whole input's syntax first, then
		// hands UnmarshalJSON the value's bytes, null included.
		end, ok := d.skip(i)
		if !ok || p.unmarshaler(ptr).UnmarshalJSON(data[i:end]) != nil {
			return 0, false
		}
		return end, true
	case opBail:
		return 0, false
	}
	if c == 'n' {
		// null: pointers, slices and maps are set to nil, which they
		// are; other kinds are left as they are.
		return literal(data, i, "null")
	}
	switch p.op {
	case opString:
		return d.stringValue(ptr, i)
	case opBool:
		switch c {
		case 't':
			*(*bool)(ptr) = true
			return literal(data, i, "true")
		case 'f':
			return literal(data, i, "false")
		}
		return 0, false
	case opInt:
		return intValue(data, i, ptr, p.bits)
	case opUint:
		return uintValue(data, i, ptr, p.bits)
	case opFloat:
		return floatValue(data, i, ptr, p.bits)
	case opStruct:
		if c != '{' {
			return 0, false
		}
		return d.object(p, ptr, i)
	case opPtr:
		np := reflect.New(p.elem.typ).UnsafePointer()
		end, ok := d.value(p.elem, np, i)
		if ok {
			*(*unsafe.Pointer)(ptr) = np
		}
		return end, ok
	case opSlice:
		if c != '[' {
			return 0, false
		}
		return d.array(p, ptr, i)
	case opBytes:
		switch c {
		case '"':
			return d.base64Value(ptr, i)
		case '[':
			return d.array(p, ptr, i)
		}
		return 0, false
	case opMapStringString:
		if c != '{' {
			return 0, false
		}
		return d.mapStringString(ptr, i)
	case opMap:
		if c != '{' {
			return 0, false
		}
		return d.mapValue(p, ptr, i)
	}
	return 0, false
}

func (d *decoder) stringValue(ptr unsafe.Pointer, i int) (int, bool) {
	if d.data[i] != '"' {
		return 0, false
	}
	s, end, ok := stringBytes(d.data, i)
	if !ok {
		return 0, false
	}
	*(*string)(ptr) = string(s)
	return end, true
}

// base64Value decodes a string into a []byte as encoding/json does:
// base64.StdEncoding into a buffer of DecodedLen.
func (d *decoder) base64Value(ptr unsafe.Pointer, i int) (int, bool) {
	s, end, ok := stringBytes(d.data, i)
	if !ok {
		return 0, false
	}
	b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(b, s)
	if err != nil {
		return 0, false
	}
	*(*[]byte)(ptr) = b[:n]
	return end, true
}

// object decodes the object at data[i] into the struct at ptr.
func (d *decoder) object(p *plan, ptr unsafe.Pointer, i int) (int, bool) {
	if d.depth++; d.depth > maxDepth {
		return 0, false
	}
	data := d.data
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		d.depth--
		return i + 1, true
	}
	var seen [maxFields / 64]uint64
	next := 0
	for {
		if i >= len(data) || data[i] != '"' {
			return 0, false
		}
		key, end, ok := stringBytes(data, i)
		if !ok {
			return 0, false
		}
		// A marshaled object's keys come in field order: try the field
		// after the last one before the index.
		n := next
		if n >= len(p.fields) || p.fields[n].name != string(key) {
			if n, ok = p.byName[string(key)]; !ok {
				return 0, false // unknown, or differing in case
			}
		}
		if seen[n/64]&(1<<(n%64)) != 0 {
			return 0, false // a duplicate
		}
		seen[n/64] |= 1 << (n % 64)
		f := &p.fields[n]
		if f.bail {
			return 0, false
		}
		next = n + 1
		if i, ok = d.colon(end); !ok {
			return 0, false
		}
		if i, ok = d.value(f.plan, unsafe.Add(ptr, f.offset), i); !ok {
			return 0, false
		}
		if i, ok = d.comma(i, '}'); !ok {
			return 0, false
		}
		if data[i-1] == '}' {
			d.depth--
			return i, true
		}
	}
}

// colon skips the colon after a key and the space around it.
func (d *decoder) colon(i int) (int, bool) {
	i = skipSpace(d.data, i)
	if i >= len(d.data) || d.data[i] != ':' {
		return 0, false
	}
	return skipSpace(d.data, i+1), true
}

// comma skips what follows a member or element: the comma and the space
// before the next one, or the closing byte (then data[i-1] == closing).
func (d *decoder) comma(i int, closing byte) (int, bool) {
	data := d.data
	i = skipSpace(data, i)
	if i >= len(data) {
		return 0, false
	}
	switch data[i] {
	case ',':
		return skipSpace(data, i+1), true
	case closing:
		return i + 1, true
	}
	return 0, false
}

// sliceHeader is a slice's representation.
type sliceHeader struct {
	data unsafe.Pointer
	len  int
	cap  int
}

// array decodes the array at data[i] into the slice at ptr, growing it as
// encoding/json does (reflect.Value.Grow(1) when full); an empty array is
// an empty non-nil slice.
func (d *decoder) array(p *plan, ptr unsafe.Pointer, i int) (int, bool) {
	if d.depth++; d.depth > maxDepth {
		return 0, false
	}
	data := d.data
	sv := reflect.NewAt(p.typ, ptr).Elem()
	h := (*sliceHeader)(ptr)
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		sv.Set(reflect.MakeSlice(p.typ, 0, 0))
		d.depth--
		return i + 1, true
	}
	for {
		if h.len == h.cap {
			sv.Grow(1)
		}
		h.len++
		var ok bool
		if i, ok = d.value(p.elem, unsafe.Add(h.data, uintptr(h.len-1)*p.elemSize), i); !ok {
			return 0, false
		}
		if i, ok = d.comma(i, ']'); !ok {
			return 0, false
		}
		if data[i-1] == ']' {
			d.depth--
			return i, true
		}
	}
}

// key reads a key and the colon after it.
func (d *decoder) key(i int) (key []byte, next int, ok bool) {
	if i >= len(d.data) || d.data[i] != '"' {
		return nil, 0, false
	}
	key, end, ok := stringBytes(d.data, i)
	if !ok {
		return nil, 0, false
	}
	next, ok = d.colon(end)
	return key, next, ok
}

// mapStringString decodes the object at data[i] into a map[string]string.
// A duplicate key bails out.
func (d *decoder) mapStringString(ptr unsafe.Pointer, i int) (int, bool) {
	data := d.data
	m := map[string]string{}
	*(*map[string]string)(ptr) = m
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, true
	}
	for {
		key, i2, ok := d.key(i)
		if !ok || i2 >= len(data) {
			return 0, false
		}
		i = i2
		var v string
		switch data[i] {
		case '"':
			s, end, ok := stringBytes(data, i)
			if !ok {
				return 0, false
			}
			v, i = string(s), end
		case 'n':
			if i, ok = literal(data, i, "null"); !ok {
				return 0, false
			}
		default:
			return 0, false
		}
		n := len(m)
		m[string(key)] = v
		if len(m) == n {
			return 0, false
		}
		if i, ok = d.comma(i, '}'); !ok {
			return 0, false
		}
		if data[i-1] == '}' {
			return i, true
		}
	}
}

// mapValue decodes the object at data[i] into a map with string keys,
// through reflect as encoding/json does: each value decoded into a zero
// element, then set. A duplicate key bails out.
func (d *decoder) mapValue(p *plan, ptr unsafe.Pointer, i int) (int, bool) {
	if d.depth++; d.depth > maxDepth {
		return 0, false
	}
	data := d.data
	mv := reflect.NewAt(p.typ, ptr).Elem()
	mv.Set(reflect.MakeMap(p.typ))
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		d.depth--
		return i + 1, true
	}
	kv := reflect.New(p.typ.Key()).Elem()
	ev := reflect.New(p.elem.typ).Elem()
	first := true
	for {
		key, i2, ok := d.key(i)
		if !ok {
			return 0, false
		}
		if !first {
			ev.SetZero()
		}
		first = false
		if i, ok = d.value(p.elem, ev.Addr().UnsafePointer(), i2); !ok {
			return 0, false
		}
		kv.SetString(string(key))
		n := mv.Len()
		mv.SetMapIndex(kv, ev)
		if mv.Len() == n {
			return 0, false
		}
		if i, ok = d.comma(i, '}'); !ok {
			return 0, false
		}
		if data[i-1] == '}' {
			d.depth--
			return i, true
		}
	}
}
