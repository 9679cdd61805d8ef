package deepcopy

import (
	"regexp"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/model"
)

// funcsOf lists the generated methods as "Recv.Name".
func funcsOf(src string) map[string]int {
	re := regexp.MustCompile(`(?m)^func \(in \*?(\w+)\) (\w+)\(`)
	out := map[string]int{}
	for _, m := range re.FindAllStringSubmatch(src, -1) {
		out[m[1]+"."+m[2]]++
	}
	return out
}

// TestHandWrittenRespected: testdata/shapes declares Custom.DeepCopyInto,
// Custom.DeepCopy and Gadget.DeepCopyObject by hand. They are not generated
// again (the golden would not compile), but generated code calls them.
func TestHandWrittenRespected(t *testing.T) {
	api := loadShapes(t)
	v := api.Groups[0].Versions[0]
	if c := v.Type("Custom"); c == nil || !c.HasDeepCopy {
		t.Fatalf("loader did not record Custom's hand-written DeepCopy: %+v", c)
	}
	if g := v.Type("Gadget"); g == nil || !g.HasDeepCopyObject || g.HasDeepCopy {
		t.Fatalf("loader did not record Gadget's hand-written DeepCopyObject only: %+v", g)
	}
	files, err := Generator{}.Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	src := string(files[0].Content)
	funcs := funcsOf(src)
	for _, absent := range []string{"Custom.DeepCopyInto", "Custom.DeepCopy", "Gadget.DeepCopyObject"} {
		if funcs[absent] != 0 {
			t.Errorf("%s is written by hand but was generated", absent)
		}
	}
	for _, present := range []string{"Gadget.DeepCopyInto", "Gadget.DeepCopy", "GadgetList.DeepCopyObject", "Widget.DeepCopyObject", "GizmoList.DeepCopyObject"} {
		if funcs[present] != 1 {
			t.Errorf("%s generated %d times, want once", present, funcs[present])
		}
	}
	for _, call := range []string{
		"in.Custom.DeepCopyInto(&out.Custom)",
		"(*in)[i].DeepCopyInto(&(*out)[i])", // Customs
	} {
		if !strings.Contains(src, call) {
			t.Errorf("generated code does not call the hand-written method: no %q", call)
		}
	}
	for name, n := range funcs {
		if n != 1 {
			t.Errorf("%s generated %d times", name, n)
		}
	}
}

// TestHandWrittenFlags uses hand-built model values: HasDeepCopy on a named
// slice and HasDeepCopyObject on a kind.
func TestHandWrittenFlags(t *testing.T) {
	v := newVersion()
	tags := addType(v, &model.Type{Name: "Tags", Kind: model.SliceKind, Underlying: slice(builtin("string")), HasDeepCopy: true})
	kind := addType(v, &model.Type{Name: "Thing", Kind: model.StructKind, IsKind: true, HasDeepCopyObject: true},
		field("TypeMeta", ext(metav1, "TypeMeta", &model.External{Known: "TypeMeta"})),
		field("ObjectMeta", ext(metav1, "ObjectMeta", &model.External{Known: "ObjectMeta", HasDeepCopyInto: true})),
		field("Tags", local(tags)))
	v.Kinds = []*model.Kind{{Version: v, Name: "Thing", ListName: "ThingList", Type: kind}}
	out, err := generate(t, v)
	if err != nil {
		t.Fatal(err)
	}
	funcs := funcsOf(out)
	for _, absent := range []string{"Tags.DeepCopyInto", "Tags.DeepCopy", "Thing.DeepCopyObject"} {
		if funcs[absent] != 0 {
			t.Errorf("%s is hand-written but was generated", absent)
		}
	}
	for _, present := range []string{"Thing.DeepCopyInto", "Thing.DeepCopy", "ThingList.DeepCopyInto", "ThingList.DeepCopy", "ThingList.DeepCopyObject"} {
		if funcs[present] != 1 {
			t.Errorf("%s generated %d times, want once", present, funcs[present])
		}
	}
	if !strings.Contains(out, "in.Tags.DeepCopyInto(&out.Tags)") {
		t.Errorf("the hand-written Tags.DeepCopyInto is not called:\n%s", out)
	}
}
