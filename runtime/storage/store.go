// Package storage is the typed store over etcd client v3: one Store[T, L]
// per served resource, built from the generated resource.Strategy.
package storage

import (
	"context"
	"errors"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

var errNotImplemented = errors.New("not implemented")

// BackendOptions tunes a Backend.
type BackendOptions struct {
	// ObserveLatency, when set, is called after every etcd request.
	ObserveLatency func(operation, resource string, d time.Duration)
}

// Backend is an etcd client plus the key prefix every store writes under.
type Backend struct {
	client *clientv3.Client
	prefix string
	opts   BackendOptions
}

// NewBackend wraps client; prefix defaults to "/registry".
func NewBackend(client *clientv3.Client, prefix string, opts BackendOptions) *Backend {
	if prefix == "" {
		prefix = "/registry"
	}
	return &Backend{client: client, prefix: prefix, opts: opts}
}

// Ready performs a cheap quorum read.
func (b *Backend) Ready(ctx context.Context) error { return errNotImplemented }

// RunCompactor compacts etcd every interval until ctx is done.
func (b *Backend) RunCompactor(ctx context.Context, interval time.Duration) {}

// CreateOptions for Create.
type CreateOptions struct {
	DryRun bool
}

// GetOptions for Get.
type GetOptions struct {
	ResourceVersion string
}

// ListOptions for List, DeleteCollection and Watch.
type ListOptions struct {
	LabelSelector        labels.Selector
	FieldSelector        fields.Selector
	Limit                int64
	Continue             string
	ResourceVersion      string
	ResourceVersionMatch metav1.ResourceVersionMatch
}

// UpdateOptions for Update and GuaranteedUpdate.
type UpdateOptions struct {
	DryRun bool
	// Subresource is "" or "status".
	Subresource string
}

// DeleteOptions for Delete and DeleteCollection.
type DeleteOptions struct {
	DryRun            bool
	Preconditions     *metav1.Preconditions
	PropagationPolicy *metav1.DeletionPropagation
}

// WatchOptions for Watch.
type WatchOptions struct {
	ListOptions
	SendInitialEvents *bool
	AllowBookmarks    bool
}

// Event is one watch event.
type Event[T resource.Object] struct {
	Type   watch.EventType
	Object T
	// Status is set for ERROR events.
	Status *metav1.Status
}

// Store is the typed store of one resource.
type Store[T resource.Object, L resource.ListObject] struct {
	b *Backend
	s *resource.Strategy[T, L]
}

// NewStore returns the store of the resource described by s.
func NewStore[T resource.Object, L resource.ListObject](b *Backend, s *resource.Strategy[T, L]) *Store[T, L] {
	return &Store[T, L]{b: b, s: s}
}

// Create stores a new object.
func (st *Store[T, L]) Create(ctx context.Context, obj T, opts CreateOptions) (T, error) {
	var zero T
	return zero, errNotImplemented
}

// Get reads one object.
func (st *Store[T, L]) Get(ctx context.Context, namespace, name string, opts GetOptions) (T, error) {
	var zero T
	return zero, errNotImplemented
}

// List reads objects; namespace "" lists all namespaces.
func (st *Store[T, L]) List(ctx context.Context, namespace string, opts ListOptions) (L, error) {
	var zero L
	return zero, errNotImplemented
}

// Update replaces an object (PUT).
func (st *Store[T, L]) Update(ctx context.Context, obj T, opts UpdateOptions) (T, error) {
	var zero T
	return zero, errNotImplemented
}

// GuaranteedUpdate reads the current object, applies tryUpdate and writes
// the result, retrying on conflicts with concurrent writers (PATCH).
func (st *Store[T, L]) GuaranteedUpdate(ctx context.Context, namespace, name string, subresource string, tryUpdate func(current T) (T, error), opts UpdateOptions) (T, error) {
	var zero T
	return zero, errNotImplemented
}

// Delete deletes an object, or marks it for deletion when it has finalizers.
func (st *Store[T, L]) Delete(ctx context.Context, namespace, name string, opts DeleteOptions) (obj T, deleted bool, err error) {
	var zero T
	return zero, false, errNotImplemented
}

// DeleteCollection lists then deletes each listed object.
func (st *Store[T, L]) DeleteCollection(ctx context.Context, namespace string, listOpts ListOptions, delOpts DeleteOptions) (L, error) {
	var zero L
	return zero, errNotImplemented
}

// Watch streams events; the channel closes when ctx is done or the watch ends.
func (st *Store[T, L]) Watch(ctx context.Context, namespace string, opts WatchOptions) (<-chan Event[T], error) {
	return nil, errNotImplemented
}
