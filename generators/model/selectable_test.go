package model

import (
	"errors"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/markers"
)

// TestSelectableFields: +kubebuilder:selectablefield markers resolve to the
// Go field chain (inline embedded fields and pointers included), sorted by
// label, eight being the most a kind may have.
func TestSelectableFields(t *testing.T) {
	t.Parallel()
	api, err := Load("testdata/selectable/good", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	k := api.Groups[0].Versions[0].Kind("Gadget")
	if k == nil {
		t.Fatal("no kind Gadget")
	}
	var got []string
	for _, sf := range k.SelectableFields {
		var goPath []string
		for _, f := range sf.Path {
			goPath = append(goPath, f.Name)
		}
		got = append(got, sf.Label+"="+strings.Join(goPath, "."))
		if sf.JSONPath != "."+sf.Label {
			t.Errorf("%s: JSONPath %q", sf.Label, sf.JSONPath)
		}
		if sf.Field() != sf.Path[len(sf.Path)-1] {
			t.Errorf("%s: Field() is not the end of Path", sf.Label)
		}
	}
	want := []string{
		"spec.count=Spec.Count",
		"spec.enabled=Spec.Enabled",
		"spec.engine.fuel=Spec.Engine.Fuel",
		"spec.mode=Spec.Mode",
		"spec.owner=Spec.Common.Owner",
		"spec.ref=Spec.Ref",
		"spec.size=Spec.Size",
		"top=Top",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("selectable fields:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if pos := k.SelectableFields[0].Pos.String(); pos != "types/sel/v1/types.go:44:4" {
		t.Errorf("spec.count marker at %s", pos)
	}
}

// TestSelectableFieldErrors: every bad +kubebuilder:selectablefield is
// reported with file:line:col and what is wrong: a missing field (with the
// closest name), a struct, list, map, date-time, number or quantity, a path
// through a list or with an index, metadata and kind, a path without the
// leading dot, a duplicate, an unknown argument, a ninth field, a marker
// on a type that is not a kind.
func TestSelectableFieldErrors(t *testing.T) {
	t.Parallel()
	_, err := Load("testdata/selectable/bad", LoadOptions{})
	var list markers.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error is not a markers.ErrorList: %v", err)
	}
	const scalar = "must point to a field of type string, boolean or integer (a pointer to one, or a named type of one); "
	want := []string{
		`types/sel/v1/types.go:34:4: kind Widget: selectablefield JSONPath .spec.nme: no field "nme": did you mean "name"?`,
		`types/sel/v1/types.go:35:4: kind Widget: selectablefield JSONPath .spec.inner: ` + scalar + `spec.inner is an object`,
		`types/sel/v1/types.go:36:4: kind Widget: selectablefield JSONPath .spec.items: ` + scalar + `spec.items is a list`,
		`types/sel/v1/types.go:37:4: kind Widget: selectablefield JSONPath .spec.items[0].name: array notation is not allowed: a selectable field cannot be inside a list`,
		`types/sel/v1/types.go:38:4: kind Widget: selectablefield JSONPath .spec.items.name: segment "name" is below spec.items, which is a list, not a struct`,
		`types/sel/v1/types.go:39:4: kind Widget: selectablefield JSONPath .spec.labels: ` + scalar + `spec.labels is a map`,
		`types/sel/v1/types.go:40:4: kind Widget: selectablefield JSONPath .spec.since: ` + scalar + `spec.since is a Time`,
		`types/sel/v1/types.go:41:4: kind Widget: selectablefield JSONPath .spec.ratio: ` + scalar + `spec.ratio is a number`,
		`types/sel/v1/types.go:42:4: kind Widget: selectablefield JSONPath .spec.weight: ` + scalar + `spec.weight is a Quantity`,
		`types/sel/v1/types.go:43:4: kind Widget: selectablefield JSONPath .metadata.name: must not point to fields in metadata (metadata.name and metadata.namespace are always selectable)`,
		`types/sel/v1/types.go:44:4: kind Widget: selectablefield JSONPath .kind: must not point to kind`,
		`types/sel/v1/types.go:45:4: kind Widget: selectablefield JSONPath spec.name: must start with . and name a field (.spec.carrier)`,
		`types/sel/v1/types.go:47:4: kind Widget: selectablefield JSONPath .spec.name: duplicate: the kind already selects on spec.name`,
		`types/sel/v1/types.go:48:4: marker "kubebuilder:selectablefield": unknown argument "path" (known: JSONPath)`,
		`types/sel/v1/types.go:79:4: kind Many: selectablefield JSONPath .spec.i: too many selectable fields: at most 8 per kind and version`,
		`types/sel/v1/types.go:88:4: type NotAKind: +kubebuilder:selectablefield is only valid on a kind (a +kubebuilder:object:root=true struct embedding metav1.TypeMeta and metav1.ObjectMeta)`,
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Error())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
