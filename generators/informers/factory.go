package informers

import (
	"github.com/dave/jennifer/jen"

	cp "github.com/kubeforge/kubeforge/generators/internal/clientpkg"
)

const (
	reflectPkg = "reflect"
	syncPkg    = "sync"
	timePkg    = "time"
	waitPkg    = "k8s.io/apimachinery/pkg/util/wait"
)

// factoryFile is the shared informer factory: options, constructors, the
// SharedInformerFactory interface and its implementation.
func factoryFile(p cp.Paths, groups []*cp.Group) *jen.File {
	f := cp.NewFile("externalversions", p.Informers(), "Package externalversions is the shared informer factory of the generated clientset.")
	for _, g := range groups {
		f.ImportAlias(p.InformerGroup(g), g.Pkg)
	}
	typ := func() *jen.Statement { return jen.Qual(reflectPkg, "Type") }
	f.Comment("SharedInformerOption configures a SharedInformerFactory.")
	f.Type().Id("SharedInformerOption").Func().Params(jen.Op("*").Id("sharedInformerFactory")).Op("*").Id("sharedInformerFactory")
	f.Type().Id("sharedInformerFactory").Struct(
		jen.Id("client").Qual(p.Clientset(), "Interface"),
		jen.Id("namespace").String(),
		jen.Id("tweakListOptions").Qual(p.InformersInternal(), "TweakListOptionsFunc"),
		jen.Id("lock").Qual(syncPkg, "Mutex"),
		jen.Id("defaultResync").Qual(timePkg, "Duration"),
		jen.Id("customResync").Map(typ()).Qual(timePkg, "Duration"),
		jen.Id("transform").Qual(cp.Cache, "TransformFunc"),
		jen.Id("informerName").Op("*").Qual(cp.Cache, "InformerName"),
		jen.Line(),
		jen.Id("informers").Map(typ()).Qual(cp.Cache, "SharedIndexInformer"),
		jen.Comment("startedInformers makes Start idempotent per informer."),
		jen.Id("startedInformers").Map(typ()).Bool(),
		jen.Comment("wg counts the informer goroutines Shutdown waits for."),
		jen.Id("wg").Qual(syncPkg, "WaitGroup"),
		jen.Comment("shuttingDown is set by Shutdown: Start does nothing after it."),
		jen.Id("shuttingDown").Bool(),
	)
	options(f, p)
	constructors(f, p)
	lifecycle(f, p)
	iface(f, p, groups)
	return f
}

func option(f *jen.File, name, doc string, param jen.Code, body ...jen.Code) {
	f.Comment(doc)
	body = append(body, jen.Return(jen.Id("factory")))
	f.Func().Id(name).Params(param).Id("SharedInformerOption").Block(
		jen.Return(jen.Func().Params(jen.Id("factory").Op("*").Id("sharedInformerFactory")).Op("*").Id("sharedInformerFactory").Block(body...)))
}

func options(f *jen.File, p cp.Paths) {
	option(f, "WithCustomResyncConfig", "WithCustomResyncConfig sets the resync period of the informers of the given object types.",
		jen.Id("resyncConfig").Map(jen.Qual(cp.Metav1, "Object")).Qual(timePkg, "Duration"),
		jen.For(jen.List(jen.Id("k"), jen.Id("v")).Op(":=").Range().Id("resyncConfig")).Block(
			jen.Id("factory").Dot("customResync").Index(jen.Qual(reflectPkg, "TypeOf").Call(jen.Id("k"))).Op("=").Id("v")))
	option(f, "WithTweakListOptions", "WithTweakListOptions changes the list options of every list and watch of the factory's informers.",
		jen.Id("tweakListOptions").Qual(p.InformersInternal(), "TweakListOptionsFunc"),
		jen.Id("factory").Dot("tweakListOptions").Op("=").Id("tweakListOptions"))
	option(f, "WithNamespace", "WithNamespace limits the factory's informers to one namespace.",
		jen.Id("namespace").String(),
		jen.Id("factory").Dot("namespace").Op("=").Id("namespace"))
	option(f, "WithTransform", "WithTransform sets a transform on every informer.",
		jen.Id("transform").Qual(cp.Cache, "TransformFunc"),
		jen.Id("factory").Dot("transform").Op("=").Id("transform"))
	option(f, "WithInformerName", "WithInformerName names the factory's informers in metrics (see cache.NewInformerName).",
		jen.Id("informerName").Op("*").Qual(cp.Cache, "InformerName"),
		jen.Id("factory").Dot("informerName").Op("=").Id("informerName"))
	f.Comment("InformerName returns the name set by WithInformerName, or nil.")
	f.Func().Params(jen.Id("f").Op("*").Id("sharedInformerFactory")).Id("InformerName").Params().Op("*").Qual(cp.Cache, "InformerName").Block(
		jen.Return(jen.Id("f").Dot("informerName")))
}

func constructors(f *jen.File, p cp.Paths) {
	client := jen.Id("client").Qual(p.Clientset(), "Interface")
	resync := jen.Id("defaultResync").Qual(timePkg, "Duration")
	f.Comment("NewSharedInformerFactory returns a factory of informers over every namespace.")
	f.Func().Id("NewSharedInformerFactory").Params(client.Clone(), resync.Clone()).Id("SharedInformerFactory").Block(
		jen.Return(jen.Id("NewSharedInformerFactoryWithOptions").Call(jen.Id("client"), jen.Id("defaultResync"))))
	f.Comment("NewFilteredSharedInformerFactory returns a factory of informers over one namespace\nwith tweaked list options.\n\nDeprecated: use NewSharedInformerFactoryWithOptions.")
	f.Func().Id("NewFilteredSharedInformerFactory").Params(client.Clone(), resync.Clone(), jen.Id("namespace").String(), jen.Id("tweakListOptions").Qual(p.InformersInternal(), "TweakListOptionsFunc")).Id("SharedInformerFactory").Block(
		jen.Return(jen.Id("NewSharedInformerFactoryWithOptions").Call(jen.Id("client"), jen.Id("defaultResync"),
			jen.Id("WithNamespace").Call(jen.Id("namespace")), jen.Id("WithTweakListOptions").Call(jen.Id("tweakListOptions")))))
	f.Comment("NewSharedInformerFactoryWithOptions returns a factory configured by options.")
	f.Func().Id("NewSharedInformerFactoryWithOptions").Params(client.Clone(), resync.Clone(), jen.Id("options").Op("...").Id("SharedInformerOption")).Id("SharedInformerFactory").Block(
		jen.Id("factory").Op(":=").Op("&").Id("sharedInformerFactory").Values(jen.Dict{
			jen.Id("client"):           jen.Id("client"),
			jen.Id("namespace"):        jen.Qual(cp.Metav1, "NamespaceAll"),
			jen.Id("defaultResync"):    jen.Id("defaultResync"),
			jen.Id("informers"):        jen.Make(jen.Map(jen.Qual(reflectPkg, "Type")).Qual(cp.Cache, "SharedIndexInformer")),
			jen.Id("startedInformers"): jen.Make(jen.Map(jen.Qual(reflectPkg, "Type")).Bool()),
			jen.Id("customResync"):     jen.Make(jen.Map(jen.Qual(reflectPkg, "Type")).Qual(timePkg, "Duration")),
		}),
		jen.For(jen.List(jen.Id("_"), jen.Id("opt")).Op(":=").Range().Id("options")).Block(jen.Id("factory").Op("=").Id("opt").Call(jen.Id("factory"))),
		jen.Return(jen.Id("factory")))
}

// lifecycle writes Start, StartWithContext, Shutdown, WaitForCacheSync,
// WaitForCacheSyncWithContext and InformerFor.
func lifecycle(f *jen.File, p cp.Paths) {
	recv := func() *jen.Statement { return jen.Id("f").Op("*").Id("sharedInformerFactory") }
	lock := []jen.Code{jen.Id("f").Dot("lock").Dot("Lock").Call(), jen.Defer().Id("f").Dot("lock").Dot("Unlock").Call()}
	stop := jen.Id("stopCh").Op("<-").Chan().Struct()
	f.Func().Params(recv()).Id("Start").Params(stop.Clone()).Block(
		jen.Id("f").Dot("StartWithContext").Call(jen.Qual(waitPkg, "ContextForChannel").Call(jen.Id("stopCh"))))
	f.Func().Params(recv()).Id("StartWithContext").Params(jen.Id("ctx").Qual(cp.Context, "Context")).Block(append(lock,
		jen.If(jen.Id("f").Dot("shuttingDown")).Block(jen.Return()),
		jen.For(jen.List(jen.Id("t"), jen.Id("informer")).Op(":=").Range().Id("f").Dot("informers")).Block(
			jen.If(jen.Op("!").Id("f").Dot("startedInformers").Index(jen.Id("t"))).Block(
				jen.Id("f").Dot("wg").Dot("Go").Call(jen.Func().Params().Block(jen.Id("informer").Dot("RunWithContext").Call(jen.Id("ctx")))),
				jen.Id("f").Dot("startedInformers").Index(jen.Id("t")).Op("=").True())))...)
	f.Func().Params(recv()).Id("Shutdown").Params().Block(
		jen.Id("f").Dot("lock").Dot("Lock").Call(),
		jen.Id("f").Dot("shuttingDown").Op("=").True(),
		jen.Id("f").Dot("lock").Dot("Unlock").Call(),
		jen.Id("f").Dot("wg").Dot("Wait").Call(),
		jen.Id("f").Dot("informerName").Dot("Release").Call())
	f.Func().Params(recv()).Id("WaitForCacheSync").Params(stop).Map(jen.Qual(reflectPkg, "Type")).Bool().Block(
		jen.Return(jen.Id("f").Dot("WaitForCacheSyncWithContext").Call(jen.Qual(waitPkg, "ContextForChannel").Call(jen.Id("stopCh"))).Dot("Synced")))
	started := jen.Func().Params().Map(jen.Qual(reflectPkg, "Type")).Qual(cp.Cache, "SharedIndexInformer").Block(append(lock,
		jen.Id("out").Op(":=").Map(jen.Qual(reflectPkg, "Type")).Qual(cp.Cache, "SharedIndexInformer").Values(),
		jen.For(jen.List(jen.Id("t"), jen.Id("informer")).Op(":=").Range().Id("f").Dot("informers")).Block(
			jen.If(jen.Id("f").Dot("startedInformers").Index(jen.Id("t"))).Block(jen.Id("out").Index(jen.Id("t")).Op("=").Id("informer"))),
		jen.Return(jen.Id("out")))...).Call()
	f.Func().Params(recv()).Id("WaitForCacheSyncWithContext").Params(jen.Id("ctx").Qual(cp.Context, "Context")).Qual(cp.Cache, "SyncResult").Block(
		jen.Id("informers").Op(":=").Add(started),
		jen.Id("checkers").Op(":=").Make(jen.Index().Qual(cp.Cache, "DoneChecker"), jen.Lit(0), jen.Len(jen.Id("informers"))),
		jen.For(jen.List(jen.Id("_"), jen.Id("informer")).Op(":=").Range().Id("informers")).Block(
			jen.Id("checkers").Op("=").Append(jen.Id("checkers"), jen.Id("informer").Dot("HasSyncedChecker").Call())),
		jen.Qual(cp.Cache, "WaitFor").Call(jen.Id("ctx"), jen.Lit(""), jen.Id("checkers").Op("...")),
		jen.Id("res").Op(":=").Qual(cp.Cache, "SyncResult").Values(jen.Dict{jen.Id("Synced"): jen.Make(jen.Map(jen.Qual(reflectPkg, "Type")).Bool(), jen.Len(jen.Id("informers")))}),
		jen.For(jen.List(jen.Id("t"), jen.Id("informer")).Op(":=").Range().Id("informers")).Block(
			jen.Id("synced").Op(":=").Id("informer").Dot("HasSynced").Call(),
			jen.Id("res").Dot("Synced").Index(jen.Id("t")).Op("=").Id("synced"),
			jen.If(jen.Op("!").Id("synced")).Block(
				jen.Comment("WaitFor only stops early when ctx is done, so the cause is set."),
				jen.Id("res").Dot("Err").Op("=").Qual(cp.Context, "Cause").Call(jen.Id("ctx")))),
		jen.Return(jen.Id("res")))
	f.Comment("InformerFor returns the shared informer of obj's type, building it with newFunc the first time.")
	f.Func().Params(recv()).Id("InformerFor").Params(jen.Id("obj").Qual(cp.Runtime, "Object"), jen.Id("newFunc").Qual(p.InformersInternal(), "NewInformerFunc")).Qual(cp.Cache, "SharedIndexInformer").Block(append(lock,
		jen.Id("t").Op(":=").Qual(reflectPkg, "TypeOf").Call(jen.Id("obj")),
		jen.If(jen.List(jen.Id("informer"), jen.Id("ok")).Op(":=").Id("f").Dot("informers").Index(jen.Id("t")), jen.Id("ok")).Block(jen.Return(jen.Id("informer"))),
		jen.List(jen.Id("resync"), jen.Id("ok")).Op(":=").Id("f").Dot("customResync").Index(jen.Id("t")),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Id("resync").Op("=").Id("f").Dot("defaultResync")),
		jen.Id("informer").Op(":=").Id("newFunc").Call(jen.Id("f").Dot("client"), jen.Id("resync")),
		jen.If(jen.Id("f").Dot("transform").Op("!=").Nil()).Block(
			jen.Id("_").Op("=").Id("informer").Dot("SetTransform").Call(jen.Id("f").Dot("transform"))),
		jen.Id("f").Dot("informers").Index(jen.Id("t")).Op("=").Id("informer"),
		jen.Return(jen.Id("informer")))...)
}

func iface(f *jen.File, p cp.Paths, groups []*cp.Group) {
	stop := jen.Id("stopCh").Op("<-").Chan().Struct()
	ctx := jen.Id("ctx").Qual(cp.Context, "Context")
	methods := []jen.Code{
		jen.Qual(p.InformersInternal(), "SharedInformerFactory"),
		jen.Comment("Start starts every informer requested so far; it does not block."),
		jen.Id("Start").Params(stop.Clone()),
		jen.Comment("StartWithContext starts every informer requested so far, until ctx is done; it does not block."),
		jen.Id("StartWithContext").Params(ctx.Clone()),
		jen.Comment("Shutdown stops starting informers and waits for the started ones to end."),
		jen.Id("Shutdown").Params(),
		jen.Comment("WaitForCacheSync waits until every started informer has synced or stopCh is closed."),
		jen.Id("WaitForCacheSync").Params(stop.Clone()).Map(jen.Qual(reflectPkg, "Type")).Bool(),
		jen.Comment("WaitForCacheSyncWithContext waits until every started informer has synced or ctx is done."),
		jen.Id("WaitForCacheSyncWithContext").Params(ctx.Clone()).Qual(cp.Cache, "SyncResult"),
		jen.Comment("ForResource gives generic access to the shared informer of a resource."),
		jen.Id("ForResource").Params(jen.Id("resource").Qual(cp.Schema, "GroupVersionResource")).Params(jen.Id("GenericInformer"), jen.Error()),
		jen.Comment("InformerFor returns the shared informer of obj's type."),
		jen.Id("InformerFor").Params(jen.Id("obj").Qual(cp.Runtime, "Object"), jen.Id("newFunc").Qual(p.InformersInternal(), "NewInformerFunc")).Qual(cp.Cache, "SharedIndexInformer"),
	}
	for _, g := range groups {
		methods = append(methods, jen.Id(g.GoName).Params().Qual(p.InformerGroup(g), "Interface"))
	}
	f.Comment("SharedInformerFactory gives shared informers of every group-version of the clientset:\nfactory.Shipping().V1().Shipments().Informer(), then StartWithContext and\nWaitForCacheSyncWithContext.")
	f.Type().Id("SharedInformerFactory").Interface(methods...)
	for _, g := range groups {
		f.Comment(g.GoName + " returns the informers of " + g.Name + ".")
		f.Func().Params(jen.Id("f").Op("*").Id("sharedInformerFactory")).Id(g.GoName).Params().Qual(p.InformerGroup(g), "Interface").Block(
			jen.Return(jen.Qual(p.InformerGroup(g), "New").Call(jen.Id("f"), jen.Id("f").Dot("namespace"), jen.Id("f").Dot("tweakListOptions"))))
	}
}
