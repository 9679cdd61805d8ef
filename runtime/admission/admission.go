// Package admission is the seam between the write path and admission
// control: the handlers describe every write (create, update, patch,
// apply, delete, and the /status and /scale subresources, dry-run
// included) as Attributes and call an Interface at the two points where
// kube-apiserver calls its admission chain:
//
//   - Mutate, before defaults are checked and the object validated (kube's
//     MutatingAdmissionWebhook runs here), on create and update;
//   - Validate, after the object's own validation, just before it is
//     written (ValidatingAdmissionPolicy and ValidatingAdmissionWebhook run
//     here), on create, update and delete.
//
// Any admission plug-in (the webhooks and policies of admission/webhook
// and admission/policy, or in-process defaulters and validators)
// implements Interface; Chain runs several in order.
package admission

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforge/kubeforge/runtime/auth"
)

// Operation is kube's admission operation.
type Operation string

// The operations of admissionregistration.k8s.io rules.
const (
	Create Operation = "CREATE"
	Update Operation = "UPDATE"
	Delete Operation = "DELETE"
)

// Attributes describe one write.
type Attributes struct {
	Operation Operation
	// Kind is the kind of Object and OldObject, in the version of the
	// request (autoscaling/v1 Scale for /scale).
	Kind schema.GroupVersionKind
	// Resource is the resource of the URL; Subresource "", "status" or
	// "scale".
	Resource    schema.GroupVersionResource
	Subresource string
	// Namespace is "" for cluster-scoped resources; Name may be "" on a
	// create with generateName.
	Namespace, Name string
	// Object is the object to be written (nil on DELETE); Mutate may
	// change it or replace it with another of the same Kind. OldObject is
	// the current object on UPDATE and DELETE.
	Object, OldObject runtime.Object
	// Options is the request's metav1.CreateOptions, UpdateOptions,
	// PatchOptions or DeleteOptions.
	Options runtime.Object
	DryRun  bool
	// User made the request (nil for the server's own writes).
	User *auth.User
}

// Interface is an admission plug-in. An error rejects the write: a
// *apierrors.StatusError is answered as it is, anything else as a 500.
type Interface interface {
	// Mutate may change a.Object (a.Object is nil on DELETE).
	Mutate(ctx context.Context, a *Attributes) error
	// Validate decides on the object about to be written; it must not
	// change it.
	Validate(ctx context.Context, a *Attributes) error
}

// Chain runs plug-ins in order: every Mutate, in order, then (on the
// second call) every Validate.
type Chain []Interface

// Mutate runs each plug-in's Mutate, stopping at the first error.
func (c Chain) Mutate(ctx context.Context, a *Attributes) error {
	for _, p := range c {
		if err := p.Mutate(ctx, a); err != nil {
			return err
		}
	}
	return nil
}

// Validate runs each plug-in's Validate, stopping at the first error.
func (c Chain) Validate(ctx context.Context, a *Attributes) error {
	for _, p := range c {
		if err := p.Validate(ctx, a); err != nil {
			return err
		}
	}
	return nil
}

// Recorder receives what admission adds to a response: warnings (the
// Warning header kubectl prints) and audit annotations.
type Recorder interface {
	Warn(text string)
	Annotate(key, value string)
}

type recorderKey struct{}

// WithRecorder returns a context whose admission warnings and annotations
// go to r.
func WithRecorder(ctx context.Context, r Recorder) context.Context {
	return context.WithValue(ctx, recorderKey{}, r)
}

// Warn adds a warning to the response of the request ctx belongs to.
func Warn(ctx context.Context, text string) {
	if r, ok := ctx.Value(recorderKey{}).(Recorder); ok {
		r.Warn(text)
	}
}

// Annotate adds an audit annotation to the request ctx belongs to.
func Annotate(ctx context.Context, key, value string) {
	if r, ok := ctx.Value(recorderKey{}).(Recorder); ok {
		r.Annotate(key, value)
	}
}

// ErrNotReady is returned (wrapped) by a plug-in whose configuration is not
// loaded yet.
var ErrNotReady = errors.New("admission configuration not yet loaded")

// WebhookDenied is kube's error for a webhook's denial: the webhook's
// Status with "admission webhook "name" denied the request: " before its
// message (or its reason, or " without explanation"), and a code of at
// least 400.
func WebhookDenied(name string, st metav1.Status) error {
	st.TypeMeta = metav1.TypeMeta{}
	st.Status = metav1.StatusFailure
	if st.Code < http.StatusBadRequest {
		st.Code = http.StatusBadRequest
	}
	by := fmt.Sprintf("admission webhook %q denied the request", name)
	switch {
	case st.Message != "":
		st.Message = by + ": " + st.Message
	case st.Reason != "":
		st.Message = by + ": " + string(st.Reason)
	default:
		st.Message = by + " without explanation"
	}
	return &apierrors.StatusError{ErrStatus: st}
}
