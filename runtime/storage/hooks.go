package storage

import (
	"context"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

// Hooks add kind-specific storage behaviour a generated Strategy does not
// express, set by the runtime on the hub store (for example the namespace
// lifecycle on core/v1 namespaces: kube's namespace registry). Every field
// is optional.
type Hooks[T resource.Object] struct {
	// PrepareForCreate is called on the object Create is about to store,
	// after the system fields are set and the status is reset, before
	// validation.
	PrepareForCreate func(obj T)
	// PrepareForUpdate is called on every update (PUT, PATCH, apply,
	// GuaranteedUpdate) with the new object, the current one and the
	// subresource ("" or "status") before the update rules apply; it may
	// carry fields over from cur (kube's PrepareForUpdate). ctx is the
	// caller's.
	PrepareForUpdate func(ctx context.Context, newObj, cur T, subresource string)
	// SpecFinalizers returns finalizers the kind keeps outside
	// metadata.finalizers (a namespace's spec.finalizers). Like metadata
	// finalizers they turn Delete into marking the object (deletionTimestamp
	// set) and the update that empties both lists of an object being deleted
	// deletes it.
	SpecFinalizers func(obj T) []string
	// PrepareForDelete is called on the copy Delete is about to store when it
	// marks an object for deletion (e.g. status.phase=Terminating).
	PrepareForDelete func(obj T)
	// BeforeDelete is called with the current object on every Delete (and
	// so every DeleteCollection item) before anything is written; an error
	// (a *apierrors.StatusError) refuses the deletion.
	BeforeDelete func(cur T) error
	// Admit is called on every create (cur is the zero value) and update
	// once the object is valid, before it is written; an error (a
	// *apierrors.StatusError) refuses the write. ctx is the caller's, with
	// the request's user: the RBAC kinds check privilege escalation here.
	Admit func(ctx context.Context, obj, cur T) error
}

// HookSetter is implemented by *Store: SetHooks replaces the store's hooks.
// Call it before the store serves requests.
type HookSetter[T resource.Object] interface {
	SetHooks(h Hooks[T])
}

// SetHooks replaces the store's hooks; call it before the store is used.
func (st *Store[T, L]) SetHooks(h Hooks[T]) { st.hooks = h }

// hasFinalizers reports whether obj has metadata or spec finalizers.
func (st *Store[T, L]) hasFinalizers(obj T) bool {
	if len(obj.GetFinalizers()) > 0 {
		return true
	}
	return st.hooks.SpecFinalizers != nil && len(st.hooks.SpecFinalizers(obj)) > 0
}
