package storage

import (
	"context"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

// reader answers every read of a Store, once the Store has checked the
// request (name, namespace, options) and compiled its selectors. NewStore
// picks one for good: etcdReader, or cacheReader when the backend has
// watch caches. cacheReader answers from memory what the cache holds
// exactly and hands everything else to the same etcdReader, so the cache
// changes how fast a read is answered, never what it answers (kube's
// CacheDelegator plays this role).
type reader[T resource.Object, L resource.ListObject] interface {
	// get reads the object at key (name is for errors).
	get(ctx context.Context, key, name string, opts GetOptions) (T, error)
	// getJSON is json.Marshal of what get returns (see JSONReader).
	getJSON(ctx context.Context, key, name string, opts GetOptions) ([]byte, error)
	// list reads the items of namespace pred selects, with the list's
	// revision, continue token and the count of keys left after it.
	list(ctx context.Context, namespace string, opts ListOptions, pred predicate) (items []T, rev int64, cont string, remaining int64, err error)
	// listJSON is list as JSON, pages (limit, continue) and selectable
	// fields included; a converted view's options take the typed path
	// (see JSONReader.ListJSON).
	listJSON(ctx context.Context, namespace string, opts ListOptions, pred predicate) (*JSONList, error)
	// watch streams the events of namespace from rv (see Store.Watch).
	watch(ctx context.Context, namespace string, opts WatchOptions, pred predicate, rv int64) (<-chan Event[T], error)
	// guess is the object at key as last seen, stored at rev as raw: the
	// first guess of a write (ok false: none, read etcd).
	guess(key string) (obj T, raw []byte, rev int64, ok bool)
	// handsGone reports whether a delete should hand its object over
	// (gone): a watch cache with watchers.
	handsGone() bool
	// gone hands the cache obj, the object of key's value stored at
	// oldRev, which a delete is about to delete, for the watchers of its
	// DELETED event; obj is the reader's from now on.
	gone(key string, oldRev int64, obj T)
	// recentRV is the resourceVersion of the cheapest list that sees every
	// object as of about now (the garbage collector's): "0" from memory,
	// "" (a quorum read) from etcd.
	recentRV() string
	// requestProgress asks etcd to report the progress of the reader's
	// watches: a watch with WatchOptions.Progress gets a BOOKMARK at
	// etcd's revision once it has every event before it.
	requestProgress(ctx context.Context)
}

// etcdReader reads etcd for every request.
type etcdReader[T resource.Object, L resource.ListObject] struct {
	*access[T, L]
}

func (st etcdReader[T, L]) get(ctx context.Context, key, name string, opts GetOptions) (T, error) {
	kv, err := st.getKV(ctx, key, name, opts)
	if err != nil {
		var zero T
		return zero, err
	}
	return st.decode(kv.Value, kv.ModRevision)
}

// getKV reads the stored value of one object for Get and GetJSON.
func (st etcdReader[T, L]) getKV(ctx context.Context, key, name string, opts GetOptions) (*mvccpb.KeyValue, error) {
	var minRV int64
	var err error
	var ops []clientv3.OpOption
	switch opts.ResourceVersion {
	case "":
	case "0":
		ops = append(ops, clientv3.WithSerializable())
	default:
		if minRV, err = parseRV(opts.ResourceVersion); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	resp, err := st.b.client.Get(ctx, key, ops...)
	st.observe("get", start)
	if err != nil {
		return nil, st.etcdError(ctx, "get", name, err)
	}
	if minRV > resp.Header.Revision {
		return nil, tooLargeRV(minRV, resp.Header.Revision)
	}
	if len(resp.Kvs) == 0 {
		return nil, apierrors.NewNotFound(st.s.Info.GroupResource(), name)
	}
	kv, _, err := st.fromStorage(ctx, resp.Kvs[0])
	return kv, err
}

func (etcdReader[T, L]) guess(string) (T, []byte, int64, bool) {
	var zero T
	return zero, nil, 0, false
}

func (etcdReader[T, L]) recentRV() string { return "" }

// requestProgress asks on the gRPC stream the etcd-served watches share
// (their context carries only the require-leader metadata); etcd answers
// only once every watch of it has caught up, so callers ask again.
func (st etcdReader[T, L]) requestProgress(ctx context.Context) {
	_ = st.b.client.RequestProgress(clientv3.WithRequireLeader(ctx))
}

func (etcdReader[T, L]) handsGone() bool { return false }

func (etcdReader[T, L]) gone(string, int64, T) {}

// cacheReader serves from the watch cache what it can answer exactly (see
// cache_read.go and cache_watch.go), and the rest from etcd.
type cacheReader[T resource.Object, L resource.ListObject] struct {
	c    *watchCache[T, L]
	etcd etcdReader[T, L]
}

func (r cacheReader[T, L]) get(ctx context.Context, key, name string, opts GetOptions) (T, error) {
	e, err := r.cached(ctx, key, name, opts)
	if e == nil || err != nil {
		if err != nil {
			var zero T
			return zero, err
		}
		return r.etcd.get(ctx, key, name, opts)
	}
	return e.object()
}

func (r cacheReader[T, L]) getJSON(ctx context.Context, key, name string, opts GetOptions) ([]byte, error) {
	e, err := r.cached(ctx, key, name, opts)
	if e == nil || err != nil {
		if err != nil {
			return nil, err
		}
		return r.etcd.getJSON(ctx, key, name, opts)
	}
	it, err := e.json(r.etcd.raw)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if it.raw == nil {
		return it.enc, nil
	}
	return appendSpliced(make([]byte, 0, len(it.raw)+32), it.raw, it.off, it.mode, it.rv), nil
}

// cached is the cache's entry of key when the resourceVersion lets the
// cache answer (a missing object is a 404 then); nil: read etcd.
func (r cacheReader[T, L]) cached(ctx context.Context, key, name string, opts GetOptions) (*cacheEntry[T], error) {
	e, found, ok, err := r.c.get(ctx, key, opts)
	if err != nil || !ok {
		return nil, err
	}
	if !found {
		return nil, apierrors.NewNotFound(r.etcd.s.Info.GroupResource(), name)
	}
	return e, nil
}

func (r cacheReader[T, L]) list(ctx context.Context, namespace string, opts ListOptions, pred predicate) ([]T, int64, string, int64, error) {
	items, rev, cont, remaining, ok, err := r.c.list(ctx, namespace, opts, pred)
	if ok || err != nil {
		return items, rev, cont, remaining, err
	}
	return r.etcd.list(ctx, namespace, opts, pred)
}

func (r cacheReader[T, L]) listJSON(ctx context.Context, namespace string, opts ListOptions, pred predicate) (*JSONList, error) {
	if l, ok, err := r.c.listJSON(ctx, namespace, opts, pred); ok || err != nil {
		return l, err
	}
	return r.etcd.listJSON(ctx, namespace, opts, pred)
}

func (r cacheReader[T, L]) watch(ctx context.Context, namespace string, opts WatchOptions, pred predicate, rv int64) (<-chan Event[T], error) {
	if ch, ok, err := r.c.watch(ctx, namespace, opts, pred, rv); ok || err != nil {
		return ch, err
	}
	return r.etcd.watch(ctx, namespace, opts, pred, rv)
}

func (r cacheReader[T, L]) guess(key string) (T, []byte, int64, bool) {
	e, ok := r.c.entry(key)
	if !ok {
		var zero T
		return zero, nil, 0, false
	}
	obj, data, err := e.privateStored()
	if err != nil {
		return obj, nil, 0, false
	}
	return obj, data, e.rev, true
}

func (cacheReader[T, L]) recentRV() string { return "0" }

// requestProgress asks the cache's reflector, and the shared stream of
// the watches the cache could not serve.
func (r cacheReader[T, L]) requestProgress(ctx context.Context) {
	select {
	case r.c.progress <- struct{}{}:
	default:
	}
	r.etcd.requestProgress(ctx)
}

func (r cacheReader[T, L]) handsGone() bool { return r.c.watched() }

func (r cacheReader[T, L]) gone(key string, oldRev int64, obj T) {
	r.c.handGone(key, oldRev, obj)
}
