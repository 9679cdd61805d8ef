package options

import (
	"flag"

	"github.com/kubeforge/kubeforge/runtime/server"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// WatchCache is the in-memory copy of each resource that serves watches,
// and lists and gets whose resourceVersion allows it.
type WatchCache struct {
	Enabled bool
	Events  int
	Bytes   int
}

// NewWatchCache returns the default: on, with storage's window of recent
// events.
func NewWatchCache() *WatchCache {
	return &WatchCache{Enabled: true, Events: storage.DefaultWatchCacheEvents, Bytes: storage.DefaultWatchCacheBytes}
}

func (o *WatchCache) AddFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.Enabled, "watch-cache", o.Enabled, "serve watches, and lists and gets whose resourceVersion allows it, from an in-memory copy of each resource fed by one etcd watch; false reads etcd every time")
	fs.IntVar(&o.Events, "watch-cache-events", o.Events, "the most recent events per resource a watch can resume from without etcd")
	fs.IntVar(&o.Bytes, "watch-cache-bytes", o.Bytes, "the most stored bytes of recent events kept per resource for resuming watches")
}

// Validate accepts any window: storage takes zero or less as its default.
func (o *WatchCache) Validate() []error { return nil }

func (o *WatchCache) ApplyTo(cfg *server.Config) error {
	cfg.NoWatchCache = !o.Enabled
	cfg.WatchCacheEvents, cfg.WatchCacheBytes = o.Events, o.Bytes
	return nil
}

// GarbageCollection is deletion through ownerReferences.
type GarbageCollection struct {
	Enabled bool
	Workers int
}

// NewGarbageCollection returns the default: on, with 10 workers.
func NewGarbageCollection() *GarbageCollection { return &GarbageCollection{Enabled: true, Workers: 10} }

func (o *GarbageCollection) AddFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.Enabled, "enable-garbage-collector", o.Enabled, "garbage collection through ownerReferences: deletes honour propagationPolicy (orphan and foregroundDeletion finalizers) and, in standalone mode, the server's garbage collector deletes dependents whose owners are gone (in aggregated mode the main cluster's kube-controller-manager does)")
	fs.IntVar(&o.Workers, "concurrent-gc-syncs", o.Workers, "garbage collector workers deleting dependents at once")
}

// Validate accepts any worker count: the collector takes zero or less as
// its default.
func (o *GarbageCollection) Validate() []error { return nil }

func (o *GarbageCollection) ApplyTo(cfg *server.Config) error {
	cfg.NoGarbageCollector = !o.Enabled
	cfg.GarbageCollectorWorkers = o.Workers
	return nil
}
