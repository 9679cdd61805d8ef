package garbagecollector

import (
	"context"
	"sync"
)

// changeQueue is the unbounded FIFO of graph changes: the watches push
// without ever waiting (a store ends a watcher that falls behind), the
// graph goroutine pops.
type changeQueue struct {
	mu     sync.Mutex
	items  []change
	head   int
	wake   chan struct{}
	closed bool
}

func newChangeQueue() *changeQueue { return &changeQueue{wake: make(chan struct{}, 1)} }

func (q *changeQueue) push(c change) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.items = append(q.items, c)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// pop waits for the next change; false once closed or ctx is done.
func (q *changeQueue) pop(ctx context.Context) (change, bool) {
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return change{}, false
		}
		if q.head < len(q.items) {
			c := q.items[q.head]
			q.items[q.head] = change{}
			q.head++
			if q.head == len(q.items) {
				q.items, q.head = q.items[:0], 0
			} else if q.head > 1024 && q.head*2 > len(q.items) {
				q.items = append([]change(nil), q.items[q.head:]...)
				q.head = 0
			}
			q.mu.Unlock()
			return c, true
		}
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return change{}, false
		case <-q.wake:
		}
	}
}

func (q *changeQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items) - q.head
}

func (q *changeQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// absentCache remembers owners known not to exist (kube's
// absentOwnerCache), by coordinates, the oldest forgotten first.
type absentCache struct {
	mu    sync.Mutex
	max   int
	set   map[objectRef]struct{}
	order []objectRef
}

func newAbsentCache(max int) *absentCache {
	return &absentCache{max: max, set: map[objectRef]struct{}{}}
}

func (c *absentCache) add(r objectRef) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.set[r]; ok {
		return
	}
	if len(c.order) >= c.max {
		delete(c.set, c.order[0])
		c.order = c.order[1:]
	}
	c.set[r] = struct{}{}
	c.order = append(c.order, r)
}

func (c *absentCache) has(r objectRef) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.set[r]
	return ok
}
