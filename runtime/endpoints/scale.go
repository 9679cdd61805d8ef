package endpoints

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/emicklei/go-restful/v3"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeforge/kubeforge/runtime/fieldmanager"
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
		in := &autoscalingv1.Scale{}
		if isProtobuf(r.Header.Get("Content-Type")) {
			// client-go's scale client (kubectl scale --resource-version)
			// sends protobuf.
			gvk, err := decodeProtobuf(body, in, "request body")
			if err != nil {
				return err
			}
			in.GetObjectKind().SetGroupVersionKind(gvk)
		} else {
			data, yamlStrict, err := bodyToJSON(r.Header.Get("Content-Type"), body, opts.fieldValidation)
			if err != nil {
				return err
			}
			if err := unmarshal(w, data, in, opts.fieldValidation, yamlStrict, "request body"); err != nil {
				return err
			}
		}
		if err := checkTypeMeta(in, scaleGVK); err != nil {
			return err
		}
		if in.Name != "" && in.Name != name {
			return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", in.Name, name))
		}
		out, err := h.writeScale(r, ns, name, opts, func(*autoscalingv1.Scale) (*autoscalingv1.Scale, error) { return in, nil })
		if err != nil {
			return err
		}
		writeScale(w, r, http.StatusOK, f, out)
		return nil
	})
}

// PatchScale serves PATCH .../{name}/scale: the patch (JSON, merge or
// strategic; server-side apply is not served on /scale yet: 415) applies to
// the current Scale, which is then written as by UpdateScale.
func (h *Handler[T, L]) PatchScale(req *restful.Request, resp *restful.Response) {
	h.serve("PATCH", "scale", req, resp, func(w *recorder, r *http.Request) error {
		patchType := patchMediaType(r)
		switch patchType {
		case MediaTypeJSONPatch, MediaTypeMergePatch, MediaTypeStrategicMergePatch:
		default:
			return unsupportedMediaType([]string{MediaTypeJSONPatch, MediaTypeMergePatch, MediaTypeStrategicMergePatch})
		}
		ns, name, f, err := h.scaleRequest(req, r)
		if err != nil {
			return err
		}
		body, err := readBody(r, h.opts.MaxRequestBodyBytes)
		if err != nil {
			return err
		}
		opts, err := parsePatchOptions(r.URL.Query(), patchType)
		if err != nil {
			return err
		}
		apply, _, err := preparePatch(patchType, body, opts.fieldValidation, func() (strategicpatch.LookupPatchMeta, error) {
			return strategicpatch.NewPatchMetaFromStruct(&autoscalingv1.Scale{})
		})
		if err != nil {
			return err
		}
		out, err := h.writeScale(r, ns, name, opts, func(cur *autoscalingv1.Scale) (*autoscalingv1.Scale, error) {
			curJSON, err := json.Marshal(cur)
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
			if next.Name != cur.Name || next.Namespace != cur.Namespace {
				return nil, apierrors.NewBadRequest("the patch may not change the name or namespace of the scale")
			}
			return next, nil
		})
		if err != nil {
			return err
		}
		writeScale(w, r, http.StatusOK, f, out)
		return nil
	})
}

// writeScale reads the object, lets next give the Scale to write from the
// current one, validates it (spec.replicas >= 0, kube's ValidateScale) and
// writes its replicas through the one update path: the object's own
// validation, defaults and admission apply, and managedFields record the
// manager.
func (h *Handler[T, L]) writeScale(r *http.Request, ns, name string, opts writeOptions, next func(cur *autoscalingv1.Scale) (*autoscalingv1.Scale, error)) (*autoscalingv1.Scale, error) {
	fm, err := h.fieldManager("")
	if err != nil {
		return nil, err
	}
	manager := fieldmanager.ManagerOrUserAgent(opts.fieldManager, r.UserAgent())
	tryUpdate := func(current T) (T, error) {
		var zero T
		want, err := next(h.scaleOf(current))
		if err != nil {
			return zero, err
		}
		if want.Spec.Replicas < 0 {
			return zero, apierrors.NewInvalid(scaleGroupKind, name, field.ErrorList{
				field.Invalid(field.NewPath("spec", "replicas"), want.Spec.Replicas, "must be greater than or equal to 0"),
			})
		}
		obj := current.DeepCopyObject().(T)
		h.s.SetReplicas(obj, want.Spec.Replicas)
		// The Scale's resourceVersion is the object's precondition: the
		// store answers a stale one with 409.
		obj.SetResourceVersion(want.ResourceVersion)
		return h.trackUpdate(fm, current, obj, manager), nil
	}
	ctx, cancel := h.requestContext(r)
	defer cancel()
	out, err := h.store.GuaranteedUpdate(ctx, ns, name, "", tryUpdate, storage.UpdateOptions{DryRun: opts.dryRun})
	if err != nil {
		return nil, err
	}
	return h.scaleOf(out), nil
}
