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
		field.Invalid(field.NewPath("spec", "labels").Key("a.b/c"), "x", "bad"),
		field.Invalid(field.NewPath("spec", "new"), 1, "new value"),
		{Type: field.ErrorTypeInternal, Field: "", Detail: "no path"},
	}
	got := ratchet(errs, old, same)
	if len(got) != 2 || got[0].Field != "spec.new" || got[1].Field != "" {
		t.Errorf("unchanged values: kept %v, want only spec.new (added) and the error without a path", got)
	}
	// Changed values keep their errors; spec.owner and spec.new are absent
	// from both objects: unchanged, dropped.
	got = ratchet(errs, old, changed)
	var kept []string
	for _, e := range got {
		kept = append(kept, e.Field)
	}
	if strings.Join(kept, " ") != "spec.size spec.parts[0].name spec.labels[a.b/c] " {
		t.Errorf("changed values: kept %q", kept)
	}
	if got := ratchet(errs, nil, same); len(got) != len(errs) {
		t.Errorf("a create (no old object) ratchets nothing: %v", got)
	}
}
