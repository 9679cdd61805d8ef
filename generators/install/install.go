// Package install is the "install" generator: it writes
// generated/zz_generated.install.go (package generated) with Install, which
// builds the one store of every served kind (New<Kind>Store of its storage
// version) and serves every group-version that has served kinds over those
// stores (each version's Install gets the same store of a kind; a kind
// stored as another group's kind, model.Kind.StoredAs, gets that kind's
// store) and passes every store to (*server.Server).AddCollection and the
// conversions of every served version stored in another version (the
// conversion generator's Conversions) to (*server.Server).AddConversions,
// for server-side apply; and AddToScheme, which registers every
// group-version's types (handy for controller-runtime and client-go users).
package install

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/dave/jennifer/jen"

	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/ids"
	"github.com/kubeforge/kubeforge/generators/model"
)

const (
	serverPkg  = "github.com/kubeforge/kubeforge/runtime/server"
	runtimePkg = "k8s.io/apimachinery/pkg/runtime"
)

// Path is the generated file, relative to the module root.
const Path = "generated/zz_generated.install.go"

// Generator writes generated/zz_generated.install.go.
type Generator struct{}

// New returns the install generator.
func New() Generator { return Generator{} }

// Name implements genall.Generator.
func (Generator) Name() string { return "install" }

type gv struct {
	v          *model.Version
	importPath string
	name       string
	served     bool
}

// Generate implements genall.Generator.
func (Generator) Generate(api *model.API) ([]genall.File, error) {
	var gvs []gv
	for _, g := range api.Groups {
		for _, v := range g.Versions {
			if len(v.Kinds) == 0 {
				continue
			}
			importPath, _, name := genall.GeneratedPackage(api, v)
			gvs = append(gvs, gv{v: v, importPath: importPath, name: name, served: len(v.ServedKinds()) > 0})
		}
	}
	sort.Slice(gvs, func(i, j int) bool { return gvs[i].v.GroupVersion() < gvs[j].v.GroupVersion() })

	f := genall.NewFile("generated", api.Module+"/generated")
	for _, x := range gvs {
		f.ImportAlias(x.importPath, x.name)
	}

	pkgOf := map[*model.Version]string{}
	for _, x := range gvs {
		pkgOf[x.v] = x.importPath
	}
	storeVar, install, collections, err := hubStores(api, pkgOf)
	if err != nil {
		return nil, err
	}
	if len(storeVar) > 0 {
		install = append(webhookClient(api), install...)
		install = append([]jen.Code{jen.Id("b").Op(":=").Id("s").Dot("Backend").Call()}, install...)
		install = append(install, jen.Comment("Every hub store is a collection: work across resources (emptying a"),
			jen.Comment("namespace being deleted) reaches each one."))
		install = append(install, collections...)
	}
	var scheme []jen.Code
	for _, x := range gvs {
		if x.served {
			code, err := installVersion(x, storeVar)
			if err != nil {
				return nil, err
			}
			install = append(install, code...)
		}
		scheme = append(scheme, jen.If(jen.Err().Op(":=").Qual(x.importPath, "AddToScheme").Call(jen.Id("scheme")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("add "+x.v.GroupVersion()+" to scheme: %w"), jen.Err())),
		))
	}
	install = append(install, jen.Return(jen.Nil()))
	scheme = append(scheme, jen.Return(jen.Nil()))

	f.Comment("Install builds one store per served kind and serves every group-version on s")
	f.Comment("over those stores, in sorted order. cmd/apiserver calls it.")
	f.Func().Id("Install").Params(jen.Id("s").Op("*").Qual(serverPkg, "Server")).Error().Block(install...)
	f.Line()
	f.Comment("AddToScheme registers the types of every group-version with scheme, for")
	f.Comment("client-go and controller-runtime users.")
	f.Func().Id("AddToScheme").Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")).Error().Block(scheme...)
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, fmt.Errorf("render %s: %w", Path, err)
	}
	return []genall.File{{Path: Path, Content: buf.Bytes()}}, nil
}

// hubStores declares one store per kind served anywhere, built from its
// storage version, and registers each as a collection; storeVar maps
// group/kind to the store's variable.
func hubStores(api *model.API, pkgOf map[*model.Version]string) (storeVar map[string]string, install, collections []jen.Code, err error) {
	storeVar = map[string]string{}
	for _, g := range api.Groups {
		var names []string
		hubs := map[string]*model.Kind{}
		for _, v := range g.Versions {
			for _, k := range v.ServedKinds() {
				if k.StoredAs != nil {
					continue // served over the store of another group's kind
				}
				if _, ok := hubs[k.Name]; ok {
					continue
				}
				hv := g.StorageVersion(k.Name)
				if hv == nil || hv.Kind(k.Name) == nil || pkgOf[hv] == "" {
					return nil, nil, nil, fmt.Errorf("generate install: kind %s of group %s has no storage version", k.Name, g.Name)
				}
				hubs[k.Name] = hv.Kind(k.Name)
				names = append(names, k.Name)
			}
		}
		sort.Strings(names)
		for i, n := range names {
			hk := hubs[n]
			id := g.Short + n + "Store"
			storeVar[g.Name+"/"+n] = id
			stmt := jen.Id(id).Op(":=").Qual(pkgOf[hk.Version], ids.Store(hk)).Call(jen.Id("b"))
			if i == 0 {
				label := g.Name
				if label == "" {
					label = "core group"
				}
				install = append(install, jen.Commentf("%s: one store per kind, shared by every served version.", label))
			}
			install = append(install, stmt)
			gr := hk.Plural
			if g.Name != "" {
				gr += "." + g.Name
			}
			if hasWebhooks(api, hk) {
				install = append(install, jen.If(jen.Err().Op(":=").Qual(pkgOf[hk.Version], ids.InstallWebhooks(hk)).Call(jen.Id(id), jen.Id("webhookClient")), jen.Err().Op("!=").Nil()).Block(
					jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("install webhooks of "+gr+": %w"), jen.Err())),
				))
			}
			collections = append(collections, jen.If(jen.Err().Op(":=").Id("s").Dot("AddCollection").Call(jen.Id(id)), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("install "+gr+": %w"), jen.Err())),
			))
		}
	}
	return storeVar, install, collections, nil
}

// installVersion serves one group-version over the hub stores.
func installVersion(x gv, storeVar map[string]string) ([]jen.Code, error) {
	dict := jen.Dict{}
	for _, k := range x.v.ServedKinds() {
		hk := k.Hub()
		id := ""
		if hk != nil {
			id = storeVar[hk.Version.Group.Name+"/"+hk.Name]
		}
		if id == "" {
			return nil, fmt.Errorf("generate install: kind %s of %s has no store", k.Name, x.v.GroupVersion())
		}
		dict[jen.Id(k.Name)] = jen.Id(id)
	}
	stores := jen.Qual(x.importPath, "Stores").Values(dict)
	code := []jen.Code{jen.If(jen.Err().Op(":=").Qual(x.importPath, "Install").Call(jen.Id("s"), stores), jen.Err().Op("!=").Nil()).Block(
		jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("install "+x.v.GroupVersion()+": %w"), jen.Err())),
	)}
	if x.v.HasConversions() {
		code = append(code,
			jen.Comment("Server-side apply converts managedFields entries between "+x.v.GroupVersion()+" and the storage versions."),
			jen.If(jen.Err().Op(":=").Id("s").Dot("AddConversions").Call(jen.Qual(x.importPath, "Conversions").Call().Op("...")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("install "+x.v.GroupVersion()+" conversions: %w"), jen.Err())),
			))
	}
	return code, nil
}

// hasWebhooks reports whether the project has in-process webhooks for k.
func hasWebhooks(api *model.API, k *model.Kind) bool {
	for _, w := range api.Webhooks {
		if w.Kind.Hub() == k {
			return true
		}
	}
	return false
}

// webhookClient declares webhookClient, the controller-runtime client of
// the server itself that Install<Kind>Webhooks hands to the project's
// Configure<Type> functions, when the project has webhooks.
func webhookClient(api *model.API) []jen.Code {
	if len(api.Webhooks) == 0 {
		return nil
	}
	return []jen.Code{
		jen.Comment("The project's webhooks get a client of this server (connected once it serves)."),
		jen.Id("webhookScheme").Op(":=").Qual("k8s.io/apimachinery/pkg/runtime", "NewScheme").Call(),
		jen.If(jen.Err().Op(":=").Id("AddToScheme").Call(jen.Id("webhookScheme")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("install webhooks: %w"), jen.Err())),
		),
		jen.Id("webhookClient").Op(":=").Qual("github.com/kubeforge/kubeforge/runtime/inprocess", "SelfClient").Call(
			jen.Id("s").Dot("Ready").Call(), jen.Id("s").Dot("KubeconfigPath").Call(), jen.Id("webhookScheme")),
	}
}
