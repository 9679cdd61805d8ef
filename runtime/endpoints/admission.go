package endpoints

import (
	"context"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

// Operation is the kind of write an admission hook is asked about.
type Operation string

// Operations passed to Options.Admit.
const (
	// OperationCreate: POST on a collection, or a server-side apply that
	// creates the object.
	OperationCreate Operation = "CREATE"
	// OperationDelete: DELETE of one object.
	OperationDelete Operation = "DELETE"
)

// Attributes describe one write for admission.
type Attributes struct {
	Operation Operation
	// Info is the resource of the handler serving the request (the
	// version of the URL).
	Info *resource.Info
	// Namespace is "" for cluster-scoped resources.
	Namespace string
	// Name is the object's name; "" on a create with generateName.
	Name string
	// Object is the object about to be stored (CREATE, after defaults; a
	// hook may mutate it), nil for DELETE.
	Object resource.Object
	// DryRun is set for dryRun=All requests.
	DryRun bool
	// IgnoreStoreReadError is set on a DELETE with kube's
	// ignoreStoreReadErrorWithClusterBreakingPotential option: the
	// admitter must authorize it separately (kube's verb
	// unsafe-delete-ignore-read-errors).
	IgnoreStoreReadError bool
}

// Admitter decides whether a write may go ahead: a non-nil error (a
// *apierrors.StatusError for a Status answer) rejects it and nothing is
// stored.
type Admitter func(ctx context.Context, a Attributes) error

// admit runs Options.Admit, if set.
func (h *Handler[T, L]) admit(ctx context.Context, op Operation, ns, name string, obj resource.Object, dryRun bool) error {
	if h.opts.Admit == nil {
		return nil
	}
	return h.opts.Admit(ctx, Attributes{
		Operation: op,
		Info:      h.info,
		Namespace: ns,
		Name:      name,
		Object:    obj,
		DryRun:    dryRun,
	})
}
