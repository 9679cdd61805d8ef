package storage

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

// Collection is the untyped view of a store the server needs for work
// across resources, such as emptying a namespace being deleted.
// *Store[T, L] implements it; generated.Install passes every hub store to
// (*server.Server).AddCollection.
type Collection interface {
	// Info describes the resource the store holds (its storage version).
	Info() *resource.Info
	// DeleteAllInNamespace deletes every object of the resource in
	// namespace, honouring finalizers (objects with finalizers are only
	// marked for deletion), and returns how many objects still exist in the
	// namespace afterwards. A cluster-scoped resource has nothing in any
	// namespace: 0, nil.
	DeleteAllInNamespace(ctx context.Context, namespace string) (remaining int, err error)
}

var _ Collection = (*Store[resource.Object, resource.ListObject])(nil)

// Info returns the resource the store holds.
func (st *Store[T, L]) Info() *resource.Info { return st.s.Info }

// DeleteAllInNamespace deletes (or, with finalizers, marks for deletion)
// every object of the resource in namespace and returns how many remain.
// Like kube's namespace controller it deletes with propagationPolicy
// Background.
// It is idempotent and safe to run from several replicas at once: objects
// another writer deleted first are skipped.
func (st *Store[T, L]) DeleteAllInNamespace(ctx context.Context, namespace string) (int, error) {
	if !st.s.Info.Namespaced {
		return 0, nil
	}
	if namespace == "" {
		return 0, apierrors.NewBadRequest(fmt.Sprintf("delete all %s in a namespace: namespace is required", st.resourceName()))
	}
	list, err := st.List(ctx, namespace, ListOptions{})
	if err != nil {
		return 0, err
	}
	remaining := 0
	background := metav1.DeletePropagationBackground
	for _, item := range st.s.GetItems(list) {
		_, deleted, err := st.Delete(ctx, namespace, item.GetName(), DeleteOptions{PropagationPolicy: &background})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return 0, err
		}
		if !deleted {
			remaining++
		}
	}
	return remaining, nil
}

// CachedReader reads a store's objects untyped at resourceVersion "0":
// from the watch cache when there is one, never a quorum read. Admission
// reads ValidatingAdmissionPolicy params with it.
type CachedReader interface {
	Info() *resource.Info
	GetCached(ctx context.Context, namespace, name string) (resource.Object, error)
	ListCached(ctx context.Context, namespace string, sel labels.Selector) ([]resource.Object, error)
}

var _ CachedReader = (*Store[resource.Object, resource.ListObject])(nil)

// GetCached reads one object at resourceVersion "0".
func (st *Store[T, L]) GetCached(ctx context.Context, namespace, name string) (resource.Object, error) {
	return st.Get(ctx, namespace, name, GetOptions{ResourceVersion: "0"})
}

// ListCached lists namespace ("" for all) at resourceVersion "0".
func (st *Store[T, L]) ListCached(ctx context.Context, namespace string, sel labels.Selector) ([]resource.Object, error) {
	list, err := st.List(ctx, namespace, ListOptions{ResourceVersion: "0", LabelSelector: sel})
	if err != nil {
		return nil, err
	}
	items := st.s.GetItems(list)
	out := make([]resource.Object, len(items))
	for i, it := range items {
		out[i] = it
	}
	return out, nil
}
