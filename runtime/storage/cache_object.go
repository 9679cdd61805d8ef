package storage

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/klauspost/compress/s2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

// The watch cache keeps each object's stored bytes, not its decoded form:
// a decoded object takes about twice the memory of its JSON, and the hot
// reads (plain-JSON gets, lists and watches) serve the bytes. A typed read
// decodes the entry again (access.decode: the same function that built it,
// so the same object), and the entry remembers the result through a weak
// pointer: while any reader (the watchers of one event, the items of a
// list a controller keeps) holds the object, the next reader shares it;
// once none does, the garbage collector frees it and the next read
// decodes again.

// weakObj is a weak reference to a decoded object (nil: none kept).
type weakObj = weak.Pointer[byte]

// entryDecoder decodes cache entries of one Store.
type entryDecoder[T resource.Object] struct {
	decode func(data []byte, rev int64) (T, error)
	pack   packer
	// pointer: T is a pointer type, so weak references work on it
	// (generated kinds all are); otherwise nothing is remembered.
	pointer bool
}

func newEntryDecoder[T resource.Object](decode func([]byte, int64) (T, error)) *entryDecoder[T] {
	return &entryDecoder[T]{decode: decode, pointer: reflect.TypeFor[T]().Kind() == reflect.Pointer}
}

// weak returns a weak reference to obj.
func (d *entryDecoder[T]) weak(obj T) weakObj {
	if !d.pointer {
		return weakObj{}
	}
	// T is a pointer type: its value is the object's address.
	p := *(*unsafe.Pointer)(unsafe.Pointer(&obj))
	return weak.Make((*byte)(p))
}

// strong returns the object w refers to, if it is still alive.
func (d *entryDecoder[T]) strong(w weakObj) (T, bool) {
	var obj T
	if !d.pointer {
		return obj, false
	}
	p := unsafe.Pointer(w.Value())
	if p == nil {
		return obj, false
	}
	*(*unsafe.Pointer)(unsafe.Pointer(&obj)) = p
	return obj, true
}

// object returns e's typed object, shared with whoever else holds it:
// the caller must not modify it (a write takes a copy: guess).
func (e *cacheEntry[T]) object() (T, error) {
	e.objMu.Lock()
	defer e.objMu.Unlock()
	if obj, ok := e.dec.strong(e.obj); ok {
		return obj, nil
	}
	obj, err := e.decodeAt(e.rev)
	if err != nil {
		return obj, err
	}
	e.obj = e.dec.weak(obj)
	return obj, nil
}

// privateStored returns a copy of e's typed object the caller may modify,
// and e's stored bytes (not to be modified), from one unpacking of packed
// bytes: a write's guess needs both (cur, and curData to tell an
// unchanged update).
func (e *cacheEntry[T]) privateStored() (T, []byte, error) {
	var zero T
	e.objMu.Lock()
	obj, ok := e.dec.strong(e.obj)
	e.objMu.Unlock()
	data, err := e.stored()
	if err != nil {
		return zero, nil, apierrors.NewInternalError(err)
	}
	if ok {
		return obj.DeepCopyObject().(T), data, nil
	}
	// Nobody holds it: a fresh decode is as private as a copy. It keeps
	// no slice of data (the decoder copies what it keeps raw), and
	// nobody writes to data.
	obj, err = e.dec.decode(data, e.rev)
	if err != nil {
		return zero, nil, err
	}
	return obj, data, nil
}

// decodeAt decodes e's stored bytes with resourceVersion rev.
func (e *cacheEntry[T]) decodeAt(rev int64) (T, error) {
	if !e.packed {
		return e.dec.decode(e.data, rev)
	}
	// A buffer of its own, not a pooled one: the decoded object lives on
	// (shared through the weak pointer), and a decoder that keeps a slice
	// of its input must not see it overwritten.
	data, err := e.stored()
	if err != nil {
		var zero T
		return zero, apierrors.NewInternalError(err)
	}
	return e.dec.decode(data, rev)
}

// The stored bytes an entry keeps are packed with s2 (Snappy's faster
// relative) against a dictionary: the first stored object the cache saw,
// which the objects of one kind mostly repeat (field names, managedFields,
// the same spec shapes). A 1.1 KB object packs to a few hundred bytes or
// less, at under a microsecond to pack on each change and about 0.1 µs
// to unpack on each read of the bytes. Values that do not shrink are kept
// as they are.

// packSearch is how stored objects start, where s2 looks for its first
// repeat in the dictionary.
var packSearch = []byte(`{"apiVersion":"`)

// packMinDict is the smallest value taken as the dictionary: smaller ones
// (an object that is mostly empty) would make a poor one for the rest.
const packMinDict = 128

// packer packs the stored bytes of one cache's entries. Its dictionary is
// set once, by the first value packed, and never changes: every packed
// entry is unpacked with it.
type packer struct {
	dict atomic.Pointer[s2.Dict]
}

// pack returns data's packed form, or data itself (packed false) when
// packing does not make it smaller.
func (p *packer) pack(data []byte) (out []byte, packed bool) {
	d := p.dict.Load()
	if d == nil {
		if len(data) < packMinDict || len(data) > s2.MaxDictSize {
			return data, false
		}
		// A copy: the dictionary outlives the etcd response it came in.
		if d = s2.MakeDict(bytes.Clone(data), packSearch); d == nil {
			return data, false
		}
		if !p.dict.CompareAndSwap(nil, d) {
			d = p.dict.Load() // another value came first
		}
	}
	n := s2.MaxEncodedLen(len(data))
	if n < 0 || n > maxPackScratch {
		return data, false
	}
	scratch := packScratch.Get().(*[]byte)
	defer packScratch.Put(scratch)
	if cap(*scratch) < n {
		*scratch = make([]byte, n)
	}
	enc := d.Encode((*scratch)[:n], data)
	if len(enc) >= len(data) {
		return data, false
	}
	return bytes.Clone(enc), true
}

// maxPackScratch bounds what is packed (larger values are kept as they
// are): the scratch buffers are pooled.
const maxPackScratch = 4 << 20

var packScratch = sync.Pool{New: func() any { return new([]byte) }}

// appendUnpacked appends the value packed was made from to dst.
func (p *packer) appendUnpacked(dst, packed []byte) ([]byte, error) {
	d := p.dict.Load()
	n, err := s2.DecodedLen(packed)
	if err != nil || d == nil {
		return dst, fmt.Errorf("unpack cached value: %w", errors.Join(err, s2.ErrCorrupt))
	}
	dst = slices.Grow(dst, n)
	out, err := d.Decode(dst[len(dst):len(dst)+n], packed)
	if err != nil {
		return dst, fmt.Errorf("unpack cached value: %w", err)
	}
	return dst[:len(dst)+len(out)], nil
}

// stored returns e's stored bytes: its own when not packed (the caller
// must not modify them), else a fresh copy.
func (e *cacheEntry[T]) stored() ([]byte, error) {
	if !e.packed {
		return e.data, nil
	}
	return e.dec.pack.appendUnpacked(make([]byte, 0, e.n), e.data)
}

// appendStoredSpliced appends the value packed was made from with
// resourceVersion rv spliced in at off (appendSpliced, without unpacking
// to a buffer of its own first).
func appendStoredSpliced(dst []byte, p *packer, packed []byte, off int, mode byte, rv int64) ([]byte, error) {
	start := len(dst)
	dst, err := p.appendUnpacked(dst, packed)
	if err != nil {
		return dst, err
	}
	var b [48]byte
	ins := appendSpliced(b[:0], nil, 0, mode, rv)
	at := start + off
	end := len(dst)
	dst = slices.Grow(dst, len(ins))[:end+len(ins)]
	copy(dst[at+len(ins):], dst[at:end])
	copy(dst[at:], ins)
	return dst, nil
}
