package conversion

import (
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/deepcopy"
	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/internal/gentest"
	"github.com/kubeforge/kubeforge/generators/lists"
)

// TestConvertibleTree: a kind whose spoke has controller-runtime's
// ConvertTo/ConvertFrom (v1alpha1 Widget, whose size is a struct no
// field-by-field conversion could do) converts by them with nothing to
// write by hand, beside a generated kind of the same version (Gizmo) and a
// generated spoke of the same kind (v1beta1 Widget). Golden files live
// beside the input and are compiled.
func TestConvertibleTree(t *testing.T) {
	api := gentest.Load(t, "testdata/convertible")
	conv, err := New().Generate(api)
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	want := []string{
		"types/mix/v1beta1/zz_generated.conversion.go",
		"generated/mix/v1beta1/zz_generated.conversion.go",
		"types/mix/v1alpha1/zz_generated.conversion.go",
		"generated/mix/v1alpha1/zz_generated.conversion.go",
	}
	if got := paths(conv); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("files = %v, want %v", got, want)
	}
	for _, f := range conv {
		src := string(f.Content)
		switch f.Path {
		case "types/mix/v1alpha1/zz_generated.conversion.go":
			// Gizmo only: Widget has no field-by-field functions.
			if strings.Contains(src, "Widget") || !strings.Contains(src, "func Convert_v1alpha1_Gizmo_To_v1_Gizmo(") {
				t.Errorf("%s:\n%s", f.Path, src)
			}
		case "generated/mix/v1alpha1/zz_generated.conversion.go":
			for _, want := range []string{"src.ConvertTo(out)", "out.ConvertFrom(src)", "kfconversion.RestoreMeta(", "func WidgetListFromHub(", "WidgetToHub,", "GizmoToHub,"} {
				if !strings.Contains(src, want) {
					t.Errorf("%s lacks %q", f.Path, want)
				}
			}
		}
	}
	var all []genall.File
	for _, g := range []genall.Generator{lists.Generator{}, deepcopy.Generator{}} {
		fs, err := g.Generate(api)
		if err != nil {
			t.Fatalf("%s: %v", g.Name(), err)
		}
		all = append(all, fs...)
	}
	all = append(all, conv...)
	inPlace(t, "testdata/convertible", all)
	gentest.Compile(t, "testdata/convertible", all)
}
