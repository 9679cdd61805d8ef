package storage

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestRatchet(t *testing.T) {
	old := map[string]any{"spec": map[string]any{
		"size": "huge", "parts": []any{map[string]any{"name": "Bad_1"}, map[string]any{"name": "ok"}},
		"labels": map[string]any{"a.b/c": "x"},
	}}
	same := map[string]any{"spec": map[string]any{
		"size": "huge", "parts": []any{map[string]any{"name": "Bad_1"}, map[string]any{"name": "ok"}},
		"labels": map[string]any{"a.b/c": "x"}, "new": 1,
	}}
	changed := map[string]any{"spec": map[string]any{
		"size": "giant", "parts": []any{map[string]any{"name": "Bad_2"}},
		"labels": map[string]any{"a.b/c": "y"},
	}}
	errs := field.ErrorList{
		field.NotSupported(field.NewPath("spec", "size"), "huge", []string{"small"}),
		field.Invalid(field.NewPath("spec", "parts").Index(0).Child("name"), "Bad_1", "must match"),
		field.Required(field.NewPath("spec", "owner"), ""),
		field.Required(field.NewPath("spec", "parts").Index(1).Child("size"), ""),
		field.Required(field.NewPath("spec", "extra", "deep"), ""),
		field.Invalid(field.NewPath("spec", "labels").Key("a.b/c"), "x", "bad"),
		field.Invalid(field.NewPath("spec", "new"), 1, "new value"),
		{Type: field.ErrorTypeInternal, Field: "", Detail: "no path"},
	}
	fields := func(errs field.ErrorList) string {
		var kept []string
		for _, e := range errs {
			kept = append(kept, e.Field)
		}
		return strings.Join(kept, " ")
	}
	// A field absent from both objects is judged by the nearest object
	// holding it, as kube judges a required field by the object that
	// requires it: parts[1] is unchanged, spec is not (spec.new added).
	if got := fields(ratchet(errs, old, same)); got != "spec.owner spec.extra.deep spec.new " {
		t.Errorf("unchanged values: kept %q, want spec.owner and spec.extra.deep (spec changed), spec.new (added) and the error without a path", got)
	}
	if got := fields(ratchet(errs, old, old)); got != "" {
		t.Errorf("no change: kept %q, want the error without a path", got)
	}
	// Changed values keep their errors; parts[1] is gone.
	if got := fields(ratchet(errs, old, changed)); got != "spec.size spec.parts[0].name spec.owner spec.parts[1].size spec.extra.deep spec.labels[a.b/c] spec.new " {
		t.Errorf("changed values: kept %q", got)
	}
	if got := ratchet(errs, nil, same); len(got) != len(errs) {
		t.Errorf("a create (no old object) ratchets nothing: %v", got)
	}
}
