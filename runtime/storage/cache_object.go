package storage

import (
	"reflect"
	"unsafe"
	"weak"

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
	obj, err := e.dec.decode(e.raw, e.rev)
	if err != nil {
		return obj, err
	}
	e.obj = e.dec.weak(obj)
	return obj, nil
}

// private returns a copy of e's typed object the caller may modify.
func (e *cacheEntry[T]) private() (T, error) {
	e.objMu.Lock()
	obj, ok := e.dec.strong(e.obj)
	e.objMu.Unlock()
	if ok {
		return obj.DeepCopyObject().(T), nil
	}
	// Nobody holds it: a fresh decode is as private as a copy.
	return e.dec.decode(e.raw, e.rev)
}
