package storage

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

// Objects is the untyped view of a store that work across every kind
// needs: the garbage collector (runtime/garbagecollector) lists, watches,
// reads, deletes and updates the metadata of objects of any served kind
// through it. *Store[T, L] implements it.
type Objects interface {
	Collection
	// ListObjects lists every object of the resource, from the watch
	// cache when the store has one (resourceVersion "0"), and returns the
	// list's resourceVersion to watch from. The objects are shared: do
	// not modify them.
	ListObjects(ctx context.Context) ([]metav1.Object, string, error)
	// WatchObjects streams the events after resourceVersion rv until ctx
	// ends; an ERROR event ends it (list again). Objects are shared. A
	// BOOKMARK (its object carries only a resourceVersion) says every
	// event up to its revision has been sent: one comes for each progress
	// etcd reports, as RequestProgress asks.
	WatchObjects(ctx context.Context, rv string) (<-chan ObjectEvent, error)
	// RequestProgress asks for a BOOKMARK on the store's watches at etcd's
	// current revision. etcd may drop the request while a watch catches
	// up: a caller waiting for a revision asks again.
	RequestProgress(ctx context.Context)
	// GetObject reads the current object from etcd (a quorum read).
	GetObject(ctx context.Context, namespace, name string) (metav1.Object, error)
	// DeleteObject deletes an object as Delete does; deleted is false when
	// finalizers keep it.
	DeleteObject(ctx context.Context, namespace, name string, opts DeleteOptions) (deleted bool, err error)
	// UpdateObjectMeta applies mutate to the current object if its uid is
	// uid (else a 409 Conflict, as a failed uid precondition) and writes
	// it when mutate reports a change; retried on conflicts with other
	// writers. Removing the last finalizer of an object being deleted
	// deletes it.
	UpdateObjectMeta(ctx context.Context, namespace, name string, uid types.UID, mutate func(metav1.Object) bool) error
}

// ObjectEvent is one watch event of Objects.WatchObjects.
type ObjectEvent struct {
	Type   watch.EventType
	Object metav1.Object
}

var _ Objects = (*Store[resource.Object, resource.ListObject])(nil)

// ListObjects implements Objects.
func (st *Store[T, L]) ListObjects(ctx context.Context) ([]metav1.Object, string, error) {
	opts := ListOptions{ResourceVersion: st.reads.recentRV()}
	list, err := st.List(ctx, "", opts)
	if err != nil {
		return nil, "", err
	}
	items := st.s.GetItems(list)
	out := make([]metav1.Object, len(items))
	for i, it := range items {
		out[i] = it
	}
	return out, list.GetResourceVersion(), nil
}

// RequestProgress implements Objects.
func (st *Store[T, L]) RequestProgress(ctx context.Context) { st.reads.requestProgress(ctx) }

// WatchObjects implements Objects.
func (st *Store[T, L]) WatchObjects(ctx context.Context, rv string) (<-chan ObjectEvent, error) {
	opts := WatchOptions{AllowBookmarks: true, Progress: true}
	opts.ResourceVersion = rv
	in, err := st.Watch(ctx, "", opts)
	if err != nil {
		return nil, err
	}
	out := make(chan ObjectEvent, 64)
	go func() {
		defer close(out)
		for ev := range in {
			oe := ObjectEvent{Type: ev.Type}
			if ev.Type == watch.Error {
				select {
				case out <- oe:
				case <-ctx.Done():
				}
				// Drain: the store closes the channel.
				for range in {
				}
				return
			}
			oe.Object = ev.Object
			select {
			case out <- oe:
			case <-ctx.Done():
				for range in {
				}
				return
			}
		}
	}()
	return out, nil
}

// GetObject implements Objects.
func (st *Store[T, L]) GetObject(ctx context.Context, namespace, name string) (metav1.Object, error) {
	obj, err := st.Get(ctx, namespace, name, GetOptions{})
	if err != nil {
		return nil, err
	}
	return obj, nil
}

// DeleteObject implements Objects.
func (st *Store[T, L]) DeleteObject(ctx context.Context, namespace, name string, opts DeleteOptions) (bool, error) {
	_, deleted, err := st.Delete(ctx, namespace, name, opts)
	return deleted, err
}

// errNoChange ends a GuaranteedUpdate that has nothing to write.
type errNoChange struct{}

func (errNoChange) Error() string { return "no change" }

// UpdateObjectMeta implements Objects.
func (st *Store[T, L]) UpdateObjectMeta(ctx context.Context, namespace, name string, uid types.UID, mutate func(metav1.Object) bool) error {
	_, err := st.GuaranteedUpdate(ctx, namespace, name, "", func(cur T) (T, error) {
		var zero T
		if cur.GetUID() != uid {
			return zero, apierrors.NewConflict(st.s.Info.GroupResource(), name,
				fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", uid, cur.GetUID()))
		}
		if !mutate(cur) {
			return zero, errNoChange{}
		}
		return cur, nil
	}, UpdateOptions{})
	if _, ok := err.(errNoChange); ok {
		return nil
	}
	return err
}
