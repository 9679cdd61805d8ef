// Package webhooks is the "webhooks" generator: for every kind with
// controller-runtime webhooks in the project (model.API.Webhooks, from
// +kubebuilder:webhook markers) it writes, in the storage version's
// generated/<g>/<v>/zz_generated.webhooks.go,
//
//	func Install<Kind>Webhooks(st *storage.Store[*T, *L], c client.Client) error
//
// which builds each webhook's value (the zero value of the implementing
// type, then the hand-written Configure<Type>(w *<Type>) error, or
// Configure<Type>(w *<Type>, c client.Client) error given c, a
// controller-runtime client of the server itself, when the package
// declares one) and sets them on the store as an
// inprocess.Chain, in marker order. generated.Install calls it. A project
// without webhooks gets no such file, and its server links neither
// runtime/inprocess nor controller-runtime.
package webhooks

import (
	"bytes"
	"fmt"
	"path"

	"github.com/dave/jennifer/jen"

	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/ids"
	"github.com/kubeforge/kubeforge/generators/model"
)

// FileName is the generated file's name.
const FileName = "zz_generated.webhooks.go"

const (
	inprocessPkg = "github.com/kubeforge/kubeforge/runtime/inprocess"
	storagePkg   = "github.com/kubeforge/kubeforge/runtime/storage"
	schemaPkg    = "k8s.io/apimachinery/pkg/runtime/schema"
	clientPkg    = "sigs.k8s.io/controller-runtime/pkg/client"
)

// Generator is the webhooks generator.
type Generator struct{}

// Name implements genall.Generator.
func (Generator) Name() string { return "webhooks" }

// Generate implements genall.Generator.
func (Generator) Generate(api *model.API) ([]genall.File, error) {
	byVersion := map[*model.Version][]*model.Kind{}
	byKind := map[*model.Kind][]*model.Webhook{}
	var versions []*model.Version
	for _, w := range api.Webhooks { // sorted by hub kind, then position
		k := w.Kind.Hub()
		if byKind[k] == nil {
			if byVersion[k.Version] == nil {
				versions = append(versions, k.Version)
			}
			byVersion[k.Version] = append(byVersion[k.Version], k)
		}
		byKind[k] = append(byKind[k], w)
	}
	var files []genall.File
	for _, v := range versions {
		importPath, dir, name := genall.GeneratedPackage(api, v)
		f := genall.NewFile(name, importPath)
		for _, k := range byVersion[v] {
			kindFunc(api, f, k, byKind[k])
		}
		var b bytes.Buffer
		if err := f.Render(&b); err != nil {
			return nil, fmt.Errorf("generate webhooks for %s: render: %w", v.GroupVersion(), err)
		}
		files = append(files, genall.File{Path: dir + "/" + FileName, Content: b.Bytes()})
	}
	return files, nil
}

func kindFunc(api *model.API, f *jen.File, k *model.Kind, hooks []*model.Webhook) {
	pkg := k.Version.Package
	obj := jen.Op("*").Qual(pkg, k.Name)
	var body, items []jen.Code
	for i, w := range hooks {
		v := fmt.Sprintf("w%d", i)
		if w.Package != w.Kind.Version.Package {
			f.ImportAlias(w.Package, "webhook"+path.Base(w.Package))
		}
		body = append(body, jen.Id(v).Op(":=").Op("&").Qual(w.Package, w.Type).Values())
		if w.Configure {
			args := []jen.Code{jen.Id(v)}
			if w.ConfigureClient {
				args = append(args, jen.Id("c"))
			}
			body = append(body, jen.If(jen.Err().Op(":=").Qual(w.Package, "Configure"+w.Type).Call(args...), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("configure webhook "+w.Name+" ("+w.Type+"): %w"), jen.Err())),
			))
		}
		impl := jen.Id(v)
		field := "Validator"
		switch {
		case w.Mutating && !w.Typed:
			impl = jen.Qual(inprocessPkg, "Untyped").Types(jen.Op("*").Qual(w.Kind.Version.Package, w.Kind.Name)).Call(jen.Id(v))
		case !w.Mutating && !w.Typed:
			impl = jen.Qual(inprocessPkg, "UntypedValidator").Types(jen.Op("*").Qual(w.Kind.Version.Package, w.Kind.Name)).Call(jen.Id(v))
		}
		if w.Mutating {
			field = "Defaulter"
		}
		var ops []jen.Code
		for _, op := range w.Operations {
			ops = append(ops, jen.Lit(op))
		}
		fields := jen.Dict{
			jen.Id("Name"):          jen.Lit(w.Name),
			jen.Id("FailurePolicy"): jen.Lit(w.FailurePolicy),
			jen.Id("SideEffects"):   jen.Lit(w.SideEffects),
			jen.Id("Operations"):    jen.Index().String().Values(ops...),
			jen.Id(field):           impl,
		}
		if w.Exact {
			fields[jen.Id("Exact")] = jen.True()
		}
		if w.Kind == k {
			items = append(items, jen.Values(fields))
			continue
		}
		// A webhook of a spoke version: converted around the call.
		sk := w.Kind
		spokeGen, _, spokeName := genall.GeneratedPackage(api, sk.Version)
		f.ImportAlias(spokeGen, spokeName)
		items = append(items, jen.Qual(inprocessPkg, "SpokeWebhook").Call(
			jen.Op("&").Qual(inprocessPkg, "Webhook").Types(jen.Op("*").Qual(sk.Version.Package, sk.Name)).Values(fields),
			jen.Qual(schemaPkg, "GroupVersionKind").Values(jen.Dict{jen.Id("Group"): jen.Lit(sk.Version.Group.Name), jen.Id("Version"): jen.Lit(sk.Version.Name), jen.Id("Kind"): jen.Lit(sk.Name)}),
			jen.Qual(schemaPkg, "GroupVersionResource").Values(jen.Dict{jen.Id("Group"): jen.Lit(sk.Version.Group.Name), jen.Id("Version"): jen.Lit(sk.Version.Name), jen.Id("Resource"): jen.Lit(sk.Plural)}),
			jen.Qual(spokeGen, ids.ToHub(sk.Name)),
			jen.Qual(spokeGen, ids.FromHub(sk.Name)),
		))
	}
	g := k.Version.Group.Name
	body = append(body,
		jen.Id("st").Dot("SetInProcessAdmission").Call(jen.Op("&").Qual(inprocessPkg, "Chain").Types(obj.Clone()).Values(jen.Dict{
			jen.Id("GVK"):      jen.Qual(schemaPkg, "GroupVersionKind").Values(jen.Dict{jen.Id("Group"): jen.Lit(g), jen.Id("Version"): jen.Lit(k.Version.Name), jen.Id("Kind"): jen.Lit(k.Name)}),
			jen.Id("Resource"): jen.Qual(schemaPkg, "GroupVersionResource").Values(jen.Dict{jen.Id("Group"): jen.Lit(g), jen.Id("Version"): jen.Lit(k.Version.Name), jen.Id("Resource"): jen.Lit(k.Plural)}),
			jen.Id("Webhooks"): jen.Index().Op("*").Qual(inprocessPkg, "Webhook").Types(obj.Clone()).ValuesFunc(func(gr *jen.Group) {
				for _, it := range items {
					gr.Line().Add(it)
				}
				gr.Line()
			}),
		})),
		jen.Return(jen.Nil()),
	)
	f.Commentf("%s sets the in-process webhooks of %s (+kubebuilder:webhook markers, in marker order) on its store: defaulters before validation, validators after it, on writes through every version.", ids.InstallWebhooks(k), k.Name)
	f.Func().Id(ids.InstallWebhooks(k)).Params(jen.Id("st").Op("*").Qual(storagePkg, "Store").Types(obj.Clone(), jen.Op("*").Qual(pkg, k.ListName)), jen.Id("c").Qual(clientPkg, "Client")).Error().Block(body...)
	f.Line()
}
