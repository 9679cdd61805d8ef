package endpoints

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"

	"github.com/kubeforge/kubeforge/runtime/admission"
	"github.com/kubeforge/kubeforge/runtime/fieldmanager"
	"github.com/kubeforge/kubeforge/runtime/jsondecode"
	"github.com/kubeforge/kubeforge/runtime/presence"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// fieldManager returns the server-side apply field manager of the kind for
// the subresource ("" or "status").
func (h *Handler[T, L]) fieldManager(sub string) (*fieldmanager.FieldManager, error) {
	// Kept per handler: the registry's lookup takes its lock and this
	// Kind's closures cost allocations on every write.
	var slot *atomic.Pointer[fieldmanager.FieldManager]
	switch sub {
	case "":
		slot = &h.fmMain
	case "status":
		slot = &h.fmStatus
	}
	if slot != nil {
		if fm := slot.Load(); fm != nil {
			return fm, nil
		}
	}
	k := fieldmanager.Kind{
		GVK:            h.gvk,
		New:            func() runtime.Object { return h.s.New() },
		HasStatus:      h.info.HasStatus(),
		CustomResource: !h.builtin(),
	}
	if h.s.Default != nil {
		k.Default = func(obj runtime.Object, in presence.Node) {
			if t, ok := obj.(T); ok {
				h.s.Default(t, in)
			}
		}
	}
	fm, err := h.fms.FieldManager(k, sub)
	if err != nil {
		return nil, fmt.Errorf("field manager of %s: %w", h.info.GroupResource(), err)
	}
	if slot != nil {
		slot.Store(fm)
	}
	return fm, nil
}

// trackUpdate records in obj's managedFields what a non-apply write by
// manager changed against live (an empty object for a create). A
// managedFields list the client sent is kept; an empty one resets them. On
// a failure the live object's managedFields are kept, as kube-apiserver
// does.
func (h *Handler[T, L]) trackUpdate(fm *fieldmanager.FieldManager, live, obj T, manager string) T {
	h.setKind(live)
	h.setKind(obj)
	out := fm.UpdateNoErrors(live, obj, manager)
	if t, ok := out.(T); ok {
		return t
	}
	return obj
}

// checkCollections refuses, before any managed-fields work, an object
// with a list or map over fieldmanager.MaxCollectionItems (a 422 naming
// the field); size is the JSON it was decoded from, too short to hold one
// below fieldmanager.MinBytesForCollectionCheck.
func (h *Handler[T, L]) checkCollections(obj T, size int) error {
	if size < fieldmanager.MinBytesForCollectionCheck {
		return nil
	}
	if errs := fieldmanager.CheckCollectionSizes(obj); len(errs) > 0 {
		return apierrors.NewInvalid(h.gvk.GroupKind(), obj.GetName(), errs)
	}
	return nil
}

// decodeApplyPatch reads an apply configuration (YAML or JSON): fields the
// kind does not declare and duplicate keys are a 400 with Strict, a
// warning with Warn and dropped either way.
func decodeApplyPatch(w http.ResponseWriter, body []byte, directive string, gk schema.GroupKind, typed any) (*unstructured.Unstructured, error) {
	data, dupErrs, err := bodyToJSON(mediaYAML, body, directive)
	if err != nil {
		return nil, err
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, apierrors.NewBadRequest("error decoding patch: an apply configuration must be a YAML or JSON object")
	}
	var strictErrs []error
	decode := func(data []byte) error {
		// A retry starts from the zero object, as the first decode did.
		reflect.ValueOf(typed).Elem().SetZero()
		if directive == metav1.FieldValidationIgnore {
			return jsondecode.UnmarshalCaseSensitivePreserveInts(data, typed)
		}
		var err error
		strictErrs, err = jsondecode.UnmarshalStrict(data, typed)
		return err
	}
	if _, builtin := typed.(protoUnmarshaler); builtin {
		err = decode(data)
	} else if data, err = decodeIntegralFloats(data, decode); err != nil {
		// Values of the wrong type are the schema's 422, as for a body
		// (kube-apiserver answers an apply's with a 500).
		if unknown, invalid := invalidTypes(gk, reflect.TypeOf(typed).Elem(), data, err, false); invalid != nil {
			if err := handleStrict(w, append(dupErrs, unknown...), directive); err != nil {
				return nil, err
			}
			return nil, invalid
		}
	}
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
	}
	if err := handleStrict(w, append(dupErrs, strictErrs...), directive); err != nil {
		return nil, err
	}
	m := map[string]any{}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &m); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
	}
	fieldmanager.PruneUnknown(m, typed)
	return &unstructured.Unstructured{Object: m}, nil
}

// applyError keeps API errors (a conflict is a 409 with one
// FieldManagerConflict cause per field) and makes the rest, which come
// from an apply configuration that does not fit the kind's schema, a 400.
func applyError(err error) error {
	var apiStatus apierrors.APIStatus
	if errors.As(err, &apiStatus) {
		return err
	}
	return apierrors.NewBadRequest(err.Error())
}

// servePatchApply serves an application/apply-patch+yaml PATCH: the apply
// configuration is merged into the live object by the field manager, or,
// when the object does not exist (main resource only), creates it (201).
func (h *Handler[T, L]) servePatchApply(w *recorder, r *http.Request, sub, ns, name string, body []byte, opts writeOptions, f outputFormat) error {
	fm, err := h.fieldManager(sub)
	if err != nil {
		return err
	}
	typed := h.s.New()
	patchObj, err := decodeApplyPatch(w, body, opts.fieldValidation, h.gvk.GroupKind(), typed)
	if err != nil {
		return err
	}
	if err := h.checkCollections(typed, len(body)); err != nil {
		return err
	}
	ctx, cancel := h.requestContext(r)
	defer cancel()
	ctx = h.admissionContext(ctx, w)
	applyTo := func(live T) (T, error) {
		var zero T
		h.setKind(live)
		out, err := fm.Apply(live, patchObj.DeepCopy(), opts.fieldManager, opts.force)
		if err != nil {
			return zero, applyError(err)
		}
		obj, ok := out.(T)
		if !ok {
			return zero, fmt.Errorf("apply %s: the field manager returned a %T", h.gvk.Kind, out)
		}
		if err := h.checkPatched(obj, live, ns, name); err != nil {
			return zero, err
		}
		return obj, nil
	}
	// The result of an apply over a live object holds every field the
	// live object wrote, which Go writes without omitempty: as a stored
	// custom resource written by Go holds them.
	var in presence.Node
	updateTo := func(live T) (T, error) {
		obj, err := applyTo(live)
		if err != nil {
			return obj, err
		}
		in = presence.Marshaled
		return h.mutate(ctx, admission.Update, sub, obj, live, opts, &in)
	}

	for attempt := 0; ; attempt++ {
		out, err := h.store.GuaranteedUpdate(ctx, ns, name, sub, updateTo, storage.UpdateOptions{DryRun: opts.dryRun, Subresource: sub,
			Admit: h.admitFunc(admission.Update, sub, ns, name, opts.options, opts.dryRun), Presence: &in})
		if err == nil {
			return h.respondObject(w, r, http.StatusOK, f, out)
		}
		if !apierrors.IsNotFound(err) || sub != "" || attempt > 0 {
			return err
		}
		// Apply creates a missing object.
		live := h.s.New()
		live.SetName(name)
		live.SetNamespace(ns)
		obj, err := applyTo(live)
		if err != nil {
			return err
		}
		// The merge kept the empty live object's zeros, which Go writes
		// for fields without omitempty; what the object holds is the
		// apply configuration, so its keys say which zeros were set.
		created := presence.Unstructured(patchObj.Object)
		if h.s.Default != nil {
			h.s.Default(obj, created)
		}
		if err := h.admit(ctx, OperationCreate, ns, name, obj, opts.dryRun); err != nil {
			return err
		}
		// An apply that creates is admitted as a create, with
		// CreateOptions (kube's patchToCreateOptions).
		createOpts := asCreate(opts)
		var none T
		if obj, err = h.mutate(ctx, admission.Create, "", obj, none, createOpts, &created); err != nil {
			return err
		}
		made, err := h.store.Create(ctx, obj, storage.CreateOptions{DryRun: opts.dryRun, Presence: created,
			Admit: h.admitFunc(admission.Create, "", ns, name, createOpts.options, opts.dryRun)})
		if apierrors.IsAlreadyExists(err) {
			continue // created meanwhile: apply to it
		}
		if err != nil {
			return err
		}
		return h.respondObject(w, r, http.StatusCreated, f, made)
	}
}

// asCreate is opts of an update or patch that creates: admitted as a
// create, with CreateOptions carrying the same dry run, field manager and
// field validation (kube's updateToCreateOptions, patchToCreateOptions).
func asCreate(opts writeOptions) writeOptions {
	if uo, ok := opts.options.(*metav1.UpdateOptions); ok {
		opts.options = &metav1.CreateOptions{TypeMeta: metav1.TypeMeta{Kind: "CreateOptions", APIVersion: "meta.k8s.io/v1"},
			DryRun: uo.DryRun, FieldManager: uo.FieldManager, FieldValidation: uo.FieldValidation}
	}
	return opts
}
