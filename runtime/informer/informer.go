// Package informer keeps every object of one store in memory, current
// through a watch from the revision of an initial list, so that the
// authorizer and the authenticator answer from memory instead of reading
// etcd per request. After a watch error (a compacted revision, etcd gone)
// it lists again.
package informer

import (
	"context"
	"log/slog"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubeforge/kubeforge/runtime/resource"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// Cache is the in-memory copy of one store's objects. Objects it returns
// are shared: callers must not modify them.
type Cache[T resource.Object, L resource.ListObject] struct {
	store    storage.Interface[T, L]
	onChange func()
	log      *slog.Logger

	mu      sync.RWMutex
	objects map[key]T
	synced  chan struct{}
	once    sync.Once
}

type key struct{ namespace, name string }

// New returns a cache of store; onChange (may be nil) is called after
// every change, outside the cache's lock.
func New[T resource.Object, L resource.ListObject](store storage.Interface[T, L], onChange func(), log *slog.Logger) *Cache[T, L] {
	if log == nil {
		log = slog.Default()
	}
	return &Cache[T, L]{store: store, onChange: onChange, log: log, objects: map[key]T{}, synced: make(chan struct{})}
}

// Synced is closed once the first list is in.
func (c *Cache[T, L]) Synced() <-chan struct{} { return c.synced }

// Get returns the object, if cached.
func (c *Cache[T, L]) Get(namespace, name string) (T, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	o, ok := c.objects[key{namespace, name}]
	return o, ok
}

// List returns every cached object.
func (c *Cache[T, L]) List() []T {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]T, 0, len(c.objects))
	for _, o := range c.objects {
		out = append(out, o)
	}
	return out
}

// Run lists and watches until ctx ends.
func (c *Cache[T, L]) Run(ctx context.Context) {
	Reflect(ctx, c.list, c.watch, func(err error) {
		c.log.Debug("informer: list or watch failed; retrying", "resource", c.store, "err", err)
	})
}

func (c *Cache[T, L]) list(ctx context.Context) (string, error) {
	l, err := c.store.List(ctx, "", storage.ListOptions{})
	if err != nil {
		return "", err
	}
	items, err := meta.ExtractList(l)
	if err != nil {
		return "", err
	}
	objects := make(map[key]T, len(items))
	for _, it := range items {
		if o, ok := it.(T); ok {
			objects[key{o.GetNamespace(), o.GetName()}] = o
		}
	}
	c.mu.Lock()
	c.objects = objects
	c.mu.Unlock()
	c.once.Do(func() { close(c.synced) })
	c.changed()
	return l.GetResourceVersion(), nil
}

func (c *Cache[T, L]) watch(ctx context.Context, rv string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts := storage.WatchOptions{}
	opts.ResourceVersion = rv
	events, err := c.store.Watch(ctx, "", opts)
	if err != nil {
		return err
	}
	for ev := range events {
		switch ev.Type {
		case watch.Added, watch.Modified:
			c.mu.Lock()
			c.objects[key{ev.Object.GetNamespace(), ev.Object.GetName()}] = ev.Object
			c.mu.Unlock()
		case watch.Deleted:
			c.mu.Lock()
			delete(c.objects, key{ev.Object.GetNamespace(), ev.Object.GetName()})
			c.mu.Unlock()
		case watch.Error:
			return errWatch
		default:
			continue
		}
		c.changed()
	}
	return nil
}

func (c *Cache[T, L]) changed() {
	if c.onChange != nil {
		c.onChange()
	}
}

type watchError struct{}

func (watchError) Error() string { return "watch ended with an error event" }

var errWatch error = watchError{}
