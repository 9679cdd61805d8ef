package endpoints

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	restful "github.com/emicklei/go-restful/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestRouterSelectsAsCurly: for every request of a grid of paths (names
// that equal static tokens, empty tokens, too many or too few tokens),
// methods, Content-Types and Accepts, the Router selects what
// CurlyRouter selects, or fails the same way, the first time and from
// its cache; and one cached selection serves many objects.
func TestRouterSelectsAsCurly(t *testing.T) {
	noop := func(*restful.Request, *restful.Response) {}
	table := func(kind, plural string) []Route {
		ns, all := "/namespaces/{namespace}/"+plural, "/"+plural
		return []Route{
			{Method: "GET", Path: ns, To: noop, Action: "list", Operation: "listNamespaced" + kind},
			{Method: "POST", Path: ns, To: noop, Action: "post", Operation: "createNamespaced" + kind},
			{Method: "DELETE", Path: ns, To: noop, Action: "deletecollection", Operation: "deleteCollectionNamespaced" + kind},
			{Method: "GET", Path: ns + "/{name}", To: noop, Action: "get", Operation: "readNamespaced" + kind},
			{Method: "PUT", Path: ns + "/{name}", To: noop, Action: "put", Operation: "replaceNamespaced" + kind},
			{Method: "PATCH", Path: ns + "/{name}", To: noop, Action: "patch", Operation: "patchNamespaced" + kind},
			{Method: "DELETE", Path: ns + "/{name}", To: noop, Action: "delete", Operation: "deleteNamespaced" + kind},
			{Method: "GET", Path: ns + "/{name}/status", To: noop, Action: "get", Operation: "readNamespaced" + kind + "Status"},
			{Method: "PUT", Path: ns + "/{name}/status", To: noop, Action: "put", Operation: "replaceNamespaced" + kind + "Status"},
			{Method: "PATCH", Path: ns + "/{name}/scale", To: noop, Action: "patch", Operation: "patchNamespaced" + kind + "Scale"},
			{Method: "GET", Path: all, To: noop, Action: "list", Operation: "list" + kind + "ForAllNamespaces"},
		}
	}
	g := new(restful.WebService).Path("/apis/g/v1")
	InstallRoutes(g, RouteKind{GVK: metav1.GroupVersionKind{Group: "g", Version: "v1", Kind: "Widget"}}, table("Widget", "widgets"))
	InstallRoutes(g, RouteKind{GVK: metav1.GroupVersionKind{Group: "g", Version: "v1", Kind: "Gadget"}}, table("Gadget", "gadgets"))
	core := new(restful.WebService).Path("/api/v1")
	InstallRoutes(core, RouteKind{GVK: metav1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}}, table("ConfigMap", "configmaps"))
	InstallRoutes(core, RouteKind{GVK: metav1.GroupVersionKind{Version: "v1", Kind: "Namespace"}}, []Route{
		{Method: "GET", Path: "/namespaces/{name}", To: noop, Action: "get", Operation: "readNamespace"},
		{Method: "DELETE", Path: "/namespaces/{name}", To: noop, Action: "delete", Operation: "deleteNamespace"},
		{Method: "GET", Path: "/namespaces", To: noop, Action: "list", Operation: "listNamespace"},
	})
	services := []*restful.WebService{g, core}
	router := NewRouter(services)
	if !router.usable {
		t.Fatal("the router does not use its cache for plain route tables")
	}

	var paths []string
	for _, root := range []string{"/apis/g/v1", "/api/v1", "/apis/g/v2", "/apis/x/v1", ""} {
		for _, name := range []string{"a", "b", "widgets", "namespaces", "status", ""} {
			for _, rest := range []string{
				"/namespaces/ns/widgets", "/namespaces/%s/widgets", "/namespaces/ns/widgets/%s", "/namespaces/%s/gadgets/%s/status",
				"/namespaces/ns/configmaps/%s/scale", "/namespaces/%s", "/namespaces", "/widgets", "/widgets/%s",
				"/namespaces/ns/widgets/%s/status/x", "/namespaces/%s/widgets/", "/%s", "",
			} {
				rest = strings.ReplaceAll(rest, "%s", name)
				paths = append(paths, root+rest)
			}
		}
	}
	type answer struct{ ws, route, err string }
	ask := func(sel restful.RouteSelector, req *http.Request) answer {
		ws, route, err := sel.SelectRoute(services, req)
		var a answer
		if ws != nil {
			a.ws = ws.RootPath()
		}
		if route != nil {
			a.route = route.Method + " " + route.Path + " " + route.Operation
		}
		if err != nil {
			a.err = fmt.Sprintf("%v %v", err, err.(restful.ServiceError).Header)
		}
		return a
	}
	found := 0
	for round := range 2 {
		for _, p := range paths {
			for _, method := range []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"} {
				for _, ct := range []string{"", "application/json", "application/apply-patch+yaml", "text/plain"} {
					for _, accept := range []string{"", "application/json", "text/html", "application/json;as=Table;g=meta.k8s.io;v=v1"} {
						req := httptest.NewRequest(method, "http://x"+p, nil)
						if ct != "" {
							req.Header.Set("Content-Type", ct)
						}
						if accept != "" {
							req.Header.Set("Accept", accept)
						}
						want, got := ask(restful.CurlyRouter{}, req), ask(router, req)
						if got != want {
							t.Fatalf("round %d: %s %s (Content-Type %q, Accept %q): got %+v, want %+v", round, method, p, ct, accept, got, want)
						}
						if want.route != "" && round == 0 {
							found++
						}
					}
				}
			}
		}
	}
	if n := router.size.Load(); n == 0 || n*4 > int64(found) {
		t.Errorf("%d selections remembered for %d requests routed", n, found)
	}

	// Web services other than those indexed go to CurlyRouter alone.
	other := []*restful.WebService{core}
	req := httptest.NewRequest("GET", "http://x/apis/g/v1/widgets", nil)
	if ws, _, err := router.SelectRoute(other, req); err == nil || ws != nil {
		t.Errorf("a path of a web service not given was routed to %v", ws)
	}
}

// TestRouterShape: the shape walked without splitting is the one built
// from tokenize's tokens, for paths of every form the router sees.
func TestRouterShape(t *testing.T) {
	r := &Router{static: []map[string]bool{{"api": true, "apis": true}, {"v1": true}, {"namespaces": true}, {}, {"configmaps": true}}}
	want := func(path string) string {
		toks := tokenize(path)
		if toks == nil {
			return "/"
		}
		for i, tok := range toks {
			if tok != "" && (i >= len(r.static) || !r.static[i][tok]) {
				toks[i] = placeholder
			}
		}
		return strings.Join(toks, "/")
	}
	for _, p := range []string{"/", "", "//", "/api", "/api/", "/api/v1/namespaces/a/configmaps/b", "/api/v1//x", "api/v1", "/apis/g/v1/x/", "/a/b/c/d/e/f/g/h"} {
		if got := r.shape(p); got != want(p) {
			t.Errorf("shape(%q) = %q, want %q", p, got, want(p))
		}
	}
}
