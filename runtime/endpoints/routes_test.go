package endpoints

import (
	"slices"
	"testing"

	restful "github.com/emicklei/go-restful/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforge/kubeforge/runtime/openapi"
)

// TestInstallRoutes: each row becomes a route with the parameters and
// OpenAPI metadata kube-apiserver gives its action.
func TestInstallRoutes(t *testing.T) {
	ws := new(restful.WebService).Path("/apis/g/v1")
	noop := func(*restful.Request, *restful.Response) {}
	InstallRoutes(ws, RouteKind{
		GVK:    metav1.GroupVersionKind{Group: "g", Version: "v1", Kind: "Widget"},
		Object: "g.v1.Widget", List: "g.v1.WidgetList",
	}, []Route{
		{Method: "GET", Path: "/namespaces/{namespace}/widgets", To: noop, Action: "list", Operation: "listNamespacedWidget", Doc: "list"},
		{Method: "POST", Path: "/namespaces/{namespace}/widgets", To: noop, Action: "post", Operation: "createNamespacedWidget", Doc: "create"},
		{Method: "DELETE", Path: "/namespaces/{namespace}/widgets/{name}", To: noop, Action: "delete", Operation: "deleteNamespacedWidget", Doc: "delete"},
		{Method: "PATCH", Path: "/namespaces/{namespace}/widgets/{name}/scale", To: noop, Action: "patch", Operation: "patchNamespacedWidgetScale", Doc: "scale"},
		{Method: "GET", Path: "/widgets", To: noop, Action: "list", Operation: "listWidgetForAllNamespaces", Doc: "all"},
	})
	routes := ws.Routes()
	// The deprecated watch paths of the two lists come after the rows,
	// left out of the OpenAPI documents.
	if len(routes) != 7 {
		t.Fatalf("%d routes", len(routes))
	}
	for i, want := range []string{"/apis/g/v1/watch/namespaces/{namespace}/widgets", "/apis/g/v1/watch/widgets"} {
		if r := routes[5+i]; r.Path != want || r.Method != "GET" || r.Metadata[openapi.UndocumentedKey] != true {
			t.Errorf("watch route %d: %s %s %v", i, r.Method, r.Path, r.Metadata)
		}
	}
	params := func(r restful.Route) (names []string) {
		for _, p := range r.ParameterDocs {
			names = append(names, p.Data().Name)
		}
		return names
	}
	meta := func(r restful.Route, k string) any { return r.Metadata[k] }
	list, create, del, scale, all := routes[0], routes[1], routes[2], routes[3], routes[4]
	if got := params(list); !slices.Equal(got, []string{"namespace", "pretty", "allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds", "watch"}) {
		t.Errorf("list parameters %v", got)
	}
	if meta(list, openapi.ResponseSchemaKey) != "g.v1.WidgetList" || meta(list, openapi.RequestSchemaKey) != nil || meta(list, openapi.ActionKey) != "list" {
		t.Errorf("list metadata %v", list.Metadata)
	}
	if meta(create, openapi.RequestSchemaKey) != "g.v1.Widget" || meta(create, openapi.ResponseSchemaKey) != "g.v1.Widget" {
		t.Errorf("create metadata %v", create.Metadata)
	}
	if got := params(del); !slices.Equal(got, []string{"namespace", "name", "pretty", "dryRun", "gracePeriodSeconds", "propagationPolicy"}) || del.ParameterDocs[1].Data().Description != "name of the Widget" {
		t.Errorf("delete parameters %v", got)
	}
	if meta(del, openapi.RequestSchemaKey) != schemaDeleteOptions || meta(del, openapi.ResponseSchemaKey) != schemaStatus {
		t.Errorf("delete metadata %v", del.Metadata)
	}
	if gvk := meta(scale, openapi.GroupVersionKindKey); gvk != (metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}) ||
		meta(scale, openapi.RequestSchemaKey) != schemaPatch || meta(scale, openapi.ResponseSchemaKey) != schemaScale || !slices.Equal(scale.Consumes, ConsumesPatch) {
		t.Errorf("scale patch: %v consumes %v", scale.Metadata, scale.Consumes)
	}
	if got := params(all); slices.Contains(got, "namespace") || len(got) != 11 {
		t.Errorf("list across namespaces parameters %v", got)
	}
	if all.Operation != "listWidgetForAllNamespaces" || all.Doc != "all" || all.Method != "GET" || all.Path != "/apis/g/v1/widgets" {
		t.Errorf("route %+v", all)
	}
}
