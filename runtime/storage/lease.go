package storage

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// maxLeaseReuse bounds how long one etcd lease is shared by the writes of
// objects with the same TTL (kube-apiserver reuses leases for a minute).
const maxLeaseReuse = time.Minute

// leaseManager grants etcd leases for objects with a TTL, sharing one lease
// between the writes of a short window: a lease granted for ttl+window is
// reused while it still outlives now+ttl, so every object lives at least
// its TTL and at most TTL+window.
type leaseManager struct {
	client *clientv3.Client
	mu     sync.Mutex
	leases map[time.Duration]leaseEntry
}

type leaseEntry struct {
	id clientv3.LeaseID
	// expires is a lower bound of when etcd expires the lease.
	expires time.Time
}

func newLeaseManager(c *clientv3.Client) *leaseManager {
	return &leaseManager{client: c, leases: map[time.Duration]leaseEntry{}}
}

// reuseWindow is 5% of ttl, at most a minute; under a second no lease is
// shared.
func reuseWindow(ttl time.Duration) time.Duration {
	w := min(ttl/20, maxLeaseReuse)
	if w < time.Second {
		return 0
	}
	return w
}

// lease returns a lease that expires no sooner than ttl from now.
func (m *leaseManager) lease(ctx context.Context, ttl time.Duration) (clientv3.LeaseID, error) {
	now := time.Now()
	m.mu.Lock()
	if e, ok := m.leases[ttl]; ok && e.expires.After(now.Add(ttl)) {
		m.mu.Unlock()
		return e.id, nil
	}
	m.mu.Unlock()
	window := reuseWindow(ttl)
	secs := int64((ttl + window + time.Second - 1) / time.Second)
	resp, err := m.client.Grant(ctx, secs)
	if err != nil {
		return clientv3.NoLease, fmt.Errorf("grant etcd lease of %ds: %w", secs, err)
	}
	if window > 0 {
		m.mu.Lock()
		m.leases[ttl] = leaseEntry{id: resp.ID, expires: now.Add(time.Duration(secs) * time.Second)}
		m.mu.Unlock()
	}
	return resp.ID, nil
}

// forget drops a cached lease etcd no longer knows.
func (m *leaseManager) forget(id clientv3.LeaseID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for ttl, e := range m.leases {
		if e.id == id {
			delete(m.leases, ttl)
		}
	}
}

// putOptions returns the options of a Put of this store's objects: a
// lease when the backend gives the resource a TTL.
func (st *Store[T, L]) putOptions(ctx context.Context) ([]clientv3.OpOption, clientv3.LeaseID, error) {
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
func (st *Store[T, L]) leaseLost(err error, id clientv3.LeaseID) bool {
	if id == clientv3.NoLease || !errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return false
	}
	st.b.leases.forget(id)
	return true
}

// putIf writes data at key when cmp holds, with the resource's lease if it
// has a TTL (retrying once with a new lease if the cached one is gone).
func (st *Store[T, L]) putIf(ctx context.Context, key string, cmp clientv3.Cmp, data []byte) (*clientv3.TxnResponse, error) {
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
