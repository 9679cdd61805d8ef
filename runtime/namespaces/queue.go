package namespaces

import (
	"context"
	"sync"
	"time"
)

// queue is a set of namespace names waiting to be synced: a name queued
// twice before it is taken is synced once.
type queue struct {
	mu      sync.Mutex
	pending []string
	queued  map[string]bool
	wake    chan struct{}
	closed  bool
}

func newQueue() *queue {
	return &queue{queued: map[string]bool{}, wake: make(chan struct{}, 1)}
}

func (q *queue) add(name string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || q.queued[name] {
		return
	}
	q.queued[name] = true
	q.pending = append(q.pending, name)
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// addAfter queues name after d unless ctx ends first.
func (q *queue) addAfter(ctx context.Context, name string, d time.Duration) {
	t := time.NewTimer(d)
	go func() {
		defer t.Stop()
		select {
		case <-ctx.Done():
		case <-t.C:
			q.add(name)
		}
	}()
}

// get waits for a name; false once ctx is done or the queue closed.
func (q *queue) get(ctx context.Context) (string, bool) {
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return "", false
		}
		if len(q.pending) > 0 {
			name := q.pending[0]
			q.pending = q.pending[1:]
			delete(q.queued, name)
			q.mu.Unlock()
			return name, true
		}
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return "", false
		case <-q.wake:
		}
	}
}

func (q *queue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
}
