// Package routes is the "routes" generator: for every group-version that
// serves kinds it writes generated/<group>/<version>/zz_generated.routes.go
// with one Install<Kind>Routes per kind, registering every route explicitly
// (one ws.Route statement per route, with Kubernetes operation IDs,
// parameters, request and response types and the OpenAPI route metadata),
// Stores, the stores of the kinds it serves (the storage version's store of
// each kind, shared by every version), and Install, which wires handlers
// over those stores (directly in the storage version, through
// storage.NewConverted in the others) and adds the group-version to the
// server.
package routes

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

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
	openapiPkg   = "github.com/kubeforge/kubeforge/runtime/openapi"
	metav1Pkg    = "k8s.io/apimachinery/pkg/apis/meta/v1"
	// autoscalingv1Pkg holds Scale, the scale subresource's body.
	autoscalingv1Pkg = "k8s.io/api/autoscaling/v1"
)

// Route metadata keys, declared in runtime/openapi.
const (
	keyGVK            = "GroupVersionKindKey"
	keyAction         = "ActionKey"
	keyRequestSchema  = "RequestSchemaKey"
	keyResponseSchema = "ResponseSchemaKey"
)

// Schema names of the meta types (docs/contributing.md).
const (
	schemaStatus        = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
	schemaScale         = "io.k8s.api.autoscaling.v1.Scale"
	schemaDeleteOptions = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
	schemaPatch         = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
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

// route is one registered route.
type route struct {
	method    string // GET, POST, PUT, PATCH, DELETE
	path      string
	handler   string // method of endpoints.Handler
	operation string
	doc       string
	action    string // x-kubernetes-action
	params    []param
	reads     *body // request body
	writes    *body // response body
	codes     []int // response codes, all with writes as the body
	// gvk overrides the kind's group, version and kind in the route's
	// x-kubernetes-group-version-kind (the scale subresource's Scale).
	gvk *[3]string
}

// body is a request or response type: a Go sample value and its schema name.
type body struct {
	sample jen.Code
	schema string
}

func routesFor(k *model.Kind) []route {
	pkg := k.Version.Package
	objSchema := SchemaName(k.Version, k.Name)
	listSchema := SchemaName(k.Version, k.ListName)
	obj := func() *body { return &body{jen.Qual(pkg, k.Name).Values(), objSchema} }
	list := func() *body { return &body{jen.Qual(pkg, k.ListName).Values(), listSchema} }
	status := func() *body { return &body{jen.Qual(metav1Pkg, "Status").Values(), schemaStatus} }
	delOpts := func() *body { return &body{jen.Qual(metav1Pkg, "DeleteOptions").Values(), schemaDeleteOptions} }
	patch := func() *body { return &body{jen.Qual(metav1Pkg, "Patch").Values(), schemaPatch} }

	scope, collection := "", "/"+k.Plural
	var scopeParams []param
	if k.Namespaced {
		scope = "Namespaced"
		collection = "/namespaces/{namespace}/" + k.Plural
		scopeParams = []param{pNamespace}
	}
	item := collection + "/{name}"
	pName := param{name: "name", path: true, dataType: "string", desc: "name of the " + k.Name}
	itemParams := append(append([]param(nil), scopeParams...), pName)
	with := func(base, rest []param) []param { return append(append([]param(nil), base...), rest...) }
	kind := k.Name

	rs := []route{
		{method: "GET", path: collection, handler: "List", operation: "list" + scope + kind,
			doc: "list or watch objects of kind " + kind, action: "list",
			params: with(scopeParams, listParams), writes: list(), codes: []int{200}},
		{method: "POST", path: collection, handler: "Create", operation: "create" + scope + kind,
			doc: "create " + genall.Article(kind) + " " + kind, action: "post",
			params: with(scopeParams, createParams), reads: obj(), writes: obj(), codes: []int{200, 201, 202}},
		{method: "DELETE", path: collection, handler: "DeleteCollection", operation: "deleteCollection" + scope + kind,
			doc: "delete collection of " + kind, action: "deletecollection",
			params: with(scopeParams, deleteCollectionParams), reads: delOpts(), writes: status(), codes: []int{200}},
		{method: "GET", path: item, handler: "Get", operation: "read" + scope + kind,
			doc: "read the specified " + kind, action: "get",
			params: with(itemParams, readParams), writes: obj(), codes: []int{200}},
		{method: "PUT", path: item, handler: "Update", operation: "replace" + scope + kind,
			doc: "replace the specified " + kind, action: "put",
			params: with(itemParams, replaceParams), reads: obj(), writes: obj(), codes: []int{200, 201}},
		{method: "PATCH", path: item, handler: "Patch", operation: "patch" + scope + kind,
			doc: "partially update the specified " + kind, action: "patch",
			params: with(itemParams, patchParams), reads: patch(), writes: obj(), codes: []int{200, 201}},
		{method: "DELETE", path: item, handler: "Delete", operation: "delete" + scope + kind,
			doc: "delete " + genall.Article(kind) + " " + kind, action: "delete",
			params: with(itemParams, deleteParams), reads: delOpts(), writes: status(), codes: []int{200, 202}},
	}
	if k.StatusSubresource {
		st := item + "/status"
		rs = append(rs,
			route{method: "GET", path: st, handler: "GetStatus", operation: "read" + scope + kind + "Status",
				doc: "read status of the specified " + kind, action: "get",
				params: with(itemParams, readParams), writes: obj(), codes: []int{200}},
			route{method: "PUT", path: st, handler: "UpdateStatus", operation: "replace" + scope + kind + "Status",
				doc: "replace status of the specified " + kind, action: "put",
				params: with(itemParams, replaceParams), reads: obj(), writes: obj(), codes: []int{200, 201}},
			route{method: "PATCH", path: st, handler: "PatchStatus", operation: "patch" + scope + kind + "Status",
				doc: "partially update status of the specified " + kind, action: "patch",
				params: with(itemParams, patchParams), reads: patch(), writes: obj(), codes: []int{200, 201}},
		)
	}
	if k.Scale != nil {
		sc := item + "/scale"
		scale := func() *body { return &body{jen.Qual(autoscalingv1Pkg, "Scale").Values(), schemaScale} }
		scaleGVK := &[3]string{"autoscaling", "v1", "Scale"}
		rs = append(rs,
			route{method: "GET", path: sc, handler: "GetScale", operation: "read" + scope + kind + "Scale",
				doc: "read scale of the specified " + kind, action: "get", gvk: scaleGVK,
				params: with(itemParams, readParams), writes: scale(), codes: []int{200}},
			route{method: "PUT", path: sc, handler: "UpdateScale", operation: "replace" + scope + kind + "Scale",
				doc: "replace scale of the specified " + kind, action: "put", gvk: scaleGVK,
				params: with(itemParams, replaceParams), reads: scale(), writes: scale(), codes: []int{200, 201}},
			route{method: "PATCH", path: sc, handler: "PatchScale", operation: "patch" + scope + kind + "Scale",
				doc: "partially update scale of the specified " + kind, action: "patch", gvk: scaleGVK,
				params: with(itemParams, patchParams), reads: patch(), writes: scale(), codes: []int{200, 201}},
		)
	}
	if k.Namespaced {
		rs = append(rs, route{method: "GET", path: "/" + k.Plural, handler: "List", operation: "list" + kind + "ForAllNamespaces",
			doc: "list or watch objects of kind " + kind + " across all namespaces", action: "list",
			params: listParams, writes: list(), codes: []int{200}})
	}
	return rs
}

// installKind writes Install<Kind>Routes.
func installKind(k *model.Kind) jen.Code {
	pkg := k.Version.Package
	var stmts []jen.Code
	for _, r := range routesFor(k) {
		stmts = append(stmts, jen.Commentf("%s %s", r.method, r.path), routeStmt(k, r))
	}
	scope := "cluster-scoped"
	if k.Namespaced {
		scope = "namespaced"
	}
	return jen.Commentf("Install%sRoutes registers every route of %s (%s, %s) on ws,", k.Name, k.Plural, scope, k.Version.GroupVersion()).Line().
		Commentf("served by h. Paths are relative to ws's root, %s.", rootPath(k.Version)).Line().
		Func().Id("Install"+k.Name+"Routes").Params(
		jen.Id("ws").Op("*").Qual(restfulPkg, "WebService"),
		jen.Id("h").Op("*").Qual(endpointsPkg, "Handler").Types(jen.Op("*").Qual(pkg, k.Name), jen.Op("*").Qual(pkg, k.ListName)),
	).Block(stmts...)
}

// routeStmt writes ws.Route(ws.METHOD(path).To(h.X).Operation(...)...), one
// builder call per line.
func routeStmt(k *model.Kind, r route) jen.Code {
	b := jen.Id("ws").Dot(r.method).Call(jen.Lit(r.path)).Dot("To").Call(jen.Id("h").Dot(r.handler))
	next := func(name string, args ...jen.Code) {
		b = b.Op(".").Line().Id(name).Call(args...)
	}
	next("Operation", jen.Lit(r.operation))
	next("Doc", jen.Lit(r.doc))
	for _, p := range r.params {
		ctor := "QueryParameter"
		if p.path {
			ctor = "PathParameter"
		}
		next("Param", jen.Id("ws").Dot(ctor).Call(jen.Lit(p.name), jen.Lit(p.desc)).Dot("DataType").Call(jen.Lit(p.dataType)))
	}
	if r.method == "PATCH" {
		// Every patch type reaches the handler, which answers the ones it
		// does not implement with a 415 Status.
		next("Consumes", jen.Qual(endpointsPkg, "ConsumesPatch").Op("..."))
	}
	next("Produces", jen.Qual(endpointsPkg, "Produces").Op("..."))
	if r.reads != nil {
		next("Reads", r.reads.sample)
	}
	next("Writes", r.writes.sample)
	for _, c := range r.codes {
		next("Returns", jen.Lit(c), jen.Lit(httpText(c)), r.writes.sample)
	}
	gvk := [3]string{k.Version.Group.Name, k.Version.Name, k.Name}
	if r.gvk != nil {
		gvk = *r.gvk
	}
	next("Metadata", jen.Qual(openapiPkg, keyGVK), jen.Qual(metav1Pkg, "GroupVersionKind").Values(jen.Dict{
		jen.Id("Group"):   jen.Lit(gvk[0]),
		jen.Id("Version"): jen.Lit(gvk[1]),
		jen.Id("Kind"):    jen.Lit(gvk[2]),
	}))
	next("Metadata", jen.Qual(openapiPkg, keyAction), jen.Lit(r.action))
	if r.reads != nil {
		next("Metadata", jen.Qual(openapiPkg, keyRequestSchema), jen.Lit(r.reads.schema))
	}
	next("Metadata", jen.Qual(openapiPkg, keyResponseSchema), jen.Lit(r.writes.schema))
	return jen.Id("ws").Dot("Route").Call(b)
}

func httpText(code int) string {
	switch code {
	case 200:
		return "OK"
	case 201:
		return "Created"
	case 202:
		return "Accepted"
	}
	return fmt.Sprint(code)
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
