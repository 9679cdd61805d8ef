package storage

import (
	"context"

	"github.com/kubeforge/kubeforge/runtime/presence"
	"github.com/kubeforge/kubeforge/runtime/resource"
)

// InProcessAdmission is admission code linked into the server (a
// project's controller-runtime webhooks: runtime/webhook) that the store
// calls where kube-apiserver calls admission webhooks: Mutate on a create
// or an update before defaults are final and validation runs, Validate
// after validation and on a delete, before anything is written. An error
// (a *apierrors.StatusError) refuses the write; nothing is stored.
// Subresource writes (status) are not admitted, as a webhook whose rules
// name only the resource is not called for them.
//
// Mutate reports whether it called a mutating webhook: the object is then
// Go's, as a webhook's JSON answer is, so the store applies the defaults
// again and counts every field without omitempty as sent (presence).
type InProcessAdmission[T resource.Object] interface {
	Mutate(ctx context.Context, a AdmissionAttributes[T]) (called bool, err error)
	Validate(ctx context.Context, a AdmissionAttributes[T]) error
}

// AdmissionAttributes describe one write to InProcessAdmission.
type AdmissionAttributes[T resource.Object] struct {
	// Operation is CREATE, UPDATE or DELETE.
	Operation string
	// Object is the object to store (Mutate may change it); zero on DELETE.
	Object T
	// Old is the current object on UPDATE and DELETE; zero on CREATE.
	Old    T
	DryRun bool
}

// SetInProcessAdmission sets the store's in-process admission; call it
// before the store serves requests.
func (st *Store[T, L]) SetInProcessAdmission(a InProcessAdmission[T]) { st.inproc = a }

// mutate runs the in-process mutating webhooks on obj (none for a
// subresource). It returns what validation is to take as the JSON obj
// came from: in, or, once a mutating webhook was called,
// presence.Marshaled, after the defaults were applied again
// (kube-apiserver defaults the object a webhook's patch made).
func (st *Store[T, L]) mutate(ctx context.Context, op string, obj, old T, dryRun bool, sub string, in presence.Node) (presence.Node, error) {
	if st.inproc == nil || sub != "" {
		return in, nil
	}
	called, err := st.inproc.Mutate(ctx, AdmissionAttributes[T]{Operation: op, Object: obj, Old: old, DryRun: dryRun})
	if err != nil || !called {
		return in, err
	}
	if st.s.Default != nil {
		st.s.Default(obj, presence.Marshaled)
	}
	return presence.Marshaled, nil
}

func (st *Store[T, L]) validateAdmission(ctx context.Context, op string, obj, old T, dryRun bool, sub string) error {
	if st.inproc == nil || sub != "" {
		return nil
	}
	return st.inproc.Validate(ctx, AdmissionAttributes[T]{Operation: op, Object: obj, Old: old, DryRun: dryRun})
}

type requestVersionKey struct{}

// withRequestVersion marks ctx as a write through version v of the kind
// (storage.NewConverted's writes to the hub store), for in-process
// webhooks with kube's matchPolicy Exact.
func withRequestVersion(ctx context.Context, v string) context.Context {
	return context.WithValue(ctx, requestVersionKey{}, v)
}

// RequestVersion is the served version a write came through: the one
// NewConverted marked, or "" for a write through the storage version.
func RequestVersion(ctx context.Context) string {
	v, _ := ctx.Value(requestVersionKey{}).(string)
	return v
}
