// Package inprocess runs a project's controller-runtime webhooks
// (admission.Defaulter[T] and admission.Validator[T], or the untyped
// CustomDefaulter and CustomValidator, declared by +kubebuilder:webhook
// markers) inside the server, where kube-apiserver would call them over
// HTTPS: the store (storage.InProcessAdmission) calls Mutate before
// validation and Validate after it. There is no webhook server, no
// certificate and no serialization: the webhook gets the typed object the
// store holds, and controller-runtime's admission.Request in its context
// (operation, user, dry run, kind and resource; Object and OldObject carry
// the objects, not their JSON).
//
// What the webhook returns is answered as kube-apiserver answers an HTTP
// webhook's response: its warnings become Warning headers; its error is
// the webhook denying the request ("admission webhook "<name>" denied the
// request: <message>", the code and details of an API status error kept);
// a panic is a failure to call it, which the marker's failurePolicy
// decides (Fail: a 500; Ignore: the write goes on); a dry run through a
// webhook whose sideEffects are not None or NoneOnDryRun is refused with
// kube's 400, and a webhook whose verbs do not include the operation is
// not called. Generated code (generated/<g>/<v>/zz_generated.webhooks.go)
// builds the Chain; this package is linked only into servers whose project
// has such webhooks.
package inprocess

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	kfadmission "github.com/kubeforge/kubeforge/runtime/admission"
	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/resource"
	"github.com/kubeforge/kubeforge/runtime/storage"
	"github.com/kubeforge/kubeforge/runtime/warnings"
)

// Webhook is one +kubebuilder:webhook marker with the value implementing
// it: Defaulter for a mutating webhook, Validator for a validating one.
type Webhook[T resource.Object] struct {
	// Name is the marker's name ("vcronjob-v1.kb.io").
	Name string
	// FailurePolicy is "Fail" (the default) or "Ignore".
	FailurePolicy string
	// SideEffects is "None", "NoneOnDryRun", "Some" or "Unknown".
	SideEffects string
	// Operations are the marker's verbs as admission operations (CREATE,
	// UPDATE, DELETE).
	Operations []string
	// Exact is the marker's matchPolicy=Exact: the webhook is called only
	// for writes through its own version, Version ("" for the storage
	// version). Otherwise (Equivalent, kube's default) it is called for
	// writes through every version.
	Exact     bool
	Version   string
	Defaulter admission.Defaulter[T]
	Validator admission.Validator[T]
}

// Untyped adapts an untyped CustomDefaulter to Defaulter[T].
func Untyped[T runtime.Object](d admission.CustomDefaulter) admission.Defaulter[T] {
	return untypedDefaulter[T]{d}
}

type untypedDefaulter[T runtime.Object] struct{ d admission.CustomDefaulter }

func (u untypedDefaulter[T]) Default(ctx context.Context, obj T) error { return u.d.Default(ctx, obj) }

// UntypedValidator adapts an untyped CustomValidator to Validator[T].
func UntypedValidator[T runtime.Object](v admission.CustomValidator) admission.Validator[T] {
	return untypedValidator[T]{v}
}

type untypedValidator[T runtime.Object] struct{ v admission.CustomValidator }

func (u untypedValidator[T]) ValidateCreate(ctx context.Context, obj T) (admission.Warnings, error) {
	return u.v.ValidateCreate(ctx, obj)
}
func (u untypedValidator[T]) ValidateUpdate(ctx context.Context, oldObj, newObj T) (admission.Warnings, error) {
	return u.v.ValidateUpdate(ctx, oldObj, newObj)
}
func (u untypedValidator[T]) ValidateDelete(ctx context.Context, obj T) (admission.Warnings, error) {
	return u.v.ValidateDelete(ctx, obj)
}

// Chain is the webhooks of one kind in marker order; it implements
// storage.InProcessAdmission for the kind's store.
type Chain[T resource.Object] struct {
	GVK      schema.GroupVersionKind
	Resource schema.GroupVersionResource
	Webhooks []*Webhook[T]
}

var _ storage.InProcessAdmission[resource.Object] = (*Chain[resource.Object])(nil)

// Mutate calls every defaulter whose verbs include the operation, in
// order, on the object itself, and reports whether it called one.
func (c *Chain[T]) Mutate(ctx context.Context, a storage.AdmissionAttributes[T]) (called bool, err error) {
	if a.Operation == "DELETE" {
		return false, nil // controller-runtime's defaulters allow deletes unseen
	}
	return c.run(ctx, a, true)
}

// Validate calls every validator whose verbs include the operation.
func (c *Chain[T]) Validate(ctx context.Context, a storage.AdmissionAttributes[T]) error {
	_, err := c.run(ctx, a, false)
	return err
}

// run calls the chain's defaulters or validators for a, and reports
// whether it called one.
func (c *Chain[T]) run(ctx context.Context, a storage.AdmissionAttributes[T], mutating bool) (called bool, err error) {
	var req *admission.Request
	for _, w := range c.Webhooks {
		if (mutating && w.Defaulter == nil) || (!mutating && w.Validator == nil) || !slices.Contains(w.Operations, a.Operation) {
			continue
		}
		if w.Exact && w.Version != storage.RequestVersion(ctx) {
			continue
		}
		if a.DryRun && w.SideEffects != "None" && w.SideEffects != "NoneOnDryRun" {
			// kube-apiserver's webhookerrors.NewDryRunUnsupportedErr.
			return called, apierrors.NewBadRequest(fmt.Sprintf("admission webhook %q does not support dry run", w.Name))
		}
		if req == nil {
			req = c.request(ctx, a)
		}
		called = true
		warns, err := call(admission.NewContextWithRequest(ctx, *req), w, a, mutating)
		for _, text := range warns {
			warnings.Add(ctx, text)
		}
		var panicked *panicError
		switch {
		case err == nil:
		case errors.As(err, &panicked):
			if w.FailurePolicy == "Ignore" {
				continue
			}
			// kube-apiserver's answer to a webhook it failed to call.
			return called, apierrors.NewInternalError(fmt.Errorf("failed calling webhook %q: %w", w.Name, err))
		default:
			return called, denied(w.Name, err)
		}
	}
	return called, nil
}

// panicError is a webhook that panicked: for failurePolicy, a webhook that
// could not be called, as a crashed webhook server is for kube.
type panicError struct{ v any }

func (p *panicError) Error() string { return fmt.Sprintf("the webhook panicked: %v", p.v) }

// call runs the webhook for the operation, turning a panic into an error.
func call[T resource.Object](ctx context.Context, w *Webhook[T], a storage.AdmissionAttributes[T], mutating bool) (warns admission.Warnings, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &panicError{p}
		}
	}()
	if mutating {
		return nil, w.Defaulter.Default(ctx, a.Object)
	}
	switch a.Operation {
	case "CREATE":
		return w.Validator.ValidateCreate(ctx, a.Object)
	case "UPDATE":
		return w.Validator.ValidateUpdate(ctx, a.Old, a.Object)
	default:
		return w.Validator.ValidateDelete(ctx, a.Old)
	}
}

// denied is kube-apiserver's webhookerrors.ToStatusErr applied to the
// response controller-runtime's webhook handler makes of err: an API
// status error keeps its code, reason and details; any other error is a
// 403 Forbidden.
func denied(name string, err error) error {
	st := metav1.Status{Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: err.Error()}
	var apiStatus apierrors.APIStatus
	if errors.As(err, &apiStatus) {
		st = apiStatus.Status()
	}
	return kfadmission.WebhookDenied(name, st)
}

// request is controller-runtime's admission.Request for the write, as
// kube-apiserver would send it, with the typed objects in place of JSON.
func (c *Chain[T]) request(ctx context.Context, a storage.AdmissionAttributes[T]) *admission.Request {
	gvk := metav1.GroupVersionKind{Group: c.GVK.Group, Version: c.GVK.Version, Kind: c.GVK.Kind}
	gvr := metav1.GroupVersionResource{Group: c.Resource.Group, Version: c.Resource.Version, Resource: c.Resource.Resource}
	dry := a.DryRun
	r := admissionv1.AdmissionRequest{
		UID:             uuid.NewUUID(),
		Kind:            gvk,
		Resource:        gvr,
		RequestKind:     &gvk,
		RequestResource: &gvr,
		Operation:       admissionv1.Operation(a.Operation),
		DryRun:          &dry,
	}
	var obj resource.Object = a.Object
	if a.Operation == "DELETE" {
		obj = a.Old
	}
	r.Name, r.Namespace = obj.GetName(), obj.GetNamespace()
	if a.Operation != "DELETE" {
		r.Object = runtime.RawExtension{Object: a.Object}
	}
	if a.Operation != "CREATE" {
		r.OldObject = runtime.RawExtension{Object: a.Old}
	}
	if u, ok := auth.UserFrom(ctx); ok {
		r.UserInfo = authenticationv1.UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups}
		if len(u.Extra) > 0 {
			r.UserInfo.Extra = map[string]authenticationv1.ExtraValue{}
			for k, v := range u.Extra {
				r.UserInfo.Extra[k] = v
			}
		}
	}
	return &admission.Request{AdmissionRequest: r}
}
