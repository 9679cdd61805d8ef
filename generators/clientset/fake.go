package clientset

import (
	"github.com/dave/jennifer/jen"

	cp "github.com/kubeforge/kubeforge/generators/internal/clientpkg"
	"github.com/kubeforge/kubeforge/generators/model"
)

// fakeClientsetFile is clientset/versioned/fake: NewSimpleClientset,
// NewClientset (field-managed tracker, so apply works) and Clientset.
func fakeClientsetFile(p cp.Paths, versions []*cp.Version) *jen.File {
	f := cp.NewFile("fake", p.ClientsetFake(), "Package fake is the fake clientset, over client-go's object tracker, for unit tests.")
	for _, v := range versions {
		f.ImportAlias(p.Typed(v), cp.Alias("", v))
		f.ImportAlias(p.TypedFake(v), cp.Alias("fake", v))
	}
	fakedisc := "k8s.io/client-go/discovery/fake"
	f.ImportAlias(fakedisc, "fakediscovery")
	f.ImportAlias(p.Clientset(), "clientset")
	f.Comment("Clientset implements clientset.Interface over an object tracker; embed it to\nfake only the methods a test needs.")
	f.Type().Id("Clientset").Struct(
		jen.Qual(cp.Testing, "Fake"),
		jen.Id("discovery").Op("*").Qual(fakedisc, "FakeDiscovery"),
		jen.Id("tracker").Qual(cp.Testing, "ObjectTracker"),
	)
	f.Comment("NewSimpleClientset returns a clientset answering from a plain object tracker\nholding objects: no field management, validation or defaults.")
	f.Func().Id("NewSimpleClientset").Params(jen.Id("objects").Op("...").Qual(cp.Runtime, "Object")).Op("*").Id("Clientset").Block(
		jen.Return(jen.Id("newClientset").Call(
			jen.Qual(cp.Testing, "NewObjectTracker").Call(jen.Id("scheme"), jen.Id("codecs").Dot("UniversalDecoder").Call()),
			jen.Id("objects"))))
	f.Comment("NewClientset returns a clientset answering from a field-managed object tracker\nholding objects, so that server-side apply works; no validation or defaults.")
	f.Func().Id("NewClientset").Params(jen.Id("objects").Op("...").Qual(cp.Runtime, "Object")).Op("*").Id("Clientset").Block(
		jen.Return(jen.Id("newClientset").Call(
			jen.Qual(cp.Testing, "NewFieldManagedObjectTracker").Call(jen.Id("scheme"), jen.Id("codecs").Dot("UniversalDecoder").Call(),
				jen.Qual(p.ApplyConfigurations(), "NewTypeConverter").Call(jen.Id("scheme"))),
			jen.Id("objects"))))
	f.Comment("newClientset adds objects to o and routes every action, watches included, to it.\nA tracker that refuses an object is a programming error in the test: it panics,\nas client-gen's fake does.")
	f.Func().Id("newClientset").Params(jen.Id("o").Qual(cp.Testing, "ObjectTracker"), jen.Id("objects").Index().Qual(cp.Runtime, "Object")).Op("*").Id("Clientset").Block(
		jen.For(jen.List(jen.Id("_"), jen.Id("obj")).Op(":=").Range().Id("objects")).Block(
			jen.If(jen.Err().Op(":=").Id("o").Dot("Add").Call(jen.Id("obj")), jen.Err().Op("!=").Nil()).Block(jen.Panic(jen.Err()))),
		jen.Id("cs").Op(":=").Op("&").Id("Clientset").Values(jen.Dict{jen.Id("tracker"): jen.Id("o")}),
		jen.Id("cs").Dot("discovery").Op("=").Op("&").Qual(fakedisc, "FakeDiscovery").Values(jen.Dict{jen.Id("Fake"): jen.Op("&").Id("cs").Dot("Fake")}),
		jen.Id("cs").Dot("AddReactor").Call(jen.Lit("*"), jen.Lit("*"), jen.Qual(cp.Testing, "ObjectReaction").Call(jen.Id("o"))),
		jen.Id("cs").Dot("AddWatchReactor").Call(jen.Lit("*"), jen.Func().Params(jen.Id("action").Qual(cp.Testing, "Action")).Params(jen.Bool(), jen.Qual(cp.Watch, "Interface"), jen.Error()).Block(
			jen.Var().Id("opts").Qual(cp.Metav1, "ListOptions"),
			jen.If(jen.List(jen.Id("wa"), jen.Id("ok")).Op(":=").Id("action").Assert(jen.Qual(cp.Testing, "WatchActionImpl")), jen.Id("ok")).Block(
				jen.Id("opts").Op("=").Id("wa").Dot("ListOptions")),
			jen.List(jen.Id("w"), jen.Err()).Op(":=").Id("o").Dot("Watch").Call(jen.Id("action").Dot("GetResource").Call(), jen.Id("action").Dot("GetNamespace").Call(), jen.Id("opts")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.False(), jen.Nil(), jen.Err())),
			jen.Return(jen.True(), jen.Id("w"), jen.Nil()),
		)),
		jen.Return(jen.Id("cs")),
	)
	recv := func() *jen.Statement { return jen.Id("c").Op("*").Id("Clientset") }
	f.Comment("Discovery returns the fake discovery client.")
	f.Func().Params(recv()).Id("Discovery").Params().Qual("k8s.io/client-go/discovery", "DiscoveryInterfaces").Block(jen.Return(jen.Id("c").Dot("discovery")))
	f.Comment("Tracker returns the object tracker behind the clientset.")
	f.Func().Params(recv()).Id("Tracker").Params().Qual(cp.Testing, "ObjectTracker").Block(jen.Return(jen.Id("c").Dot("tracker")))
	f.Comment("IsWatchListSemanticsUnSupported tells client-go's reflector that this client\ncannot serve WatchList (streaming lists): informers list, then watch.")
	f.Func().Params(recv()).Id("IsWatchListSemanticsUnSupported").Params().Bool().Block(jen.Return(jen.True()))
	f.Var().Defs(
		jen.Id("_").Qual(p.Clientset(), "Interface").Op("=").Op("&").Id("Clientset").Values(),
		jen.Id("_").Qual(cp.Testing, "FakeClient").Op("=").Op("&").Id("Clientset").Values(),
	)
	for _, v := range versions {
		f.Comment(v.Prefix() + " retrieves the fake " + v.Prefix() + "Client.")
		f.Func().Params(recv()).Id(v.Prefix()).Params().Qual(p.Typed(v), v.Prefix()+"Interface").Block(
			jen.Return(jen.Op("&").Qual(p.TypedFake(v), "Fake"+v.Prefix()).Values(jen.Dict{jen.Id("Fake"): jen.Op("&").Id("c").Dot("Fake")})))
	}
	return f
}

// fakeGroupClientFile is typed/<group>/<version>/fake: Fake<Group><Version>.
func fakeGroupClientFile(p cp.Paths, v *cp.Version) *jen.File {
	f := cp.NewFile("fake", p.TypedFake(v), "Package fake holds the fake typed clients of "+v.Group.Name+"/"+v.Name+".")
	f.ImportAlias(p.Typed(v), "typed"+v.Group.Pkg+v.Name)
	name := "Fake" + v.Prefix()
	f.Comment(name + " is the fake " + v.Prefix() + "Client; its actions go to Fake.")
	f.Type().Id(name).Struct(jen.Op("*").Qual(cp.Testing, "Fake"))
	recv := func() *jen.Statement { return jen.Id("c").Op("*").Id(name) }
	for _, k := range v.Kinds {
		params, args := []jen.Code{}, []jen.Code{jen.Id("c")}
		if k.Namespaced {
			params = append(params, jen.Id("namespace").String())
			args = append(args, jen.Id("namespace"))
		} else {
			args = append(args, jen.Lit(""))
		}
		f.Comment(cp.Plural(k.Name) + " returns the fake client of " + k.Plural + ".")
		f.Func().Params(recv()).Id(cp.Plural(k.Name)).Params(params...).Qual(p.Typed(v), k.Name+"Interface").Block(
			jen.Return(jen.Id("newFake" + cp.Plural(k.Name)).Call(args...)))
	}
	f.Comment("RESTClient returns a nil RESTClient: the fake talks to no server.")
	f.Func().Params(recv()).Id("RESTClient").Params().Qual(cp.Rest, "Interface").Block(
		jen.Var().Id("ret").Op("*").Qual(cp.Rest, "RESTClient"),
		jen.Return(jen.Id("ret")))
	return f
}

// fakeKindFile is one kind's fake client on gentype.FakeClientWithListAndApply.
func fakeKindFile(p cp.Paths, v *cp.Version, k *model.Kind) *jen.File {
	f := cp.NewFile("fake", p.TypedFake(v), "")
	cp.ImportTypes(f, v)
	f.ImportAlias(p.Typed(v), "typed"+v.Group.Pkg+v.Name)
	f.ImportAlias(p.Apply(v), cp.Alias("apply", v))
	obj, list := jen.Qual(k.Version.Package, k.Name), jen.Qual(k.Version.Package, k.ListName)
	apply := jen.Qual(p.Apply(v), cp.ApplyName(k.Name))
	ptr := func(s *jen.Statement) *jen.Statement { return jen.Op("*").Add(s.Clone()) }
	impl := "fake" + cp.Plural(k.Name)
	f.Comment(impl + " implements " + k.Name + "Interface over the fake.")
	f.Type().Id(impl).Struct(
		jen.Op("*").Qual(cp.Gentype, "FakeClientWithListAndApply").Types(ptr(obj), ptr(list), ptr(apply)),
		jen.Id("Fake").Op("*").Id("Fake"+v.Prefix()),
	)
	f.Func().Id("newFake"+cp.Plural(k.Name)).Params(jen.Id("fake").Op("*").Id("Fake"+v.Prefix()), jen.Id("namespace").String()).Qual(p.Typed(v), k.Name+"Interface").Block(
		jen.Return(jen.Op("&").Id(impl).Values(
			jen.Qual(cp.Gentype, "NewFakeClientWithListAndApply").Types(ptr(obj), ptr(list), ptr(apply)).Add(cp.Args(
				jen.Id("fake").Dot("Fake"),
				jen.Id("namespace"),
				jen.Qual(cp.Schema, "GroupVersionResource").Values(jen.Dict{jen.Id("Group"): jen.Lit(v.Group.Name), jen.Id("Version"): jen.Lit(v.Name), jen.Id("Resource"): jen.Lit(k.Plural)}),
				jen.Qual(cp.Schema, "GroupVersionKind").Values(jen.Dict{jen.Id("Group"): jen.Lit(v.Group.Name), jen.Id("Version"): jen.Lit(v.Name), jen.Id("Kind"): jen.Lit(k.Name)}),
				jen.Func().Params().Add(ptr(obj)).Block(jen.Return(jen.Op("&").Add(obj.Clone()).Values())),
				jen.Func().Params().Add(ptr(list)).Block(jen.Return(jen.Op("&").Add(list.Clone()).Values())),
				jen.Func().Params(jen.List(jen.Id("dst"), jen.Id("src")).Add(ptr(list))).Block(jen.Id("dst").Dot("ListMeta").Op("=").Id("src").Dot("ListMeta")),
				jen.Func().Params(jen.Id("list").Add(ptr(list))).Index().Add(ptr(obj)).Block(jen.Return(jen.Qual(cp.Gentype, "ToPointerSlice").Call(jen.Id("list").Dot("Items")))),
				jen.Func().Params(jen.Id("list").Add(ptr(list)), jen.Id("items").Index().Add(ptr(obj))).Block(jen.Id("list").Dot("Items").Op("=").Qual(cp.Gentype, "FromPointerSlice").Call(jen.Id("items"))),
			)),
			jen.Id("fake"),
		)))
	if k.Scale != nil {
		fakeScale(f, k, impl)
	}
	return f
}

// fakeScale records GetScale and UpdateScale as subresource actions.
func fakeScale(f *jen.File, k *model.Kind, impl string) {
	recv := jen.Id("c").Op("*").Id(impl)
	scale := func() *jen.Statement { return jen.Op("*").Qual(autoscalingV1, "Scale") }
	ctx := jen.Id("ctx").Qual(cp.Context, "Context")
	action := func(ns, root string, args ...jen.Code) *jen.Statement {
		if k.Namespaced {
			return jen.Qual(cp.Testing, ns).Call(args...)
		}
		return jen.Qual(cp.Testing, root).Call(args...)
	}
	invoke := func(a *jen.Statement) []jen.Code {
		return []jen.Code{
			jen.List(jen.Id("obj"), jen.Err()).Op(":=").Id("c").Dot("Fake").Dot("Invokes").Call(a, jen.Op("&").Qual(autoscalingV1, "Scale").Values()),
			jen.If(jen.Id("obj").Op("==").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Id("obj").Assert(scale()), jen.Err()),
		}
	}
	res := jen.Id("c").Dot("Resource").Call()
	ns := jen.Id("c").Dot("Namespace").Call()
	var get, upd *jen.Statement
	if k.Namespaced {
		get = action("NewGetSubresourceActionWithOptions", "", res.Clone(), ns.Clone(), jen.Lit("scale"), jen.Id("name"), jen.Id("options"))
		upd = action("NewUpdateSubresourceActionWithOptions", "", res.Clone(), jen.Lit("scale"), ns.Clone(), jen.Id("scale"), jen.Id("opts"))
	} else {
		get = action("", "NewRootGetSubresourceActionWithOptions", res.Clone(), jen.Lit("scale"), jen.Id("name"), jen.Id("options"))
		upd = action("", "NewRootUpdateSubresourceActionWithOptions", res.Clone(), jen.Lit("scale"), jen.Id("scale"), jen.Id("opts"))
	}
	f.Comment("GetScale records a get of the scale subresource.")
	f.Func().Params(recv.Clone()).Id("GetScale").Params(ctx.Clone(), jen.Id("name").String(), jen.Id("options").Qual(cp.Metav1, "GetOptions")).Params(scale(), jen.Error()).Block(invoke(get)...)
	f.Comment("UpdateScale records an update of the scale subresource.")
	f.Func().Params(recv.Clone()).Id("UpdateScale").Params(ctx.Clone(), jen.Id("name").String(), jen.Id("scale").Add(scale()), jen.Id("opts").Qual(cp.Metav1, "UpdateOptions")).Params(scale(), jen.Error()).Block(invoke(upd)...)
}
