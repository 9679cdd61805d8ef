package storage

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/google/btree"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/metadata"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubeforge/kubeforge/runtime/jsonencode"
	"github.com/kubeforge/kubeforge/runtime/resource"
)

// The watch cache is kube-apiserver's Cacher, per Store (so per kind: the
// converted views of its other versions read through it): one etcd watch
// keeps a copy of every object of the resource in memory, from which
// watches are served (an event is decoded once, however many watchers),
// lists and gets at a resourceVersion that allows it, and consistent lists
// once the cache has caught up with etcd's current revision. A window of
// recent events lets a watch resume from a recent resourceVersion; an older
// one is served straight from etcd, as without the cache. Every read the
// cache cannot answer exactly goes to etcd, so it changes speed, never
// results.

// Defaults of the window of recent events.
const (
	DefaultWatchCacheEvents = 10000
	DefaultWatchCacheBytes  = 8 << 20
)

// freshTimeout bounds how long a read waits for the cache to reach the
// revision it needs before it goes to etcd instead (kube-apiserver waits
// 3 s; an etcd read is what the request would cost without the cache, so
// waiting longer than that costs never pays).
const freshTimeout = time.Second

// progressRetry is how often a waiting read asks etcd for progress again.
const progressRetry = 50 * time.Millisecond

// maxSnapshots bounds the cache states kept for paginated lists (a
// continue token at one of their revisions reads from memory); each lives
// snapshotTTL at most.
const (
	maxSnapshots = 4
	snapshotTTL  = 30 * time.Second
)

// CacheMetrics is told what the watch caches do, per resource
// ("<plural>.<group>").
type CacheMetrics interface {
	// CacheObjects is the number of objects a resource's cache holds.
	CacheObjects(resource string, n int)
	// EventsDispatched counts events handed to watchers.
	EventsDispatched(resource string, n int)
	// Watchers moves the number of watches served by the cache.
	Watchers(resource string, delta int)
	// CacheRead counts a list or get (verb) served from "cache" or "etcd".
	CacheRead(resource, verb, source string)
	// CacheInitialized counts (re)builds of a resource's cache.
	CacheInitialized(resource string)
}

// cacheEntry is one object as stored at rev: immutable once built. It
// keeps the stored bytes, which the JSON readers serve, and what selectors
// and indexes read (labels, selectable fields); the typed object is decoded
// from raw when a typed reader asks for it and kept only while someone
// holds it (object), so the cache holds one form of each object, not two.
type cacheEntry[T resource.Object] struct {
	key string
	// ns and name share key's bytes where it ends with them.
	ns   string
	name string
	// labels and fields (the kind's own selectable fields, none when it
	// has none) are the decoded object's, for selectors and indexes,
	// interned (cache_attrs.go).
	labels attrs
	fields entryFields
	// data is the stored (decrypted) value, served by the JSON readers;
	// packed (cache_object.go) when packed is set. n is its length
	// unpacked, what the bounds of windows and watchers count.
	data   []byte
	n      int
	packed bool
	rev    int64
	dec    *entryDecoder[T]

	objMu sync.Mutex
	obj   weakObj // the decoded object while something holds it

	jsonOnce sync.Once
	off      int
	mode     byte
	spliced  bool // data with resourceVersion at off is the typed JSON
	// enc is the typed JSON otherwise, or the error making it: rare, so
	// behind a pointer (an entry of 184 bytes instead of 216).
	enc *entryJSON
}

// entryJSON is the typed JSON of an entry whose stored bytes do not give
// it, or why it could not be made.
type entryJSON struct {
	data []byte
	err  error
}

func lessEntry[T resource.Object](a, b *cacheEntry[T]) bool { return a.key < b.key }

// cachedEvent is one change of the resource, shared by every watcher.
type cachedEvent[T resource.Object] struct {
	typ watch.EventType // Added, Modified, Deleted, or Bookmark
	rev int64
	ns  string
	cur *cacheEntry[T] // Added, Modified
	old *cacheEntry[T] // Modified, Deleted
	// gone is old at rev, the object of a DELETED event, decoded once
	// for every watcher that gets it.
	goneOnce sync.Once
	gone     T
	goneErr  error
	// bookmark is the object of a Bookmark.
	bookmark T
	// size is the stored bytes the event holds (both states of a
	// change), what the bounds of windows and watchers count.
	size int
	// memo holds the encodings of the event's object (cur, gone or
	// bookmark); prevMemo those of old at rev, sent as DELETED to a
	// watcher whose selector old matched and cur no longer does.
	memo, prevMemo Memo
	prevOnce       sync.Once
	prev           T
	prevErr        error
}

// watchCache is the cache of one Store.
type watchCache[T resource.Object, L resource.ListObject] struct {
	a      *access[T, L]
	prefix string
	opts   BackendOptions

	mu   sync.RWMutex
	tree *btree.BTreeG[*cacheEntry[T]]
	idx  *cacheIndex
	// rev: the cache holds etcd's state of the resource at rev.
	rev   int64
	ready bool
	// window holds the events after windowStart, oldest first.
	window      []*cachedEvent[T]
	windowBytes int
	windowStart int64
	watchers    map[*cacheWatcher[T, L]]struct{}
	dec         *entryDecoder[T]
	// gone are deleted objects this Store handed over, waiting for their
	// events (cache_gone.go).
	gone map[string]handedGone[T]
	// advanced is closed when rev moves; nil when nobody waits.
	advanced chan struct{}
	// snapshots are cache states kept for paginated lists, by revision.
	snapshots []snapshot[T]
	closed    bool

	// progress asks the reflector for a progress notification.
	progress chan struct{}
	done     chan struct{}
}

type snapshot[T resource.Object] struct {
	rev     int64
	tree    *btree.BTreeG[*cacheEntry[T]]
	expires time.Time
}

func newWatchCache[T resource.Object, L resource.ListObject](a *access[T, L], opts BackendOptions) *watchCache[T, L] {
	if opts.WatchCacheEvents <= 0 {
		opts.WatchCacheEvents = DefaultWatchCacheEvents
	}
	if opts.WatchCacheBytes <= 0 {
		opts.WatchCacheBytes = DefaultWatchCacheBytes
	}
	return &watchCache[T, L]{
		a:        a,
		prefix:   a.resourcePrefix(),
		opts:     opts,
		tree:     btree.NewG(32, lessEntry[T]),
		idx:      newCacheIndex(a.s.SelectableFields),
		watchers: map[*cacheWatcher[T, L]]struct{}{},
		dec:      newEntryDecoder(a.decode),
		progress: make(chan struct{}, 1),
		done:     make(chan struct{}),
	}
}

func (c *watchCache[T, L]) resource() string { return c.a.resourceName() }

func (c *watchCache[T, L]) metrics() CacheMetrics { return c.opts.CacheMetrics }

// run keeps the cache until ctx is done: list, then watch from the list's
// revision; a lost watch resumes where it stopped, a compacted one lists
// again (relist).
func (c *watchCache[T, L]) run(ctx context.Context) {
	defer c.close()
	backoff := 100 * time.Millisecond
	relist := true
	for ctx.Err() == nil {
		if relist {
			if err := c.load(ctx); err != nil {
				sleepCtx(ctx, backoff)
				backoff = min(2*backoff, 5*time.Second)
				continue
			}
			relist = false
		}
		err := c.follow(ctx)
		if errors.Is(err, errRelist) {
			relist = true
			continue
		}
		if err != nil {
			sleepCtx(ctx, backoff)
			backoff = min(2*backoff, 5*time.Second)
			continue
		}
		backoff = 100 * time.Millisecond
	}
}

var (
	errRelist      = errors.New("watch cache: revision compacted, list again")
	errWatchClosed = errors.New("watch cache: etcd watch closed")
)

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// cachePage is how many keys the cache reads from etcd at a time.
const cachePage = 1000

// load reads the whole resource at one revision and installs it.
func (c *watchCache[T, L]) load(ctx context.Context) error {
	a := c.a
	tree := btree.NewG(32, lessEntry[T])
	end := clientv3.GetPrefixRangeEnd(c.prefix)
	key := c.prefix
	var rev int64
	for {
		ops := []clientv3.OpOption{clientv3.WithRange(end), clientv3.WithLimit(cachePage)}
		if rev > 0 {
			ops = append(ops, clientv3.WithRev(rev))
		}
		start := time.Now()
		resp, err := a.b.client.Get(ctx, key, ops...)
		a.observe("list", start)
		if err != nil {
			return err
		}
		if rev == 0 {
			rev = resp.Header.Revision
		}
		a.fromStorageAll(ctx, resp.Kvs)
		objs, ok := a.decodeAll(resp.Kvs)
		for i, kv := range resp.Kvs {
			if ok[i] {
				tree.ReplaceOrInsert(c.newEntry(kv, objs[i]))
			}
		}
		if !resp.More || len(resp.Kvs) == 0 {
			break
		}
		key = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
	c.install(tree, rev)
	return nil
}

func (c *watchCache[T, L]) newEntry(kv *mvccpb.KeyValue, obj T) *cacheEntry[T] {
	e := &cacheEntry[T]{key: string(kv.Key), labels: makeAttrs(obj.GetLabels()), n: len(kv.Value), rev: kv.ModRevision, dec: c.dec}
	e.data, e.packed = c.dec.pack.pack(kv.Value)
	// The name and namespace are the key's last segments: share its
	// bytes rather than keep the decoded object's strings alive.
	e.name = suffixOf(e.key, obj.GetName())
	e.ns = obj.GetNamespace()
	// (A stored object whose name is not its key's is kept as it is.)
	if dir, ok := strings.CutSuffix(e.key, e.name); ok && e.ns != "" && strings.HasSuffix(dir, "/"+e.ns+"/") {
		e.ns = dir[len(dir)-len(e.ns)-1 : len(dir)-1]
	}
	if f := c.a.s.SelectableFields; f != nil {
		// Always a set: none means the kind selects on metadata only.
		set := f(obj)
		if set == nil {
			set = fields.Set{}
		}
		e.fields = makeEntryFields(set, e.name, e.ns)
	}
	e.obj = c.dec.weak(obj)
	return e
}

// install replaces the cache's state with tree, read at rev. Watchers of a
// rebuilt cache get the difference as events at rev: every object's last
// state, none twice, though the changes in between are folded into one.
func (c *watchCache[T, L]) install(tree *btree.BTreeG[*cacheEntry[T]], rev int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ready {
		var evs []*cachedEvent[T]
		c.tree.Ascend(func(old *cacheEntry[T]) bool {
			if _, ok := tree.Get(old); !ok {
				evs = append(evs, c.deleted(old, rev))
			}
			return true
		})
		tree.Ascend(func(cur *cacheEntry[T]) bool {
			old, ok := c.tree.Get(cur)
			switch {
			case !ok:
				evs = append(evs, &cachedEvent[T]{typ: watch.Added, rev: rev, ns: cur.ns, cur: cur, size: cur.n})
			case old.rev != cur.rev:
				evs = append(evs, &cachedEvent[T]{typ: watch.Modified, rev: rev, ns: cur.ns, cur: cur, old: old, size: cur.n + old.n})
			}
			return true
		})
		for _, ev := range evs {
			c.dispatch(ev)
		}
	}
	c.tree = tree
	c.idx = newCacheIndex(c.a.s.SelectableFields)
	tree.Ascend(func(e *cacheEntry[T]) bool {
		addEntry(c.idx, e)
		return true
	})
	c.window, c.windowBytes, c.windowStart = nil, 0, rev
	c.gone = nil // their events, if any, are folded into the rebuild
	c.setRev(rev)
	c.ready = true
	if m := c.metrics(); m != nil {
		m.CacheInitialized(c.resource())
		m.CacheObjects(c.resource(), tree.Len())
	}
}

// deleted is the event of old's deletion at rev.
func (c *watchCache[T, L]) deleted(old *cacheEntry[T], rev int64) *cachedEvent[T] {
	return &cachedEvent[T]{typ: watch.Deleted, rev: rev, ns: old.ns, old: old, size: old.n}
}

// goneObject is the object of a DELETED event: old as stored, at the
// event's revision.
func (ev *cachedEvent[T]) goneObject() (T, error) {
	ev.goneOnce.Do(func() {
		ev.gone, ev.goneErr = ev.old.decodeAt(ev.rev)
	})
	return ev.gone, ev.goneErr
}

// setRev moves the cache's revision and wakes whoever waits for it.
// c.mu is held.
func (c *watchCache[T, L]) setRev(rev int64) {
	if rev <= c.rev {
		return
	}
	c.rev = rev
	if c.advanced != nil {
		close(c.advanced)
		c.advanced = nil
	}
}

// follow watches etcd from the cache's revision until the watch fails.
func (c *watchCache[T, L]) follow(ctx context.Context) error {
	a := c.a
	// Its own gRPC stream: etcd answers a progress request only when every
	// watch of the stream has caught up, which request watches sharing it
	// need not have.
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(metadata.AppendToOutgoingContext(ctx, "kubeforge-watch-cache", c.resource())))
	defer cancel()
	c.mu.RLock()
	from := c.rev + 1
	c.mu.RUnlock()
	wch := a.b.client.Watch(wctx, c.prefix, clientv3.WithPrefix(), clientv3.WithRev(from), clientv3.WithProgressNotify())
	tick := time.NewTicker(a.b.opts.BookmarkInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			_ = a.b.client.RequestProgress(wctx)
		case <-c.progress:
			_ = a.b.client.RequestProgress(wctx)
		case resp, ok := <-wch:
			if !ok {
				return errWatchClosed
			}
			if resp.CompactRevision != 0 || isCompacted(resp.Err()) {
				return errRelist
			}
			if err := resp.Err(); err != nil {
				return err
			}
			if resp.IsProgressNotify() {
				c.progressed(resp.Header.Revision)
				continue
			}
			for _, e := range resp.Events {
				c.apply(ctx, e)
			}
		}
	}
}

// apply brings one etcd event into the cache and hands it to watchers.
// An unreadable new value removes the object, as a list leaves it out.
func (c *watchCache[T, L]) apply(ctx context.Context, e *clientv3.Event) {
	a := c.a
	rev := e.Kv.ModRevision
	var cur *cacheEntry[T]
	if e.Type == clientv3.EventTypePut {
		kv, _, err := a.fromStorage(ctx, e.Kv)
		if err != nil {
			a.unreadable(e.Kv.Key, err)
		} else if obj, ok := a.readable(kv); ok {
			cur = c.newEntry(kv, obj)
			cur.prove(obj, kv.Value)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old, had := c.tree.Get(&cacheEntry[T]{key: string(e.Kv.Key)})
	var ev *cachedEvent[T]
	switch {
	case cur != nil:
		c.tree.ReplaceOrInsert(cur)
		if had {
			removeEntry(c.idx, old)
			ev = &cachedEvent[T]{typ: watch.Modified, rev: rev, ns: cur.ns, cur: cur, old: old, size: cur.n + old.n}
		} else {
			ev = &cachedEvent[T]{typ: watch.Added, rev: rev, ns: cur.ns, cur: cur, size: cur.n}
		}
		addEntry(c.idx, cur)
	case had:
		c.tree.Delete(old)
		removeEntry(c.idx, old)
		ev = c.deleted(old, rev)
	}
	c.setRev(rev)
	if ev == nil {
		return
	}
	if len(c.gone) > 0 {
		c.takeGone(e.Kv.Key, ev)
	}
	c.record(ev)
	c.dispatch(ev)
	if m := c.metrics(); m != nil {
		m.CacheObjects(c.resource(), c.tree.Len())
	}
}

// record appends ev to the window, dropping the oldest events past its
// bounds. c.mu is held.
func (c *watchCache[T, L]) record(ev *cachedEvent[T]) {
	c.window = append(c.window, ev)
	c.windowBytes += ev.size
	for len(c.window) > 1 && (len(c.window) > c.opts.WatchCacheEvents || c.windowBytes > c.opts.WatchCacheBytes) {
		first := c.window[0]
		c.window[0] = nil
		c.window = c.window[1:]
		c.windowBytes -= first.size
		c.windowStart = first.rev
	}
}

// progressed is a progress notification: etcd is at rev and the cache has
// every event before it. Watchers that allow bookmarks get one.
func (c *watchCache[T, L]) progressed(rev int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setRev(rev)
	var ev *cachedEvent[T]
	for w := range c.watchers {
		if !w.bookmarks {
			continue
		}
		if ev == nil {
			ev = &cachedEvent[T]{typ: watch.Bookmark, rev: c.rev, bookmark: c.a.bookmark(c.rev, false)}
		}
		w.enqueue(ev)
	}
}

// dispatch hands ev to every watcher of its namespace. c.mu is held.
func (c *watchCache[T, L]) dispatch(ev *cachedEvent[T]) {
	n := 0
	for w := range c.watchers {
		if w.ns != "" && w.ns != ev.ns {
			continue
		}
		w.enqueue(ev)
		n++
	}
	if m := c.metrics(); m != nil && n > 0 {
		m.EventsDispatched(c.resource(), n)
	}
}

// close ends every watcher (the server is stopping).
func (c *watchCache[T, L]) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	c.ready = false
	for w := range c.watchers {
		w.end()
	}
	close(c.done)
}

// waitRev waits until the cache holds etcd's state at rev or later; false
// when it does not within freshTimeout (or ctx ends): read etcd then.
func (c *watchCache[T, L]) waitRev(ctx context.Context, rev int64) bool {
	var timer *time.Timer
	for {
		c.mu.Lock()
		if !c.ready || c.closed {
			c.mu.Unlock()
			return false
		}
		if c.rev >= rev {
			c.mu.Unlock()
			return true
		}
		if c.advanced == nil {
			c.advanced = make(chan struct{})
		}
		ch := c.advanced
		c.mu.Unlock()
		select {
		case c.progress <- struct{}{}:
		default:
		}
		if timer == nil {
			timer = time.NewTimer(freshTimeout)
			defer timer.Stop()
		}
		// etcd drops a progress request that arrives while the watch is
		// catching up: ask again until the answer comes.
		retry := time.NewTimer(progressRetry)
		select {
		case <-ch:
		case <-retry.C:
		case <-timer.C:
			retry.Stop()
			return false
		case <-ctx.Done():
			retry.Stop()
			return false
		}
		retry.Stop()
	}
}

// reach is waitRev for a resourceVersion a client gave: one etcd has not
// reached either is answered by etcd at once (504 Too large resource
// version) instead of after freshTimeout.
func (c *watchCache[T, L]) reach(ctx context.Context, rev int64) bool {
	c.mu.RLock()
	ok := c.ready && c.rev >= rev
	c.mu.RUnlock()
	if ok {
		return true
	}
	if cur, err := c.consistentRev(ctx); err != nil || cur < rev {
		return false
	}
	return c.waitRev(ctx, rev)
}

// consistentRev is the revision a consistent read must see: etcd's
// current one, read with a quorum.
func (c *watchCache[T, L]) consistentRev(ctx context.Context) (int64, error) {
	return c.a.currentRevision(ctx)
}

// json returns the typed path's JSON of e (json.Marshal of e.obj), from
// the stored bytes when splicing resourceVersion in gives exactly that.
// proven is the store's memory of stored versions whose splice was
// checked (rawjson.go), shared both ways with the etcd reads: a version
// one of them checked is not encoded again to check it by the other.
func (e *cacheEntry[T]) json(proven *rawCache) (jsonItem, error) {
	it, err := e.listItem(proven)
	if err != nil || it.packed == nil {
		return it, err
	}
	// Spliced here for callers that splice raw themselves (getJSON):
	// one copy instead of an unpacked one and then the spliced one.
	enc, err := appendStoredSpliced(make([]byte, 0, e.n+spliceLen(it.mode, it.rv)), it.packed, it.raw, it.off, it.mode, it.rv)
	return jsonItem{enc: enc}, err
}

// prove checks, as an entry's JSON is first read, that raw (its stored
// bytes, unpacked) with resourceVersion spliced in is json.Marshal of obj,
// the object decoded from them, and remembers it when so. The watch cache
// calls it as it takes a change in, while it has the decoded object: one
// encode per write (which an HTTP watcher pays anyway) instead of a decode
// and an encode on the first read of the version, which is most often a
// read soon after the write (a client's GET before its next update).
// When the splice does not hold nothing is kept (the first read decides,
// and keeps the encoding only if it is read).
func (e *cacheEntry[T]) prove(obj T, raw []byte) {
	off, mode, ok := spliceOffset(raw)
	if !ok {
		return
	}
	// The encoding is only compared: encoded into a reused buffer.
	bp := proveBufs.Get().(*[]byte)
	enc, err := jsonencode.AppendMarshal((*bp)[:0], obj)
	held := err == nil && len(enc) == len(raw)+spliceLen(mode, e.rev) && splicedEqual(enc, raw, off, mode, e.rev)
	if cap(enc) <= proveBufMax {
		*bp = enc
		proveBufs.Put(bp)
	}
	if !held {
		return
	}
	e.jsonOnce.Do(func() { e.off, e.mode, e.spliced = off, mode, true })
}

// proveBufs are prove's encoding buffers; one grown past proveBufMax (a
// huge object) is not kept.
var proveBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

const proveBufMax = 1 << 20

// splicedEqual reports whether enc is raw with resourceVersion rv spliced
// in at off (appendSpliced), without building it.
func splicedEqual(enc, raw []byte, off int, mode byte, rv int64) bool {
	var b [48]byte
	ins := appendSpliced(b[:0], nil, 0, mode, rv)
	return len(enc) == len(raw)+len(ins) && bytes.Equal(enc[:off], raw[:off]) &&
		bytes.Equal(enc[off:off+len(ins)], ins) && bytes.Equal(enc[off+len(ins):], raw[off:])
}

// listItem is json with the stored bytes as kept: a list holds the items
// of a whole collection until it has written them, which packed take a
// fraction of the memory; JSONList.Next unpacks each as it writes it.
func (e *cacheEntry[T]) listItem(proven *rawCache) (jsonItem, error) {
	e.jsonOnce.Do(func() {
		raw, err := e.stored()
		if err != nil {
			e.enc = &entryJSON{err: err}
			return
		}
		if re := proven.lookupAt(e.key, e.rev, raw); re != nil {
			e.off, e.mode, e.spliced = re.off, re.mode, true
			return
		}
		obj, err := e.object()
		if err != nil {
			e.enc = &entryJSON{err: err}
			return
		}
		enc, err := jsonencode.Marshal(obj)
		if err != nil {
			e.enc = &entryJSON{err: err}
			return
		}
		off, mode, ok := spliceOffset(raw)
		if ok && len(enc) == len(raw)+spliceLen(mode, e.rev) &&
			bytes.Equal(appendSpliced(make([]byte, 0, len(enc)), raw, off, mode, e.rev), enc) {
			e.off, e.mode, e.spliced = off, mode, true
			proven.put([]byte(e.key), proven.entry(e.rev, raw, off, mode, obj))
			return
		}
		e.enc = &entryJSON{data: enc}
	})
	if e.spliced {
		it := jsonItem{raw: e.data, rv: e.rev, off: e.off, mode: e.mode}
		if e.packed {
			it.packed = &e.dec.pack
		}
		return it, nil
	}
	return jsonItem{enc: e.enc.data}, e.enc.err
}

// matchesEntry is matches for a cached object, read from the labels and
// fields the entry keeps; only a converted view's field selector decodes
// the object.
func matchesEntry[T resource.Object](p predicate, e *cacheEntry[T]) (bool, error) {
	if !p.label.Empty() && !p.label.Matches(e.labels) {
		return false, nil
	}
	if p.field.Empty() {
		return true, nil
	}
	if p.fieldsOf == nil || (p.own && !e.fields.rest.valid()) {
		// metadata.name and metadata.namespace only.
		return p.field.Matches(entryFields{own: 3}.set(e.name, e.ns)), nil
	}
	if p.own {
		return p.field.Matches(e.fields.set(e.name, e.ns)), nil
	}
	obj, err := e.object()
	if err != nil {
		return false, err
	}
	set, err := p.fieldsOf(obj)
	if err != nil {
		return false, err
	}
	return p.field.Matches(set), nil
}
