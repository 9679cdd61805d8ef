package storage

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	kfconversion "github.com/kubeforge/kubeforge/runtime/conversion"
	"github.com/kubeforge/kubeforge/runtime/jsonencode"
	"github.com/kubeforge/kubeforge/runtime/presence"
	"github.com/kubeforge/kubeforge/runtime/resource"
)

// Converter converts one kind between a served (spoke) version E and its
// storage (hub) version T. The conversion generator writes the functions
// (generated/<group>/<version>/zz_generated.conversion.go: <Kind>ToHub,
// <Kind>FromHub, <Kind>ListFromHub).
type Converter[E resource.Object, EL resource.ListObject, T resource.Object, L resource.ListObject] struct {
	// ToHub converts a spoke object to the hub version; an error means the
	// request cannot be stored (400).
	ToHub func(E) (T, error)
	// FromHub converts a stored object to the spoke version; an error is a
	// bug (500).
	FromHub func(T) (E, error)
	// ListFromHub converts a list, item by item as FromHub does.
	ListFromHub func(L) (EL, error)
}

// converted serves the spoke version E of a kind over the store of its hub
// version T: see NewConverted.
type converted[E resource.Object, EL resource.ListObject, T resource.Object, L resource.ListObject] struct {
	hub Interface[T, L]
	s   *resource.Strategy[E, EL]
	c   Converter[E, EL, T, L]
}

// NewConverted serves the spoke version described by spoke over hub, the
// store of the kind's storage version (the same store instance every
// version of the kind shares). Every verb converts in and out: objects
// written through the spoke are validated with the spoke's validation
// (spoke field paths, 422) and converted to the hub before the hub store
// applies its own rules and validation; everything read, returned or
// watched is converted to the spoke. List metadata (resourceVersion,
// continue, remainingItemCount) is kept. Selectors and pagination are the
// hub store's, with the spoke's field labels: a field selector on a label
// other than metadata.name and metadata.namespace is checked against the
// spoke's Info and matched on the spoke's Strategy.SelectableFields of each
// stored object converted (a hub label the spoke does not serve is 400).
func NewConverted[E resource.Object, EL resource.ListObject, T resource.Object, L resource.ListObject](hub Interface[T, L], spoke *resource.Strategy[E, EL], c Converter[E, EL, T, L]) Interface[E, EL] {
	if spoke.CustomResource != nil {
		jsonencode.RegisterCustomResource(*spoke.CustomResource)
	}
	return &converted[E, EL, T, L]{hub: hub, s: spoke, c: c}
}

func (cv *converted[E, EL, T, L]) resourceName() string {
	return cv.s.Info.GroupResource().String()
}

func (cv *converted[E, EL, T, L]) gvk() schema.GroupVersionKind {
	return cv.s.Info.GroupVersionKind()
}

func (cv *converted[E, EL, T, L]) listGVK() schema.GroupVersionKind {
	gvk := cv.gvk()
	gvk.Kind = cv.s.Info.ListKind
	if gvk.Kind == "" {
		gvk.Kind = cv.s.Info.Kind + "List"
	}
	return gvk
}

func (cv *converted[E, EL, T, L]) copyObj(obj E) E { return obj.DeepCopyObject().(E) }

// toHub converts a request object: a failure is the request's fault (400).
func (cv *converted[E, EL, T, L]) toHub(op string, obj E) (T, error) {
	out, err := cv.c.ToHub(obj)
	if err != nil {
		var zero T
		if se, ok := convertibleStatus(err); ok {
			return zero, se
		}
		err = fmt.Errorf("%s %s %q: convert %s to the storage version: %w", op, cv.resourceName(), obj.GetName(), cv.s.Info.Version, err)
		return zero, apierrors.NewBadRequest(err.Error())
	}
	return out, nil
}

// fromHub converts a stored object: a failure is a bug (500).
func (cv *converted[E, EL, T, L]) fromHub(op string, obj T) (E, error) {
	out, err := cv.c.FromHub(obj)
	if err != nil {
		var zero E
		if se, ok := convertibleStatus(err); ok {
			return zero, se
		}
		return zero, apierrors.NewInternalError(fmt.Errorf("%s %s %q: convert stored object to %s: %w", op, cv.resourceName(), obj.GetName(), cv.s.Info.Version, err))
	}
	out.GetObjectKind().SetGroupVersionKind(cv.gvk())
	return out, nil
}

func (cv *converted[E, EL, T, L]) listFromHub(op string, list L) (EL, error) {
	out, err := cv.c.ListFromHub(list)
	if err != nil {
		var zero EL
		if se, ok := convertibleStatus(err); ok {
			return zero, se
		}
		return zero, apierrors.NewInternalError(fmt.Errorf("%s %s: convert stored list to %s: %w", op, cv.resourceName(), cv.s.Info.Version, err))
	}
	out.SetResourceVersion(list.GetResourceVersion())
	out.SetContinue(list.GetContinue())
	out.SetRemainingItemCount(list.GetRemainingItemCount())
	if cv.s.GetItems != nil && cv.s.SetItems != nil && len(cv.s.GetItems(out)) == 0 {
		cv.s.SetItems(out, []E{}) // items: [], never null
	}
	out.GetObjectKind().SetGroupVersionKind(cv.listGVK())
	return out, nil
}

// admitFunc gives admit the hub store's objects converted to the spoke,
// the version the write came through.
func (cv *converted[E, EL, T, L]) admitFunc(admit AdmitFunc) AdmitFunc {
	if admit == nil {
		return nil
	}
	spoke := func(op string, o resource.Object) (resource.Object, error) {
		h, ok := o.(T)
		if !ok {
			return nil, nil
		}
		return cv.fromHub(op, h)
	}
	return func(ctx context.Context, obj, old resource.Object) error {
		e, err := spoke("admit", obj)
		if err != nil {
			return err
		}
		o, err := spoke("admit", old)
		if err != nil {
			return err
		}
		return admit(ctx, e, o)
	}
}

// asSpoke names a hub's NotFound or AlreadyExists of this resource by the
// resource the request went through, as kube-apiserver does
// (events.events.k8s.io for an events.k8s.io Event stored as a core one);
// other errors (a missing namespace's NotFound) stand.
func (cv *converted[E, EL, T, L]) asSpoke(err error) error {
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.ErrStatus.Details == nil || se.ErrStatus.Details.Kind != cv.s.Info.Plural {
		return err
	}
	switch name := se.ErrStatus.Details.Name; se.ErrStatus.Reason {
	case metav1.StatusReasonNotFound:
		return apierrors.NewNotFound(cv.s.Info.GroupResource(), name)
	case metav1.StatusReasonAlreadyExists:
		return apierrors.NewAlreadyExists(cv.s.Info.GroupResource(), name)
	}
	return err
}

// invalidKind names the object of a 422 as kube-apiserver does: by the
// kind it stores (its internal type's), the hub's; a version of your kind
// has the hub's group and kind anyway.
func (cv *converted[E, EL, T, L]) invalidKind() schema.GroupKind {
	if h, ok := cv.hub.(interface{ groupKind() schema.GroupKind }); ok {
		return h.groupKind()
	}
	return schema.GroupKind{Group: cv.s.Info.Group, Kind: cv.s.Info.Kind}
}

// validate runs the spoke's validation (the request version's field paths).
// On an update (old set) unchanged values' errors are dropped (ratchet).
func (cv *converted[E, EL, T, L]) validate(ctx context.Context, obj, old E, update bool, in presence.Node, sub string) error {
	if errs := checks(ctx, cv.s, obj, old, update, false, in); len(errs) > 0 {
		if sub == "status" {
			relativeToStatus(errs)
		}
		return apierrors.NewInvalid(cv.invalidKind(), obj.GetName(), errs)
	}
	return nil
}

// Create validates in as the spoke, converts it and creates it in the hub.
func (cv *converted[E, EL, T, L]) Create(ctx context.Context, in E, opts CreateOptions) (E, error) {
	var zero E
	obj := cv.copyObj(in)
	if cv.s.ResetStatus != nil {
		cv.s.ResetStatus(obj) // create drops status
		opts.Presence = opts.Presence.Without("status")
	}
	check := obj
	if obj.GetName() == "" && obj.GetGenerateName() != "" {
		// The hub store generates the name; validate as it will be.
		check = cv.copyObj(obj)
		check.SetName(generateName(obj.GetGenerateName()))
	}
	var none E
	if err := cv.validate(ctx, check, none, false, opts.Presence, ""); err != nil {
		return zero, err
	}
	h, err := cv.toHub("create", obj)
	if err != nil {
		return zero, err
	}
	opts.fromSpoke = true
	opts.Admit = cv.admitFunc(opts.Admit)
	out, err := cv.hub.Create(withRequestVersion(ctx, cv.s.Info.Version), h, opts)
	if err != nil {
		return zero, cv.asSpoke(err)
	}
	return cv.fromHub("create", out)
}

// Get reads the hub object and converts it.
func (cv *converted[E, EL, T, L]) Get(ctx context.Context, namespace, name string, opts GetOptions) (E, error) {
	out, err := cv.hub.Get(ctx, namespace, name, opts)
	if err != nil {
		var zero E
		return zero, cv.asSpoke(err)
	}
	return cv.fromHub("get", out)
}

// selecting makes the hub select on the spoke's field labels and fields.
func (cv *converted[E, EL, T, L]) selecting(opts ListOptions) ListOptions {
	opts.selectable = &selectable{info: cv.s.Info, fieldsOf: cv.fieldsOf}
	return opts
}

// fieldsOf is the spoke's field set of a stored (hub) object.
func (cv *converted[E, EL, T, L]) fieldsOf(obj resource.Object) (fields.Set, error) {
	h, ok := obj.(T)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("select %s: stored object of type %T", cv.resourceName(), obj))
	}
	e, err := cv.fromHub("select", h)
	if err != nil {
		return nil, err
	}
	if cv.s.SelectableFields == nil {
		return metadataFields(e), nil
	}
	return cv.s.SelectableFields(e), nil
}

// List reads the hub list and converts every item.
func (cv *converted[E, EL, T, L]) List(ctx context.Context, namespace string, opts ListOptions) (EL, error) {
	list, err := cv.hub.List(ctx, namespace, cv.selecting(opts))
	if err != nil {
		var zero EL
		return zero, err
	}
	return cv.listFromHub("list", list)
}

// GuaranteedUpdate gives tryUpdate the current object converted to the
// spoke, validates its result as the spoke (as the hub store will merge
// it: only status for the status subresource, the current status
// otherwise) and hands it converted to the hub.
func (cv *converted[E, EL, T, L]) GuaranteedUpdate(ctx context.Context, namespace, name string, subresource string, tryUpdate func(current E) (E, error), opts UpdateOptions) (E, error) {
	var zero E
	opts.fromSpoke = true
	opts.Admit = cv.admitFunc(opts.Admit)
	out, err := cv.hub.GuaranteedUpdate(withRequestVersion(ctx, cv.s.Info.Version), namespace, name, subresource, func(cur T) (T, error) {
		var zeroT T
		spokeCur, err := cv.fromHub("update", cur)
		if err != nil {
			return zeroT, err
		}
		newObj, err := tryUpdate(cv.copyObj(spokeCur))
		if err != nil {
			return zeroT, err
		}
		// The precondition goes before validation, as in the hub store and
		// kube-apiserver: a stale write is a Conflict whatever it holds.
		if err := checkResourceVersionPrecondition(cv.s.Info, newObj, spokeCur, opts.RequireResourceVersion); err != nil {
			return zeroT, err
		}
		check, sent := newObj, opts.sent()
		if cv.s.CopyStatus != nil {
			if subresource == "status" {
				check = cv.copyObj(spokeCur)
				cv.s.CopyStatus(check, newObj)
			} else {
				check = cv.copyObj(newObj)
				cv.s.CopyStatus(check, spokeCur)
				sent = sent.Without("status") // the current object's status
			}
		}
		if err := cv.validate(ctx, check, spokeCur, true, sent, subresource); err != nil {
			return zeroT, err
		}
		return cv.toHub("update", newObj)
	}, opts)
	if err != nil {
		return zero, cv.asSpoke(err)
	}
	return cv.fromHub("update", out)
}

// Delete deletes in the hub and returns the last state converted.
func (cv *converted[E, EL, T, L]) Delete(ctx context.Context, namespace, name string, opts DeleteOptions) (E, bool, error) {
	opts.Admit = cv.admitFunc(opts.Admit)
	out, deleted, err := cv.hub.Delete(withRequestVersion(ctx, cv.s.Info.Version), namespace, name, opts)
	if err != nil {
		var zero E
		return zero, false, cv.asSpoke(err)
	}
	obj, err := cv.fromHub("delete", out)
	return obj, deleted, err
}

// DeleteCollection deletes in the hub and returns the objects converted.
func (cv *converted[E, EL, T, L]) DeleteCollection(ctx context.Context, namespace string, listOpts ListOptions, delOpts DeleteOptions) (EL, error) {
	delOpts.Admit = cv.admitFunc(delOpts.Admit)
	list, err := cv.hub.DeleteCollection(withRequestVersion(ctx, cv.s.Info.Version), namespace, cv.selecting(listOpts), delOpts)
	if err != nil {
		var zero EL
		return zero, err
	}
	return cv.listFromHub("deletecollection", list)
}

// Watch streams the hub's events with every object converted to the
// spoke. BOOKMARK objects are new spoke objects with the bookmark's
// resourceVersion and annotations; ERROR events pass through. A stored
// object that does not convert ends the stream with an ERROR (500).
func (cv *converted[E, EL, T, L]) Watch(ctx context.Context, namespace string, opts WatchOptions) (<-chan Event[E], error) {
	opts.ListOptions = cv.selecting(opts.ListOptions)
	in, err := cv.hub.Watch(ctx, namespace, opts)
	if err != nil {
		return nil, err
	}
	out := make(chan Event[E], watchBuffer)
	go func() {
		defer func() {
			close(out)
			// The hub stops sending once ctx is done.
			for range in {
			}
		}()
		send := func(ev Event[E]) bool {
			select {
			case out <- ev:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for ev := range in {
			var o Event[E]
			switch ev.Type {
			case watch.Error:
				o = Event[E]{Type: ev.Type, Status: ev.Status}
			case watch.Bookmark:
				b := cv.s.New()
				b.GetObjectKind().SetGroupVersionKind(cv.gvk())
				b.SetResourceVersion(ev.Object.GetResourceVersion())
				b.SetAnnotations(ev.Object.GetAnnotations())
				o = Event[E]{Type: ev.Type, Object: b}
			default:
				// Converted once per event however many watchers share
				// it (ev.Memo, from the watch cache); the converted
				// object has a memo of its own for its encodings.
				v, err := ev.Memo.Do("convert:"+cv.gvk().String(), func() (any, error) {
					obj, err := cv.fromHub("watch", ev.Object)
					if err != nil {
						return nil, err
					}
					var memo *Memo
					if ev.Memo != nil {
						memo = &Memo{}
					}
					return Event[E]{Object: obj, Memo: memo}, nil
				})
				if err != nil {
					send(errorEvent[E](err))
					return
				}
				o = v.(Event[E])
				o.Type = ev.Type
			}
			if !send(o) {
				return
			}
		}
	}()
	return out, nil
}

// convertibleStatus answers the failure of a kind's own conversion methods
// (controller-runtime's ConvertTo/ConvertFrom) as kube-apiserver answers a
// failing conversion webhook: a 500 with no reason whose message is the
// webhook error's, in either direction (nothing is stored: conversion
// happens before the write).
func convertibleStatus(err error) (*apierrors.StatusError, bool) {
	ce, ok := kfconversion.AsConvertibleError(err)
	if !ok {
		return nil, false
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusInternalServerError,
		Message: ce.Error(),
	}}, true
}
