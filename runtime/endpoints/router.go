package endpoints

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	restful "github.com/emicklei/go-restful/v3"
)

// maxRoutes bounds the remembered selections: the key holds the client's
// Content-Type and Accept, which a client may vary at will.
const maxRoutes = 4096

// Router is go-restful's CurlyRouter with its selections remembered.
// CurlyRouter matches every route of the web service against the path,
// sorts the candidates and negotiates media types on each request (2.7 %
// of a create's CPU); the routes are fixed once the server runs, so the
// answer for one shape of request is the same every time.
//
// A selection depends on the path only through which tokens equal a
// static token of some route or root path at the same position (a
// parameter token matches anything but the empty token). The key keeps
// those tokens and the empty ones and replaces the others, object names
// and namespaces, by one placeholder, so that one entry serves every
// object; with the method, Content-Type and Accept the key decides the
// selection. Routes with regular expressions, wildcards or custom verbs in
// their paths would break that rule: with any of them, or with web
// services other than those the Router was built for, it only asks
// CurlyRouter. Failed selections (404, 405, 406, 415) are not remembered.
type Router struct {
	curly    restful.CurlyRouter
	services []*restful.WebService
	static   []map[string]bool // position -> static tokens there
	usable   bool
	size     atomic.Int64
	cache    sync.Map // routeKey -> routeHit
}

type routeKey struct{ method, path, contentType, accept string }

type routeHit struct {
	ws    *restful.WebService
	route *restful.Route
}

// NewRouter indexes the static path tokens of services, the web services
// the container holds once every route is installed (routes added to them
// later would not be indexed).
func NewRouter(services []*restful.WebService) *Router {
	r := &Router{services: services, usable: true}
	add := func(path string) {
		for i, tok := range tokenize(path) {
			if strings.ContainsAny(tok, ":*") {
				r.usable = false
			}
			if strings.HasPrefix(tok, "{") {
				continue
			}
			for len(r.static) <= i {
				r.static = append(r.static, map[string]bool{})
			}
			r.static[i][tok] = true
		}
	}
	for _, ws := range services {
		add(ws.RootPath())
		for _, rt := range ws.Routes() {
			if len(rt.If) > 0 {
				r.usable = false // conditions look at the whole request
			}
			add(rt.Path)
		}
	}
	return r
}

// tokenize splits a path as go-restful does.
func tokenize(path string) []string {
	if path == "/" {
		return nil
	}
	if restful.TrimRightSlashEnabled {
		return strings.Split(strings.Trim(path, "/"), "/")
	}
	return strings.Split(strings.TrimLeft(path, "/"), "/")
}

// SelectRoute implements restful.RouteSelector.
func (r *Router) SelectRoute(services []*restful.WebService, req *http.Request) (*restful.WebService, *restful.Route, error) {
	if !r.usable || !sameServices(services, r.services) {
		return r.curly.SelectRoute(services, req)
	}
	k := routeKey{
		method:      req.Method,
		path:        r.shape(req.URL.Path),
		contentType: req.Header.Get(restful.HEADER_ContentType),
		accept:      req.Header.Get(restful.HEADER_Accept),
	}
	if v, ok := r.cache.Load(k); ok {
		hit := v.(routeHit)
		return hit.ws, hit.route, nil
	}
	ws, route, err := r.curly.SelectRoute(services, req)
	if err == nil && r.size.Load() < maxRoutes {
		if _, loaded := r.cache.LoadOrStore(k, routeHit{ws: ws, route: route}); !loaded {
			r.size.Add(1)
		}
	}
	return ws, route, err
}

// placeholder stands for every token that is no static token at its
// position: CurlyRouter treats all of them alike.
const placeholder = "\x00"

// shape is path with the tokens no route names statically replaced by
// placeholder. It walks the path as tokenize splits it, without making the
// slice of tokens.
func (r *Router) shape(path string) string {
	if path == "/" {
		// Other shapes never start with "/": the tokens come trimmed.
		return "/"
	}
	if restful.TrimRightSlashEnabled {
		path = strings.Trim(path, "/")
	} else {
		path = strings.TrimLeft(path, "/")
	}
	var b strings.Builder
	b.Grow(len(path))
	for i := 0; ; i++ {
		tok, rest, more := strings.Cut(path, "/")
		if i > 0 {
			b.WriteByte('/')
		}
		if tok == "" || (i < len(r.static) && r.static[i][tok]) {
			b.WriteString(tok)
		} else {
			b.WriteString(placeholder)
		}
		if !more {
			return b.String()
		}
		path = rest
	}
}

func sameServices(a, b []*restful.WebService) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
