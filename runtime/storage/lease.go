package storage

import (
	"context"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
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
