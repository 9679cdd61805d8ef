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

func TestExternalTypes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ref     *model.TypeRef
		want    string // in the output; "" when an error is expected
		wantErr string
	}{
		{
			name: "value struct without DeepCopyInto is assigned",
			ref: ext("example.com/lib", "Pair", &model.External{Struct: true, Fields: []*model.Field{
				{Name: "A", Type: builtin("string")}, {Name: "B", Type: builtin("int64")},
			}}),
			want: "out.X = in.X",
		},
		{
			name: "struct with references and DeepCopyInto uses it",
			ref: ext("example.com/lib", "Box", &model.External{Struct: true, HasDeepCopyInto: true, Fields: []*model.Field{
				{Name: "P", Type: ptr(builtin("string"))},
			}}),
			want: "in.X.DeepCopyInto(&out.X)",
		},
		{
			// The loader reads dependencies' export data with their generated
			// code, so HasDeepCopyInto is the truth for k8s.io types too.
			name: "Kubernetes struct with references and no DeepCopyInto is an error",
			ref: ext("k8s.io/api/core/v1", "ObjectReference2", &model.External{Struct: true, Fields: []*model.Field{
				{Name: "P", Type: ptr(builtin("string"))},
			}}),
			wantErr: "k8s.io/api/core/v1.ObjectReference2 has no DeepCopyInto method and field P holds references",
		},
		{
			name: "other struct with references and no DeepCopyInto is an error",
			ref: ext("example.com/lib", "Box", &model.External{Struct: true, Fields: []*model.Field{
				{Name: "P", Type: ptr(builtin("string"))},
			}}),
			wantErr: "example.com/lib.Box has no DeepCopyInto method and field P holds references",
		},
		{
			name:    "opaque type without DeepCopyInto is an error",
			ref:     ext("example.com/lib", "Handle", &model.External{Struct: true}),
			wantErr: "example.com/lib.Handle has no DeepCopyInto method and its shape is unknown",
		},
		{
			name: "runtime.Object is copied with DeepCopyObject",
			ref:  ext(runtimePkg, "Object", &model.External{Underlying: &model.TypeRef{Kind: model.InterfaceRef}}),
			want: "*out = (*in).DeepCopyObject()",
		},
		{
			name:    "other named interfaces are an error",
			ref:     ext("io", "Reader", &model.External{Underlying: &model.TypeRef{Kind: model.InterfaceRef}}),
			wantErr: "only runtime.Object interfaces can be copied",
		},
		{
			name: "external named slice without DeepCopyInto is copied inline",
			ref:  ext("example.com/lib", "Words", &model.External{Underlying: slice(builtin("string"))}),
			want: "*out = make(lib.Words, len(*in))",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := newVersion()
			addType(v, &model.Type{Name: "Holder", Kind: model.StructKind}, field("X", tc.ref))
			out, err := generate(t, v)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "Holder.X") {
					t.Fatalf("error = %v, want one naming Holder.X and containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("output lacks %q:\n%s", tc.want, out)
			}
		})
	}
}
