package endpoints

import (
	"encoding/binary"
	"net/http"
	"strings"
	"sync"

	restful "github.com/emicklei/go-restful/v3"
)

// maxRoutes bounds the remembered selections: the key holds the client's
// Content-Type and Accept, which a client may vary at will.
const maxRoutes = 4096

// Router is go-restful's CurlyRouter with its selections remembered, and
// a dispatcher (Serve) for the requests whose selection it remembers.
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
	mu       sync.RWMutex
	cache    map[string]routeHit // routeKey -> selection
}

type routeHit struct {
	ws    *restful.WebService
	route *restful.Route
	// params are the route's path parameters by token position; direct is
	// false when one is not a whole token ("{name}.json"), whose value
	// only go-restful's extraction gives: Serve leaves such routes to it.
	params []pathParam
	direct bool
}

type pathParam struct {
	index int
	name  string
}

// NewRouter indexes the static path tokens of services, the web services
// the container holds once every route is installed (routes added to them
// later would not be indexed).
func NewRouter(services []*restful.WebService) *Router {
	r := &Router{services: services, usable: true, cache: map[string]routeHit{}}
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

// keyBuffer is the stack space a key is built in; longer keys (long
// Accept headers) grow onto the heap.
const keyBuffer = 256

// SelectRoute implements restful.RouteSelector.
func (r *Router) SelectRoute(services []*restful.WebService, req *http.Request) (*restful.WebService, *restful.Route, error) {
	if !r.usable || !sameServices(services, r.services) {
		return r.curly.SelectRoute(services, req)
	}
	var buf [keyBuffer]byte
	key := r.appendKey(buf[:0], req)
	if hit, ok := r.lookup(key); ok {
		return hit.ws, hit.route, nil
	}
	ws, route, err := r.curly.SelectRoute(services, req)
	if err == nil {
		r.remember(key, ws, route)
	}
	return ws, route, err
}

func (r *Router) lookup(key []byte) (routeHit, bool) {
	r.mu.RLock()
	// Indexing with the converted bytes does not copy them.
	hit, ok := r.cache[string(key)]
	r.mu.RUnlock()
	return hit, ok
}

func (r *Router) remember(key []byte, ws *restful.WebService, route *restful.Route) {
	hit := routeHit{ws: ws, route: route, direct: true}
	for i, tok := range tokenize(route.Path) {
		if !strings.Contains(tok, "{") {
			continue
		}
		if !strings.HasPrefix(tok, "{") || !strings.HasSuffix(tok, "}") {
			hit.direct = false
		}
		hit.params = append(hit.params, pathParam{index: i, name: strings.TrimSuffix(strings.TrimPrefix(tok, "{"), "}")})
	}
	r.mu.Lock()
	if len(r.cache) < maxRoutes {
		r.cache[string(key)] = hit
	}
	r.mu.Unlock()
}

// appendKey appends req's routeKey to dst: the method, Content-Type and
// Accept, each preceded by its length, then the path's shape.
func (r *Router) appendKey(dst []byte, req *http.Request) []byte {
	for _, s := range [...]string{req.Method, req.Header.Get(restful.HEADER_ContentType), req.Header.Get(restful.HEADER_Accept)} {
		dst = binary.AppendUvarint(dst, uint64(len(s)))
		dst = append(dst, s...)
	}
	return r.appendShape(dst, req.URL.Path)
}

// placeholder stands for every token that is no static token at its
// position: CurlyRouter treats all of them alike.
const placeholder = "\x00"

// appendShape appends path with the tokens no route names statically
// replaced by placeholder. It walks the path as tokenize splits it,
// without making the slice of tokens.
func (r *Router) appendShape(dst []byte, path string) []byte {
	if path == "/" {
		// Other shapes never start with "/": the tokens come trimmed.
		return append(dst, '/')
	}
	if restful.TrimRightSlashEnabled {
		path = strings.Trim(path, "/")
	} else {
		path = strings.TrimLeft(path, "/")
	}
	for i := 0; ; i++ {
		tok, rest, more := strings.Cut(path, "/")
		if i > 0 {
			dst = append(dst, '/')
		}
		if tok == "" || (i < len(r.static) && r.static[i][tok]) {
			dst = append(dst, tok...)
		} else {
			dst = append(dst, placeholder...)
		}
		if !more {
			return dst
		}
		path = rest
	}
}

// Serve serves req with the route the Router remembers for its shape, as
// the container's dispatch would, and reports whether it did; it does not
// when the selection is not remembered (the first request of its shape,
// or one that fails: the container's 404, 405, 406 and 415) or when the
// container's ServeMux would not hand req to the dispatch unchanged.
// go-restful's dispatch builds its Request and Response (with three maps)
// and splits the path again for the parameters on every request.
//
// Serve does what the dispatch does for a container without filters or
// content encoding that does not recover panics (the server's): the
// route's web service and route filters are none in this project's
// routes (InstallRoutes adds none).
func (r *Router) Serve(w http.ResponseWriter, req *http.Request) bool {
	if !r.usable || !muxPassesUnchanged(req) {
		return false
	}
	var buf [keyBuffer]byte
	hit, ok := r.lookup(r.appendKey(buf[:0], req))
	if !ok || !hit.direct {
		return false
	}
	c := calls.Get().(*call)
	c.req.Request = req
	params := c.req.PathParameters()
	for _, p := range hit.params {
		params[p.name] = token(req.URL.Path, p.index)
	}
	c.resp = *restful.NewResponse(w)
	hit.route.Function(c.req, &c.resp)
	// Not reached after a panic: that call's values are dropped.
	c.req.Request = nil
	clear(params)
	c.resp = restful.Response{}
	calls.Put(c)
	return true
}

// call is what Serve hands a route function: go-restful's Request (its
// path parameters written in place) and Response, reused. No route
// function keeps them, or sets the Request's attributes (which would
// outlive the request).
type call struct {
	req  *restful.Request
	resp restful.Response
}

var calls = sync.Pool{New: func() any { return &call{req: restful.NewRequest(nil)} }}

// token is the i-th token of path as tokenize splits it, "" past the
// last: go-restful's value of a path parameter at position i.
func token(path string, i int) string {
	if path == "/" {
		return ""
	}
	if restful.TrimRightSlashEnabled {
		path = strings.Trim(path, "/")
	} else {
		path = strings.TrimLeft(path, "/")
	}
	for ; i > 0; i-- {
		_, rest, more := strings.Cut(path, "/")
		if !more {
			return ""
		}
		path = rest
	}
	tok, _, _ := strings.Cut(path, "/")
	return tok
}

// muxPassesUnchanged reports whether req has the plain shape the
// remembered routes were learnt from: not a CONNECT or "*" request, and a
// clean path with no escaped form of its own (%2F). Others go to
// go-restful's own dispatch (the server calls Container.Dispatch, not its
// http.ServeMux, which would redirect an unclean path to its cleaned form,
// as kube-apiserver never does: DELETE .../configmaps/.. followed to the
// namespace).
func muxPassesUnchanged(req *http.Request) bool {
	return req.Method != http.MethodConnect && req.RequestURI != "*" && req.URL.RawPath == "" && isCleanPath(req.URL.Path)
}

// isCleanPath reports whether the ServeMux's cleaning (path.Clean, the
// trailing slash kept) leaves p as it is: it starts with "/" and has no
// empty segment but a last one, and no "." or ".." segment.
func isCleanPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	for rest := p[1:]; ; {
		seg, after, more := strings.Cut(rest, "/")
		if seg == "." || seg == ".." || (seg == "" && more) {
			return false
		}
		if !more {
			return true
		}
		rest = after
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
