package storage

import (
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var listOptionsKind = schema.GroupKind{Group: metav1.GroupName, Kind: "ListOptions"}

// checkOptions is the one check of a list's options, or of a watch's when
// w is set, for every caller: the HTTP handlers decode the query and leave
// the checking here. The rules are kube's own (ValidateListOptions, which
// kube-apiserver's handlers run), with what kube's storage adds for a
// watch; a resourceVersion must be a number; field selectors are checked
// against the kind when the predicate is compiled.
func checkOptions(o ListOptions, w *WatchOptions) error {
	in := internalversion.ListOptions{
		ResourceVersion:      o.ResourceVersion,
		ResourceVersionMatch: o.ResourceVersionMatch,
		Continue:             o.Continue,
	}
	if w != nil {
		in.Watch, in.SendInitialEvents, in.AllowWatchBookmarks = true, w.SendInitialEvents, w.AllowBookmarks
	}
	errs := validation.ValidateListOptions(&in, true)
	if w != nil {
		if o.Continue != "" {
			errs = append(errs, field.Forbidden(field.NewPath("continue"), "continue is forbidden for watch"))
		}
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(listOptionsKind, "", errs)
	}
	return CheckResourceVersion(o.ResourceVersion)
}

// CheckResourceVersion checks the syntax of a resourceVersion query
// parameter ("" or a non-negative integer), with kube-apiserver's 400.
func CheckResourceVersion(rv string) error {
	if rv == "" {
		return nil
	}
	if _, err := strconv.ParseUint(rv, 10, 64); err != nil {
		// kube-apiserver's text (its list's 400; a get or watch there is
		// a 500 with the same field error).
		return apierrors.NewBadRequest("invalid resource version: " + field.Invalid(field.NewPath("resourceVersion"), rv, err.Error()).Error())
	}
	return nil
}
