package endpoints

import (
	"net/url"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeforge/kubeforge/runtime/storage"
)

// decodeParams fills into from the query with apimachinery's parameter
// codec, the one kube-apiserver uses; unknown parameters are ignored.
func decodeParams(q url.Values, into runtime.Object) error {
	if err := metainternalversionscheme.ParameterCodec.DecodeParameters(q, metav1.SchemeGroupVersion, into); err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	return nil
}

func invalidOptions(kind string, errs field.ErrorList) error {
	return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: kind}, "", errs)
}

// writeOptions are the options shared by create, update and patch.
type writeOptions struct {
	dryRun          bool
	force           bool // apply only
	fieldManager    string
	fieldValidation string // Strict, Warn or Ignore
	// options is the decoded metav1 CreateOptions, UpdateOptions or
	// PatchOptions, for admission.
	options runtime.Object
}

func fieldValidationDirective(v string) string {
	if v == "" {
		return metav1.FieldValidationWarn
	}
	return v
}

func parseCreateOptions(q url.Values) (writeOptions, error) {
	var o metav1.CreateOptions
	if err := decodeParams(q, &o); err != nil {
		return writeOptions{}, err
	}
	if errs := metav1validation.ValidateCreateOptions(&o); len(errs) > 0 {
		return writeOptions{}, invalidOptions("CreateOptions", errs)
	}
	o.TypeMeta = metav1.TypeMeta{Kind: "CreateOptions", APIVersion: "meta.k8s.io/v1"}
	return writeOptions{dryRun: len(o.DryRun) > 0, fieldManager: o.FieldManager, fieldValidation: fieldValidationDirective(o.FieldValidation), options: &o}, nil
}

// UpdateDryRun reads an update's query as the update handlers do (kube's
// UpdateOptions, validated: dryRun=All or nothing, a 4xx otherwise) and
// reports whether it is a dry run, for updates served outside Handler.
func UpdateDryRun(q url.Values) (bool, error) {
	o, err := parseUpdateOptions(q)
	return o.dryRun, err
}

func parseUpdateOptions(q url.Values) (writeOptions, error) {
	var o metav1.UpdateOptions
	if err := decodeParams(q, &o); err != nil {
		return writeOptions{}, err
	}
	if errs := metav1validation.ValidateUpdateOptions(&o); len(errs) > 0 {
		return writeOptions{}, invalidOptions("UpdateOptions", errs)
	}
	o.TypeMeta = metav1.TypeMeta{Kind: "UpdateOptions", APIVersion: "meta.k8s.io/v1"}
	return writeOptions{dryRun: len(o.DryRun) > 0, fieldManager: o.FieldManager, fieldValidation: fieldValidationDirective(o.FieldValidation), options: &o}, nil
}

func parsePatchOptions(q url.Values, patchType string) (writeOptions, error) {
	var o metav1.PatchOptions
	if err := decodeParams(q, &o); err != nil {
		return writeOptions{}, err
	}
	if errs := metav1validation.ValidatePatchOptions(&o, types.PatchType(patchType)); len(errs) > 0 {
		return writeOptions{}, invalidOptions("PatchOptions", errs)
	}
	// Admission sees a patch's options as UpdateOptions, as
	// kube-apiserver passes them (patchToUpdateOptions).
	uo := &metav1.UpdateOptions{TypeMeta: metav1.TypeMeta{Kind: "UpdateOptions", APIVersion: "meta.k8s.io/v1"},
		DryRun: o.DryRun, FieldManager: o.FieldManager, FieldValidation: o.FieldValidation}
	return writeOptions{dryRun: len(o.DryRun) > 0, force: o.Force != nil && *o.Force, fieldManager: o.FieldManager, fieldValidation: fieldValidationDirective(o.FieldValidation), options: uo}, nil
}

// parseGetOptions reads ?resourceVersion= of a GET: what the parameter
// codec's conversion to metav1.GetOptions gives (its only parameter, the
// first value), without the codec's conversion machinery (three of a
// get's allocations).
func parseGetOptions(q url.Values) (storage.GetOptions, error) {
	var rv string
	if vs := q["resourceVersion"]; len(vs) > 0 {
		rv = vs[0]
	}
	if err := storage.CheckResourceVersion(rv); err != nil {
		return storage.GetOptions{}, err
	}
	return storage.GetOptions{ResourceVersion: rv}, nil
}

// parseListOptions decodes list and watch options. The store checks
// them (runtime/storage checkOptions: kube's ValidateListOptions, the
// resourceVersion's syntax, field selectors against the kind's selectable
// fields), the one place for every caller; what a list's storage options
// cannot carry is checked here: sendInitialEvents, which only a watch
// takes. A watch without sendInitialEvents from "" or "0" is rewritten to
// sendInitialEvents=true by serveWatch, as kube 1.37 does.
func parseListOptions(q url.Values) (metainternalversion.ListOptions, error) {
	var o metainternalversion.ListOptions
	if err := decodeParams(q, &o); err != nil {
		return o, err
	}
	if !o.Watch && o.SendInitialEvents != nil {
		return o, invalidOptions("ListOptions", field.ErrorList{field.Forbidden(field.NewPath("sendInitialEvents"), "sendInitialEvents is forbidden for list")})
	}
	return o, nil
}

func toStorageList(o metainternalversion.ListOptions) storage.ListOptions {
	fs := o.FieldSelector
	if fs == nil {
		fs = fields.Everything()
	}
	ls := o.LabelSelector
	if ls == nil {
		ls = labels.Everything()
	}
	return storage.ListOptions{
		LabelSelector:        ls,
		FieldSelector:        fs,
		Limit:                o.Limit,
		Continue:             o.Continue,
		ResourceVersion:      o.ResourceVersion,
		ResourceVersionMatch: o.ResourceVersionMatch,
	}
}
