package storage

import (
	"context"
	"sort"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

// Memo holds what is computed once per watch event and shared by every
// watcher it reaches: a converted view's object, the encoding of each
// version and format. A nil Memo shares nothing.
type Memo struct {
	mu sync.Mutex
	m  map[string]*memoCell
}

type memoCell struct {
	once sync.Once
	v    any
	err  error
}

// Do returns f's result for key, calling f once per key however many
// goroutines ask.
func (m *Memo) Do(key string, f func() (any, error)) (any, error) {
	if m == nil {
		return f()
	}
	m.mu.Lock()
	if m.m == nil {
		m.m = map[string]*memoCell{}
	}
	c := m.m[key]
	if c == nil {
		c = &memoCell{}
		m.m[key] = c
	}
	m.mu.Unlock()
	c.once.Do(func() { c.v, c.err = f() })
	return c.v, c.err
}

// cacheWatcher is one watch served by the cache. The reflector appends
// events to its queue without waiting; its goroutine (serve) filters them
// with the watch's selectors and hands them to the client. A client that
// falls more than maxPendingEvents or maxPendingBytes behind is ended (it
// resumes from the last resourceVersion it got) and never holds up the
// others.
type cacheWatcher[T resource.Object, L resource.ListObject] struct {
	c         *watchCache[T, L]
	ns        string
	pred      predicate
	bookmarks bool
	// progress: every bookmark (WatchOptions.Progress).
	progress bool
	// minRev: only events after it are sent.
	minRev int64
	// snapshot are the initial objects (before selection), at snapRev;
	// initialEnd sends the BOOKMARK that ends them; replay are window
	// events a resumed watch missed.
	snapshot   []*cacheEntry[T]
	snapRev    int64
	initialEnd bool
	replay     []*cachedEvent[T]

	mu           sync.Mutex
	queue        []*cachedEvent[T]
	pendingBytes int
	ended        bool
	signal       chan struct{}
	lastBookmark time.Time
}

// enqueue adds ev; a watcher too far behind is ended. The cache's lock is
// held.
func (w *cacheWatcher[T, L]) enqueue(ev *cachedEvent[T]) {
	w.mu.Lock()
	if w.ended {
		w.mu.Unlock()
		return
	}
	w.queue = append(w.queue, ev)
	w.pendingBytes += ev.size
	slow := len(w.queue) > maxPendingEvents || w.pendingBytes > maxPendingBytes
	if slow {
		w.ended, w.queue = true, nil
	}
	w.mu.Unlock()
	if slow && w.c.a.b.opts.SlowWatcher != nil {
		w.c.a.b.opts.SlowWatcher(w.c.resource())
	}
	w.wake()
}

func (w *cacheWatcher[T, L]) wake() {
	select {
	case w.signal <- struct{}{}:
	default:
	}
}

// end stops the watch after what it was given.
func (w *cacheWatcher[T, L]) end() {
	w.mu.Lock()
	w.ended = true
	w.mu.Unlock()
	w.wake()
}

// next waits for the next queued event; ok is false when the watch is over.
func (w *cacheWatcher[T, L]) next(ctx context.Context) (ev *cachedEvent[T], pending int, ok bool) {
	for {
		w.mu.Lock()
		if len(w.queue) > 0 {
			ev = w.queue[0]
			w.queue[0] = nil
			w.queue = w.queue[1:]
			w.pendingBytes -= ev.size
			n := len(w.queue)
			if n == 0 {
				w.queue = nil
			}
			w.mu.Unlock()
			return ev, n, true
		}
		ended := w.ended
		w.mu.Unlock()
		if ended {
			return nil, 0, false
		}
		select {
		case <-w.signal:
		case <-ctx.Done():
			return nil, 0, false
		}
	}
}

// serve sends the watch's events to out until it ends, then closes out.
func (w *cacheWatcher[T, L]) serve(ctx context.Context, out chan<- Event[T]) {
	defer close(out)
	defer w.c.unregister(w)
	send := func(ev Event[T]) bool {
		select {
		case out <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for _, e := range w.snapshot {
		ok, err := matchesEntry(w.pred, e)
		if err != nil {
			send(errorEvent[T](err))
			return
		}
		if !ok {
			continue
		}
		obj, err := e.object()
		if err != nil {
			send(errorEvent[T](err))
			return
		}
		if !send(Event[T]{Type: watch.Added, Object: obj}) {
			return
		}
	}
	w.snapshot = nil
	if w.initialEnd && !send(Event[T]{Type: watch.Bookmark, Object: w.c.a.bookmark(w.snapRev, true)}) {
		return
	}
	for _, ev := range w.replay {
		if !w.deliver(ev, 0, send) {
			return
		}
	}
	w.replay = nil
	for {
		ev, pending, ok := w.next(ctx)
		if !ok || !w.deliver(ev, pending, send) {
			return
		}
	}
}

// sees reports whether ev is in the watcher's namespace (every event for
// a watch of all namespaces). dispatch hands a watcher only its
// namespace's live events; a resumed watch's replay is taken from the
// window of every namespace, so the check is made again on delivery: a
// namespaced watch, and the RBAC that allowed it, never sees another
// namespace's objects.
func (w *cacheWatcher[T, L]) sees(ev *cachedEvent[T]) bool {
	return w.ns == "" || ev.ns == w.ns
}

// deliver sends what ev means to this watcher, if anything: selectors
// turn a change into ADDED or DELETED as an object starts or stops
// matching, as kube does. false ends the watch.
func (w *cacheWatcher[T, L]) deliver(ev *cachedEvent[T], pending int, send func(Event[T]) bool) bool {
	if ev.typ == watch.Bookmark {
		// Only when nothing is waiting (queued events carry newer
		// resourceVersions anyway), and not more often than the interval
		// asks, however often etcd reports progress.
		if !w.bookmarks || ev.rev < w.minRev || !w.progress && (pending > 0 || time.Since(w.lastBookmark) < w.c.a.b.opts.BookmarkInterval/2) {
			return true
		}
		w.lastBookmark = time.Now()
		return send(Event[T]{Type: watch.Bookmark, Object: ev.bookmark, Memo: &ev.memo})
	}
	if ev.rev <= w.minRev || !w.sees(ev) {
		return true
	}
	match := func(e *cacheEntry[T]) (bool, bool) {
		ok, err := matchesEntry(w.pred, e)
		if err != nil {
			send(errorEvent[T](err))
			return false, false
		}
		return ok, true
	}
	// The event's object, decoded once for every watcher that holds it.
	sendObj := func(typ watch.EventType, get func() (T, error), memo *Memo) bool {
		obj, err := get()
		if err != nil {
			send(errorEvent[T](err))
			return false
		}
		return send(Event[T]{Type: typ, Object: obj, Memo: memo})
	}
	switch ev.typ {
	case watch.Added:
		ok, live := match(ev.cur)
		if !live {
			return false
		}
		return !ok || sendObj(watch.Added, ev.cur.object, &ev.memo)
	case watch.Deleted:
		ok, live := match(ev.old)
		if !live {
			return false
		}
		return !ok || sendObj(watch.Deleted, ev.goneObject, &ev.memo)
	}
	if w.pred.empty() {
		return sendObj(watch.Modified, ev.cur.object, &ev.memo)
	}
	curMatch, live := match(ev.cur)
	if !live {
		return false
	}
	oldMatch, live := match(ev.old)
	if !live {
		return false
	}
	switch {
	case curMatch && oldMatch:
		return sendObj(watch.Modified, ev.cur.object, &ev.memo)
	case curMatch:
		return sendObj(watch.Added, ev.cur.object, &ev.memo)
	case oldMatch:
		// The previous state, at the event's resourceVersion.
		return sendObj(watch.Deleted, ev.prevObject, &ev.prevMemo)
	}
	return true
}

// prevObject is old at cur's revision (a relist's event has its own): the
// object of the DELETED event a watcher gets when the change made the
// object stop matching.
func (ev *cachedEvent[T]) prevObject() (T, error) {
	ev.prevOnce.Do(func() {
		ev.prev, ev.prevErr = ev.old.decodeAt(ev.cur.rev)
	})
	return ev.prev, ev.prevErr
}

func (c *watchCache[T, L]) unregister(w *cacheWatcher[T, L]) {
	c.mu.Lock()
	_, ok := c.watchers[w]
	delete(c.watchers, w)
	c.mu.Unlock()
	if ok {
		if m := c.metrics(); m != nil {
			m.Watchers(c.resource(), -1)
		}
	}
}

// watch serves a watch from the cache; handled is false when the cache
// cannot serve it exactly (not built yet, not fresh enough in time, a
// resourceVersion older than its window): the caller watches etcd then.
// Options were validated and pred compiled by Store.Watch.
func (c *watchCache[T, L]) watch(ctx context.Context, namespace string, opts WatchOptions, pred predicate, rv int64) (<-chan Event[T], bool, error) {
	const (
		resume  = iota // events after rv
		current        // events from now on
		initial        // the current objects as ADDED, then events
	)
	mode := resume
	var need int64 // the revision the cache must have reached
	consistent := opts.ResourceVersion == ""
	switch {
	case opts.SendInitialEvents != nil && *opts.SendInitialEvents:
		mode, need = initial, rv
	case opts.SendInitialEvents != nil:
		if rv == 0 {
			mode = current
		}
	case rv == 0:
		mode = initial
	}
	if consistent && mode != resume {
		cur, err := c.consistentRev(ctx)
		if err != nil {
			return nil, true, c.a.etcdError(ctx, "watch", namespace, err)
		}
		need = cur
	}
	switch {
	case consistent && need > 0:
		if !c.waitRev(ctx, need) {
			return nil, false, nil
		}
	case need > 0:
		if !c.reach(ctx, need) {
			return nil, false, nil
		}
	}
	w := &cacheWatcher[T, L]{
		c: c, ns: namespace, pred: pred, bookmarks: opts.AllowBookmarks, progress: opts.Progress,
		signal: make(chan struct{}, 1), lastBookmark: time.Now(),
		initialEnd: opts.SendInitialEvents != nil && *opts.SendInitialEvents && opts.AllowBookmarks,
	}
	c.mu.Lock()
	if !c.ready || c.closed {
		c.mu.Unlock()
		return nil, false, nil
	}
	switch mode {
	case resume:
		if rv < c.windowStart {
			c.mu.Unlock()
			return nil, false, nil
		}
		w.minRev = rv
		i := sort.Search(len(c.window), func(i int) bool { return c.window[i].rev > rv })
		for _, ev := range c.window[i:] {
			if w.sees(ev) {
				w.replay = append(w.replay, ev)
			}
		}
	case current:
		w.minRev = c.rev
	case initial:
		w.minRev, w.snapRev = c.rev, c.rev
		w.snapshot = c.snapshotOf(namespace, pred)
	}
	c.watchers[w] = struct{}{}
	c.mu.Unlock()
	if m := c.metrics(); m != nil {
		m.Watchers(c.resource(), 1)
	}
	out := make(chan Event[T], watchBuffer)
	go w.serve(ctx, out)
	return out, true, nil
}
