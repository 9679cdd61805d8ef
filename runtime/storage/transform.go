package storage

import (
	"bytes"
	"context"
	"fmt"

	"go.etcd.io/etcd/api/v3/mvccpb"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/storage/value"
)

// Values at rest pass through a value.Transformer when the resource is
// encrypted (BackendOptions.Transformer, built by runtime/encryption from
// kube's EncryptionConfiguration). The etcd key is the authenticated data,
// as kube-apiserver's etcd3 store uses it, so a ciphertext copied under
// another key does not decrypt. Values are decrypted where they leave etcd
// (getKV, current, list pages, watch events): everything downstream, the
// raw JSON splice included, sees plaintext.

// toStorage returns what is written at key for data.
func (st *access[T, L]) toStorage(ctx context.Context, key string, data []byte) ([]byte, error) {
	if st.tx == nil {
		return data, nil
	}
	out, err := st.tx.TransformToStorage(ctx, data, value.DefaultContext(key))
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("encrypt %s at %s: %w", st.resourceName(), key, err))
	}
	return out, nil
}

// fromStorage returns kv with its value decrypted; stale is true when the
// value was not written with the first provider (key rotation: rewrite
// it, even if unchanged).
func (st *access[T, L]) fromStorage(ctx context.Context, kv *mvccpb.KeyValue) (*mvccpb.KeyValue, bool, error) {
	if st.tx == nil || kv == nil {
		return kv, false, nil
	}
	plain, stale, err := st.tx.TransformFromStorage(ctx, kv.Value, value.DefaultContext(kv.Key))
	if err != nil {
		return nil, false, apierrors.NewInternalError(fmt.Errorf("decrypt stored %s at %s: %w", st.resourceName(), kv.Key, err))
	}
	return &mvccpb.KeyValue{Key: kv.Key, CreateRevision: kv.CreateRevision, ModRevision: kv.ModRevision, Version: kv.Version, Value: plain, Lease: kv.Lease}, stale, nil
}

// fromStorageAll decrypts kvs in place; a value that does not decrypt is
// reported and replaced by one that does not decode, so that the list
// leaves it out like any unreadable value.
func (st *access[T, L]) fromStorageAll(ctx context.Context, kvs []*mvccpb.KeyValue) {
	if st.tx == nil {
		return
	}
	for i, kv := range kvs {
		plain, _, err := st.fromStorage(ctx, kv)
		if err != nil {
			st.unreadable(kv.Key, err)
			plain = &mvccpb.KeyValue{Key: kv.Key, CreateRevision: kv.CreateRevision, ModRevision: kv.ModRevision, Version: kv.Version, Value: undecryptable, Lease: kv.Lease}
		}
		kvs[i] = plain
	}
}

// undecryptable stands for a value that did not decrypt (already reported).
var undecryptable = []byte("\x00undecryptable")

// unreadable reports a stored value that cannot be read.
func (st *access[T, L]) unreadable(key []byte, err error) {
	if st.b.opts.Unreadable != nil {
		st.b.opts.Unreadable(st.resourceName(), string(key), err)
	}
}

// readable decodes kv for a list or watch: an unreadable value is
// reported (once) and ok is false.
func (st *access[T, L]) readable(kv *mvccpb.KeyValue) (obj T, ok bool) {
	obj, err := st.decode(kv.Value, kv.ModRevision)
	if err != nil {
		if !bytes.Equal(kv.Value, undecryptable) {
			st.unreadable(kv.Key, err)
		}
		return obj, false
	}
	return obj, true
}
