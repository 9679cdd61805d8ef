package storage

import (
	"context"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// revisions reads etcd's current revision for consistent reads, batched
// across concurrent requests as raft's ReadIndex batches reads: one read
// in flight per backend (the revision is etcd's, not a resource's), and
// the requests arriving meanwhile share the next one. A request only takes
// the answer of a read that started after it arrived: a read already in
// flight may have been answered by etcd before a write the request must
// see was acknowledged, so joining it would break linearizability.
type revisions struct {
	read func(ctx context.Context) (int64, error)

	mu sync.Mutex
	// running is the read in flight, nil when none; next collects the
	// requests that arrived while it ran and starts when it ends.
	running, next *revRead

	// fetched, when set (tests), is called with each read's answer
	// before its waiters get it.
	fetched func(rev int64, err error)
}

// revRead is one read of the revision and the requests waiting for it.
type revRead struct {
	done    chan struct{}
	rev     int64
	err     error
	waiters int
	// ctx bounds the etcd read: canceled once every waiter has left.
	ctx    context.Context
	cancel context.CancelFunc
}

func newRevisions(b *Backend) *revisions {
	return &revisions{read: func(ctx context.Context) (int64, error) {
		// A linearizable count-only range of one key: etcd's ReadIndex
		// and the header's revision, nothing read from the store.
		start := time.Now()
		resp, err := b.client.Get(ctx, b.compactKey(), clientv3.WithCountOnly())
		b.observe("revision", "", start)
		if err != nil {
			return 0, err
		}
		return resp.Header.Revision, nil
	}}
}

func newRevRead() *revRead {
	ctx, cancel := context.WithCancel(context.Background())
	return &revRead{done: make(chan struct{}), ctx: ctx, cancel: cancel}
}

// current returns etcd's revision as read by a linearizable read that
// started after current was called: every write acknowledged before the
// call is at or below it.
func (r *revisions) current(ctx context.Context) (int64, error) {
	r.mu.Lock()
	var rd *revRead
	start := false
	switch {
	case r.running == nil:
		rd = newRevRead()
		r.running, start = rd, true
	case r.next != nil:
		rd = r.next
	default:
		rd = newRevRead()
		r.next = rd
	}
	rd.waiters++
	r.mu.Unlock()
	if start {
		go r.run(rd)
	}
	select {
	case <-rd.done:
		if rd.err != nil {
			return 0, fmt.Errorf("read etcd's current revision: %w", rd.err)
		}
		return rd.rev, nil
	case <-ctx.Done():
		r.leave(rd)
		return 0, fmt.Errorf("wait for etcd's current revision: %w", ctx.Err())
	}
}

// leave takes a waiter whose request ended off rd: a read nobody waits for
// is canceled, or not started.
func (r *revisions) leave(rd *revRead) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rd.waiters--
	if rd.waiters > 0 {
		return
	}
	switch rd {
	case r.running:
		rd.cancel()
	case r.next:
		r.next = nil
		rd.cancel()
	}
}

// run reads the revision for rd, then for the reads queued behind it,
// until none is.
func (r *revisions) run(rd *revRead) {
	for rd != nil {
		rev, err := r.read(rd.ctx)
		if r.fetched != nil {
			r.fetched(rev, err)
		}
		r.mu.Lock()
		rd.rev, rd.err = rev, err
		close(rd.done)
		rd.cancel()
		rd, r.running, r.next = r.next, r.next, nil
		r.mu.Unlock()
	}
}
