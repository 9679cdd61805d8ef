package endpoints

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/emicklei/go-restful/v3"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kubeforge/kubeforge/runtime/admission"
	"github.com/kubeforge/kubeforge/runtime/fieldmanager"
	"github.com/kubeforge/kubeforge/runtime/jsonencode"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// scaleGVK is the kind the scale subresource reads and writes.
var scaleGVK = autoscalingv1.SchemeGroupVersion.WithKind("Scale")

// scaleGroupKind names the Scale in its validation errors, as
// kube-apiserver does: `Scale.autoscaling "g1" is invalid`.
var scaleGroupKind = schema.GroupKind{Group: autoscalingv1.GroupName, Kind: "Scale"}

// scaleOf is obj's autoscaling/v1 Scale, as kube-apiserver builds it for a
// custom resource: the object's name, namespace, uid, resourceVersion and
// creationTimestamp, spec.replicas, status.replicas and status.selector
// from the fields +kubebuilder:subresource:scale names.
func (h *Handler[T, L]) scaleOf(obj T) *autoscalingv1.Scale {
	s := h.s.GetScale(obj)
	sc := &autoscalingv1.Scale{}
	sc.APIVersion, sc.Kind = scaleGVK.GroupVersion().String(), scaleGVK.Kind
	sc.Name, sc.Namespace, sc.UID = obj.GetName(), obj.GetNamespace(), obj.GetUID()
	sc.ResourceVersion, sc.CreationTimestamp = obj.GetResourceVersion(), obj.GetCreationTimestamp()
	sc.Spec.Replicas = s.SpecReplicas
	sc.Status.Replicas, sc.Status.Selector = s.StatusReplicas, s.Selector
	return sc
}

// scaleRequest reads what every /scale request starts with: the object's
// namespace and name (404 when the kind serves no scale) and the output
// format.
func (h *Handler[T, L]) scaleRequest(req *restful.Request, r *http.Request) (ns, name string, f outputFormat, err error) {
	if ns, name, err = h.names(req, true); err != nil {
		return "", "", f, err
	}
	if h.s.GetScale == nil || h.s.SetReplicas == nil {
		return "", "", f, apierrors.NewNotFound(h.info.GroupResource(), name)
	}
	f, err = negotiateOutput(r, false)
	return ns, name, f, err
}

func writeScale(w http.ResponseWriter, r *http.Request, code int, f outputFormat, sc *autoscalingv1.Scale) {
	writeEncoded(w, r, code, f, sc)
}

// GetScale serves GET .../{name}/scale.
func (h *Handler[T, L]) GetScale(req *restful.Request, resp *restful.Response) {
	h.serve("GET", "scale", req, resp, func(w *recorder, r *http.Request) error {
		ns, name, f, err := h.scaleRequest(req, r)
		if err != nil {
			return err
		}
		opts, err := parseGetOptions(r.URL.Query())
		if err != nil {
			return err
		}
		ctx, cancel := h.requestContext(r)
		defer cancel()
		obj, err := h.store.Get(ctx, ns, name, opts)
		if err != nil {
			return err
		}
		writeScale(w, r, http.StatusOK, f, h.scaleOf(obj))
		return nil
	})
}

// UpdateScale serves PUT .../{name}/scale: the Scale's spec.replicas is
// written to the object; its resourceVersion, when set, is the object's
// precondition (409 when stale), as kube-apiserver serves a CRD's scale.
func (h *Handler[T, L]) UpdateScale(req *restful.Request, resp *restful.Response) {
	h.serve("PUT", "scale", req, resp, func(w *recorder, r *http.Request) error {
		ns, name, f, err := h.scaleRequest(req, r)
		if err != nil {
			return err
		}
		opts, err := parseUpdateOptions(r.URL.Query())
		if err != nil {
			return err
		}
		body, err := readBody(r, h.opts.MaxRequestBodyBytes)
		if err != nil {
			return err
		}
		// client-go's scale client (kubectl scale --resource-version)
		// sends protobuf.
		in := &autoscalingv1.Scale{}
		if err := decodeRequest(w, r, body, in, opts.fieldValidation); err != nil {
			return err
		}
		if err := checkTypeMeta(in, scaleGVK); err != nil {
			return err
		}
		if in.Name != "" && in.Name != name {
			return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", in.Name, name))
		}
		out, err := h.writeScale(w, r, ns, name, opts, updateScale(r, opts, func(*autoscalingv1.Scale) (*autoscalingv1.Scale, error) { return in, nil }))
		if err != nil {
			return err
		}
		writeScale(w, r, http.StatusOK, f, out)
		return nil
	})
}

// PatchScale serves PATCH .../{name}/scale: a JSON, merge or strategic
// patch applies to the current Scale, which is then written as by
// UpdateScale; a server-side apply configuration (an autoscaling/v1 Scale)
// is merged by the Scale's own field manager, so a manager that applies
// replicas through /scale owns the object's replicas field.
func (h *Handler[T, L]) PatchScale(req *restful.Request, resp *restful.Response) {
	h.serve("PATCH", "scale", req, resp, func(w *recorder, r *http.Request) error {
		pr, err := h.patchRequest(req, r, h.scaleRequest)
		if err != nil {
			return err
		}
		patchType, ns, name, f, body, opts := pr.patchType, pr.ns, pr.name, pr.f, pr.body, pr.opts
		var next scaleWrite
		if patchType == MediaTypeApplyPatch {
			patchObj, err := decodeApplyPatch(w, body, opts.fieldValidation, scaleGroupKind, &autoscalingv1.Scale{})
			if err != nil {
				return err
			}
			next = func(fm *fieldmanager.FieldManager, cur *autoscalingv1.Scale) (*autoscalingv1.Scale, error) {
				out, err := fm.Apply(cur, patchObj.DeepCopy(), opts.fieldManager, opts.force)
				if err != nil {
					return nil, applyError(err)
				}
				sc, ok := out.(*autoscalingv1.Scale)
				if !ok {
					return nil, fmt.Errorf("apply scale: the field manager returned a %T", out)
				}
				return sc, nil
			}
		} else {
			apply, _, err := preparePatch(patchType, body, opts.fieldValidation, func() (strategicpatch.LookupPatchMeta, error) {
				return strategicpatch.NewPatchMetaFromStruct(&autoscalingv1.Scale{})
			})
			if err != nil {
				return err
			}
			next = updateScale(r, opts, func(cur *autoscalingv1.Scale) (*autoscalingv1.Scale, error) {
				curJSON, err := jsonencode.Marshal(cur)
				if err != nil {
					return nil, fmt.Errorf("encode the current scale: %w", err)
				}
				patched, err := apply(curJSON)
				if err != nil {
					return nil, err
				}
				next := &autoscalingv1.Scale{}
				if err := json.Unmarshal(patched, next); err != nil {
					return nil, invalidPatch(body, err)
				}
				return next, nil
			})
		}
		out, err := h.writeScale(w, r, ns, name, opts, func(fm *fieldmanager.FieldManager, cur *autoscalingv1.Scale) (*autoscalingv1.Scale, error) {
			want, err := next(fm, cur)
			if err != nil {
				return nil, err
			}
			if want.Name != cur.Name || want.Namespace != cur.Namespace {
				return nil, apierrors.NewBadRequest("the patch may not change the name or namespace of the scale")
			}
			return want, nil
		})
		if err != nil {
			return err
		}
		writeScale(w, r, http.StatusOK, f, out)
		return nil
	})
}

// scaleWrite gives the Scale to write from the current one (which carries
// the object's replicas owners as Scale managedFields) and records its
// manager with fm, the Scale's field manager.
type scaleWrite func(fm *fieldmanager.FieldManager, cur *autoscalingv1.Scale) (*autoscalingv1.Scale, error)

// updateScale is the scaleWrite of a non-apply write: next gives the new
// Scale, and the request's manager is recorded as an update.
func updateScale(r *http.Request, opts writeOptions, next func(cur *autoscalingv1.Scale) (*autoscalingv1.Scale, error)) scaleWrite {
	manager := fieldmanager.ManagerOrUserAgent(opts.fieldManager, r.UserAgent())
	return func(fm *fieldmanager.FieldManager, cur *autoscalingv1.Scale) (*autoscalingv1.Scale, error) {
		want, err := next(cur)
		if err != nil {
			return nil, err
		}
		want.ManagedFields = cur.ManagedFields // a client cannot rewrite them through /scale
		if out, ok := fm.UpdateNoErrors(cur, want, manager).(*autoscalingv1.Scale); ok {
			return out, nil
		}
		return want, nil
	}
}

// scaleFieldManager is the field manager of the autoscaling/v1 Scale the
// kind's /scale serves (entries record subresource "scale").
func (h *Handler[T, L]) scaleFieldManager() (*fieldmanager.FieldManager, error) {
	fm, err := h.fms.FieldManager(fieldmanager.Kind{
		GVK: scaleGVK,
		New: func() runtime.Object { return &autoscalingv1.Scale{} },
	}, "scale")
	if err != nil {
		return nil, fmt.Errorf("field manager of %s/scale: %w", h.info.GroupResource(), err)
	}
	return fm, nil
}

// writeScale reads the object, lets next give the Scale to write from the
// current one, validates it (spec.replicas >= 0, kube's ValidateScale) and
// writes its replicas through the one update path: the object's own
// validation, defaults and admission apply. managedFields move between the
// object and the Scale as kube-apiserver moves them for a custom
// resource (managedfields.ScaleHandler): the Scale sees the owners of the
// object's replicas field, and whoever writes replicas through /scale
// takes that field over.
func (h *Handler[T, L]) writeScale(w http.ResponseWriter, r *http.Request, ns, name string, opts writeOptions, next scaleWrite) (*autoscalingv1.Scale, error) {
	fm, err := h.scaleFieldManager()
	if err != nil {
		return nil, err
	}
	ctx, cancel := h.requestContext(r)
	defer cancel()
	ctx = h.admissionContext(ctx, w)
	tryUpdate := func(current T) (T, error) {
		var zero T
		managed := h.scaleManagedFields(current.GetManagedFields())
		cur := h.scaleOf(current)
		subFields, err := managed.ToSubresource()
		if err != nil {
			return zero, fmt.Errorf("scale managedFields of %s %q: %w", h.gvk.Kind, name, err)
		}
		cur.ManagedFields = subFields
		want, err := next(fm, cur)
		if err != nil {
			return zero, err
		}
		if want.Spec.Replicas < 0 {
			return zero, apierrors.NewInvalid(scaleGroupKind, name, field.ErrorList{
				field.Invalid(field.NewPath("spec", "replicas"), want.Spec.Replicas, "must be greater than or equal to 0"),
			})
		}
		if h.opts.Admission != nil {
			if want, err = h.mutateScale(ctx, want, cur, opts); err != nil {
				return zero, err
			}
		}
		obj := current.DeepCopyObject().(T)
		h.s.SetReplicas(obj, want.Spec.Replicas)
		parent, err := managed.ToParent(want.ManagedFields)
		if err != nil {
			return zero, fmt.Errorf("managedFields of %s %q after a scale write: %w", h.gvk.Kind, name, err)
		}
		obj.SetManagedFields(parent)
		// The Scale's resourceVersion is the object's precondition: the
		// store answers a stale one with 409.
		obj.SetResourceVersion(want.ResourceVersion)
		return obj, nil
	}
	out, err := h.store.GuaranteedUpdate(ctx, ns, name, "", tryUpdate, storage.UpdateOptions{DryRun: opts.dryRun,
		Admit: h.admitFunc(admission.Update, "scale", ns, name, opts.options, opts.dryRun)})
	if err != nil {
		return nil, err
	}
	return h.scaleOf(out), nil
}

// scaleManagedFields maps the object's replicas path (in the served
// version) to the Scale's. Entries of the kind's other versions are kept
// as they are.
func (h *Handler[T, L]) scaleManagedFields(entries []metav1.ManagedFieldsEntry) *managedfields.ScaleHandler {
	own := h.gvk.GroupVersion()
	mappings := managedfields.ResourcePathMappings{}
	for _, e := range entries {
		mappings[e.APIVersion] = nil
	}
	path := make([]any, len(h.s.ScaleSpecPath))
	for i, p := range h.s.ScaleSpecPath {
		path[i] = p
	}
	mappings[own.String()] = fieldpath.MakePathOrDie(path...)
	return managedfields.NewScaleHandler(entries, own, mappings)
}

// mutateScale runs mutating admission on the Scale a /scale write asks
// for (cur is the current one) and returns the Scale to write.
func (h *Handler[T, L]) mutateScale(ctx context.Context, want, cur *autoscalingv1.Scale, opts writeOptions) (*autoscalingv1.Scale, error) {
	a := h.attributes(ctx, admission.Update, "scale", cur.Namespace, cur.Name, opts.options, opts.dryRun)
	want.TypeMeta = metav1.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"}
	a.Object, a.OldObject = want, cur
	if err := h.opts.Admission.Mutate(ctx, a); err != nil {
		return nil, err
	}
	out, ok := a.Object.(*autoscalingv1.Scale)
	if !ok {
		return nil, fmt.Errorf("mutating admission of %s %q/scale returned a %T", h.gvk.Kind, cur.Name, a.Object)
	}
	return out, nil
}
