package endpoints

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"testing"

	restful "github.com/emicklei/go-restful/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// routerServices are two web services with route tables of the
// generated shape (a namespaced kind, a cluster-scoped one), every route
// served by the function to gives for its operation.
func routerServices(to func(operation string) restful.RouteFunction) []*restful.WebService {
	table := func(kind, plural string) []Route {
		ns, all := "/namespaces/{namespace}/"+plural, "/"+plural
		return []Route{
			{Method: "GET", Path: ns, To: to("listNamespaced" + kind), Action: "list", Operation: "listNamespaced" + kind},
			{Method: "POST", Path: ns, To: to("createNamespaced" + kind), Action: "post", Operation: "createNamespaced" + kind},
			{Method: "DELETE", Path: ns, To: to("deleteCollectionNamespaced" + kind), Action: "deletecollection", Operation: "deleteCollectionNamespaced" + kind},
			{Method: "GET", Path: ns + "/{name}", To: to("readNamespaced" + kind), Action: "get", Operation: "readNamespaced" + kind},
			{Method: "PUT", Path: ns + "/{name}", To: to("replaceNamespaced" + kind), Action: "put", Operation: "replaceNamespaced" + kind},
			{Method: "PATCH", Path: ns + "/{name}", To: to("patchNamespaced" + kind), Action: "patch", Operation: "patchNamespaced" + kind},
			{Method: "DELETE", Path: ns + "/{name}", To: to("deleteNamespaced" + kind), Action: "delete", Operation: "deleteNamespaced" + kind},
			{Method: "GET", Path: ns + "/{name}/status", To: to("readNamespaced" + kind + "Status"), Action: "get", Operation: "readNamespaced" + kind + "Status"},
			{Method: "PUT", Path: ns + "/{name}/status", To: to("replaceNamespaced" + kind + "Status"), Action: "put", Operation: "replaceNamespaced" + kind + "Status"},
			{Method: "PATCH", Path: ns + "/{name}/scale", To: to("patchNamespaced" + kind + "Scale"), Action: "patch", Operation: "patchNamespaced" + kind + "Scale"},
			{Method: "GET", Path: all, To: to("list" + kind + "ForAllNamespaces"), Action: "list", Operation: "list" + kind + "ForAllNamespaces"},
		}
	}
	g := new(restful.WebService).Path("/apis/g/v1")
	InstallRoutes(g, RouteKind{GVK: metav1.GroupVersionKind{Group: "g", Version: "v1", Kind: "Widget"}}, table("Widget", "widgets"))
	InstallRoutes(g, RouteKind{GVK: metav1.GroupVersionKind{Group: "g", Version: "v1", Kind: "Gadget"}}, table("Gadget", "gadgets"))
	core := new(restful.WebService).Path("/api/v1")
	InstallRoutes(core, RouteKind{GVK: metav1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}}, table("ConfigMap", "configmaps"))
	InstallRoutes(core, RouteKind{GVK: metav1.GroupVersionKind{Version: "v1", Kind: "Namespace"}}, []Route{
		{Method: "GET", Path: "/namespaces/{name}", To: to("readNamespace"), Action: "get", Operation: "readNamespace"},
		{Method: "DELETE", Path: "/namespaces/{name}", To: to("deleteNamespace"), Action: "delete", Operation: "deleteNamespace"},
		{Method: "GET", Path: "/namespaces", To: to("listNamespace"), Action: "list", Operation: "listNamespace"},
	})
	return []*restful.WebService{g, core}
}

// routerPaths is a grid of paths: names that equal static tokens, empty
// tokens, too many or too few tokens, roots no service has.
func routerPaths() []string {
	var paths []string
	for _, root := range []string{"/apis/g/v1", "/api/v1", "/apis/g/v2", "/apis/x/v1", ""} {
		for _, name := range []string{"a", "b", "widgets", "namespaces", "status", ""} {
			for _, rest := range []string{
				"/namespaces/ns/widgets", "/namespaces/%s/widgets", "/namespaces/ns/widgets/%s", "/namespaces/%s/gadgets/%s/status",
				"/namespaces/ns/configmaps/%s/scale", "/namespaces/%s", "/namespaces", "/widgets", "/widgets/%s",
				"/namespaces/ns/widgets/%s/status/x", "/namespaces/%s/widgets/", "/%s", "",
				"/watch/namespaces/%s/widgets/%s", "/watch/widgets", "/watch/%s", "/watch",
			} {
				rest = strings.ReplaceAll(rest, "%s", name)
				paths = append(paths, root+rest)
			}
		}
	}
	return paths
}

// TestRouterSelectsAsCurly: for every request of a grid of paths (names
// that equal static tokens, empty tokens, too many or too few tokens),
// methods, Content-Types and Accepts, the Router selects what
// CurlyRouter selects, or fails the same way, the first time and from
// its cache; and one cached selection serves many objects.
func TestRouterSelectsAsCurly(t *testing.T) {
	noop := func(string) restful.RouteFunction { return func(*restful.Request, *restful.Response) {} }
	services := routerServices(noop)
	router := NewRouter(services)
	if !router.usable {
		t.Fatal("the router does not use its cache for plain route tables")
	}

	paths := routerPaths()
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
	// The grid's names are mostly static tokens somewhere (the /watch/
	// paths make the plurals and "namespaces" static at more positions),
	// which need entries of their own; keyed by the whole path there would
	// be one per request.
	if n := len(router.cache); n == 0 || n*2 > found {
		t.Errorf("%d selections remembered for %d requests routed", n, found)
	}

	// Web services other than those indexed go to CurlyRouter alone.
	other := services[1:]
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
		if got := string(r.appendShape(nil, p)); got != want(p) {
			t.Errorf("shape(%q) = %q, want %q", p, got, want(p))
		}
	}
}

// TestRouterServesAsDispatch: serving a request with Router.Serve, and
// with the container where Serve declines, answers every request of the
// grid (methods, Content-Types, Accepts, paths go-restful's ServeMux
// redirects or leaves unmatched) exactly as a container with go-restful's
// own CurlyRouter does: the same status, headers and body, the route
// function seeing the same route, path parameters and request. Each
// request is sent twice, so that the second is served from the Router's
// remembered selection.
func TestRouterServesAsDispatch(t *testing.T) {
	echo := func(op string) restful.RouteFunction {
		return func(req *restful.Request, resp *restful.Response) {
			resp.Header().Set("X-Operation", op)
			resp.WriteHeader(http.StatusAccepted)
			// fmt prints maps sorted by key.
			fmt.Fprintf(resp, "%s %s %v", req.Request.Method, req.Request.URL.Path, req.PathParameters())
		}
	}
	build := func(withRouter bool) (http.Handler, *Router) {
		services := routerServices(echo)
		c := restful.NewContainer()
		c.ServiceErrorHandler(ServiceErrorHandler)
		c.DoNotRecover(true)
		for _, ws := range services {
			c.Add(ws)
		}
		if !withRouter {
			return c, nil
		}
		r := NewRouter(c.RegisteredWebServices())
		c.Router(r)
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if !r.Serve(w, req) {
				c.ServeHTTP(w, req)
			}
		}), r
	}
	want, _ := build(false)
	got, router := build(true)
	paths := append(routerPaths(), "/api/v1/namespaces/a%2Fb/configmaps", "/api/v1//namespaces/a/configmaps/b",
		"/api/v1/namespaces/./configmaps/b", "/api/v1/namespaces/a/configmaps/..", "/api/v1/namespaces/a/configmaps/b/",
		"/api/v1/namespaces/a/configmaps/%62", "/api/v1/namespaces/a%20b/configmaps/c%20d")
	served := 0
	for round := range 2 {
		for _, p := range paths {
			for _, method := range []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "CONNECT"} {
				for _, ct := range []string{"", "application/json", "application/apply-patch+yaml", "text/plain"} {
					for _, accept := range []string{"", "application/json", "text/html", "application/json;as=Table;g=meta.k8s.io;v=v1"} {
						send := func(h http.Handler) *httptest.ResponseRecorder {
							req := httptest.NewRequest(method, "http://x"+p, nil)
							if ct != "" {
								req.Header.Set("Content-Type", ct)
							}
							if accept != "" {
								req.Header.Set("Accept", accept)
							}
							rec := httptest.NewRecorder()
							h.ServeHTTP(rec, req)
							return rec
						}
						w, g := send(want), send(got)
						if g.Code != w.Code || fmt.Sprint(g.Header()) != fmt.Sprint(w.Header()) || g.Body.String() != w.Body.String() {
							t.Fatalf("round %d: %s %s (Content-Type %q, Accept %q):\ngot  %d %v %s\nwant %d %v %s",
								round, method, p, ct, accept, g.Code, g.Header(), g.Body, w.Code, w.Header(), w.Body)
						}
						if round == 1 && w.Code == http.StatusAccepted {
							served++
						}
					}
				}
			}
		}
	}
	if served == 0 || len(router.cache) == 0 {
		t.Fatalf("nothing served from remembered selections (%d remembered)", len(router.cache))
	}
	// Serve took the second round's requests of remembered shapes.
	req := httptest.NewRequest("GET", "http://x/api/v1/namespaces/ns/configmaps/some-name", nil)
	if !router.Serve(httptest.NewRecorder(), req) {
		t.Error("a get of a remembered shape was not served by the Router")
	}
	for _, p := range []string{"/api/v1//namespaces/ns/configmaps/b", "/api/v1/namespaces/a%2Fb/configmaps/c", "/api/v1/namespaces/ns/configmaps/.."} {
		if router.Serve(httptest.NewRecorder(), httptest.NewRequest("GET", "http://x"+p, nil)) {
			t.Errorf("%s: served by the Router, which the ServeMux redirects or matches escaped", p)
		}
	}
}

// TestRouterPathHelpers: isCleanPath is the ServeMux's cleaning leaving a
// path as it is, and token the token tokenize gives at a position.
func TestRouterPathHelpers(t *testing.T) {
	clean := func(p string) string { // net/http's cleanPath
		if p == "" {
			return "/"
		}
		if p[0] != '/' {
			p = "/" + p
		}
		np := path.Clean(p)
		if p[len(p)-1] == '/' && np != "/" {
			np += "/"
		}
		return np
	}
	segs := []string{"", ".", "..", "a", "bc", "..."}
	var paths []string
	var walk func(prefix string, depth int)
	walk = func(prefix string, depth int) {
		paths = append(paths, prefix, prefix+"/")
		if depth == 0 {
			return
		}
		for _, s := range segs {
			walk(prefix+"/"+s, depth-1)
		}
	}
	walk("", 3)
	paths = append(paths, "", "a", "a/b", "*")
	for _, p := range paths {
		if got, want := isCleanPath(p), p != "" && clean(p) == p; got != want {
			t.Errorf("isCleanPath(%q) = %v, want %v", p, got, want)
		}
		toks := tokenize(p)
		for i := range len(toks) + 2 {
			want := ""
			if i < len(toks) {
				want = toks[i]
			}
			if got := token(p, i); got != want {
				t.Errorf("token(%q, %d) = %q, want %q", p, i, got, want)
			}
		}
	}
}
