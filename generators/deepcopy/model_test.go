package deepcopy

import (
	"errors"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/model"
)

// Hand-built model values: the generator's behaviour without the loader.

const (
	testPkg  = "example.com/m/types/demo/v1"
	metav1   = "k8s.io/apimachinery/pkg/apis/meta/v1"
	resource = "k8s.io/apimachinery/pkg/api/resource"
)

func builtin(n string) *model.TypeRef { return &model.TypeRef{Kind: model.BuiltinRef, Name: n} }
func ptr(e *model.TypeRef) *model.TypeRef {
	return &model.TypeRef{Kind: model.PointerRef, Elem: e}
}
func slice(e *model.TypeRef) *model.TypeRef { return &model.TypeRef{Kind: model.SliceRef, Elem: e} }
func mapOf(k, e *model.TypeRef) *model.TypeRef {
	return &model.TypeRef{Kind: model.MapRef, Key: k, Elem: e}
}
func local(t *model.Type) *model.TypeRef {
	return &model.TypeRef{Kind: model.NamedRef, Name: t.Name, Package: testPkg, Local: t}
}
func ext(pkg, name string, e *model.External) *model.TypeRef {
	return &model.TypeRef{Kind: model.NamedRef, Name: name, Package: pkg, External: e}
}

func newVersion() *model.Version {
	g := &model.Group{Name: "demo.example.com", Short: "demo"}
	v := &model.Version{Group: g, Name: "v1", Package: testPkg, Dir: "types/demo/v1", PackageName: "v1"}
	g.Versions = []*model.Version{v}
	return v
}

func addType(v *model.Version, t *model.Type, fields ...*model.Field) *model.Type {
	t.Version = v
	for _, f := range fields {
		f.Parent = t
	}
	t.Fields = fields
	v.Types = append(v.Types, t)
	return t
}

func field(name string, r *model.TypeRef) *model.Field {
	return &model.Field{Name: name, JSONName: strings.ToLower(name), Type: r}
}

func generate(t *testing.T, v *model.Version) (string, error) {
	t.Helper()
	files, err := Generator{}.Generate(&model.API{Module: "example.com/m", Groups: []*model.Group{v.Group}})
	if err != nil {
		return "", err
	}
	if len(files) != 1 {
		t.Fatalf("got %d files, want 1", len(files))
	}
	if files[0].Path != "types/demo/v1/zz_generated.deepcopy.go" {
		t.Errorf("path = %q", files[0].Path)
	}
	return string(files[0].Content), nil
}

func TestHandBuiltShapes(t *testing.T) {
	v := newVersion()
	inner := addType(v, &model.Type{Name: "Inner", Kind: model.StructKind},
		field("Name", builtin("string")),
		field("Ptr", ptr(builtin("int32"))))
	plain := addType(v, &model.Type{Name: "Plain", Kind: model.StructKind},
		field("A", builtin("string")))
	tags := addType(v, &model.Type{Name: "Tags", Kind: model.SliceKind, Underlying: slice(builtin("string"))})
	addType(v, &model.Type{Name: "Spec", Kind: model.StructKind},
		field("Inner", local(inner)),
		field("Plain", local(plain)),
		field("Tags", local(tags)),
		field("M", mapOf(builtin("string"), slice(ptr(local(inner))))),
		field("Time", ptr(ext(metav1, "Time", &model.External{Known: "Time", HasDeepCopyInto: true}))))
	out, err := generate(t, v)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"func (in *Spec) DeepCopyInto(out *Spec) {\n\t*out = *in\n\tin.Inner.DeepCopyInto(&out.Inner)\n\tout.Plain = in.Plain\n",
		"func (in Tags) DeepCopy() Tags {",
		"*out = make(Tags, len(*in))\n\t\tcopy(*out, *in)",
		"var outVal []*Inner",
		"(*in).DeepCopyInto(*out)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "DeepCopyObject") {
		t.Errorf("no kinds, yet DeepCopyObject was generated:\n%s", out)
	}
	t.Log(out)
}

func TestInterfaceFieldIsAnError(t *testing.T) {
	v := newVersion()
	addType(v, &model.Type{Name: "Bad", Kind: model.StructKind},
		field("Any", &model.TypeRef{Kind: model.InterfaceRef}))
	_, err := generate(t, v)
	if err == nil {
		t.Fatal("want an error for an interface{} field")
	}
	if !errors.Is(err, errNoDeepCopy) || !strings.Contains(err.Error(), "Bad.Any") {
		t.Errorf("error = %v; want errNoDeepCopy naming Bad.Any", err)
	}
}
