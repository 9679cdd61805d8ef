// Package informers generates generated/informers/externalversions: the
// shared informer factory (namespace, list-option tweaks, custom resync,
// transform), one interface per group and per version, one typed informer
// per kind and the generic ForResource, with the exported API of
// code-generator's informer-gen.
package informers

import (
	"github.com/dave/jennifer/jen"

	"github.com/kubeforge/kubeforge/generators/genall"
	cp "github.com/kubeforge/kubeforge/generators/internal/clientpkg"
	"github.com/kubeforge/kubeforge/generators/model"
)

// Generator writes the informers.
type Generator struct{}

// Name implements genall.Generator.
func (Generator) Name() string { return "informers" }

// Generate implements genall.Generator.
func (Generator) Generate(api *model.API) ([]genall.File, error) {
	groups, err := cp.Groups(api)
	if err != nil {
		return nil, err
	}
	if len(groups) == 0 {
		return nil, nil
	}
	p := cp.For(api)
	var files []genall.File
	add := func(f *jen.File, path, what string) error {
		out, err := cp.Render(f, p.Dir(api, path), what)
		if err == nil {
			files = append(files, out)
		}
		return err
	}
	if err := add(factoryFile(p, groups), p.Informers(), "factory"); err != nil {
		return nil, err
	}
	if err := add(genericFile(p, groups), p.Informers(), "generic"); err != nil {
		return nil, err
	}
	if err := add(internalFile(p), p.InformersInternal(), "interfaces"); err != nil {
		return nil, err
	}
	for _, g := range groups {
		if err := add(groupFile(p, g), p.InformerGroup(g), "interface"); err != nil {
			return nil, err
		}
		for _, v := range g.Versions {
			if err := add(versionFile(p, v), p.InformerVersion(v), "interface"); err != nil {
				return nil, err
			}
			for _, k := range v.Kinds {
				if err := add(kindFile(p, v, k), p.InformerVersion(v), lowerAll(k.Name)); err != nil {
					return nil, err
				}
			}
		}
	}
	return files, nil
}

func lowerAll(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}

// factoryFields are the fields every group and version interface carries.
func factoryFields(p cp.Paths) []jen.Code {
	return []jen.Code{
		jen.Id("factory").Qual(p.InformersInternal(), "SharedInformerFactory"),
		jen.Id("namespace").String(),
		jen.Id("tweakListOptions").Qual(p.InformersInternal(), "TweakListOptionsFunc"),
	}
}

func newParams(p cp.Paths) []jen.Code {
	return []jen.Code{
		jen.Id("f").Qual(p.InformersInternal(), "SharedInformerFactory"),
		jen.Id("namespace").String(),
		jen.Id("tweakListOptions").Qual(p.InformersInternal(), "TweakListOptionsFunc"),
	}
}

func internalFile(p cp.Paths) *jen.File {
	f := cp.NewFile("internalinterfaces", p.InformersInternal(), "Package internalinterfaces holds the types the informer packages share without an import cycle.")
	f.Comment("NewInformerFunc builds the shared informer of one kind from a clientset and a resync period.")
	f.Type().Id("NewInformerFunc").Func().Params(jen.Qual(p.Clientset(), "Interface"), jen.Qual("time", "Duration")).Qual(cp.Cache, "SharedIndexInformer")
	f.Comment("SharedInformerFactory is what a kind's informer needs of the factory.")
	f.Type().Id("SharedInformerFactory").Interface(
		jen.Id("Start").Params(jen.Id("stopCh").Op("<-").Chan().Struct()),
		jen.Id("InformerFor").Params(jen.Id("obj").Qual(cp.Runtime, "Object"), jen.Id("newFunc").Id("NewInformerFunc")).Qual(cp.Cache, "SharedIndexInformer"),
		jen.Id("InformerName").Params().Op("*").Qual(cp.Cache, "InformerName"),
	)
	f.Comment("TweakListOptionsFunc changes the list options of every list and watch.")
	f.Type().Id("TweakListOptionsFunc").Func().Params(jen.Op("*").Qual(cp.Metav1, "ListOptions"))
	f.Comment("InformerOptions configure one informer.")
	f.Type().Id("InformerOptions").Struct(
		jen.Comment("ResyncPeriod is the resync period; 0 means no resync."),
		jen.Id("ResyncPeriod").Qual("time", "Duration"),
		jen.Comment("Indexers are the informer's indexers."),
		jen.Id("Indexers").Qual(cp.Cache, "Indexers"),
		jen.Comment("InformerName identifies the informer in metrics; nil publishes none."),
		jen.Id("InformerName").Op("*").Qual(cp.Cache, "InformerName"),
		jen.Comment("TweakListOptions, when set, changes the options of every list and watch."),
		jen.Id("TweakListOptions").Id("TweakListOptionsFunc"),
	)
	return f
}

func groupFile(p cp.Paths, g *cp.Group) *jen.File {
	f := cp.NewFile(g.Pkg, p.InformerGroup(g), "Package "+g.Pkg+" gives access to the informers of each version of "+g.Name+".")
	var methods []jen.Code
	for _, v := range g.Versions {
		f.ImportAlias(p.InformerVersion(v), v.Name)
		methods = append(methods, jen.Comment(v.GoName+" gives the informers of "+v.Name+"."), jen.Id(v.GoName).Params().Qual(p.InformerVersion(v), "Interface"))
	}
	f.Comment("Interface gives access to each version of the group.")
	f.Type().Id("Interface").Interface(methods...)
	f.Type().Id("group").Struct(factoryFields(p)...)
	f.Comment("New returns the group's Interface.")
	f.Func().Id("New").Params(newParams(p)...).Id("Interface").Block(
		jen.Return(jen.Op("&").Id("group").Values(jen.Dict{
			jen.Id("factory"): jen.Id("f"), jen.Id("namespace"): jen.Id("namespace"), jen.Id("tweakListOptions"): jen.Id("tweakListOptions"),
		})))
	for _, v := range g.Versions {
		f.Comment(v.GoName + " returns the informers of " + v.Name + ".")
		f.Func().Params(jen.Id("g").Op("*").Id("group")).Id(v.GoName).Params().Qual(p.InformerVersion(v), "Interface").Block(
			jen.Return(jen.Qual(p.InformerVersion(v), "New").Call(jen.Id("g").Dot("factory"), jen.Id("g").Dot("namespace"), jen.Id("g").Dot("tweakListOptions"))))
	}
	return f
}

func versionFile(p cp.Paths, v *cp.Version) *jen.File {
	f := cp.NewFile(v.Name, p.InformerVersion(v), "Package "+v.Name+" holds the informers of "+v.Group.Name+"/"+v.Name+".")
	var methods []jen.Code
	for _, k := range v.Kinds {
		methods = append(methods, jen.Comment(cp.Plural(k.Name)+" returns the "+k.Name+" informer."), jen.Id(cp.Plural(k.Name)).Params().Id("Typed"+k.Name+"Informer"))
	}
	f.Comment("Interface gives access to every informer of the group-version.")
	f.Type().Id("Interface").Interface(methods...)
	f.Type().Id("version").Struct(factoryFields(p)...)
	f.Comment("New returns the group-version's Interface.")
	f.Func().Id("New").Params(newParams(p)...).Id("Interface").Block(
		jen.Return(jen.Op("&").Id("version").Values(jen.Dict{
			jen.Id("factory"): jen.Id("f"), jen.Id("namespace"): jen.Id("namespace"), jen.Id("tweakListOptions"): jen.Id("tweakListOptions"),
		})))
	for _, k := range v.Kinds {
		vals := jen.Dict{jen.Id("factory"): jen.Id("v").Dot("factory"), jen.Id("tweakListOptions"): jen.Id("v").Dot("tweakListOptions")}
		if k.Namespaced {
			vals[jen.Id("namespace")] = jen.Id("v").Dot("namespace")
		}
		f.Comment(cp.Plural(k.Name) + " returns the " + k.Name + " informer.")
		f.Func().Params(jen.Id("v").Op("*").Id("version")).Id(cp.Plural(k.Name)).Params().Id("Typed" + k.Name + "Informer").Block(
			jen.Return(jen.Op("&").Id(cp.LowerFirst(k.Name) + "Informer").Values(vals)))
	}
	return f
}

func genericFile(p cp.Paths, groups []*cp.Group) *jen.File {
	f := cp.NewFile("externalversions", p.Informers(), "")
	f.Comment("GenericInformer gives the informer and a generic lister of one resource.")
	f.Type().Id("GenericInformer").Interface(
		jen.Id("Informer").Params().Qual(cp.Cache, "SharedIndexInformer"),
		jen.Id("Lister").Params().Qual(cp.Cache, "GenericLister"),
	)
	f.Type().Id("genericInformer").Struct(
		jen.Id("informer").Qual(cp.Cache, "SharedIndexInformer"),
		jen.Id("resource").Qual(cp.Schema, "GroupResource"),
	)
	recv := func() *jen.Statement { return jen.Id("f").Op("*").Id("genericInformer") }
	f.Comment("Informer returns the SharedIndexInformer.")
	f.Func().Params(recv()).Id("Informer").Params().Qual(cp.Cache, "SharedIndexInformer").Block(jen.Return(jen.Id("f").Dot("informer")))
	f.Comment("Lister returns a GenericLister over the informer's indexer.")
	f.Func().Params(recv()).Id("Lister").Params().Qual(cp.Cache, "GenericLister").Block(
		jen.Return(jen.Qual(cp.Cache, "NewGenericLister").Call(jen.Id("f").Dot("informer").Dot("GetIndexer").Call(), jen.Id("f").Dot("resource"))))
	var cases []jen.Code
	for _, g := range groups {
		for _, v := range g.Versions {
			for _, k := range v.Kinds {
				gvr := jen.Qual(cp.Schema, "GroupVersionResource").Values(jen.Dict{
					jen.Id("Group"): jen.Lit(g.Name), jen.Id("Version"): jen.Lit(v.Name), jen.Id("Resource"): jen.Lit(k.Plural),
				})
				cases = append(cases, jen.Case(gvr).Block(jen.Return(jen.Op("&").Id("genericInformer").Values(jen.Dict{
					jen.Id("resource"): jen.Id("resource").Dot("GroupResource").Call(),
					jen.Id("informer"): jen.Id("f").Dot(g.GoName).Call().Dot(v.GoName).Call().Dot(cp.Plural(k.Name)).Call().Dot("Informer").Call(),
				}), jen.Nil())))
			}
		}
	}
	f.Comment("ForResource gives generic access to the shared informer of resource.")
	f.Func().Params(jen.Id("f").Op("*").Id("sharedInformerFactory")).Id("ForResource").Params(jen.Id("resource").Qual(cp.Schema, "GroupVersionResource")).Params(jen.Id("GenericInformer"), jen.Error()).Block(
		jen.Switch(jen.Id("resource")).Block(cases...),
		jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("no informer found for %v"), jen.Id("resource"))))
	return f
}
