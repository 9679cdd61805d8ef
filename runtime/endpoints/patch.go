package endpoints

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/emicklei/go-restful/v3"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"github.com/kubeforge/kubeforge/runtime/admission"
	"github.com/kubeforge/kubeforge/runtime/fieldmanager"
	"github.com/kubeforge/kubeforge/runtime/jsondecode"
	"github.com/kubeforge/kubeforge/runtime/jsonencode"
	"github.com/kubeforge/kubeforge/runtime/presence"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// maxJSONPatchOperations is kube-apiserver's limit on one JSON patch.
const maxJSONPatchOperations = 10000

// maxJSONPatchCopyBytes bounds what the copy operations of one JSON patch
// may add: without it a 4 KB patch of doubling copies grows to gigabytes.
// kube-apiserver sets the same limit (3 MiB, its body limit).
const maxJSONPatchCopyBytes = 3 << 20

func init() {
	// The library keeps the limit in a package variable; every JSON patch
	// this server applies goes through it, so it is set once, here.
	jsonpatch.AccumulatedCopySizeLimit = maxJSONPatchCopyBytes
}

type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from"`
	Value any    `json:"value"`
}

// Patch serves PATCH .../{name} with application/json-patch+json,
// application/merge-patch+json, application/strategic-merge-patch+json or
// application/apply-patch+yaml (server-side apply); other types are a 415.
func (h *Handler[T, L]) Patch(req *restful.Request, resp *restful.Response) {
	h.patch("", req, resp)
}

// PatchStatus serves PATCH .../{name}/status.
func (h *Handler[T, L]) PatchStatus(req *restful.Request, resp *restful.Response) {
	h.patch("status", req, resp)
}

// patchRequest is a PATCH as read: its media type, target, body and
// options.
type patchRequest struct {
	patchType, ns, name string
	f                   outputFormat
	body                []byte
	opts                writeOptions
}

// patchRequest reads a PATCH in kube's order: the media type (415), the
// target (target resolves names and output format), the body, the options.
func (h *Handler[T, L]) patchRequest(req *restful.Request, r *http.Request, target func(*restful.Request, *http.Request) (string, string, outputFormat, error)) (pr patchRequest, err error) {
	pr.patchType = patchMediaType(r)
	switch pr.patchType {
	case MediaTypeJSONPatch, MediaTypeMergePatch, MediaTypeStrategicMergePatch, MediaTypeApplyPatch:
	default:
		return pr, unsupportedMediaType(supportedPatchTypes)
	}
	if pr.ns, pr.name, pr.f, err = target(req, r); err != nil {
		return pr, err
	}
	if pr.body, err = readBody(r, h.opts.MaxRequestBodyBytes); err != nil {
		return pr, err
	}
	pr.opts, err = parsePatchOptions(r.URL.Query(), pr.patchType)
	return pr, err
}

func (h *Handler[T, L]) patch(sub string, req *restful.Request, resp *restful.Response) {
	h.serve("PATCH", sub, req, resp, func(w *recorder, r *http.Request) error {
		pr, err := h.patchRequest(req, r, h.object)
		if err != nil {
			return err
		}
		patchType, ns, name, f, body, opts := pr.patchType, pr.ns, pr.name, pr.f, pr.body, pr.opts
		if patchType == MediaTypeApplyPatch {
			return h.servePatchApply(w, r, sub, ns, name, body, opts, f)
		}
		fm, err := h.fieldManager(sub)
		if err != nil {
			return err
		}
		manager := fieldmanager.ManagerOrUserAgent(opts.fieldManager, r.UserAgent())
		apply, patchStrict, err := preparePatch(patchType, body, opts.fieldValidation, h.patchMeta)
		if err != nil {
			return err
		}

		ctx, cancel := h.requestContext(r)
		defer cancel()
		ctx = h.admissionContext(ctx, w)
		var warnings []error
		var in presence.Node // the patched JSON of the last try
		builtin := h.builtin()
		tryUpdate := func(current T) (T, error) {
			var zero T
			warnings = nil
			cur := current.DeepCopyObject().(T)
			h.setKind(cur)
			curJSON, err := jsonencode.Marshal(cur)
			if err != nil {
				return zero, fmt.Errorf("encode the current %s: %w", h.gvk.Kind, err)
			}
			patched, err := apply(curJSON)
			if err != nil {
				return zero, err
			}
			var obj T
			var strictErrs []error
			decode := func(patched []byte) error {
				obj = h.s.New()
				strictErrs = append([]error{}, patchStrict...)
				if opts.fieldValidation == metav1.FieldValidationIgnore {
					return jsondecode.UnmarshalCaseSensitivePreserveInts(patched, obj)
				}
				objStrict, err := jsondecode.UnmarshalStrict(patched, obj)
				strictErrs = append(strictErrs, objStrict...)
				return err
			}
			if builtin {
				err = decode(patched)
			} else if patched, err = decodeIntegralFloats(patched, decode); err != nil {
				// As for a custom resource: unknown fields (Strict's
				// error) first, then the schema's 422 for wrong types.
				if unknown, invalid := invalidTypes(h.gvk.GroupKind(), reflect.TypeFor[T]().Elem(), patched, err, h.s.Rules != nil); invalid != nil {
					if unknown = append(append([]error{}, patchStrict...), unknown...); len(unknown) > 0 && opts.fieldValidation == metav1.FieldValidationStrict {
						return zero, invalidPatch(body, runtime.NewStrictDecodingError(unknown))
					}
					return zero, invalid
				}
			}
			if err != nil {
				return zero, invalidPatch(body, err)
			}
			if len(strictErrs) > 0 {
				switch opts.fieldValidation {
				case metav1.FieldValidationStrict:
					return zero, invalidPatch(body, runtime.NewStrictDecodingError(strictErrs))
				case metav1.FieldValidationWarn:
					warnings = strictErrs
				}
			}
			if err := h.checkPatched(obj, current, ns, name); err != nil {
				return zero, err
			}
			if !builtin {
				if errs := schemaNulls(obj, patched, nullScope(h.info.HasStatus(), sub)); len(errs) > 0 {
					return zero, h.invalid(name, errs)
				}
			}
			if err := h.checkCollections(obj, len(patched)); err != nil {
				return zero, err
			}
			in = presence.JSON(patched)
			if h.s.Default != nil {
				h.s.Default(obj, in)
			}
			return h.mutate(ctx, admission.Update, sub, h.trackUpdate(fm, current, obj, manager), current, opts, &in)
		}

		ctx, written := h.askWritten(ctx, f)
		out, err := h.store.GuaranteedUpdate(ctx, ns, name, sub, tryUpdate, storage.UpdateOptions{DryRun: opts.dryRun, Subresource: sub,
			Admit: h.admitFunc(admission.Update, sub, ns, name, opts.options, opts.dryRun), Presence: &in})
		if err != nil {
			return err
		}
		for _, e := range warnings {
			AddWarning(w, e.Error())
		}
		return h.respondWritten(w, r, http.StatusOK, f, out, written)
	})
}

// preparePatch validates the patch body once and returns the function that
// applies it to an object's JSON, plus the strict errors of the patch body
// itself (unknown JSON patch fields, duplicate keys). patchMeta gives the
// kind's strategic merge patch metadata.
func preparePatch(patchType string, body []byte, directive string, patchMeta func() (strategicpatch.LookupPatchMeta, error)) (func([]byte) ([]byte, error), []error, error) {
	var strictErrs []error
	switch patchType {
	case MediaTypeJSONPatch:
		if directive != metav1.FieldValidationIgnore {
			var ops []jsonPatchOp
			errs, err := kjson.UnmarshalStrict(body, &ops)
			if err != nil {
				return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
			}
			for _, e := range errs {
				strictErrs = append(strictErrs, fmt.Errorf("json patch %w", e))
			}
		}
		p, err := jsonpatch.DecodePatch(body)
		if err != nil {
			return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
		}
		if len(p) > maxJSONPatchOperations {
			return nil, nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(p)))
		}
		return func(doc []byte) ([]byte, error) {
			out, err := p.Apply(doc)
			if err != nil {
				return nil, invalidRequest(fmt.Sprintf("the JSON patch could not be applied: %v", err))
			}
			return out, nil
		}, strictErrs, nil
	case MediaTypeMergePatch, MediaTypeStrategicMergePatch:
		trimmed := bytes.TrimSpace(body)
		if len(trimmed) == 0 || trimmed[0] != '{' {
			return nil, nil, apierrors.NewBadRequest("error decoding patch: a merge patch must be a JSON object")
		}
		v := map[string]any{}
		if directive != metav1.FieldValidationIgnore {
			errs, err := kjson.UnmarshalStrict(body, &v)
			if err != nil {
				return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
			}
			strictErrs = errs
		} else if err := json.Unmarshal(body, &v); err != nil {
			return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
		}
		if patchType == MediaTypeStrategicMergePatch {
			meta, err := patchMeta()
			if err != nil {
				return nil, nil, unsupportedMediaType(supportedPatchTypes)
			}
			return func(doc []byte) (out []byte, err error) {
				// The library panics on some malformed directives (a
				// $retainKeys list of objects, found by FuzzPatch); that is
				// the client's patch, so a 400, not a crash or a 500.
				defer func() {
					if v := recover(); v != nil {
						out, err = nil, apierrors.NewBadRequest(fmt.Sprintf("invalid strategic merge patch: %v", v))
					}
				}()
				out, err = strategicpatch.StrategicMergePatchUsingLookupPatchMeta(doc, body, meta)
				if err != nil {
					return nil, strategicPatchError(err)
				}
				return out, nil
			}, strictErrs, nil
		}
		return func(doc []byte) ([]byte, error) {
			out, err := jsonpatch.MergePatch(doc, body)
			if err != nil {
				if errors.Is(err, jsonpatch.ErrBadJSONPatch) || errors.Is(err, jsonpatch.ErrBadJSONDoc) {
					return nil, apierrors.NewBadRequest(err.Error())
				}
				return nil, invalidRequest(fmt.Sprintf("the merge patch could not be applied: %v", err))
			}
			return out, nil
		}, strictErrs, nil
	}
	return nil, nil, unsupportedMediaType(supportedPatchTypes)
}

// patchMeta is the kind's strategic merge patch metadata: its OpenAPI
// schema's patch strategies, or, for a kind served without schemas, the
// patchStrategy/patchMergeKey struct tags of its Go type (how
// kube-apiserver reads built-in kinds).
func (h *Handler[T, L]) patchMeta() (strategicpatch.LookupPatchMeta, error) {
	if m, err := h.fms.PatchMeta(h.gvk); err == nil {
		return m, nil
	}
	return strategicpatch.NewPatchMetaFromStruct(h.s.New())
}

// patchMediaType is the request's Content-Type without parameters, lower case.
func patchMediaType(r *http.Request) string {
	t, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// strategicPatchError is kube-apiserver's answer to a strategic merge patch
// that cannot be applied: a malformed directive is a 400, a patch that
// contradicts itself or the schema a 422; never a 500.
func strategicPatchError(err error) error {
	for _, bad := range []error{mergepatch.ErrBadJSONDoc, mergepatch.ErrBadPatchFormatForPrimitiveList,
		mergepatch.ErrBadPatchFormatForRetainKeys, mergepatch.ErrBadPatchFormatForSetElementOrderList,
		mergepatch.ErrUnsupportedStrategicMergePatchFormat} {
		if errors.Is(err, bad) {
			return apierrors.NewBadRequest(err.Error())
		}
	}
	return invalidRequest(fmt.Sprintf("the strategic merge patch could not be applied: %v", err))
}

// invalidPatch is kube's 422 for a patched object that does not decode.
func invalidPatch(patch []byte, err error) error {
	return apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{
		field.Invalid(field.NewPath("patch"), string(patch), err.Error()),
	})
}

// checkPatched rejects patches that change apiVersion, kind (a 422 for
// your kinds, as for a custom resource; a 400 for built-in ones), name or
// namespace, and treats a changed metadata.resourceVersion as a failed
// precondition (409), as kube's update does.
func (h *Handler[T, L]) checkPatched(obj, current T, ns, name string) error {
	got := obj.GetObjectKind().GroupVersionKind()
	if got != h.gvk && !h.builtin() {
		// A custom resource patched into another kind or apiVersion
		// fails its validation.
		return typeMetaInvalid(got, h.gvk, name)
	}
	if got != h.gvk {
		return apierrors.NewBadRequest(fmt.Sprintf("the patch may not change apiVersion or kind: got %s %s, want %s %s",
			got.GroupVersion().String(), got.Kind, h.gvk.GroupVersion().String(), h.gvk.Kind))
	}
	if err := h.matchNamespace(obj, ns); err != nil {
		return err
	}
	if obj.GetName() != name {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", obj.GetName(), name))
	}
	// A resourceVersion in the patched object is a precondition the store
	// checks against the current object.
	return nil
}
