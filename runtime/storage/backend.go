package storage

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/storage/value"
)

// DefaultBookmarkInterval is how often a watch with bookmarks asks etcd for
// its progress and sends a BOOKMARK.
const DefaultBookmarkInterval = 10 * time.Second

// BackendOptions tunes a Backend.
type BackendOptions struct {
	// ObserveLatency, when set, is called after every etcd request with the
	// operation (get, list, create, update, delete, watch, compact, ready)
	// and the resource ("<plural>.<group>"); "revision" (resource "") is a
	// read of etcd's current revision for consistent reads, one shared by
	// the requests of every resource that arrived while the previous one
	// was in flight.
	ObserveLatency func(operation, resource string, d time.Duration)
	// BookmarkInterval is the period of BOOKMARK events on watches that
	// allow them; DefaultBookmarkInterval when zero.
	BookmarkInterval time.Duration
	// TTL, when set, gives the objects of a resource a time to live (0 for
	// none): every create and update of such an object attaches it to an
	// etcd lease that expires no sooner than the TTL later (kube-apiserver's
	// --event-ttl for events). It is asked with the resource of the Store,
	// the stored one: a view served through NewConverted writes through its
	// hub store and gets the hub's TTL.
	TTL func(schema.GroupResource) time.Duration
	// Transformer, when set, returns the transformer that encrypts a
	// resource's values at rest, nil for none. It is asked with the
	// resource of the Store (the stored one), once per Store.
	Transformer func(schema.GroupResource) value.Transformer
	// MaxRequestBytes is the largest request etcd accepts (etcd's
	// --max-request-bytes, DefaultMaxRequestBytes when zero): a write
	// that would exceed it is refused with 413 before it is sent.
	MaxRequestBytes int
	// Unreadable, when set, is told about every stored value a list,
	// watch or collection delete leaves out because it cannot be decoded
	// or decrypted (the resource, the etcd key, why). Reading such an
	// object by name is a 500, as with kube-apiserver.
	Unreadable func(resource, key string, err error)
	// SlowWatcher, when set, is told when a watch of resource is ended
	// because its client fell more than maxPendingEvents or
	// maxPendingBytes behind.
	SlowWatcher func(resource string)
	// WatchCache gives every Store a watch cache (cache.go): watches,
	// and lists and gets whose resourceVersion allows it, are served from
	// memory. Off, every read goes to etcd.
	WatchCache bool
	// WatchCacheEvents and WatchCacheBytes bound the window of recent
	// events a watch can resume from (by count and by stored bytes);
	// DefaultWatchCacheEvents and DefaultWatchCacheBytes when zero.
	WatchCacheEvents int
	WatchCacheBytes  int
	// NoGarbageCollection turns off the store's half of garbage
	// collection (kube-apiserver's --enable-garbage-collector=false): a
	// delete then adds no "orphan" or "foregroundDeletion" finalizer,
	// whatever its propagationPolicy, since nothing would remove them.
	NoGarbageCollection bool
	// CacheMetrics, when set, is told what the watch caches do.
	CacheMetrics CacheMetrics
}

// DefaultMaxRequestBytes is etcd's default --max-request-bytes (1.5 MiB).
const DefaultMaxRequestBytes = 1536 * 1024

// requestOverhead is room for what a write adds to key and value in its
// etcd request (the transaction's compare, the lease, framing).
const requestOverhead = 512

// Backend is an etcd client plus the key prefix every store writes under.
type Backend struct {
	client *clientv3.Client
	prefix string
	opts   BackendOptions
	leases *leaseManager
	// revs batches the reads of etcd's current revision (revision.go).
	revs *revisions
	// ctx bounds the watch caches; Close cancels it and waits for them.
	ctx    context.Context
	cancel context.CancelFunc
	caches sync.WaitGroup
}

// NewBackend wraps client; prefix defaults to "/registry".
func NewBackend(client *clientv3.Client, prefix string, opts BackendOptions) *Backend {
	prefix = strings.TrimRight(prefix, "/")
	if prefix == "" {
		prefix = "/registry"
	}
	if !strings.HasPrefix(prefix, "/") {
		prefix = "/" + prefix
	}
	if opts.BookmarkInterval <= 0 {
		opts.BookmarkInterval = DefaultBookmarkInterval
	}
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = DefaultMaxRequestBytes
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &Backend{client: client, prefix: prefix, opts: opts, leases: newLeaseManager(client), ctx: ctx, cancel: cancel}
	b.revs = newRevisions(b)
	return b
}

// Close stops the watch caches (their watches end) and waits for them.
// The client stays open.
func (b *Backend) Close() {
	b.cancel()
	b.caches.Wait()
}

// startCache runs run until Close.
func (b *Backend) startCache(run func(ctx context.Context)) {
	b.caches.Add(1)
	go func() {
		defer b.caches.Done()
		run(b.ctx)
	}()
}

// Client returns the etcd client.
func (b *Backend) Client() *clientv3.Client { return b.client }

// Prefix returns the key prefix, without a trailing slash.
func (b *Backend) Prefix() string { return b.prefix }

func (b *Backend) observe(op, resource string, start time.Time) {
	if b.opts.ObserveLatency != nil {
		b.opts.ObserveLatency(op, resource, time.Since(start))
	}
}

func (b *Backend) compactKey() string { return b.prefix + "/compact_rev_key" }

// Ready performs a cheap quorum (linearizable) read.
func (b *Backend) Ready(ctx context.Context) error {
	start := time.Now()
	_, err := b.client.Get(ctx, b.compactKey(), clientv3.WithCountOnly())
	b.observe("ready", "", start)
	if err != nil {
		return fmt.Errorf("check etcd readiness: %w", err)
	}
	return nil
}

// RunCompactor compacts etcd every interval until ctx is done, like
// kube-apiserver: each tick compacts to the revision seen at the previous
// tick. A compare-and-swap on <prefix>/compact_rev_key elects one compactor
// per interval when several apiservers share one etcd.
func (b *Backend) RunCompactor(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	var compactTime, rev int64
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		ct, r, err := b.compactOnce(ctx, compactTime, rev)
		if err != nil {
			// Keep the last known state and try again next tick.
			continue
		}
		compactTime, rev = ct, r
	}
}

// compactOnce records rev under the compact key if nobody else did since
// version t, then compacts to rev. It returns the key's version and the
// current revision to use at the next tick.
func (b *Backend) compactOnce(ctx context.Context, t, rev int64) (int64, int64, error) {
	start := time.Now()
	resp, err := b.client.Txn(ctx).If(
		clientv3.Compare(clientv3.Version(b.compactKey()), "=", t),
	).Then(
		clientv3.OpPut(b.compactKey(), strconv.FormatInt(rev, 10)),
	).Else(
		clientv3.OpGet(b.compactKey()),
	).Commit()
	b.observe("compact", "", start)
	if err != nil {
		return t, rev, fmt.Errorf("record compaction revision %d: %w", rev, err)
	}
	curRev := resp.Header.Revision
	if !resp.Succeeded {
		kvs := resp.Responses[0].GetResponseRange().Kvs
		if len(kvs) == 0 {
			return 0, curRev, nil
		}
		return kvs[0].Version, curRev, nil
	}
	curTime := t + 1
	if rev == 0 {
		return curTime, curRev, nil
	}
	start = time.Now()
	_, err = b.client.Compact(ctx, rev)
	b.observe("compact", "", start)
	if err != nil && !isCompacted(err) {
		return curTime, curRev, fmt.Errorf("compact etcd to revision %d: %w", rev, err)
	}
	return curTime, curRev, nil
}
