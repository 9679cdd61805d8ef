// Package listers generates generated/listers/<group>/<version>: one
// lister per kind over an informer's indexer, on client-go's generic
// listers.ResourceIndexer, with the exported API of code-generator's
// lister-gen.
package listers

import (
	"github.com/dave/jennifer/jen"

	"github.com/kubeforge/kubeforge/generators/genall"
	cp "github.com/kubeforge/kubeforge/generators/internal/clientpkg"
	"github.com/kubeforge/kubeforge/generators/model"
)

const listersPkg = "k8s.io/client-go/listers"

// Generator writes the listers.
type Generator struct{}

// Name implements genall.Generator.
func (Generator) Name() string { return "listers" }

// Generate implements genall.Generator.
func (Generator) Generate(api *model.API) ([]genall.File, error) {
	p := cp.For(api)
	var files []genall.File
	groups, err := cp.Groups(api)
	if err != nil {
		return nil, err
	}
	for _, v := range cp.Versions(groups) {
		dir := p.Dir(api, p.Lister(v))
		for _, k := range v.Kinds {
			out, err := cp.Render(kindFile(p, v, k), dir, lowerAll(k.Name))
			if err != nil {
				return nil, err
			}
			files = append(files, out)
		}
		out, err := cp.Render(expansionFile(p, v), dir, "expansion")
		if err != nil {
			return nil, err
		}
		files = append(files, out)
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

func kindFile(p cp.Paths, v *cp.Version, k *model.Kind) *jen.File {
	f := cp.NewFile(v.Name, p.Lister(v), "Package "+v.Name+" holds the listers of "+v.Group.Name+"/"+v.Name+".")
	cp.ImportTypes(f, v)
	obj := func() *jen.Statement { return jen.Op("*").Qual(k.Version.Package, k.Name) }
	plural := cp.Plural(k.Name)
	sel := jen.Id("selector").Qual("k8s.io/apimachinery/pkg/labels", "Selector")
	list := jen.Id("List").Params(sel.Clone()).Params(jen.Id("ret").Index().Add(obj()), jen.Err().Error())
	get := jen.Id("Get").Params(jen.Id("name").String()).Params(obj(), jen.Error())
	lister := k.Name + "Lister"
	impl := cp.LowerFirst(lister)
	resource := jen.Qual(cp.Schema, "GroupResource").Values(jen.Dict{
		jen.Id("Group"):    jen.Lit(v.Group.Name),
		jen.Id("Resource"): jen.Lit(lowerAll(k.Name)),
	})
	indexer := jen.Qual(listersPkg, "ResourceIndexer").Types(obj())
	f.Comment(lister + " lists " + plural + " from an indexer; returned objects are read-only.")
	if k.Namespaced {
		f.Type().Id(lister).Interface(
			list.Clone(),
			jen.Id(plural).Params(jen.Id("namespace").String()).Id(k.Name+"NamespaceLister"),
			jen.Id(lister+"Expansion"))
	} else {
		f.Type().Id(lister).Interface(list.Clone(), get.Clone(), jen.Id(lister+"Expansion"))
	}
	f.Type().Id(impl).Struct(indexer.Clone())
	f.Comment("New" + lister + " returns a " + lister + " over indexer.")
	f.Func().Id("New" + lister).Params(jen.Id("indexer").Qual(cp.Cache, "Indexer")).Id(lister).Block(
		jen.Return(jen.Op("&").Id(impl).Values(jen.Qual(listersPkg, "New").Types(obj()).Call(jen.Id("indexer"), resource))))
	if !k.Namespaced {
		return f
	}
	nsl := k.Name + "NamespaceLister"
	f.Comment(plural + " returns a lister of the " + plural + " of one namespace.")
	f.Func().Params(jen.Id("s").Op("*").Id(impl)).Id(plural).Params(jen.Id("namespace").String()).Id(nsl).Block(
		jen.Return(jen.Id(cp.LowerFirst(nsl)).Values(jen.Qual(listersPkg, "NewNamespaced").Types(obj()).Call(jen.Id("s").Dot("ResourceIndexer"), jen.Id("namespace")))))
	f.Comment(nsl + " lists and gets the " + plural + " of one namespace; returned objects are read-only.")
	f.Type().Id(nsl).Interface(list, get, jen.Id(nsl+"Expansion"))
	f.Type().Id(cp.LowerFirst(nsl)).Struct(indexer)
	return f
}

func expansionFile(p cp.Paths, v *cp.Version) *jen.File {
	f := cp.NewFile(v.Name, p.Lister(v), "")
	for _, k := range v.Kinds {
		f.Comment(k.Name + "ListerExpansion allows custom methods to be added to " + k.Name + "Lister.")
		f.Type().Id(k.Name + "ListerExpansion").Interface()
		if k.Namespaced {
			f.Comment(k.Name + "NamespaceListerExpansion allows custom methods to be added to " + k.Name + "NamespaceLister.")
			f.Type().Id(k.Name + "NamespaceListerExpansion").Interface()
		}
	}
	return f
}
