package endpoints

import (
	"strings"

	restful "github.com/emicklei/go-restful/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/kubeforge/kubeforge/runtime/openapi"
)

// Route is one row of a kind's generated route table: the routes generator
// writes one []Route per kind and InstallRoutes registers them. What kube
// derives from the action (query parameters, request and response
// schemas) is derived here, once, rather than spelled out per route.
type Route struct {
	// Method and Path (relative to the WebService's root) match requests.
	Method, Path string
	// To serves them: a method of the kind's *Handler.
	To restful.RouteFunction
	// Operation is kube's operation ID ("listNamespacedShipment"); Doc its
	// summary.
	Operation, Doc string
	// Action is the x-kubernetes-action: list, post, deletecollection,
	// get, put, patch or delete.
	Action string
}

// RouteKind is what every route of one kind's table shares.
type RouteKind struct {
	// GVK is the kind served (scale routes serve autoscaling/v1 Scale).
	GVK metav1.GroupVersionKind
	// Object and List are the OpenAPI component names of the kind and its
	// list ("dev.kubeforge.shipping.v1.Shipment").
	Object, List string
}

// Schema names of the meta types the routes read and write.
const (
	schemaStatus        = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
	schemaDeleteOptions = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
	schemaPatch         = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
	schemaScale         = "io.k8s.api.autoscaling.v1.Scale"
)

// InstallRoutes registers a kind's route table on ws: each route with its
// path and query parameters (kube-apiserver's, with its descriptions),
// the patch media types on PATCH, and the OpenAPI metadata (group, version
// and kind, action, request and response schema) runtime/openapi builds the
// documents from.
func InstallRoutes(ws *restful.WebService, k RouteKind, routes []Route) {
	for _, r := range routes {
		b := ws.Method(r.Method).Path(r.Path).To(r.To).Operation(r.Operation).Doc(r.Doc)
		if strings.Contains(r.Path, "{namespace}") {
			b.Param(ws.PathParameter(pNamespace.name, pNamespace.desc).DataType(pNamespace.dataType))
		}
		if strings.Contains(r.Path, "{name}") {
			b.Param(ws.PathParameter("name", "name of the "+k.GVK.Kind).DataType("string"))
		}
		for _, p := range actionParams[r.Action] {
			b.Param(ws.QueryParameter(p.name, p.desc).DataType(p.dataType))
		}
		if r.Method == "PATCH" {
			// Every patch type reaches the handler, which answers the ones
			// it does not implement with a 415 Status.
			b.Consumes(ConsumesPatch...)
		}
		b.Produces(Produces...)
		gvk, object := k.GVK, k.Object
		if strings.HasSuffix(r.Path, "/scale") {
			gvk, object = metav1.GroupVersionKind(scaleGVK), schemaScale
		}
		request, response := "", object
		switch r.Action {
		case "post", "put":
			request = object
		case "patch":
			request = schemaPatch
		case "delete", "deletecollection":
			request, response = schemaDeleteOptions, schemaStatus
		case "list":
			response = k.List
		}
		b.Metadata(openapi.GroupVersionKindKey, gvk).Metadata(openapi.ActionKey, r.Action)
		if request != "" {
			b.Metadata(openapi.RequestSchemaKey, request)
		}
		b.Metadata(openapi.ResponseSchemaKey, response)
		ws.Route(b)
	}
	installWatchPaths(ws, routes)
}

// installWatchPaths registers the deprecated /watch/ paths kube-apiserver
// still serves for every collection (deprecated since 1.11; old clients
// and scripts use them): /watch/<collection> is its list with watch=true,
// and /watch/<collection>/{name} that watch of one name. They are left
// out of the OpenAPI documents, as a CRD's documents leave them.
func installWatchPaths(ws *restful.WebService, routes []Route) {
	lists := map[string]restful.RouteFunction{}
	for _, r := range routes {
		if r.Method == "GET" && r.Action == "list" {
			lists[r.Path] = r.To
			ws.Route(ws.GET("/watch"+r.Path).To(watchPath(r.To, false)).
				Produces(Produces...).Metadata(openapi.UndocumentedKey, true))
		}
	}
	for _, r := range routes {
		collection, isItem := strings.CutSuffix(r.Path, "/{name}")
		if list, ok := lists[collection]; ok && isItem && r.Method == "GET" {
			ws.Route(ws.GET("/watch"+r.Path).To(watchPath(list, true)).
				Produces(Produces...).Metadata(openapi.UndocumentedKey, true))
		}
	}
}

// watchPath serves a /watch/ path with list, the collection's list route:
// the request becomes the list with watch=true and, for one name, a field
// selector on it, which must agree with any the query has (kube's 400
// otherwise).
func watchPath(list restful.RouteFunction, named bool) restful.RouteFunction {
	return func(req *restful.Request, resp *restful.Response) {
		q := req.Request.URL.Query()
		q.Set("watch", "true")
		if named {
			name := req.PathParameter("name")
			if sel := q.Get("fieldSelector"); sel != "" {
				got, err := fields.ParseSelector(sel)
				if err != nil {
					WriteError(resp, req.Request, apierrors.NewBadRequest(err.Error()))
					return
				}
				if n, ok := got.RequiresExactMatch("metadata.name"); !got.Empty() && (!ok || n != name) {
					WriteError(resp, req.Request, apierrors.NewBadRequest("fieldSelector metadata.name doesn't match requested name"))
					return
				}
			}
			q.Set("fieldSelector", "metadata.name="+fields.EscapeValue(name))
		}
		r := *req.Request
		u := *r.URL
		u.RawQuery = q.Encode()
		r.URL = &u
		req.Request = &r
		list(req, resp)
	}
}

// param is one query or path parameter.
type param struct {
	name     string
	dataType string // "string", "integer", "boolean"
	desc     string
}

// Descriptions follow kube-apiserver's OpenAPI so that kubectl explain and
// generated clients read the same text.
var (
	pNamespace = param{name: "namespace", dataType: "string",
		desc: "object name and auth scope, such as for teams and projects"}
	pPretty = param{name: "pretty", dataType: "string",
		desc: "If 'true', then the output is pretty printed."}
	pDryRun = param{name: "dryRun", dataType: "string",
		desc: "When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed"}
	pFieldManager = param{name: "fieldManager", dataType: "string",
		desc: "fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint."}
	pFieldValidation = param{name: "fieldValidation", dataType: "string",
		desc: "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: unknown fields are dropped silently. - Warn: unknown fields are dropped and a warning is sent in the Warning response header (the default). - Strict: the request fails with a BadRequest error naming the unknown fields."}
	pForce = param{name: "force", dataType: "boolean",
		desc: "Force is going to \"force\" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests."}
	pLabelSelector = param{name: "labelSelector", dataType: "string",
		desc: "A selector to restrict the list of returned objects by their labels. Defaults to everything."}
	pFieldSelector = param{name: "fieldSelector", dataType: "string",
		desc: "A selector to restrict the list of returned objects by their fields. Defaults to everything."}
	pLimit = param{name: "limit", dataType: "integer",
		desc: "limit is a maximum number of responses to return for a list call. If more items exist, the server will set the `continue` field on the list metadata to a value that can be used with the same initial query to retrieve the next set of results. Every page is read at the revision of the first one."}
	pContinue = param{name: "continue", dataType: "string",
		desc: "The continue option should be set when retrieving more results from the server. Its value is the opaque token returned in the previous page's metadata.continue; the other query parameters must be the same as in the first request."}
	pResourceVersion = param{name: "resourceVersion", dataType: "string",
		desc: "resourceVersion sets a constraint on what resource versions a request may be served from: unset means the most recent (a quorum read), \"0\" means any, N with resourceVersionMatch."}
	pResourceVersionMatch = param{name: "resourceVersionMatch", dataType: "string",
		desc: "resourceVersionMatch determines how resourceVersion is applied to list calls: NotOlderThan or Exact. It is highly recommended that resourceVersionMatch be set for list calls where resourceVersion is set."}
	pTimeoutSeconds = param{name: "timeoutSeconds", dataType: "integer",
		desc: "Timeout for the list/watch call. This limits the duration of the call, regardless of any activity or inactivity."}
	pWatch = param{name: "watch", dataType: "boolean",
		desc: "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications. Specify resourceVersion."}
	pAllowWatchBookmarks = param{name: "allowWatchBookmarks", dataType: "boolean",
		desc: "allowWatchBookmarks requests watch events with type \"BOOKMARK\". Servers that do not implement bookmarks may ignore this flag and bookmarks are sent at the server's discretion."}
	pSendInitialEvents = param{name: "sendInitialEvents", dataType: "boolean",
		desc: "`sendInitialEvents=true` may be set together with `watch=true`. The watch stream then begins with synthetic ADDED events for the current state, followed by a BOOKMARK annotated \"k8s.io/initial-events-end\": \"true\". resourceVersionMatch must be NotOlderThan."}
	pGracePeriodSeconds = param{name: "gracePeriodSeconds", dataType: "integer",
		desc: "The duration in seconds before the object should be deleted. Value must be non-negative integer. The value zero indicates delete immediately."}
	pPropagationPolicy = param{name: "propagationPolicy", dataType: "string",
		desc: "Whether and how garbage collection will be performed. Acceptable values are: 'Orphan', 'Background', 'Foreground'."}
)

// actionParams are the query parameters of each action, in
// kube-apiserver's order (alphabetical after pretty).
var actionParams = map[string][]param{
	"list": {pPretty, pAllowWatchBookmarks, pContinue, pFieldSelector, pLabelSelector, pLimit,
		pResourceVersion, pResourceVersionMatch, pSendInitialEvents, pTimeoutSeconds, pWatch},
	"post": {pPretty, pDryRun, pFieldManager, pFieldValidation},
	"deletecollection": {pPretty, pContinue, pDryRun, pFieldSelector, pGracePeriodSeconds, pLabelSelector,
		pLimit, pPropagationPolicy, pResourceVersion, pResourceVersionMatch, pSendInitialEvents, pTimeoutSeconds},
	"get":    {pPretty},
	"put":    {pPretty, pDryRun, pFieldManager, pFieldValidation},
	"patch":  {pPretty, pDryRun, pFieldManager, pFieldValidation, pForce},
	"delete": {pPretty, pDryRun, pGracePeriodSeconds, pPropagationPolicy},
}
