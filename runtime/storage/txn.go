package storage

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// The conditional writes of a store: every write to etcd is one
// transaction that holds only if the key is as the writer read it
// (created: absent; updated or deleted: at the mod revision read), so a
// concurrent writer makes it fail rather than be overwritten.

// putOptions returns the options of a Put of this store's objects: a
// lease when the backend gives the resource a TTL.
func (st *access[T, L]) putOptions(ctx context.Context) ([]clientv3.OpOption, clientv3.LeaseID, error) {
	if st.b.opts.TTL == nil {
		return nil, clientv3.NoLease, nil
	}
	ttl := st.b.opts.TTL(st.s.Info.GroupResource())
	if ttl <= 0 {
		return nil, clientv3.NoLease, nil
	}
	id, err := st.b.leases.lease(ctx, ttl)
	if err != nil {
		return nil, clientv3.NoLease, err
	}
	return []clientv3.OpOption{clientv3.WithLease(id)}, id, nil
}

// leaseLost reports a Put that failed because its lease is gone (expired
// between grant and use): the lease is forgotten and the write may retry.
func (st *access[T, L]) leaseLost(err error, id clientv3.LeaseID) bool {
	if id == clientv3.NoLease || !errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return false
	}
	st.b.leases.forget(id)
	return true
}

// putIf writes data at key when cmp holds, with the resource's lease if it
// has a TTL (retrying once with a new lease if the cached one is gone).
func (st *access[T, L]) putIf(ctx context.Context, key string, cmp clientv3.Cmp, data []byte) (*clientv3.TxnResponse, error) {
	data, err := st.toStorage(ctx, key, data)
	if err != nil {
		return nil, err
	}
	if n := len(key) + len(data) + requestOverhead; n > st.b.opts.MaxRequestBytes {
		return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf(
			"%s is %d bytes when stored, more than the %d bytes etcd accepts in one request", st.resourceName(), len(data), st.b.opts.MaxRequestBytes-len(key)-requestOverhead))
	}
	for attempt := 0; ; attempt++ {
		opts, id, err := st.putOptions(ctx)
		if err != nil {
			return nil, err
		}
		resp, err := st.b.client.Txn(ctx).If(cmp).Then(clientv3.OpPut(key, string(data), opts...)).Commit()
		if err != nil && attempt == 0 && st.leaseLost(err, id) {
			continue
		}
		return resp, err
	}
}

// deleteIf deletes key if its mod revision is still rev (a
// compare-and-delete); resp.Succeeded is false when another write got in
// first. A deleted key's remembered splice (rawjson.go) is forgotten.
func (st *access[T, L]) deleteIf(ctx context.Context, key string, rev int64) (*clientv3.TxnResponse, error) {
	start := time.Now()
	resp, err := st.b.client.Txn(ctx).
		If(clientv3.Compare(clientv3.ModRevision(key), "=", rev)).
		Then(clientv3.OpDelete(key)).
		Commit()
	st.observe("delete", start)
	if err == nil && resp.Succeeded {
		st.raw.forget(key)
	}
	return resp, err
}
