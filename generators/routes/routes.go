// Package routes is the "routes" generator: for every group-version that
// serves kinds it writes generated/<group>/<version>/zz_generated.routes.go
// with one Install<Kind>Routes per kind: the kind's route table, one row
// per route (method, path, handler, action, Kubernetes operation ID and
// summary), which endpoints.InstallRoutes registers with each action's
// parameters and OpenAPI metadata,
// Stores, the stores of the kinds it serves (the storage version's store of
// each kind, shared by every version), and Install, which wires handlers
// over those stores (directly in the storage version, through
// storage.NewConverted in the others) and adds the group-version to the
// server.
package routes

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/kubeforge/kubeforge/generators/builtinstrategy"
	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/ids"
	"github.com/kubeforge/kubeforge/generators/model"
	"github.com/kubeforge/kubeforge/runtime/openapidefs"
)

const (
	restfulPkg   = "github.com/emicklei/go-restful/v3"
	endpointsPkg = "github.com/kubeforge/kubeforge/runtime/endpoints"
	serverPkg    = "github.com/kubeforge/kubeforge/runtime/server"
	storagePkg   = "github.com/kubeforge/kubeforge/runtime/storage"
	resourcePkg  = "github.com/kubeforge/kubeforge/runtime/resource"
	metav1Pkg    = "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FileName is the name of the generated file in each generated package.
const FileName = "zz_generated.routes.go"

// Generator writes the route installers.
type Generator struct{}

// New returns the routes generator.
func New() Generator { return Generator{} }

// Name implements genall.Generator.
func (Generator) Name() string { return "routes" }

// Generate implements genall.Generator.
func (Generator) Generate(api *model.API) ([]genall.File, error) {
	var files []genall.File
	for _, g := range api.Groups {
		for _, v := range g.Versions {
			kinds := v.ServedKinds()
			if len(kinds) == 0 {
				continue
			}
			hubs := map[*model.Kind]*model.Kind{}
			for _, k := range kinds {
				hk := k.Hub()
				if hk == nil {
					return nil, fmt.Errorf("generate routes for %s %s: no storage version of the kind in group %s", v.GroupVersion(), k.Name, v.Group.Name)
				}
				hubs[k] = hk
			}
			importPath, dir, name := genall.GeneratedPackage(api, v)
			f := genall.NewFile(name, importPath)
			f.ImportAlias(metav1Pkg, "metav1")
			f.ImportName(restfulPkg, "restful")
			f.ImportName(v.Package, v.PackageName)
			for _, k := range kinds {
				if hk := hubs[k]; k.StoredAs != nil && hk.Version.Package != v.Package {
					// Another group's types package, often with the same
					// package name (k8s.io/api/core/v1 beside events/v1).
					_, _, alias := genall.GeneratedPackage(api, hk.Version)
					f.ImportAlias(hk.Version.Package, alias)
				}
			}
			f.Add(stores(v, kinds, hubs))
			f.Add(install(v, kinds, hubs))
			for _, k := range kinds {
				if k.Type == nil {
					return nil, fmt.Errorf("generate routes for %s %s: kind has no type", v.GroupVersion(), k.Name)
				}
				f.Add(installKind(k))
			}
			var buf bytes.Buffer
			if err := f.Render(&buf); err != nil {
				return nil, fmt.Errorf("render %s/%s: %w", dir, FileName, err)
			}
			files = append(files, genall.File{Path: dir + "/" + FileName, Content: buf.Bytes()})
		}
	}
	return files, nil
}

// hubTypes returns *T, *L of the storage version of a kind.
func hubTypes(hk *model.Kind) (jen.Code, jen.Code) {
	return jen.Op("*").Qual(hk.Version.Package, hk.Name), jen.Op("*").Qual(hk.Version.Package, hk.ListName)
}

// stores writes the Stores struct: one field per served kind, typed by the
// kind's storage version.
func stores(v *model.Version, kinds []*model.Kind, hubs map[*model.Kind]*model.Kind) jen.Code {
	var fields []jen.Code
	for _, k := range kinds {
		hk := hubs[k]
		t, l := hubTypes(hk)
		doc := jen.Commentf("%s is the store of %s, in its storage version %s.", k.Name, k.Plural, hk.Version.Name)
		if k.StoredAs != nil {
			doc = jen.Commentf("%s is the store of %s: the store of %s %s, which stores them.", k.Name, k.Plural, hk.Version.GroupVersion(), hk.Name)
		}
		fields = append(fields, doc.Line().
			Id(k.Name).Qual(storagePkg, "Interface").Types(t, l))
	}
	return jen.Commentf("Stores are the stores of the kinds %s serves, each over the kind's", v.GroupVersion()).Line().
		Comment("storage version: build each once per server (New<Kind>Store in the storage").Line().
		Comment("version's package) and give the same one to every version's Install.").Line().
		Type().Id("Stores").Struct(fields...)
}

// install writes Install(s *server.Server, stores Stores) error for the group-version.
func install(v *model.Version, kinds []*model.Kind, hubs map[*model.Kind]*model.Kind) jen.Code {
	byPlural := append([]*model.Kind(nil), kinds...)
	sort.Slice(byPlural, func(i, j int) bool { return byPlural[i].Plural < byPlural[j].Plural })

	var body []jen.Code
	for _, k := range kinds {
		body = append(body, jen.If(jen.Id("stores").Dot(k.Name).Op("==").Nil()).Block(
			jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("install "+v.GroupVersion()+": no store for "+k.Plural))),
		))
	}
	for _, k := range kinds {
		if k.CompilesRules() {
			// A rule that does not compile fails the start, not a request.
			body = append(body, jen.If(jen.Err().Op(":=").Id(ids.Rules(k)).Dot("Compile").Call(), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Err()),
			))
		}
	}
	body = append(body, jen.Id("ws").Op(":=").Qual(serverPkg, "NewWebService").Call(jen.Id("GroupName"), jen.Lit(v.Name)))
	for _, k := range kinds {
		strategy := jen.Id(ids.Strategy(k))
		store := jen.Id("stores").Dot(k.Name)
		if hk := hubs[k]; !k.Storage {
			t, l := hubTypes(hk)
			store = jen.Qual(storagePkg, "NewConverted").Call(
				store,
				strategy.Clone(),
				jen.Qual(storagePkg, "Converter").Types(
					jen.Op("*").Qual(v.Package, k.Name), jen.Op("*").Qual(v.Package, k.ListName), t, l,
				).Values(jen.Dict{
					jen.Id("ToHub"):       jen.Id(ids.ToHub(k.Name)),
					jen.Id("FromHub"):     jen.Id(ids.FromHub(k.Name)),
					jen.Id("ListFromHub"): jen.Id(k.Name + "ListFromHub"),
				}),
			)
		}
		body = append(body, jen.Id("Install"+k.Name+"Routes").Call(
			jen.Id("ws"),
			jen.Qual(endpointsPkg, "NewHandler").Call(
				store,
				strategy.Clone(),
				jen.Id("s").Dot("EndpointOptions").Call(),
			),
		))
	}
	body = append(body,
		jen.If(jen.Err().Op(":=").Id("s").Dot("AddGroupVersion").Call(jen.Qual(serverPkg, "GroupVersion").Values(jen.Dict{
			jen.Id("Group"):   jen.Id("GroupName"),
			jen.Id("Version"): jen.Lit(v.Name),
			jen.Id("Resources"): jen.Index().Op("*").Qual(resourcePkg, "Info").ValuesFunc(func(g *jen.Group) {
				for _, k := range byPlural {
					g.Op("&").Id(ids.Info(k))
				}
			}),
			jen.Id("WebService"): jen.Id("ws"),
			jen.Id("Schemas"):    jen.Id(ids.OpenAPISchemas).Call(),
		})), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("add group-version "+v.GroupVersion()+": %w"), jen.Err())),
		),
		jen.Return(jen.Nil()),
	)
	names := make([]string, len(byPlural))
	for i, k := range byPlural {
		names[i] = k.Plural
	}
	return jen.Commentf("Install serves %s (%s): a handler per kind over its store", v.GroupVersion(), strings.Join(names, ", ")).Line().
		Comment("in stores (converting to and from the storage version when that is another").Line().
		Comment("version), their routes, discovery and OpenAPI.").Line().
		Func().Id("Install").Params(jen.Id("s").Op("*").Qual(serverPkg, "Server"), jen.Id("stores").Id("Stores")).Error().Block(body...)
}

// route is one row of a kind's route table (endpoints.Route): the runtime
// derives the query parameters, request and response schemas from the
// action, so the table lists only what differs between routes.
type route struct {
	method    string // GET, POST, PUT, PATCH, DELETE
	path      string
	handler   string // method of endpoints.Handler
	action    string // x-kubernetes-action
	operation string
	doc       string
}

func routesFor(k *model.Kind) []route {
	scope, collection := "", "/"+k.Plural
	if k.Namespaced {
		scope = "Namespaced"
		collection = "/namespaces/{namespace}/" + k.Plural
	}
	item := collection + "/{name}"
	kind := k.Name
	rs := []route{
		{"GET", collection, "List", "list", "list" + scope + kind, "list or watch objects of kind " + kind},
		{"POST", collection, "Create", "post", "create" + scope + kind, "create " + genall.Article(kind) + " " + kind},
		{"DELETE", collection, "DeleteCollection", "deletecollection", "deleteCollection" + scope + kind, "delete collection of " + kind},
		{"GET", item, "Get", "get", "read" + scope + kind, "read the specified " + kind},
		{"PUT", item, "Update", "put", "replace" + scope + kind, "replace the specified " + kind},
		{"PATCH", item, "Patch", "patch", "patch" + scope + kind, "partially update the specified " + kind},
		{"DELETE", item, "Delete", "delete", "delete" + scope + kind, "delete " + genall.Article(kind) + " " + kind},
	}
	if builtinstrategy.For(k).NoDeleteCollection {
		rs = slices.DeleteFunc(rs, func(r route) bool { return r.action == "deletecollection" })
	}
	if k.StatusSubresource {
		st := item + "/status"
		rs = append(rs,
			route{"GET", st, "GetStatus", "get", "read" + scope + kind + "Status", "read status of the specified " + kind},
			route{"PUT", st, "UpdateStatus", "put", "replace" + scope + kind + "Status", "replace status of the specified " + kind},
			route{"PATCH", st, "PatchStatus", "patch", "patch" + scope + kind + "Status", "partially update status of the specified " + kind},
		)
	}
	if k.Scale != nil {
		sc := item + "/scale"
		rs = append(rs,
			route{"GET", sc, "GetScale", "get", "read" + scope + kind + "Scale", "read scale of the specified " + kind},
			route{"PUT", sc, "UpdateScale", "put", "replace" + scope + kind + "Scale", "replace scale of the specified " + kind},
			route{"PATCH", sc, "PatchScale", "patch", "patch" + scope + kind + "Scale", "partially update scale of the specified " + kind},
		)
	}
	if k.Namespaced {
		rs = append(rs, route{"GET", "/" + k.Plural, "List", "list", "list" + kind + "ForAllNamespaces",
			"list or watch objects of kind " + kind + " across all namespaces"})
	}
	return rs
}

// installKind writes Install<Kind>Routes: the kind's route table, one
// line per route, handed to endpoints.InstallRoutes.
func installKind(k *model.Kind) jen.Code {
	pkg := k.Version.Package
	var rows []jen.Code
	for _, r := range routesFor(k) {
		rows = append(rows, jen.Line().Values(
			jen.Id("Method").Op(":").Lit(r.method),
			jen.Id("Path").Op(":").Lit(r.path),
			jen.Id("To").Op(":").Id("h").Dot(r.handler),
			jen.Id("Action").Op(":").Lit(r.action),
			jen.Id("Operation").Op(":").Lit(r.operation),
			jen.Id("Doc").Op(":").Lit(r.doc),
		))
	}
	rows = append(rows, jen.Line())
	scope := "cluster-scoped"
	if k.Namespaced {
		scope = "namespaced"
	}
	kindLit := jen.Qual(endpointsPkg, "RouteKind").Values(
		jen.Line().Id("GVK").Op(":").Qual(metav1Pkg, "GroupVersionKind").Values(
			jen.Id("Group").Op(":").Lit(k.Version.Group.Name),
			jen.Id("Version").Op(":").Lit(k.Version.Name),
			jen.Id("Kind").Op(":").Lit(k.Name),
		),
		jen.Line().Id("Object").Op(":").Lit(SchemaName(k.Version, k.Name)),
		jen.Line().Id("List").Op(":").Lit(SchemaName(k.Version, k.ListName)),
		jen.Line(),
	)
	return jen.Commentf("Install%sRoutes registers the routes of %s (%s, %s) on ws,", k.Name, k.Plural, scope, k.Version.GroupVersion()).Line().
		Commentf("served by h. Paths are relative to ws's root, %s; endpoints.InstallRoutes", rootPath(k.Version)).Line().
		Comment("adds each action's parameters and OpenAPI metadata.").Line().
		Func().Id("Install"+k.Name+"Routes").Params(
		jen.Id("ws").Op("*").Qual(restfulPkg, "WebService"),
		jen.Id("h").Op("*").Qual(endpointsPkg, "Handler").Types(jen.Op("*").Qual(pkg, k.Name), jen.Op("*").Qual(pkg, k.ListName)),
	).Block(
		jen.Qual(endpointsPkg, "InstallRoutes").Call(jen.Id("ws"), kindLit, jen.Index().Qual(endpointsPkg, "Route").Values(rows...)),
	)
}

// SchemaName is the OpenAPI component name of a local type:
// <reversed group>.<version>.<Type> ("dev.kubeforge.shipping.v1.Shipment"),
// or, in an external package, its reversed import path
// ("io.k8s.api.core.v1.Namespace").
func SchemaName(v *model.Version, typeName string) string {
	if v.External {
		return openapidefs.Name(v.Package, typeName)
	}
	parts := strings.Split(v.Group.Name, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".") + "." + v.Name + "." + typeName
}

// rootPath is the WebService root of v: /apis/<group>/<version>, or
// /api/<version> for the core group "".
func rootPath(v *model.Version) string {
	if v.Group.Name == "" {
		return "/api/" + v.Name
	}
	return "/apis/" + v.GroupVersion()
}
