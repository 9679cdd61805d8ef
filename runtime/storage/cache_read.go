package storage

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/google/btree"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

// view is a state of the cache a read walks without the lock: a clone of
// the tree (btree clones are copy-on-write, so taking one costs nothing
// and later writes do not show in it) and, when an index answered the
// selector, the keys it named.
type view[E any] struct {
	tree *btree.BTreeG[E]
	rev  int64
	// keys, when set, are the only keys that can match (key order).
	keys    []string
	indexed bool
	// all: every object of tree matches the predicate (an index said so).
	all bool
}

// stateAt returns the cache's state at rev (0: its current one) with the
// keys an index names for pred (current state only): the current tree, a
// snapshot kept for continue tokens, or the current tree with the window's
// later events undone; ok is false when the cache cannot rebuild rev.
func (c *watchCache[T, L]) stateAt(rev int64, pred predicate) (v view[*cacheEntry[T]], ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ready || c.closed {
		return v, false
	}
	if rev == 0 || rev == c.rev {
		v.tree, v.rev = c.tree.Clone(), c.rev
		if !pred.empty() {
			v.all = c.idx.selectsAll(pred, c.tree.Len())
			if !v.all {
				v.keys, v.indexed = c.idx.lookup(pred, c.tree.Len()/4+1)
			}
		}
		return v, true
	}
	now := time.Now()
	for _, s := range c.snapshots {
		if s.rev == rev && now.Before(s.expires) {
			return view[*cacheEntry[T]]{tree: s.tree, rev: rev}, true
		}
	}
	if rev >= c.windowStart && rev < c.rev {
		// The window holds every change since rev: undo them, newest
		// first, on a clone of the current state.
		t := c.tree.Clone()
		for i := len(c.window) - 1; i >= 0 && c.window[i].rev > rev; i-- {
			switch ev := c.window[i]; ev.typ {
			case watch.Added:
				t.Delete(ev.cur)
			case watch.Modified, watch.Deleted:
				t.ReplaceOrInsert(ev.old)
			}
		}
		return view[*cacheEntry[T]]{tree: t, rev: rev}, true
	}
	return v, false
}

// selected is matchesEntry for an entry of v: true without looking when
// v.all.
func selected[T resource.Object](v view[*cacheEntry[T]], p predicate, e *cacheEntry[T]) (bool, error) {
	if v.all {
		return true, nil
	}
	return matchesEntry(p, e)
}

// keep remembers v's tree for continue tokens at its revision.
func (c *watchCache[T, L]) keep(v view[*cacheEntry[T]]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	kept := c.snapshots[:0]
	for _, s := range c.snapshots {
		if s.rev == v.rev {
			s.expires = now.Add(snapshotTTL)
			v.tree = nil
		}
		if now.Before(s.expires) {
			kept = append(kept, s)
		}
	}
	c.snapshots = kept
	if v.tree == nil {
		return
	}
	if len(c.snapshots) >= maxSnapshots {
		c.snapshots = append(c.snapshots[:0], c.snapshots[1:]...)
	}
	c.snapshots = append(c.snapshots, snapshot[T]{rev: v.rev, tree: v.tree, expires: now.Add(snapshotTTL)})
}

// scan calls f on the entries of v under prefix from startKey on, in key
// order, until f returns false.
func scan[T resource.Object](v view[*cacheEntry[T]], prefix, startKey string, f func(*cacheEntry[T]) bool) {
	if startKey < prefix {
		startKey = prefix
	}
	if v.indexed {
		for _, k := range v.keys {
			if k < startKey || !strings.HasPrefix(k, prefix) {
				continue
			}
			if e, ok := v.tree.Get(&cacheEntry[T]{key: k}); ok && !f(e) {
				return
			}
		}
		return
	}
	end := clientv3.GetPrefixRangeEnd(prefix)
	v.tree.AscendRange(&cacheEntry[T]{key: startKey}, &cacheEntry[T]{key: end}, f)
}

// snapshotOf returns the entries of namespace pred may match, for the
// initial events of a watch. c.mu is held.
func (c *watchCache[T, L]) snapshotOf(namespace string, pred predicate) []*cacheEntry[T] {
	v := view[*cacheEntry[T]]{tree: c.tree, rev: c.rev}
	if !pred.empty() {
		v.keys, v.indexed = c.idx.lookup(pred, c.tree.Len()/4+1)
	}
	var out []*cacheEntry[T]
	scan(v, c.a.listPrefix(namespace), "", func(e *cacheEntry[T]) bool {
		out = append(out, e)
		return true
	})
	return out
}

// listView picks the state a list reads, following the resourceVersion
// rules of Store.List; handled is false when the cache cannot give that
// state exactly (etcd answers then, errors included). startKey is where a
// continue token resumes.
func (c *watchCache[T, L]) listView(ctx context.Context, namespace string, opts ListOptions, pred predicate) (v view[*cacheEntry[T]], startKey string, handled bool, err error) {
	keyPrefix := c.a.listPrefix(namespace)
	var rev, need int64
	if opts.Continue != "" {
		k, tokRev, err := decodeContinue(opts.Continue, keyPrefix)
		if err != nil || (opts.ResourceVersion != "" && opts.ResourceVersion != "0") {
			return v, "", false, nil
		}
		startKey = k
		if tokRev > 0 {
			rev = tokRev
		} else if need, err = c.consistentRev(ctx); err != nil {
			return v, "", false, nil
		}
	} else {
		withRev, minRV, serializable, err := listRevision(opts)
		if err != nil {
			return v, "", false, nil
		}
		switch {
		case withRev > 0:
			rev = withRev
		case serializable:
		case minRV > 0:
			if !c.reach(ctx, minRV) {
				return v, "", false, nil
			}
		default:
			if need, err = c.consistentRev(ctx); err != nil {
				return v, "", false, nil
			}
		}
	}
	if need > 0 && !c.waitRev(ctx, need) {
		return v, "", false, nil
	}
	v, ok := c.stateAt(rev, pred)
	if ok && rev > 0 && v.rev == rev && !c.retained(ctx, rev) {
		// Compacted in etcd: answer as etcd does (410 Expired), not
		// from a snapshot kube-apiserver would have dropped.
		return v, "", false, nil
	}
	return v, startKey, ok, nil
}

// retained reports whether etcd still holds revision rev (not compacted).
func (c *watchCache[T, L]) retained(ctx context.Context, rev int64) bool {
	start := time.Now()
	_, err := c.a.b.client.Get(ctx, c.a.b.compactKey(), clientv3.WithRev(rev), clientv3.WithCountOnly(), clientv3.WithSerializable())
	c.a.observe("get", start)
	return err == nil
}

// list serves Store.List from the cache.
func (c *watchCache[T, L]) list(ctx context.Context, namespace string, opts ListOptions, pred predicate) ([]T, int64, string, int64, bool, error) {
	v, startKey, ok, err := c.listView(ctx, namespace, opts, pred)
	if !ok || err != nil {
		c.counted("list", false)
		return nil, 0, "", 0, ok, err
	}
	c.counted("list", true)
	items := []T{}
	cont, remaining, err := c.listPage(v, namespace, startKey, opts.Limit, pred, func(e *cacheEntry[T]) error {
		obj, err := e.object()
		if err == nil {
			items = append(items, obj)
		}
		return err
	})
	if err != nil {
		return nil, 0, "", 0, true, err
	}
	return items, v.rev, cont, remaining, true, nil
}

// listPage gives take, in key order, the entries of v under namespace
// that pred selects, from startKey on, at most limit (0: all); an error
// of take ends the list. When more entries follow, cont is the continue
// token (v is kept for it) and remaining how many follow, counted only
// for a list without selectors (see remainingItemCount).
func (c *watchCache[T, L]) listPage(v view[*cacheEntry[T]], namespace, startKey string, limit int64, pred predicate, take func(*cacheEntry[T]) error) (cont string, remaining int64, err error) {
	keyPrefix := c.a.listPrefix(namespace)
	var lastKey string
	var taken int64
	more := false
	scan(v, keyPrefix, startKey, func(e *cacheEntry[T]) bool {
		if limit > 0 && taken >= limit {
			more = true
			return false
		}
		lastKey = e.key
		var ok bool
		if ok, err = selected(v, pred, e); ok && err == nil {
			err = take(e)
			taken++
		}
		return err == nil
	})
	if err != nil || !more {
		return "", 0, err
	}
	if cont, err = encodeContinue(lastKey+"\x00", keyPrefix, v.rev); err != nil {
		return "", 0, err
	}
	if pred.empty() {
		scan(v, keyPrefix, lastKey+"\x00", func(*cacheEntry[T]) bool {
			remaining++
			return true
		})
	}
	c.keep(v)
	return cont, remaining, nil
}

// listJSON serves Store.ListJSON from the cache: the items of one state,
// or of one page of it.
func (c *watchCache[T, L]) listJSON(ctx context.Context, namespace string, opts ListOptions, pred predicate) (*JSONList, bool, error) {
	v, startKey, ok, err := c.listView(ctx, namespace, opts, pred)
	if !ok || err != nil {
		c.counted("list", false)
		return nil, ok, err
	}
	c.counted("list", true)
	// The selected entries, 8 bytes each; their items (80 bytes) are
	// made a batch at a time as the list is written.
	var entries []*cacheEntry[T]
	if n := listCap(v, namespace, pred, opts.Limit); n > 0 {
		entries = make([]*cacheEntry[T], 0, n)
	}
	cont, remaining, err := c.listPage(v, namespace, startKey, opts.Limit, pred, func(e *cacheEntry[T]) error {
		// Made (and kept by the entry) here, so that an entry that
		// cannot be read fails the list before it starts.
		if _, err := e.listItem(c.a.raw); err != nil {
			return apierrors.NewInternalError(err)
		}
		entries = append(entries, e)
		return nil
	})
	if err != nil {
		return nil, true, err
	}
	l := &JSONList{
		ResourceVersion:    strconv.FormatInt(v.rev, 10),
		Continue:           cont,
		RemainingItemCount: remainingItemCount(cont, remaining, pred),
	}
	var batch []jsonItem
	l.next = func() ([]jsonItem, bool, error) {
		n := min(len(entries), jsonListBatch)
		if batch == nil {
			batch = make([]jsonItem, 0, n)
		}
		batch = batch[:0]
		for _, e := range entries[:n] {
			it, err := e.listItem(c.a.raw)
			if err != nil {
				return nil, false, apierrors.NewInternalError(err)
			}
			batch = append(batch, it)
		}
		entries = entries[n:]
		return batch, len(entries) > 0, nil
	}
	page, more, err := l.next()
	if err != nil {
		return nil, true, err
	}
	l.page, l.more = page, more
	return l, true, nil
}

// listCap is how many entries a list of v can hold, when that is known
// without looking (0: unknown).
func listCap[T resource.Object](v view[*cacheEntry[T]], namespace string, pred predicate, limit int64) int {
	n := 0
	switch {
	case v.indexed:
		n = len(v.keys)
	case namespace == "" && (v.all || pred.empty()):
		n = v.tree.Len()
	case limit > 0:
		n = v.tree.Len()
	}
	if limit > 0 && int64(n) > limit {
		n = int(limit)
	}
	return n
}

// jsonListBatch is how many items of a list from the cache are made at a
// time.
const jsonListBatch = 256

// get serves a read of one object from the cache: at "0", at N once the
// cache reached N, and a quorum read ("") once the cache reached etcd's
// current revision, read after the request arrived (so the cache holds
// every write acknowledged before it: a consistent read, as consistent
// lists are). handled is false when the cache cannot answer (not ready,
// or not caught up within freshTimeout) and for a quorum read of an object
// the cache does not have: etcd answers then. found is false for a missing
// object.
func (c *watchCache[T, L]) get(ctx context.Context, key string, opts GetOptions) (e *cacheEntry[T], found, handled bool, err error) {
	var need int64
	switch opts.ResourceVersion {
	case "":
		if !c.serving() {
			// No revision to read for a cache that cannot answer.
			c.counted("get", false)
			return nil, false, false, nil
		}
		if need, err = c.consistentRev(ctx); err != nil {
			c.counted("get", false)
			return nil, false, false, nil
		}
	case "0":
	default:
		rv, err := parseRV(opts.ResourceVersion)
		if err != nil {
			return nil, false, true, err
		}
		if !c.reach(ctx, rv) {
			c.counted("get", false)
			return nil, false, false, nil
		}
	}
	e, found, ready, fresh := c.lookup(key, need)
	if ready && !fresh {
		if !c.waitRev(ctx, need) {
			c.counted("get", false)
			return nil, false, false, nil
		}
		e, found, ready, _ = c.lookup(key, 0)
	}
	if need > 0 && !found {
		// The cache leaves out a value it cannot decode or decrypt,
		// which etcd's read answers with a 500, not a 404.
		ready = false
	}
	c.counted("get", ready)
	return e, found, ready, nil
}

// serving reports whether the cache answers reads (built, not closed).
func (c *watchCache[T, L]) serving() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.ready && !c.closed
}

// lookup is the cache's entry of key, when the cache is ready and holds
// etcd's state at need or later (fresh; 0: any).
func (c *watchCache[T, L]) lookup(key string, need int64) (e *cacheEntry[T], found, ready, fresh bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if !c.ready || c.closed {
		return nil, false, false, false
	}
	if c.rev < need {
		return nil, false, true, false
	}
	e, found = c.tree.Get(&cacheEntry[T]{key: key})
	return e, found, true, true
}

// entry is the cache's entry of key, if the cache is ready and has one.
func (c *watchCache[T, L]) entry(key string) (*cacheEntry[T], bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if !c.ready || c.closed {
		return nil, false
	}
	return c.tree.Get(&cacheEntry[T]{key: key})
}

func (c *watchCache[T, L]) counted(verb string, fromCache bool) {
	m := c.metrics()
	if m == nil {
		return
	}
	source := "etcd"
	if fromCache {
		source = "cache"
	}
	m.CacheRead(c.resource(), verb, source)
}
