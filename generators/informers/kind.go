package informers

import (
	"github.com/dave/jennifer/jen"

	cp "github.com/kubeforge/kubeforge/generators/internal/clientpkg"
	"github.com/kubeforge/kubeforge/generators/model"
)

// kindFile is one kind's informer: the untyped and typed interfaces, the
// handler and indexer aliases, the constructors and the conversions.
func kindFile(p cp.Paths, v *cp.Version, k *model.Kind) *jen.File {
	f := cp.NewFile(v.Name, p.InformerVersion(v), "")
	f.ImportAlias(v.V.Package, "types"+v.Group.Pkg+v.Name)
	f.ImportAlias(p.Lister(v), "listers"+v.Group.Pkg+v.Name)
	obj := func() *jen.Statement { return jen.Op("*").Qual(k.Version.Package, k.Name) }
	n := k.Name
	lister := jen.Qual(p.Lister(v), n+"Lister")
	idx := n + "IndexInformer"
	shared := func() *jen.Statement { return jen.Qual(cp.Cache, "SharedIndexInformer") }

	f.Comment(n + "Informer gives the shared informer and lister of " + cp.Plural(n) + ";\nprefer Typed" + n + "Informer.")
	f.Type().Id(n+"Informer").Interface(jen.Id("Informer").Params().Add(shared()), jen.Id("Lister").Params().Add(lister.Clone()))
	f.Comment("Typed" + n + "Informer is " + n + "Informer with the type-safe TypedInformer.")
	f.Type().Id("Typed"+n+"Informer").Interface(jen.Id("Informer").Params().Add(shared()), jen.Id("TypedInformer").Params().Id(idx), jen.Id("Lister").Params().Add(lister.Clone()))
	f.Comment(idx + " is the shared informer with type-safe methods.")
	f.Type().Id(idx).Qual(cp.Cache, "TypedSharedIndexInformer").Types(obj())
	for _, a := range [][2]string{
		{n + "HandlerFuncs", "TypedResourceEventHandlerFuncs"},
		{n + "DetailedHandlerFuncs", "TypedResourceEventHandlerDetailedFuncs"},
		{n + "FilteringHandler", "TypedFilteringResourceEventHandler"},
		{n + "Indexers", "TypedIndexers"},
		{"Deleted" + n, "DeletedObject"},
	} {
		f.Comment(a[0] + " is cache." + a[1] + " of " + n + ".")
		f.Type().Id(a[0]).Op("=").Qual(cp.Cache, a[1]).Types(obj())
	}
	impl := cp.LowerFirst(n) + "Informer"
	fields := []jen.Code{
		jen.Id("factory").Qual(p.InformersInternal(), "SharedInformerFactory"),
		jen.Id("tweakListOptions").Qual(p.InformersInternal(), "TweakListOptionsFunc"),
	}
	if k.Namespaced {
		fields = append(fields, jen.Id("namespace").String())
	}
	f.Type().Id(impl).Struct(fields...)
	constructorsOf(f, p, v, k, obj)

	recv := func() *jen.Statement { return jen.Id("f").Op("*").Id(impl) }
	ns := []jen.Code{jen.Id("client")}
	if k.Namespaced {
		ns = append(ns, jen.Id("f").Dot("namespace"))
	}
	f.Func().Params(recv()).Id("defaultInformer").Params(jen.Id("client").Qual(p.Clientset(), "Interface"), jen.Id("resyncPeriod").Qual(timePkg, "Duration")).Add(shared()).Block(
		jen.Return(jen.Id("NewTyped" + n + "InformerWithOptions").Call(append(ns, jen.Qual(p.InformersInternal(), "InformerOptions").Values(jen.Dict{
			jen.Id("ResyncPeriod"):     jen.Id("resyncPeriod"),
			jen.Id("Indexers"):         jen.Qual(cp.Cache, "Indexers").Values(jen.Dict{jen.Qual(cp.Cache, "NamespaceIndex"): jen.Qual(cp.Cache, "MetaNamespaceIndexFunc")}),
			jen.Id("InformerName"):     jen.Id("f").Dot("factory").Dot("InformerName").Call(),
			jen.Id("TweakListOptions"): jen.Id("f").Dot("tweakListOptions"),
		}))...)))
	f.Comment("Informer returns the shared informer of " + cp.Plural(n) + ".")
	f.Func().Params(recv()).Id("Informer").Params().Add(shared()).Block(jen.Return(jen.Id("f").Dot("TypedInformer").Call()))
	f.Comment("TypedInformer returns the shared informer of " + cp.Plural(n) + ", type-safe.")
	f.Func().Params(recv()).Id("TypedInformer").Params().Id(idx).Block(
		jen.Return(jen.Qual(cp.Cache, "NewTypedSharedIndexInformer").Types(obj()).Call(
			jen.Id("f").Dot("factory").Dot("InformerFor").Call(jen.Op("&").Qual(k.Version.Package, n).Values(), jen.Id("f").Dot("defaultInformer")))))
	f.Comment("Lister returns a lister over the shared informer's indexer.")
	f.Func().Params(recv()).Id("Lister").Params().Add(lister.Clone()).Block(
		jen.Return(jen.Qual(p.Lister(v), "New"+n+"Lister").Call(jen.Id("f").Dot("Informer").Call().Dot("GetIndexer").Call())))

	adapter := cp.LowerFirst(n) + "TypedInformerAdapter"
	f.Comment("ToTyped" + n + "Informer turns an " + n + "Informer into a Typed" + n + "Informer;\nthe informer must hold " + n + " objects.")
	f.Func().Id("ToTyped"+n+"Informer").Params(jen.Id("informer").Id(n+"Informer")).Id("Typed"+n+"Informer").Block(
		jen.If(jen.List(jen.Id("typed"), jen.Id("ok")).Op(":=").Id("informer").Assert(jen.Id("Typed"+n+"Informer")), jen.Id("ok")).Block(jen.Return(jen.Id("typed"))),
		jen.Return(jen.Op("&").Id(adapter).Values(jen.Id("informer"))))
	f.Type().Id(adapter).Struct(jen.Id(n + "Informer"))
	f.Func().Params(jen.Id("a").Op("*").Id(adapter)).Id("TypedInformer").Params().Id(idx).Block(
		jen.Return(jen.Qual(cp.Cache, "NewTypedSharedIndexInformer").Types(obj()).Call(jen.Id("a").Dot("Informer").Call())))
	f.Comment("To" + idx + " turns a shared informer into an " + idx + ";\nthe informer must hold " + n + " objects.")
	f.Func().Id("To"+idx).Params(jen.Id("informer").Add(shared())).Id(idx).Block(
		jen.If(jen.List(jen.Id("typed"), jen.Id("ok")).Op(":=").Id("informer").Assert(jen.Id(idx)), jen.Id("ok")).Block(jen.Return(jen.Id("typed"))),
		jen.Return(jen.Qual(cp.Cache, "NewTypedSharedIndexInformer").Types(obj()).Call(jen.Id("informer"))))
	return f
}

// constructorsOf writes the six New...Informer functions; all end in
// NewTyped<Kind>InformerWithOptions, which builds the list-watch.
func constructorsOf(f *jen.File, p cp.Paths, v *cp.Version, k *model.Kind, obj func() *jen.Statement) {
	n := k.Name
	idx := n + "IndexInformer"
	shared := func() *jen.Statement { return jen.Qual(cp.Cache, "SharedIndexInformer") }
	opts := func(d jen.Dict) *jen.Statement { return jen.Qual(p.InformersInternal(), "InformerOptions").Values(d) }
	base := func() []jen.Code {
		ps := []jen.Code{jen.Id("client").Qual(p.Clientset(), "Interface")}
		if k.Namespaced {
			ps = append(ps, jen.Id("namespace").String())
		}
		return ps
	}
	args := func(rest ...jen.Code) []jen.Code {
		as := []jen.Code{jen.Id("client")}
		if k.Namespaced {
			as = append(as, jen.Id("namespace"))
		}
		return append(as, rest...)
	}
	resync := jen.Id("resyncPeriod").Qual(timePkg, "Duration")
	tweak := jen.Id("tweakListOptions").Qual(p.InformersInternal(), "TweakListOptionsFunc")
	untypedIdx := jen.Id("indexers").Qual(cp.Cache, "Indexers")
	typedIdx := jen.Id("indexers").Id(n + "Indexers")
	conv := jen.Qual(cp.Cache, "TypedIndexersToIndexers").Call(jen.Id("indexers"))
	note := "\nPrefer the factory's shared informer: it saves memory and connections."
	f.Comment("New" + n + "Informer builds an independent informer of " + n + "." + note)
	f.Func().Id("New" + n + "Informer").Params(append(base(), resync.Clone(), untypedIdx.Clone())...).Add(shared()).Block(
		jen.Return(jen.Id("New" + n + "InformerWithOptions").Call(args(opts(jen.Dict{jen.Id("ResyncPeriod"): jen.Id("resyncPeriod"), jen.Id("Indexers"): jen.Id("indexers")}))...)))
	f.Comment("NewTyped" + n + "Informer builds an independent typed informer of " + n + "." + note)
	f.Func().Id("NewTyped" + n + "Informer").Params(append(base(), resync.Clone(), typedIdx.Clone())...).Id(idx).Block(
		jen.Return(jen.Id("NewTyped" + n + "InformerWithOptions").Call(args(opts(jen.Dict{jen.Id("ResyncPeriod"): jen.Id("resyncPeriod"), jen.Id("Indexers"): conv.Clone()}))...)))
	f.Comment("NewFiltered" + n + "Informer builds an independent informer of " + n + " with tweaked list options." + note)
	f.Func().Id("NewFiltered" + n + "Informer").Params(append(base(), resync.Clone(), untypedIdx.Clone(), tweak.Clone())...).Add(shared()).Block(
		jen.Return(jen.Id("NewTyped" + n + "InformerWithOptions").Call(args(opts(jen.Dict{jen.Id("ResyncPeriod"): jen.Id("resyncPeriod"), jen.Id("Indexers"): jen.Id("indexers"), jen.Id("TweakListOptions"): jen.Id("tweakListOptions")}))...)))
	f.Comment("NewTypedFiltered" + n + "Informer builds an independent typed informer of " + n + " with tweaked list options." + note)
	f.Func().Id("NewTypedFiltered" + n + "Informer").Params(append(base(), resync.Clone(), typedIdx.Clone(), tweak.Clone())...).Id(idx).Block(
		jen.Return(jen.Id("NewTyped" + n + "InformerWithOptions").Call(args(opts(jen.Dict{jen.Id("ResyncPeriod"): jen.Id("resyncPeriod"), jen.Id("Indexers"): conv.Clone(), jen.Id("TweakListOptions"): jen.Id("tweakListOptions")}))...)))
	f.Comment("New" + n + "InformerWithOptions builds an independent informer of " + n + " configured by options." + note)
	f.Func().Id("New" + n + "InformerWithOptions").Params(append(base(), jen.Id("options").Qual(p.InformersInternal(), "InformerOptions"))...).Add(shared()).Block(
		jen.Return(jen.Id("NewTyped" + n + "InformerWithOptions").Call(args(jen.Id("options"))...)))

	ns := []jen.Code{}
	if k.Namespaced {
		ns = append(ns, jen.Id("namespace"))
	}
	call := func(verb string, ctx jen.Code) *jen.Statement {
		return jen.Id("client").Dot(v.Prefix()).Call().Dot(cp.Plural(n)).Call(ns...).Dot(verb).Call(ctx, jen.Id("opts"))
	}
	lw := func(field, verb string, withCtx bool, ret jen.Code) jen.Code {
		params := []jen.Code{jen.Id("opts").Qual(cp.Metav1, "ListOptions")}
		ctx := jen.Qual(cp.Context, "Background").Call()
		if withCtx {
			params = append([]jen.Code{jen.Id("ctx").Qual(cp.Context, "Context")}, params...)
			ctx = jen.Id("ctx")
		}
		return jen.Id(field).Op(":").Func().Params(params...).Params(ret, jen.Error()).Block(
			jen.If(jen.Id("tweak").Op("!=").Nil()).Block(jen.Id("tweak").Call(jen.Op("&").Id("opts"))),
			jen.Return(call(verb, ctx)),
		).Op(",")
	}
	robj, rwatch := jen.Qual(cp.Runtime, "Object"), jen.Qual(cp.Watch, "Interface")
	f.Comment("NewTyped" + n + "InformerWithOptions builds an independent typed informer of " + n + " configured by options." + note)
	f.Func().Id("NewTyped"+n+"InformerWithOptions").Params(append(base(), jen.Id("options").Qual(p.InformersInternal(), "InformerOptions"))...).Id(idx).Block(
		jen.Id("gvr").Op(":=").Qual(cp.Schema, "GroupVersionResource").Values(jen.Dict{
			jen.Id("Group"): jen.Lit(v.Group.Name), jen.Id("Version"): jen.Lit(v.Name), jen.Id("Resource"): jen.Lit(k.Plural),
		}),
		jen.Id("tweak").Op(":=").Id("options").Dot("TweakListOptions"),
		jen.Id("lw").Op(":=").Op("&").Qual(cp.Cache, "ListWatch").Block(
			lw("ListFunc", "List", false, robj.Clone()),
			lw("WatchFunc", "Watch", false, rwatch.Clone()),
			lw("ListWithContextFunc", "List", true, robj.Clone()),
			lw("WatchFuncWithContext", "Watch", true, rwatch.Clone()),
		),
		jen.Id("informer").Op(":=").Qual(cp.Cache, "NewSharedIndexInformerWithOptions").Add(cp.Args(
			jen.Qual(cp.Cache, "ToListWatcherWithWatchListSemantics").Call(jen.Id("lw"), jen.Id("client")),
			jen.Op("&").Qual(k.Version.Package, n).Values(),
			jen.Qual(cp.Cache, "SharedIndexInformerOptions").Values(jen.Dict{
				jen.Id("ResyncPeriod"): jen.Id("options").Dot("ResyncPeriod"),
				jen.Id("Indexers"):     jen.Id("options").Dot("Indexers"),
				jen.Id("Identifier"):   jen.Id("options").Dot("InformerName").Dot("WithResource").Call(jen.Id("gvr")),
			}))),
		jen.Return(jen.Qual(cp.Cache, "NewTypedSharedIndexInformer").Types(obj()).Call(jen.Id("informer"))))
}
