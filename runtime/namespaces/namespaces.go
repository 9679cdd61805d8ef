// Package namespaces is the namespace lifecycle of a server that serves
// core/v1 namespaces, after kube-apiserver's namespace registry, the
// NamespaceLifecycle admission plugin and kube-controller-manager's
// namespace controller:
//
//   - Storage hooks on the namespace store: a created namespace gets
//     status.phase=Active and the "kubernetes" spec finalizer; deleting a
//     namespace that has spec (or metadata) finalizers only marks it
//     (deletionTimestamp, status.phase=Terminating; 200 with the object);
//     the update that removes the last finalizer of a marked namespace
//     deletes it. default, kube-system and kube-public may not be deleted
//     (403).
//   - Admission (Admit): creating an object of a namespaced resource in a
//     namespace that does not exist is 404 `namespaces "x" not found`; in a
//     Terminating namespace it is 403 with cause NamespaceTerminating.
//   - A controller (Run): every replica watches namespaces (with a periodic
//     resync) and, for each namespace being deleted, deletes the contents of
//     every namespaced collection; once nothing remains it removes the
//     "kubernetes" spec finalizer, which deletes the namespace. Objects
//     with finalizers keep the namespace Terminating until they go. Every
//     step is idempotent, so several replicas may run it at once.
//   - EnsureSystemNamespaces creates default, kube-system and kube-public
//     when missing.
package namespaces

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubeforge/kubeforge/runtime/endpoints"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// SystemNamespaces exist from start-up and may not be deleted.
var SystemNamespaces = []string{metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic}

// FinalizerKubernetes is the spec finalizer the lifecycle owns.
const FinalizerKubernetes = string(corev1.FinalizerKubernetes)

// Defaults of Options.
const (
	DefaultResyncPeriod = 30 * time.Second
	DefaultRetryPeriod  = time.Second
)

var namespacesResource = schema.GroupResource{Resource: "namespaces"}

// Store is the storage of core/v1 namespaces.
type Store = storage.Interface[*corev1.Namespace, *corev1.NamespaceList]

// Options tune a Lifecycle.
type Options struct {
	// Logger receives the controller's errors (default slog.Default()).
	Logger *slog.Logger
	// ResyncPeriod: how often every namespace is re-listed (default 30 s).
	ResyncPeriod time.Duration
	// RetryPeriod: how soon a namespace whose contents are not all gone
	// (finalizers, errors) is looked at again (default 1 s).
	RetryPeriod time.Duration
}

// Lifecycle is the namespace lifecycle of one server replica.
type Lifecycle struct {
	store       Store
	collections []storage.Collection
	opts        Options

	// deleted holds namespaces this server was asked to delete in the
	// last forceLiveLookupTTL, with when: Admit reads them live, since the
	// watch cache may not have seen the deletion yet (kube's
	// forceLiveLookupCache).
	mu      sync.Mutex
	deleted map[string]time.Time
}

// forceLiveLookupTTL is kube's: how long after a delete of a namespace
// creates into it skip the cache.
const forceLiveLookupTTL = 30 * time.Second

// New returns the lifecycle over the namespace store and the collections
// to empty when a namespace is deleted (cluster-scoped ones are skipped).
func New(store Store, collections []storage.Collection, opts Options) *Lifecycle {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.ResyncPeriod <= 0 {
		opts.ResyncPeriod = DefaultResyncPeriod
	}
	if opts.RetryPeriod <= 0 {
		opts.RetryPeriod = DefaultRetryPeriod
	}
	var namespaced []storage.Collection
	for _, c := range collections {
		if c.Info().Namespaced {
			namespaced = append(namespaced, c)
		}
	}
	return &Lifecycle{store: store, collections: namespaced, opts: opts, deleted: map[string]time.Time{}}
}

// Hooks are the namespace store's storage hooks (kube's namespace
// registry): set them with the store's SetHooks.
func (l *Lifecycle) Hooks() storage.Hooks[*corev1.Namespace] {
	return storage.Hooks[*corev1.Namespace]{
		PrepareForCreate: func(ns *corev1.Namespace) {
			setNameLabel(ns)
			ns.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
			if !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
				ns.Spec.Finalizers = append(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
			}
		},
		PrepareForUpdate: func(ctx context.Context, ns, cur *corev1.Namespace, subresource string) {
			setNameLabel(ns)
			if subresource != "" {
				return
			}
			// As kube's namespace strategy: the status is only written
			// through /status, and spec.finalizers only by the finalize
			// step of the namespace controller (kube's /finalize), so that
			// a PUT without them cannot let a namespace go before its
			// contents.
			ns.Status = *cur.Status.DeepCopy()
			if ctx.Value(finalizeKey{}) == nil {
				ns.Spec.Finalizers = slices.Clone(cur.Spec.Finalizers)
			}
		},
		SpecFinalizers: func(ns *corev1.Namespace) []string {
			out := make([]string, 0, len(ns.Spec.Finalizers))
			for _, f := range ns.Spec.Finalizers {
				out = append(out, string(f))
			}
			return out
		},
		PrepareForDelete: func(ns *corev1.Namespace) {
			ns.Status.Phase = corev1.NamespaceTerminating
		},
		BeforeDelete: func(ns *corev1.Namespace) error {
			if slices.Contains(SystemNamespaces, ns.Name) {
				return apierrors.NewForbidden(namespacesResource, ns.Name, errors.New("this namespace may not be deleted"))
			}
			l.markDeleted(ns.Name)
			return nil
		},
	}
}

// setNameLabel sets kubernetes.io/metadata.name to the namespace's name on
// every write, as kube-apiserver's namespace strategy does: clients (and
// NetworkPolicy namespace selectors) select namespaces by it, so nobody
// may remove or change it.
func setNameLabel(ns *corev1.Namespace) {
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[corev1.LabelMetadataName] = ns.Name
}

// Finalize sets a namespace's spec.finalizers, as kube-apiserver's
// /finalize subresource does (what clears a namespace stuck Terminating:
// kubectl replace --raw /api/v1/namespaces/<ns>/finalize); the rest of
// the object is kept. A namespace being deleted goes once no finalizer is
// left, as after the controller's own finalize step.
// A dry run writes nothing.
func (l *Lifecycle) Finalize(ctx context.Context, name string, finalizers []corev1.FinalizerName, dryRun bool) (*corev1.Namespace, error) {
	return l.store.GuaranteedUpdate(context.WithValue(ctx, finalizeKey{}, true), "", name, "", func(cur *corev1.Namespace) (*corev1.Namespace, error) {
		cur.Spec.Finalizers = slices.Clone(finalizers)
		return cur, nil
	}, storage.UpdateOptions{DryRun: dryRun})
}

// finalizeKey marks the context of a finalize update (the controller's,
// or /finalize): the only update that may change spec.finalizers.
type finalizeKey struct{}

// terminating reports whether ns is being deleted.
func terminating(ns *corev1.Namespace) bool {
	return ns.DeletionTimestamp != nil || ns.Status.Phase == corev1.NamespaceTerminating
}

// Admit is the endpoints admission hook (kube's NamespaceLifecycle): a
// create of a namespaced object needs its namespace to exist (404
// otherwise) and not to be terminating (403). As kube's plugin reads an
// informer, the namespace is read from memory (the namespace store's watch
// cache, resourceVersion "0"), which costs no etcd read; a namespace
// missing or terminating there, or deleted through this server in the
// last 30 s, is read again with a quorum read, so that a create right
// after a delete, or right after a re-create, is judged on etcd's state.
func (l *Lifecycle) Admit(ctx context.Context, a endpoints.Attributes) error {
	return Admit(ctx, a, l.getNamespace)
}

// getNamespace reads a namespace for Admit: from memory when that can be
// trusted, live otherwise.
func (l *Lifecycle) getNamespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	if !l.recentlyDeleted(name) {
		ns, err := l.store.Get(ctx, "", name, storage.GetOptions{ResourceVersion: "0"})
		if err == nil && !terminating(ns) {
			return ns, nil
		}
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, err
		}
	}
	return l.store.Get(ctx, "", name, storage.GetOptions{})
}

// markDeleted makes Admit read namespace name live for the next
// forceLiveLookupTTL, and forgets expired entries.
func (l *Lifecycle) markDeleted(name string) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	for n, t := range l.deleted {
		if now.Sub(t) > forceLiveLookupTTL {
			delete(l.deleted, n)
		}
	}
	l.deleted[name] = now
}

// recentlyDeleted reports whether namespace name was deleted through this
// server in the last forceLiveLookupTTL.
func (l *Lifecycle) recentlyDeleted(name string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.deleted[name]
	return ok && time.Since(t) <= forceLiveLookupTTL
}

// Admit is the NamespaceLifecycle check over any source of namespaces:
// get returns the namespace or kube's NotFound error. An aggregated
// server checks the main cluster's namespaces with it.
func Admit(ctx context.Context, a endpoints.Attributes, get func(ctx context.Context, name string) (*corev1.Namespace, error)) error {
	if a.Operation != endpoints.OperationCreate || a.Info == nil || !a.Info.Namespaced || a.Namespace == "" {
		return nil
	}
	ns, err := get(ctx, a.Namespace)
	if apierrors.IsNotFound(err) {
		return apierrors.NewNotFound(namespacesResource, a.Namespace)
	}
	if err != nil {
		return err
	}
	if !terminating(ns) {
		return nil
	}
	name := a.Name
	if name == "" && a.Object != nil {
		name = a.Object.GetGenerateName()
	}
	if name == "" {
		name = "Unknown"
	}
	se := apierrors.NewForbidden(a.Info.GroupResource(), name,
		fmt.Errorf("unable to create new content in namespace %s because it is being terminated", a.Namespace))
	se.ErrStatus.Details.Causes = append(se.ErrStatus.Details.Causes, metav1.StatusCause{
		Type:    corev1.NamespaceTerminatingCause,
		Message: fmt.Sprintf("namespace %s is being terminated", a.Namespace),
		Field:   "metadata.namespace",
	})
	return se
}

// EnsureSystemNamespaces creates default, kube-system and kube-public when
// missing; one that exists (another replica created it) is fine.
func (l *Lifecycle) EnsureSystemNamespaces(ctx context.Context) error {
	for _, name := range SystemNamespaces {
		if _, err := l.store.Get(ctx, "", name, storage.GetOptions{}); err == nil {
			continue
		} else if !apierrors.IsNotFound(err) {
			return fmt.Errorf("ensure namespace %s: %w", name, err)
		}
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		ns.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Namespace"))
		if _, err := l.store.Create(ctx, ns, storage.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("ensure namespace %s: %w", name, err)
		}
	}
	return nil
}

// Run is the namespace controller: it empties and then removes every
// namespace being deleted, until ctx is done.
func (l *Lifecycle) Run(ctx context.Context) {
	q := newQueue()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		l.watchLoop(ctx, q)
	}()
	go func() {
		defer wg.Done()
		for {
			name, ok := q.get(ctx)
			if !ok {
				return
			}
			done, err := l.Sync(ctx, name)
			if err != nil && ctx.Err() == nil {
				l.opts.Logger.Warn("namespace controller: sync failed", "namespace", name, "err", err)
			}
			if !done && ctx.Err() == nil {
				q.addAfter(ctx, name, l.opts.RetryPeriod)
			}
		}
	}()
	<-ctx.Done()
	q.close()
	wg.Wait()
}

// watchLoop lists (through the watch's initial events) and watches
// namespaces, queueing those being deleted; it re-watches every
// ResyncPeriod and after errors.
func (l *Lifecycle) watchLoop(ctx context.Context, q *queue) {
	for ctx.Err() == nil {
		wctx, cancel := context.WithTimeout(ctx, l.opts.ResyncPeriod)
		ch, err := l.store.Watch(wctx, "", storage.WatchOptions{})
		if err != nil {
			cancel()
			if ctx.Err() == nil {
				l.opts.Logger.Warn("namespace controller: watch namespaces", "err", err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(l.opts.RetryPeriod):
			}
			continue
		}
		for ev := range ch {
			if ev.Type == watch.Error {
				break
			}
			if ev.Type == watch.Deleted || ev.Object == nil {
				continue
			}
			if terminating(ev.Object) {
				q.add(ev.Object.Name)
			}
		}
		cancel()
		// Drain in case the loop broke early.
		for range ch {
		}
	}
}

// Sync moves one namespace's deletion forward: done reports that nothing
// is left to do for it now (gone, not being deleted, or finalizers other
// than "kubernetes" remain, which their owners remove).
func (l *Lifecycle) Sync(ctx context.Context, name string) (done bool, err error) {
	ns, err := l.store.Get(ctx, "", name, storage.GetOptions{})
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("sync namespace %s: %w", name, err)
	}
	if ns.DeletionTimestamp == nil {
		return true, nil
	}
	if !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		return true, nil
	}
	remaining := 0
	var errs []error
	for _, c := range l.collections {
		n, err := c.DeleteAllInNamespace(ctx, name)
		if err != nil {
			errs = append(errs, fmt.Errorf("delete %s: %w", c.Info().GroupResource(), err))
			continue
		}
		remaining += n
	}
	if len(errs) > 0 {
		return false, fmt.Errorf("sync namespace %s: %w", name, errors.Join(errs...))
	}
	if remaining > 0 {
		return false, nil
	}
	_, err = l.store.GuaranteedUpdate(context.WithValue(ctx, finalizeKey{}, true), "", name, "", func(cur *corev1.Namespace) (*corev1.Namespace, error) {
		cur.Spec.Finalizers = slices.DeleteFunc(cur.Spec.Finalizers, func(f corev1.FinalizerName) bool {
			return f == corev1.FinalizerKubernetes
		})
		return cur, nil
	}, storage.UpdateOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return false, fmt.Errorf("sync namespace %s: remove finalizer %s: %w", name, FinalizerKubernetes, err)
	}
	return true, nil
}
