package endpoints

import (
	"context"
	"fmt"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforge/kubeforge/runtime/admission"
	"github.com/kubeforge/kubeforge/runtime/audit"
	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/presence"
	"github.com/kubeforge/kubeforge/runtime/resource"
	"github.com/kubeforge/kubeforge/runtime/storage"
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

// admissionRecorder writes admission warnings to the response and audit
// annotations to the request's audit event.
type admissionRecorder struct {
	w   http.ResponseWriter
	ctx context.Context
}

func (r admissionRecorder) Warn(text string) { AddWarning(r.w, text) }

func (r admissionRecorder) Annotate(key, value string) {
	audit.From(r.ctx).Annotate(key, value)
}

// admissionContext makes admission warnings and annotations of ctx's
// request reach w and the audit event.
func (h *Handler[T, L]) admissionContext(ctx context.Context, w http.ResponseWriter) context.Context {
	if h.opts.Admission == nil {
		return ctx
	}
	return admission.WithRecorder(ctx, admissionRecorder{w: w, ctx: ctx})
}

// attributes describes a write through this handler for admission.
func (h *Handler[T, L]) attributes(ctx context.Context, op admission.Operation, sub, ns, name string, options runtime.Object, dryRun bool) *admission.Attributes {
	u, _ := auth.UserFrom(ctx)
	kind := h.gvk
	if sub == "scale" {
		kind = scaleGVK
	}
	return &admission.Attributes{
		Operation:   op,
		Kind:        kind,
		Resource:    schema.GroupVersionResource{Group: h.info.Group, Version: h.info.Version, Resource: h.info.Plural},
		Subresource: sub,
		Namespace:   ns,
		Name:        name,
		Options:     options,
		DryRun:      dryRun,
		User:        u,
	}
}

// mutate runs mutating admission on obj (old is the current object on an
// update, the zero value on a create) and returns the object to write,
// defaulted again when admission changed it. in is the JSON obj was
// decoded from (nil: none); an object admission replaced is Go's, and in
// becomes presence.Marshaled.
func (h *Handler[T, L]) mutate(ctx context.Context, op admission.Operation, sub string, obj, old T, opts writeOptions, in *presence.Node) (T, error) {
	if h.opts.Admission == nil {
		return obj, nil
	}
	var zero T
	a := h.attributes(ctx, op, sub, obj.GetNamespace(), obj.GetName(), opts.options, opts.dryRun)
	h.setKind(obj)
	a.Object = obj
	if op == admission.Update {
		h.setKind(old)
		a.OldObject = old
	}
	if err := h.opts.Admission.Mutate(ctx, a); err != nil {
		return zero, err
	}
	out, ok := a.Object.(T)
	if !ok {
		return zero, fmt.Errorf("mutating admission of %s %q returned a %T", h.gvk.Kind, obj.GetName(), a.Object)
	}
	if any(out) != any(obj) {
		// A webhook's object is Go's: its fields without omitempty are
		// all set, as in the JSON a webhook answers with.
		if in != nil {
			*in = presence.Marshaled
		}
		if h.s.Default != nil {
			h.s.Default(out, presence.Marshaled)
		}
	}
	return out, nil
}

// admitFunc is the validating admission of a write through this handler
// (storage calls it once the object is valid, before writing it); on a
// delete it runs mutating admission first, as kube-apiserver does.
func (h *Handler[T, L]) admitFunc(op admission.Operation, sub, ns, name string, options runtime.Object, dryRun bool) storage.AdmitFunc {
	if h.opts.Admission == nil {
		return nil
	}
	return func(ctx context.Context, obj, old resource.Object) error {
		n := name
		if obj != nil && n == "" {
			n = obj.GetName()
		}
		if old != nil && n == "" {
			n = old.GetName()
		}
		a := h.attributes(ctx, op, sub, ns, n, options, dryRun)
		if obj != nil {
			a.Object = h.versioned(obj, sub)
		}
		if old != nil {
			a.OldObject = h.versioned(old, sub)
		}
		if op == admission.Delete {
			if err := h.opts.Admission.Mutate(ctx, a); err != nil {
				return err
			}
		}
		return h.opts.Admission.Validate(ctx, a)
	}
}

// versioned is o as admission sees it: with its kind set, or as a Scale
// for /scale. Objects from storage are copies the write owns.
func (h *Handler[T, L]) versioned(o resource.Object, sub string) runtime.Object {
	t, ok := o.(T)
	if !ok {
		return o
	}
	if sub == "scale" {
		return h.scaleOf(t)
	}
	h.setKind(t)
	return t
}
