package clientset

import (
	"github.com/dave/jennifer/jen"

	cp "github.com/kubeforge/kubeforge/generators/internal/clientpkg"
)

// schemeFile is the clientset's scheme package: Scheme, Codecs,
// ParameterCodec and AddToScheme. The kinds are registered here rather
// than through generated/<group>/<version>, whose package carries the
// server's storage and routes: a client binary must not link the server.
func schemeFile(p cp.Paths, versions []*cp.Version) *jen.File {
	f := cp.NewFile("scheme", p.ClientsetScheme(), "Package scheme holds the scheme of the generated clientset: every kind of every group-version it serves.")
	cp.ImportTypes(f, versions...)
	f.Comment("Scheme knows every kind of the clientset.")
	f.Var().Id("Scheme").Op("=").Qual(cp.Runtime, "NewScheme").Call()
	f.Comment("Codecs encode and decode the kinds of Scheme.")
	f.Var().Id("Codecs").Op("=").Qual("k8s.io/apimachinery/pkg/runtime/serializer", "NewCodecFactory").Call(jen.Id("Scheme"))
	f.Comment("ParameterCodec encodes query parameters (list, get, delete options).")
	f.Var().Id("ParameterCodec").Op("=").Qual(cp.Runtime, "NewParameterCodec").Call(jen.Id("Scheme"))
	registration(f, versions, "Scheme")
	return f
}

// fakeRegisterFile is the fake clientset's own scheme (unexported, as
// client-gen writes it) and AddToScheme.
func fakeRegisterFile(p cp.Paths, versions []*cp.Version) *jen.File {
	f := cp.NewFile("fake", p.ClientsetFake(), "")
	cp.ImportTypes(f, versions...)
	f.Var().Id("scheme").Op("=").Qual(cp.Runtime, "NewScheme").Call()
	f.Var().Id("codecs").Op("=").Qual("k8s.io/apimachinery/pkg/runtime/serializer", "NewCodecFactory").Call(jen.Id("scheme"))
	registration(f, versions, "scheme")
	return f
}

// registration writes localSchemeBuilder, AddToScheme, one add function per
// group-version and the init that fills scheme.
func registration(f *jen.File, versions []*cp.Version, scheme string) {
	var funcs []jen.Code
	for _, v := range versions {
		funcs = append(funcs, jen.Id("add"+v.Prefix()))
	}
	f.Var().Id("localSchemeBuilder").Op("=").Qual(cp.Runtime, "SchemeBuilder").Values(funcs...)
	f.Comment("AddToScheme adds every kind of this clientset to a scheme, so that clientsets compose\n(for example into client-go's kubernetes/scheme.Scheme).")
	f.Var().Id("AddToScheme").Op("=").Id("localSchemeBuilder").Dot("AddToScheme")
	f.Func().Id("init").Params().Block(
		jen.Qual(cp.Metav1, "AddToGroupVersion").Call(jen.Id(scheme), jen.Qual(cp.Schema, "GroupVersion").Values(jen.Dict{jen.Id("Version"): jen.Lit("v1")})),
		jen.Qual("k8s.io/apimachinery/pkg/util/runtime", "Must").Call(jen.Id("AddToScheme").Call(jen.Id(scheme))),
	)
	for _, v := range versions {
		objs := []jen.Code{jen.Id("gv")}
		for _, k := range v.Kinds {
			objs = append(objs,
				jen.Op("&").Qual(k.Version.Package, k.Name).Values(),
				jen.Op("&").Qual(k.Version.Package, k.ListName).Values())
		}
		f.Func().Id("add"+v.Prefix()).Params(jen.Id("s").Op("*").Qual(cp.Runtime, "Scheme")).Error().Block(
			jen.Id("gv").Op(":=").Add(cp.GroupVersion(v)),
			jen.Id("s").Dot("AddKnownTypes").Call(objs...),
			jen.Qual(cp.Metav1, "AddToGroupVersion").Call(jen.Id("s"), jen.Id("gv")),
			jen.Return(jen.Nil()),
		)
	}
}
