package inprocess

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

// SpokeWebhook runs w, written for a served version S other than the
// storage version H, on the storage version's store, as kube-apiserver
// calls a webhook with matchPolicy Equivalent: the object is converted to
// S (FromHub) for the call, and a defaulter's result back (ToHub); the
// admission.Request in the context names S's kind and resource and
// carries the converted objects. gvk and gvr are S's.
func SpokeWebhook[S resource.Object, E any, H interface {
	*E
	resource.Object
}](w *Webhook[S], gvk schema.GroupVersionKind, gvr schema.GroupVersionResource, toHub func(S) (H, error), fromHub func(H) (S, error)) *Webhook[H] {
	c := &spokeConv[S, E, H]{gvk: gvk, gvr: gvr, toHub: toHub, fromHub: fromHub}
	out := &Webhook[H]{Name: w.Name, FailurePolicy: w.FailurePolicy, SideEffects: w.SideEffects, Operations: w.Operations, Exact: w.Exact, Version: gvk.Version}
	if w.Defaulter != nil {
		out.Defaulter = spokeDefaulter[S, E, H]{c, w.Defaulter}
	}
	if w.Validator != nil {
		out.Validator = spokeValidator[S, E, H]{c, w.Validator}
	}
	return out
}

type spokeConv[S resource.Object, E any, H interface {
	*E
	resource.Object
}] struct {
	gvk     schema.GroupVersionKind
	gvr     schema.GroupVersionResource
	toHub   func(S) (H, error)
	fromHub func(H) (S, error)
}

// request returns ctx whose admission.Request is about S: its kind,
// resource and the converted objects (zero values stay unset).
func (c *spokeConv[S, E, H]) request(ctx context.Context, obj, old runtime.Object) context.Context {
	req, err := admission.RequestFromContext(ctx)
	if err != nil {
		return ctx
	}
	req.Kind = metav1.GroupVersionKind{Group: c.gvk.Group, Version: c.gvk.Version, Kind: c.gvk.Kind}
	req.Resource = metav1.GroupVersionResource{Group: c.gvr.Group, Version: c.gvr.Version, Resource: c.gvr.Resource}
	if obj != nil {
		req.Object = runtime.RawExtension{Object: obj}
	}
	if old != nil {
		req.OldObject = runtime.RawExtension{Object: old}
	}
	return admission.NewContextWithRequest(ctx, req)
}

type spokeDefaulter[S resource.Object, E any, H interface {
	*E
	resource.Object
}] struct {
	c *spokeConv[S, E, H]
	d admission.Defaulter[S]
}

func (a spokeDefaulter[S, E, H]) Default(ctx context.Context, obj H) error {
	s, err := a.c.fromHub(obj)
	if err != nil {
		return err
	}
	if err := a.d.Default(a.c.request(ctx, s, nil), s); err != nil {
		return err
	}
	back, err := a.c.toHub(s)
	if err != nil {
		return err
	}
	*obj = *back
	return nil
}

type spokeValidator[S resource.Object, E any, H interface {
	*E
	resource.Object
}] struct {
	c *spokeConv[S, E, H]
	v admission.Validator[S]
}

func (a spokeValidator[S, E, H]) ValidateCreate(ctx context.Context, obj H) (admission.Warnings, error) {
	s, err := a.c.fromHub(obj)
	if err != nil {
		return nil, err
	}
	return a.v.ValidateCreate(a.c.request(ctx, s, nil), s)
}

func (a spokeValidator[S, E, H]) ValidateUpdate(ctx context.Context, oldObj, obj H) (admission.Warnings, error) {
	s, err := a.c.fromHub(obj)
	if err != nil {
		return nil, err
	}
	old, err := a.c.fromHub(oldObj)
	if err != nil {
		return nil, err
	}
	return a.v.ValidateUpdate(a.c.request(ctx, s, old), old, s)
}

func (a spokeValidator[S, E, H]) ValidateDelete(ctx context.Context, obj H) (admission.Warnings, error) {
	old, err := a.c.fromHub(obj)
	if err != nil {
		return nil, err
	}
	return a.v.ValidateDelete(a.c.request(ctx, nil, old), old)
}
