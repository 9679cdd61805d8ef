package register_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	acceptancev1 "github.com/kubeforge/kubeforge/generators/register/testdata/generated/acceptance/v1"
	acceptancev1alpha1 "github.com/kubeforge/kubeforge/generators/register/testdata/generated/acceptance/v1alpha1"
	typesv1 "github.com/kubeforge/kubeforge/generators/register/testdata/types/acceptance/v1"
)

// TestGoldenAddToScheme runs the committed golden output (it compiles as a
// package of this module) and checks what it registers.
func TestGoldenAddToScheme(t *testing.T) {
	s := runtime.NewScheme()
	if err := acceptancev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := acceptancev1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	for _, gvk := range []schema.GroupVersionKind{
		{Group: "acceptance.example.dev", Version: "v1", Kind: "Gadget"},
		{Group: "acceptance.example.dev", Version: "v1", Kind: "GadgetList"},
		{Group: "acceptance.example.dev", Version: "v1", Kind: "Zone"},
		{Group: "acceptance.example.dev", Version: "v1", Kind: "ZoneList"},
		{Group: "acceptance.example.dev", Version: "v1alpha1", Kind: "Gadget"},
		{Group: "acceptance.example.dev", Version: "v1alpha1", Kind: "GadgetList"},
		// metav1.AddToGroupVersion: what client-go sends with list and watch.
		{Group: "acceptance.example.dev", Version: "v1", Kind: "ListOptions"},
		{Group: "acceptance.example.dev", Version: "v1", Kind: "WatchEvent"},
	} {
		if !s.Recognizes(gvk) {
			t.Errorf("scheme does not recognize %v", gvk)
		}
	}
	gvks, _, err := s.ObjectKinds(&typesv1.Gadget{})
	if err != nil || len(gvks) != 1 || gvks[0].Version != "v1" {
		t.Errorf("ObjectKinds(Gadget) = %v, %v", gvks, err)
	}
	if got := acceptancev1.Kind("Gadget"); got != (schema.GroupKind{Group: "acceptance.example.dev", Kind: "Gadget"}) {
		t.Errorf("Kind = %v", got)
	}
	if got := acceptancev1.Resource("gadgets"); got.String() != "gadgets.acceptance.example.dev" {
		t.Errorf("Resource = %v", got)
	}
	if acceptancev1.SchemeGroupVersion.String() != "acceptance.example.dev/v1" || acceptancev1.GroupName != "acceptance.example.dev" {
		t.Errorf("SchemeGroupVersion = %v", acceptancev1.SchemeGroupVersion)
	}
}

func TestGoldenResources(t *testing.T) {
	rs := acceptancev1.Resources
	if len(rs) != 2 || rs[0].Plural != "gadgets" || rs[1].Plural != "zones" {
		t.Fatalf("Resources not sorted by plural: %+v", rs)
	}
	g := acceptancev1.GadgetInfo
	if !g.Namespaced || !g.HasStatus() || g.StorageVersion != "v1" || len(g.PrinterColumns) != 4 ||
		len(g.ServedVersions) != 2 || g.ServedVersions[0] != "v1" || g.ServedVersions[1] != "v1alpha1" {
		t.Errorf("GadgetInfo = %+v", g)
	}
	z := acceptancev1.ZoneInfo
	if z.Namespaced || z.HasStatus() || z.ListKind != "ZoneList" || z.ShortNames[0] != "zn" {
		t.Errorf("ZoneInfo = %+v", z)
	}
	a := acceptancev1alpha1.GadgetInfo
	if a.Version != "v1alpha1" || a.StorageVersion != "v1" || a.ServedVersions[0] != "v1" {
		t.Errorf("v1alpha1 GadgetInfo = %+v", a)
	}
}
