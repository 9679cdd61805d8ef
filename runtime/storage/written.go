package storage

import "context"

// Written lets a handler answer a write with the JSON the store has just
// encoded for etcd rather than encode the object again: the stored bytes
// are json.Marshal of the object the write returns, but for its
// resourceVersion, which is spliced in where json.Marshal puts it (as the
// raw read path does).
type Written struct {
	obj  any
	data []byte
	rev  int64
}

type writtenKey struct{}

// WithWritten returns ctx asking a Store's Create and GuaranteedUpdate to
// remember in the Written what they wrote.
func WithWritten(ctx context.Context) (context.Context, *Written) {
	w := &Written{}
	return context.WithValue(ctx, writtenKey{}, w), w
}

// wrote remembers, when ctx asks for it, that obj was stored as data at
// revision rev.
func wrote(ctx context.Context, obj any, data []byte, rev int64) {
	if w, ok := ctx.Value(writtenKey{}).(*Written); ok {
		w.obj, w.data, w.rev = obj, data, rev
	}
}

// JSON is json.Marshal of obj, the object a write returned (with room for
// one more byte, a newline), when obj is the object the store wrote (not a converted copy):
// its stored bytes with resourceVersion spliced in. The apiVersion and kind
// are the storage version's (JSONReader.StorageGroupVersionKind). ok is
// false when it cannot tell; encode obj then.
func (w *Written) JSON(obj any) ([]byte, bool) {
	if w == nil || w.obj == nil || w.obj != obj {
		return nil, false
	}
	off, mode, ok := spliceOffset(w.data)
	if !ok {
		return nil, false
	}
	out := make([]byte, 0, len(w.data)+spliceLen(mode, w.rev)+1)
	return appendSpliced(out, w.data, off, mode, w.rev), true
}
