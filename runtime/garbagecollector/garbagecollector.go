// Package garbagecollector is the garbage collector of a standalone
// server, with kube-controller-manager's semantics
// (k8s.io/kubernetes/pkg/controller/garbagecollector):
//
//   - A graph of every object of every served kind, keyed by uid, with its
//     owner references and its dependents, kept by one goroutine from the
//     stores' lists and watches (the watch caches: no etcd read per
//     event). An owner some dependent names but no watch has shown is a
//     virtual node, checked against the live object.
//   - attemptToDelete: a dependent whose owners are all gone (checked by
//     uid against the live object, not by name; an owner that never
//     existed is dangling too) is deleted, with the propagation policy of
//     its own finalizers (background by default); one live owner keeps it,
//     and dangling references beside it are removed. An owner being
//     deleted in the foreground has its dependents deleted (in the
//     foreground when they have dependents of their own) and loses its
//     foregroundDeletion finalizer once no dependent with
//     blockOwnerDeletion: true is left.
//   - attemptToOrphan: an owner deleted with the orphan finalizer has its
//     reference removed from each dependent (other owners kept), then the
//     finalizer.
//   - Scope: a namespaced dependent's owner of a namespaced kind is looked
//     up in the dependent's namespace, one of a cluster-scoped kind
//     cluster-wide; a cluster-scoped dependent naming a namespaced owner is
//     an invalid reference, left alone; a dependent naming an owner observed
//     in another namespace gets a Warning event OwnerRefInvalidNamespace.
//
// Several replicas run it at once, as they run the namespace controller:
// every write it makes is conditional (deletes carry a uid precondition and
// are etcd compare-and-swaps, reference and finalizer removals are
// guaranteed updates of the object with that uid), so two replicas that
// act on the same object at once make one change and the other finds it
// done (404, or nothing left to remove). Nothing is kept outside etcd: a
// replica that starts (or restarts after a crash half way through a
// foreground or orphan deletion) rebuilds the graph from the lists, finds
// the owners being deleted and their dependents, and carries on.
package garbagecollector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/workqueue"

	"github.com/kubeforge/kubeforge/runtime/informer"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// Defaults of Options.
const (
	DefaultWorkers        = 10
	DefaultAbsentCacheLen = 10000
)

// EventStore is the core/v1 Event store warnings are recorded in.
type EventStore = storage.Interface[*corev1.Event, *corev1.EventList]

// Options tune a GarbageCollector.
type Options struct {
	// Logger receives what the collector does (default slog.Default()).
	Logger *slog.Logger
	// Workers: concurrent attemptToDelete workers (default 10, kube's
	// --concurrent-gc-syncs is 20); attemptToOrphan gets half as many.
	Workers int
	// Registerer, when set, gets the collector's metrics.
	Registerer prometheus.Registerer
	// Events, when set, records the Warning events kube's collector
	// records (OwnerRefInvalidNamespace).
	Events EventStore
	// AbsentCacheLen bounds the cache of owners known to be absent.
	AbsentCacheLen int
}

// resourceKind is a served kind the graph is fed from.
type resourceKind struct {
	store      storage.Objects
	apiVersion string // the storage version's
	kind       string
	gk         schema.GroupKind
	namespaced bool
}

// GarbageCollector is one replica's collector. Build it with New, run it
// with Run.
type GarbageCollector struct {
	log   *slog.Logger
	opts  Options
	kinds []*resourceKind
	byGK  map[schema.GroupKind]*resourceKind

	// mu guards the graph: nodes and every node's fields, seen and
	// advanced.
	mu    sync.RWMutex
	nodes map[types.UID]*node
	// seen is, per kind, the revision up to which the graph has applied
	// every change (events, and the watch's bookmarks in between).
	seen map[*resourceKind]int64
	// advanced is closed when seen moves; nil when nobody waits.
	advanced chan struct{}

	changes         *changeQueue
	attemptToDelete workqueue.TypedRateLimitingInterface[types.UID]
	attemptToOrphan workqueue.TypedRateLimitingInterface[types.UID]
	absent          *absentCache

	metrics *gcMetrics

	// synced is closed once every kind's first list is in the graph.
	synced chan struct{}
}

// New returns a collector over every store in stores that can be listed,
// watched and written untyped (storage.Objects: every *storage.Store).
func New(stores []storage.Collection, opts Options) *GarbageCollector {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.AbsentCacheLen <= 0 {
		opts.AbsentCacheLen = DefaultAbsentCacheLen
	}
	gc := &GarbageCollector{
		log:     opts.Logger.With("controller", "garbagecollector"),
		opts:    opts,
		byGK:    map[schema.GroupKind]*resourceKind{},
		nodes:   map[types.UID]*node{},
		seen:    map[*resourceKind]int64{},
		changes: newChangeQueue(),
		attemptToDelete: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[types.UID](),
			workqueue.TypedRateLimitingQueueConfig[types.UID]{Name: "garbage_collector_attempt_to_delete"}),
		attemptToOrphan: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[types.UID](),
			workqueue.TypedRateLimitingQueueConfig[types.UID]{Name: "garbage_collector_attempt_to_orphan"}),
		absent: newAbsentCache(opts.AbsentCacheLen),
		synced: make(chan struct{}),
	}
	for _, c := range stores {
		o, ok := c.(storage.Objects)
		if !ok {
			continue
		}
		info := c.Info()
		v := info.StorageVersion
		if v == "" {
			v = info.Version
		}
		gv := schema.GroupVersion{Group: info.Group, Version: v}
		k := &resourceKind{store: o, apiVersion: gv.String(), kind: info.Kind, gk: schema.GroupKind{Group: info.Group, Kind: info.Kind}, namespaced: info.Namespaced}
		gc.kinds = append(gc.kinds, k)
		gc.byGK[k.gk] = k
	}
	// events.k8s.io Events are stored as core Events: one store, two names.
	if k, ok := gc.byGK[schema.GroupKind{Kind: "Event"}]; ok {
		if _, ok := gc.byGK[schema.GroupKind{Group: "events.k8s.io", Kind: "Event"}]; !ok {
			gc.byGK[schema.GroupKind{Group: "events.k8s.io", Kind: "Event"}] = k
		}
	}
	gc.metrics = newMetrics(gc)
	if opts.Registerer != nil {
		gc.metrics.register(opts.Registerer, gc.log)
	}
	return gc
}

// Synced is closed once the graph holds every kind's first list.
func (gc *GarbageCollector) Synced() <-chan struct{} { return gc.synced }

// Run collects garbage until ctx ends.
func (gc *GarbageCollector) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, k := range gc.kinds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			gc.reflect(ctx, k)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		gc.processGraphChanges(ctx, len(gc.kinds))
	}()
	go func() {
		<-ctx.Done()
		gc.changes.close()
		gc.attemptToDelete.ShutDown()
		gc.attemptToOrphan.ShutDown()
	}()
	select {
	case <-gc.synced:
		gc.log.Info("garbage collector: graph synced; collecting", "kinds", len(gc.kinds))
	case <-ctx.Done():
	}
	if ctx.Err() == nil {
		for range gc.opts.Workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for gc.processAttemptToDelete(ctx) {
				}
			}()
		}
		for range max(1, gc.opts.Workers/2) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for gc.processAttemptToOrphan(ctx) {
				}
			}()
		}
	}
	wg.Wait()
}

// --- feeding the graph ---

type changeType int

const (
	addOrUpdate changeType = iota
	deleted
	relisted
	progressed
)

// change is one input of the graph: an observed object (addOrUpdate,
// deleted), a whole list of one kind (relisted, at rev), a watch's
// bookmark (progressed: every event of the kind up to rev is in), or a
// virtual delete (an owner the live object showed absent).
type change struct {
	typ      changeType
	kind     *resourceKind
	obj      metav1.Object
	list     []metav1.Object
	rev      int64
	virtual  bool
	identity objectRef
}

// reflect lists and watches one kind, feeding the graph, until ctx ends;
// it lists again after a watch error.
func (gc *GarbageCollector) reflect(ctx context.Context, k *resourceKind) {
	first := true
	list := func(ctx context.Context) (string, error) {
		items, rv, err := k.store.ListObjects(ctx)
		if err != nil {
			return "", err
		}
		gc.changes.push(change{typ: relisted, kind: k, list: items, rev: parseRev(rv)})
		if first {
			first = false
			gc.changes.push(change{typ: relisted, kind: nil}) // a marker: one more kind listed
		}
		return rv, nil
	}
	watch := func(ctx context.Context, rv string) error { return gc.watch(ctx, k, rv) }
	informer.Reflect(ctx, list, watch, func(err error) {
		gc.log.Debug("garbage collector: list or watch failed; retrying", "kind", k.gk, "err", err)
	})
}

func (gc *GarbageCollector) watch(ctx context.Context, k *resourceKind, rv string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := k.store.WatchObjects(ctx, rv)
	if err != nil {
		return err
	}
	for ev := range ch {
		switch ev.Type {
		case watch.Added, watch.Modified:
			gc.changes.push(change{typ: addOrUpdate, kind: k, obj: ev.Object})
		case watch.Deleted:
			gc.changes.push(change{typ: deleted, kind: k, obj: ev.Object})
		case watch.Bookmark:
			gc.changes.push(change{typ: progressed, kind: k, rev: parseRev(ev.Object.GetResourceVersion())})
		case watch.Error:
			return errors.New("watch ended with an error event")
		}
	}
	return nil
}

// processGraphChanges applies the changes in order, in one goroutine.
func (gc *GarbageCollector) processGraphChanges(ctx context.Context, kinds int) {
	listed := 0
	if kinds == 0 {
		close(gc.synced)
	}
	for {
		c, ok := gc.changes.pop(ctx)
		if !ok {
			return
		}
		if c.typ == relisted && c.kind == nil {
			listed++
			if listed == kinds {
				close(gc.synced)
			}
			continue
		}
		gc.mu.Lock()
		gc.apply(c)
		gc.mu.Unlock()
	}
}

func (gc *GarbageCollector) apply(c change) {
	if c.kind != nil { // not a virtual delete
		rev := c.rev
		if c.obj != nil {
			rev = parseRev(c.obj.GetResourceVersion())
		}
		gc.advance(c.kind, rev)
	}
	switch c.typ {
	case relisted:
		seen := make(map[types.UID]bool, len(c.list))
		for _, o := range c.list {
			seen[o.GetUID()] = true
			gc.observe(c.kind, o)
		}
		// What the list no longer has was deleted while no watch ran.
		for uid, n := range gc.nodes {
			if !n.virtual && !seen[uid] && n.identity.groupKind() == c.kind.gk {
				gc.removeNode(n)
			}
		}
	case addOrUpdate:
		gc.observe(c.kind, c.obj)
	case deleted:
		if c.virtual {
			gc.virtualDelete(c.identity)
			return
		}
		if n, ok := gc.nodes[c.obj.GetUID()]; ok {
			gc.removeNode(n)
		}
	}
}

// advance records that the graph has every change of k up to rev and
// wakes whoever waits for it. gc.mu is held.
func (gc *GarbageCollector) advance(k *resourceKind, rev int64) {
	if rev <= gc.seen[k] {
		return
	}
	gc.seen[k] = rev
	if gc.advanced != nil {
		close(gc.advanced)
		gc.advanced = nil
	}
}

// parseRev reads a resourceVersion the stores wrote; 0 when it is not one.
func parseRev(rv string) int64 {
	n, _ := strconv.ParseInt(rv, 10, 64)
	return n
}

// Bounds of caughtUp: how long it waits, and how often it asks again for
// the progress etcd may not have reported.
const (
	catchUpTimeout = 30 * time.Second
	progressRetry  = 100 * time.Millisecond
)

var errBehind = errors.New("the graph has not caught up")

// caughtUp waits until the graph holds every change of every kind up to
// rev. A dependent created just before its owner's deletion may reach the
// graph after the owner's own event (each kind has its own watch): a
// worker that would act on "no dependents left" (removing the orphan or
// the foregroundDeletion finalizer) waits for it first, or the dependent
// the owner no longer protects is collected as the dependent of an
// absent owner, orphaned or not.
func (gc *GarbageCollector) caughtUp(ctx context.Context, rev int64) error {
	deadline := time.NewTimer(catchUpTimeout)
	defer deadline.Stop()
	for {
		gc.mu.Lock()
		var behind []*resourceKind
		for _, k := range gc.kinds {
			if gc.seen[k] < rev {
				behind = append(behind, k)
			}
		}
		if len(behind) == 0 {
			gc.mu.Unlock()
			return nil
		}
		if gc.advanced == nil {
			gc.advanced = make(chan struct{})
		}
		ch := gc.advanced
		gc.mu.Unlock()
		for _, k := range behind {
			k.store.RequestProgress(ctx)
		}
		retry := time.NewTimer(progressRetry)
		select {
		case <-ch:
		case <-retry.C:
		case <-deadline.C:
			retry.Stop()
			return fmt.Errorf("wait for revision %d: %w (%d kinds behind, %s first)", rev, errBehind, len(behind), behind[0].gk)
		case <-ctx.Done():
			retry.Stop()
			return ctx.Err()
		}
		retry.Stop()
	}
}

// observe is kube's processGraphChanges for an add or update event.
func (gc *GarbageCollector) observe(k *resourceKind, obj metav1.Object) {
	id := identityOf(k.apiVersion, k.kind, obj)
	n, found := gc.nodes[id.UID]
	if found && n.virtual {
		// A virtual node is now observed: dependents that named it by
		// other coordinates are checked again.
		for d := range n.dependents {
			if !gc.refMatches(d, id) {
				if id.Namespace != "" && d.identity.Namespace != id.Namespace {
					gc.reportInvalidNamespaceOwnerRef(d, id.UID)
				}
				gc.attemptToDelete.Add(d.identity.UID)
			}
		}
		n.identity = id
		n.virtual = false
	}
	wasDeleting, wasDeletingDependents, wasOrphaning := false, false, false
	if !found {
		n = &node{identity: id, dependents: map[*node]struct{}{}}
		n.owners = slices.Clone(obj.GetOwnerReferences())
		gc.nodes[id.UID] = n
		gc.addDependentToOwners(n, n.owners)
	} else {
		wasDeleting, wasDeletingDependents, wasOrphaning = n.beingDeleted, n.deletingDependents, n.orphaning
		added, removed, changed := referencesDiffs(n.owners, obj.GetOwnerReferences())
		if len(added)+len(removed)+len(changed) > 0 {
			gc.addUnblockedOwnersToDeleteQueue(removed, changed)
			n.owners = slices.Clone(obj.GetOwnerReferences())
			gc.addDependentToOwners(n, added)
			gc.removeDependentFromOwners(n, removed)
		}
	}
	n.beingDeleted = beingDeleted(obj)
	n.deletingDependents = n.beingDeleted && hasFinalizer(obj, metav1.FinalizerDeleteDependents)
	n.orphaning = n.beingDeleted && hasFinalizer(obj, metav1.FinalizerOrphanDependents)
	// processTransitions: deletion starting with a finalizer.
	n.rev = parseRev(obj.GetResourceVersion())
	if n.orphaning && !(wasDeleting && wasOrphaning) {
		gc.attemptToOrphan.Add(n.identity.UID)
		return
	}
	if n.deletingDependents && !(wasDeleting && wasDeletingDependents) {
		for d := range n.dependents {
			gc.attemptToDelete.Add(d.identity.UID)
		}
		gc.attemptToDelete.Add(n.identity.UID)
	}
}

// namespaced reports whether the kind of r is namespaced; an unknown kind
// counts as namespaced.
func (gc *GarbageCollector) namespaced(gk schema.GroupKind) bool {
	if k, ok := gc.byGK[gk]; ok {
		return k.namespaced
	}
	return true
}

// coordinates of an owner as a dependent in namespace ns names it: its
// group, kind, name and the namespace it is looked up in.
func (gc *GarbageCollector) coordinates(ref objectRef) objectRef {
	gk := ref.groupKind()
	c := objectRef{APIVersion: gk.Group, Kind: ref.Kind, Name: ref.Name, UID: ref.UID}
	if gc.namespaced(gk) {
		c.Namespace = ref.Namespace
	}
	return c
}

// refMatches reports whether dependent d's reference to owner.UID names
// the owner by owner's coordinates.
func (gc *GarbageCollector) refMatches(d *node, owner objectRef) bool {
	for _, r := range d.owners {
		if r.UID == owner.UID {
			return gc.coordinates(refIdentity(r, d.identity.Namespace)) == gc.coordinates(owner)
		}
	}
	return true
}

// addDependentToOwners is kube's: an owner not in the graph gets a
// virtual node, queued so that the live object is checked; a dependent
// whose reference does not match its observed owner is queued.
func (gc *GarbageCollector) addDependentToOwners(n *node, owners []metav1.OwnerReference) {
	suspect := false
	for _, ref := range owners {
		o, ok := gc.nodes[ref.UID]
		if !ok {
			o = &node{identity: refIdentity(ref, n.identity.Namespace), dependents: map[*node]struct{}{}, virtual: true}
			gc.nodes[ref.UID] = o
		}
		o.dependents[n] = struct{}{}
		if !ok {
			gc.attemptToDelete.Add(ref.UID)
			continue
		}
		if suspect {
			continue
		}
		ownerNamespaced := gc.namespaced(o.identity.groupKind())
		switch {
		case ownerNamespaced && o.identity.Namespace != n.identity.Namespace:
			if !o.virtual {
				gc.reportInvalidNamespaceOwnerRef(n, ref.UID)
			}
			suspect = true
		case !gc.refMatches(n, o.identity):
			suspect = true
		case !ownerNamespaced && o.virtual && o.identity.Namespace != n.identity.Namespace:
			suspect = true
		}
	}
	if suspect {
		gc.attemptToDelete.Add(n.identity.UID)
	}
}

func (gc *GarbageCollector) removeDependentFromOwners(n *node, owners []metav1.OwnerReference) {
	for _, ref := range owners {
		if o, ok := gc.nodes[ref.UID]; ok {
			delete(o.dependents, n)
		}
	}
}

// addUnblockedOwnersToDeleteQueue: an owner waiting for its dependents
// is looked at again when a blocking reference goes or stops blocking.
func (gc *GarbageCollector) addUnblockedOwnersToDeleteQueue(removed []metav1.OwnerReference, changed [][2]metav1.OwnerReference) {
	check := func(uid types.UID) {
		if o, ok := gc.nodes[uid]; ok && o.deletingDependents {
			gc.attemptToDelete.Add(uid)
		}
	}
	for _, r := range removed {
		if blocks(r) {
			check(r.UID)
		}
	}
	for _, c := range changed {
		if blocks(c[0]) && !blocks(c[1]) {
			check(c[1].UID)
		}
	}
}

// removeNode takes an object that is gone out of the graph: its
// dependents are queued (their owner is absent now), and so are its
// owners waiting for their dependents.
func (gc *GarbageCollector) removeNode(n *node) {
	delete(gc.nodes, n.identity.UID)
	gc.removeDependentFromOwners(n, n.owners)
	if len(n.dependents) > 0 {
		gc.absent.add(gc.coordinates(n.identity))
	}
	for d := range n.dependents {
		gc.attemptToDelete.Add(d.identity.UID)
	}
	for _, ref := range n.owners {
		if o, ok := gc.nodes[ref.UID]; ok && o.deletingDependents {
			gc.attemptToDelete.Add(ref.UID)
		}
	}
}

// virtualDelete handles the live object showing that the owner id does
// not exist (kube's virtual delete event): dependents that named it by
// those coordinates are queued; a node other dependents name by other
// coordinates stays, with one of those, to be checked again.
func (gc *GarbageCollector) virtualDelete(id objectRef) {
	n, ok := gc.nodes[id.UID]
	if !ok {
		return
	}
	var matching, other []*node
	for d := range n.dependents {
		if gc.refMatches(d, id) {
			matching = append(matching, d)
		} else {
			other = append(other, d)
		}
	}
	sameNode := gc.coordinates(n.identity) == gc.coordinates(id)
	if len(other) == 0 && (n.virtual || sameNode) {
		gc.removeNode(n)
		return
	}
	gc.absent.add(gc.coordinates(id))
	for _, d := range matching {
		gc.attemptToDelete.Add(d.identity.UID)
	}
	if n.virtual && sameNode && len(other) > 0 {
		for _, r := range other[0].owners {
			if r.UID == id.UID {
				n.identity = refIdentity(r, other[0].identity.Namespace)
			}
		}
		gc.attemptToDelete.AddRateLimited(id.UID)
	}
}

// reportInvalidNamespaceOwnerRef records kube's Warning event on a
// dependent whose owner reference names an owner in another namespace.
func (gc *GarbageCollector) reportInvalidNamespaceOwnerRef(n *node, owner types.UID) {
	var ref *metav1.OwnerReference
	for i := range n.owners {
		if n.owners[i].UID == owner {
			ref = &n.owners[i]
		}
	}
	if ref == nil {
		return
	}
	invalid := objectRef{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, UID: ref.UID}
	msg := fmt.Sprintf("ownerRef %s does not exist in namespace %q", kubeIdentity(invalid), n.identity.Namespace)
	gc.log.Warn("garbage collector: "+msg, "object", n.identity.String())
	if gc.opts.Events == nil {
		return
	}
	ns := n.identity.Namespace
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	now := metav1.NewTime(time.Now())
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{GenerateName: n.identity.Name + ".", Namespace: ns},
		InvolvedObject: corev1.ObjectReference{
			Kind: n.identity.Kind, APIVersion: n.identity.APIVersion, Namespace: n.identity.Namespace, Name: n.identity.Name, UID: n.identity.UID,
		},
		Reason: "OwnerRefInvalidNamespace", Message: msg, Type: corev1.EventTypeWarning,
		Source:         corev1.EventSource{Component: "garbage-collector-controller"},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
		ReportingController: "garbage-collector-controller",
	}
	ev.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Event"))
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := gc.opts.Events.Create(ctx, ev, storage.CreateOptions{}); err != nil {
			gc.log.Debug("garbage collector: record event", "err", err)
		}
	}()
}

// kubeIdentity prints an owner as kube's objectReference.String does.
func kubeIdentity(r objectRef) string {
	return fmt.Sprintf("[%s/%s, namespace: %s, name: %s, uid: %s]", r.APIVersion, r.Kind, r.Namespace, r.Name, r.UID)
}

// --- the workers ---

var (
	errEnqueuedVirtualDelete       = errors.New("enqueued virtual delete event")
	errNamespacedOwnerOfClusterObj = errors.New("cluster-scoped objects cannot refer to namespaced owners")
	errUnknownKind                 = errors.New("kind not served")
)

func (gc *GarbageCollector) snapshot(uid types.UID) *snapshot {
	gc.mu.RLock()
	defer gc.mu.RUnlock()
	n, ok := gc.nodes[uid]
	if !ok {
		return nil
	}
	return n.snapshot()
}

func (gc *GarbageCollector) processAttemptToDelete(ctx context.Context) bool {
	uid, quit := gc.attemptToDelete.Get()
	if quit {
		return false
	}
	defer gc.attemptToDelete.Done(uid)
	item := gc.snapshot(uid)
	if item == nil {
		gc.attemptToDelete.Forget(uid)
		return true
	}
	err := gc.attemptToDeleteItem(ctx, item)
	switch {
	case err == nil && !item.virtual, errors.Is(err, errEnqueuedVirtualDelete), errors.Is(err, errNamespacedOwnerOfClusterObj):
		gc.metrics.attempt("attempt_to_delete", "success")
		gc.attemptToDelete.Forget(uid)
	case err == nil:
		// A virtual node whose object exists: wait for its watch event.
		gc.metrics.attempt("attempt_to_delete", "requeue")
		gc.attemptToDelete.AddRateLimited(uid)
	default:
		if ctx.Err() != nil {
			return false
		}
		gc.metrics.attempt("attempt_to_delete", "error")
		gc.log.Debug("garbage collector: attempt to delete failed; retrying", "item", item.identity.String(), "err", err)
		gc.attemptToDelete.AddRateLimited(uid)
	}
	return true
}

// attemptToDeleteItem is kube's: it decides, on the live object, whether
// item is garbage.
func (gc *GarbageCollector) attemptToDeleteItem(ctx context.Context, item *snapshot) error {
	if item.beingDeleted && !item.deletingDependents {
		return nil
	}
	latest, err := gc.getObject(ctx, item.identity)
	switch {
	case apierrors.IsNotFound(err):
		gc.changes.push(change{typ: deleted, virtual: true, identity: item.identity})
		return errEnqueuedVirtualDelete
	case err != nil:
		return err
	}
	if latest.GetUID() != item.identity.UID {
		gc.changes.push(change{typ: deleted, virtual: true, identity: item.identity})
		return errEnqueuedVirtualDelete
	}
	if item.deletingDependents {
		return gc.processDeletingDependents(ctx, item)
	}
	refs := latest.GetOwnerReferences()
	if len(refs) == 0 {
		return nil
	}
	solid, dangling, waiting, err := gc.classifyReferences(ctx, item, refs)
	if err != nil {
		return err
	}
	switch {
	case len(solid) != 0:
		if len(dangling) == 0 && len(waiting) == 0 {
			return nil
		}
		// Dangling references and those to owners waiting for their
		// dependents go: the owners would otherwise wait forever.
		uids := map[types.UID]bool{}
		for _, r := range append(dangling, waiting...) {
			uids[r.UID] = true
		}
		gc.log.Info("garbage collector: removing dangling and waiting owner references", "item", item.identity.String(), "owners", len(uids))
		return gc.updateMeta(ctx, item.identity, func(o metav1.Object) bool {
			refs := o.GetOwnerReferences()
			kept := slices.DeleteFunc(slices.Clone(refs), func(r metav1.OwnerReference) bool { return uids[r.UID] })
			if len(kept) == len(refs) {
				return false
			}
			o.SetOwnerReferences(kept)
			return true
		})
	case len(waiting) != 0 && len(item.dependents) != 0:
		for _, d := range item.dependents {
			if d.deletingDependents {
				// A possible cycle: the item's references stop blocking.
				gc.log.Info("garbage collector: an owner and a dependent of item are both deleting dependents; unblocking its owner references", "item", item.identity.String())
				if err := gc.updateMeta(ctx, item.identity, func(o metav1.Object) bool {
					refs := o.GetOwnerReferences()
					changed := false
					for i := range refs {
						if blocks(refs[i]) {
							f := false
							refs[i].BlockOwnerDeletion = &f
							changed = true
						}
					}
					o.SetOwnerReferences(refs)
					return changed
				}); err != nil {
					return err
				}
				break
			}
		}
		gc.log.Info("garbage collector: an owner is deleting its dependents and item has dependents: deleting it in the foreground", "item", item.identity.String())
		return gc.deleteObject(ctx, item.identity, metav1.DeletePropagationForeground)
	default:
		policy := metav1.DeletePropagationBackground
		switch {
		case hasFinalizer(latest, metav1.FinalizerOrphanDependents):
			policy = metav1.DeletePropagationOrphan
		case hasFinalizer(latest, metav1.FinalizerDeleteDependents):
			policy = metav1.DeletePropagationForeground
		}
		gc.log.Info("garbage collector: deleting an object whose owners are gone", "item", item.identity.String(), "propagationPolicy", policy)
		return gc.deleteObject(ctx, item.identity, policy)
	}
}

// processDeletingDependents: an owner deleted in the foreground loses its
// foregroundDeletion finalizer once no blocking dependent is left;
// until then its blocking dependents are queued.
func (gc *GarbageCollector) processDeletingDependents(ctx context.Context, item *snapshot) error {
	blocking := item.blockingDependents()
	if len(blocking) == 0 {
		// None that the graph knows of: wait until it has every one
		// created before the deletion began, and look again.
		if err := gc.caughtUp(ctx, item.rev); err != nil {
			return err
		}
		if item = gc.snapshot(item.identity.UID); item == nil {
			return nil
		}
		blocking = item.blockingDependents()
	}
	if len(blocking) == 0 {
		gc.log.Info("garbage collector: no blocking dependents left; removing the foregroundDeletion finalizer", "item", item.identity.String())
		return gc.removeFinalizer(ctx, item.identity, metav1.FinalizerDeleteDependents)
	}
	for _, d := range blocking {
		if !d.deletingDependents {
			gc.attemptToDelete.Add(d.identity.UID)
		}
	}
	return nil
}

// classifyReferences is kube's: solid owners exist and are not deleting
// their dependents; dangling ones do not exist (by uid); waiting ones
// are being deleted in the foreground.
func (gc *GarbageCollector) classifyReferences(ctx context.Context, item *snapshot, refs []metav1.OwnerReference) (solid, dangling, waiting []metav1.OwnerReference, err error) {
	for _, ref := range refs {
		isDangling, owner, err := gc.isDangling(ctx, ref, item)
		if err != nil {
			return nil, nil, nil, err
		}
		switch {
		case isDangling:
			dangling = append(dangling, ref)
		case beingDeleted(owner) && hasFinalizer(owner, metav1.FinalizerDeleteDependents):
			waiting = append(waiting, ref)
		default:
			solid = append(solid, ref)
		}
	}
	return solid, dangling, waiting, nil
}

// isDangling checks one owner reference against the live owner.
func (gc *GarbageCollector) isDangling(ctx context.Context, ref metav1.OwnerReference, item *snapshot) (bool, metav1.Object, error) {
	id := refIdentity(ref, item.identity.Namespace)
	gk := id.groupKind()
	k, ok := gc.byGK[gk]
	if !ok {
		return false, nil, fmt.Errorf("owner %s of %s: %w", id, item.identity, errUnknownKind)
	}
	if !k.namespaced {
		id.Namespace = ""
	} else if item.identity.Namespace == "" {
		gc.log.Info("garbage collector: item is cluster-scoped, but refers to a namespaced owner", "item", item.identity.String(), "owner", id.String())
		return false, nil, errNamespacedOwnerOfClusterObj
	}
	if gc.absent.has(gc.coordinates(id)) {
		return true, nil, nil
	}
	owner, err := k.store.GetObject(ctx, id.Namespace, ref.Name)
	switch {
	case apierrors.IsNotFound(err):
		gc.absent.add(gc.coordinates(id))
		return true, nil, nil
	case err != nil:
		return false, nil, err
	}
	if owner.GetUID() != ref.UID {
		gc.absent.add(gc.coordinates(id))
		return true, nil, nil
	}
	return false, owner, nil
}

func (gc *GarbageCollector) processAttemptToOrphan(ctx context.Context) bool {
	uid, quit := gc.attemptToOrphan.Get()
	if quit {
		return false
	}
	defer gc.attemptToOrphan.Done(uid)
	owner := gc.snapshot(uid)
	if owner == nil {
		gc.attemptToOrphan.Forget(uid)
		return true
	}
	// Every dependent created before the owner's deletion began is in
	// the graph once it has caught up with the revision that began it.
	err := gc.caughtUp(ctx, owner.rev)
	if err == nil {
		if owner = gc.snapshot(uid); owner == nil {
			gc.attemptToOrphan.Forget(uid)
			return true
		}
		err = gc.orphanDependents(ctx, owner)
	}
	if err == nil {
		err = gc.removeFinalizer(ctx, owner.identity, metav1.FinalizerOrphanDependents)
	}
	if err != nil {
		if ctx.Err() != nil {
			return false
		}
		gc.metrics.attempt("attempt_to_orphan", "error")
		gc.log.Debug("garbage collector: orphaning failed; retrying", "owner", owner.identity.String(), "err", err)
		gc.attemptToOrphan.AddRateLimited(uid)
		return true
	}
	gc.metrics.attempt("attempt_to_orphan", "success")
	gc.attemptToOrphan.Forget(uid)
	return true
}

// orphanDependents removes the owner's reference from every dependent.
func (gc *GarbageCollector) orphanDependents(ctx context.Context, owner *snapshot) error {
	var errs []error
	for _, d := range owner.dependents {
		err := gc.updateMeta(ctx, d.identity, func(o metav1.Object) bool {
			refs := o.GetOwnerReferences()
			kept := slices.DeleteFunc(slices.Clone(refs), func(r metav1.OwnerReference) bool { return r.UID == owner.identity.UID })
			if len(kept) == len(refs) {
				return false
			}
			if len(kept) == 0 {
				kept = nil
			}
			o.SetOwnerReferences(kept)
			return true
		})
		if err != nil {
			errs = append(errs, err)
		} else {
			gc.metrics.orphan()
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("orphan the dependents of %s: %w", owner.identity, errors.Join(errs...))
	}
	gc.log.Info("garbage collector: dependents orphaned", "owner", owner.identity.String(), "dependents", len(owner.dependents))
	return nil
}

// --- operations on the live objects ---

func (gc *GarbageCollector) kindOf(id objectRef) (*resourceKind, string, error) {
	k, ok := gc.byGK[id.groupKind()]
	if !ok {
		return nil, "", fmt.Errorf("%s: %w", id, errUnknownKind)
	}
	if !k.namespaced {
		return k, "", nil
	}
	if id.Namespace == "" {
		return nil, "", errNamespacedOwnerOfClusterObj
	}
	return k, id.Namespace, nil
}

func (gc *GarbageCollector) getObject(ctx context.Context, id objectRef) (metav1.Object, error) {
	k, ns, err := gc.kindOf(id)
	if err != nil {
		return nil, err
	}
	return k.store.GetObject(ctx, ns, id.Name)
}

// deleteObject deletes the object with id's uid (a uid precondition);
// gone already is done.
func (gc *GarbageCollector) deleteObject(ctx context.Context, id objectRef, policy metav1.DeletionPropagation) error {
	k, ns, err := gc.kindOf(id)
	if err != nil {
		return err
	}
	uid := id.UID
	_, err = k.store.DeleteObject(ctx, ns, id.Name, storage.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &uid}, PropagationPolicy: &policy,
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	gc.metrics.deleted(k.gk.String())
	return nil
}

func (gc *GarbageCollector) updateMeta(ctx context.Context, id objectRef, mutate func(metav1.Object) bool) error {
	k, ns, err := gc.kindOf(id)
	if err != nil {
		return err
	}
	err = k.store.UpdateObjectMeta(ctx, ns, id.Name, id.UID, mutate)
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

func (gc *GarbageCollector) removeFinalizer(ctx context.Context, id objectRef, finalizer string) error {
	return gc.updateMeta(ctx, id, func(o metav1.Object) bool {
		fs := o.GetFinalizers()
		kept := slices.DeleteFunc(slices.Clone(fs), func(f string) bool { return f == finalizer })
		if len(kept) == len(fs) {
			return false
		}
		o.SetFinalizers(kept)
		return true
	})
}
