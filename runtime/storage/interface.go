package storage

import (
	"context"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

// Interface is what the HTTP handlers need from the storage of one resource:
// exactly the method set of *Store. *Store serves it from etcd and, with
// BackendOptions.WatchCache, its watch cache; NewConverted serves a
// non-storage (spoke) version over the store of the storage (hub) version.
type Interface[T resource.Object, L resource.ListObject] interface {
	// Create stores a new object; in is not modified.
	Create(ctx context.Context, in T, opts CreateOptions) (T, error)
	// Get reads one object.
	Get(ctx context.Context, namespace, name string, opts GetOptions) (T, error)
	// List reads the objects of namespace ("" for all namespaces).
	List(ctx context.Context, namespace string, opts ListOptions) (L, error)
	// GuaranteedUpdate applies tryUpdate to the current object and writes
	// the result, retrying on races with concurrent writers. It is the one
	// write path of an existing object: PATCH, apply, and PUT (with
	// UpdateOptions.RequireResourceVersion, the object tryUpdate returns
	// being the request's).
	GuaranteedUpdate(ctx context.Context, namespace, name string, subresource string, tryUpdate func(current T) (T, error), opts UpdateOptions) (T, error)
	// Delete deletes an object (deleted=true) or, with finalizers, marks it
	// for deletion (deleted=false), returning its last state.
	Delete(ctx context.Context, namespace, name string, opts DeleteOptions) (T, bool, error)
	// DeleteCollection deletes every matching object and returns them.
	DeleteCollection(ctx context.Context, namespace string, listOpts ListOptions, delOpts DeleteOptions) (L, error)
	// Watch streams the events of namespace ("" for all namespaces).
	Watch(ctx context.Context, namespace string, opts WatchOptions) (<-chan Event[T], error)
}
