// Package request is what is known about a request from its URL alone: the
// Info that authorization, audit, metrics and the filters all read, its
// parsing and its context accessors (kube's
// k8s.io/apiserver/pkg/endpoints/request). It imports only the standard
// library, so the filter chain can use it without the handlers.
package request

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
)

// Info is what the filters know about a request from its URL alone. For
// the checks that are not HTTP requests (escalate, bind, impersonate,
// SubjectAccessReview) it is filled by hand.
type Info struct {
	// IsResourceRequest is true under /api/<v>/... and /apis/<g>/<v>/...
	// when a resource is named (discovery documents are not resource requests).
	IsResourceRequest bool
	// Verb is get, list, watch, create, update, patch, delete or
	// deletecollection for resource requests, the lowercase HTTP method
	// otherwise.
	Verb        string
	APIGroup    string
	APIVersion  string
	Namespace   string
	Resource    string
	Subresource string
	Name        string
	Path        string
}

// IsLongRunning reports whether the request may stream for long (watches):
// they are exempt from the request timeout and the in-flight limits.
func (ri *Info) IsLongRunning() bool { return ri.Verb == "watch" }

// IsMutating reports whether the request writes.
func (ri *Info) IsMutating() bool {
	switch ri.Verb {
	case "create", "update", "patch", "delete", "deletecollection", "post", "put", "delete_nonresource":
		return true
	}
	return false
}

// Parse reads the request's URL the way kube-apiserver's request info
// resolver does.
func Parse(req *http.Request) *Info {
	ri := &Info{}
	ParseInto(req, ri)
	return ri
}

// ParseInto is Parse into ri, which it overwrites.
func ParseInto(req *http.Request, ri *Info) {
	*ri = Info{Path: req.URL.Path, Verb: LowerMethod(req.Method)}
	var buf [maxParts]string
	parts := splitPath(req.URL.Path, buf[:0])
	var rest []string
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		ri.APIVersion = parts[1]
		rest = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		ri.APIGroup, ri.APIVersion = parts[1], parts[2]
		rest = parts[3:]
	default:
		return
	}
	if len(rest) == 0 {
		return
	}
	// The deprecated /watch/... paths, which kube still serves: the verb
	// comes from the path, and the rest is read as without it.
	viaPath := false
	if rest[0] == "watch" && len(rest) >= 2 {
		viaPath = true
		rest = rest[1:]
	}
	// /namespaces/<ns>/<resource>... ; /namespaces and /namespaces/<ns>
	// themselves are the namespaces resource.
	if rest[0] == "namespaces" && len(rest) >= 3 {
		ri.Namespace = rest[1]
		rest = rest[2:]
	} else if rest[0] == "namespaces" && len(rest) == 2 {
		ri.Namespace = rest[1]
	}
	ri.IsResourceRequest = true
	ri.Resource = rest[0]
	if len(rest) >= 2 {
		ri.Name = rest[1]
	}
	if len(rest) >= 3 {
		ri.Subresource = rest[2]
	}
	isWatch := false
	switch req.Method {
	case http.MethodGet, http.MethodHead:
		// Only reads can be watches: other requests' queries are not parsed.
		isWatch = mayWatch(req.URL.RawQuery) && QueryBool(req.URL.Query(), "watch")
		switch {
		case isWatch && ri.Name == "":
			// A named GET is a get, ?watch or not, as on kube-apiserver.
			ri.Verb = "watch"
		case ri.Name == "":
			ri.Verb = "list"
		default:
			ri.Verb = "get"
		}
	case http.MethodPost:
		ri.Verb = "create"
	case http.MethodPut:
		ri.Verb = "update"
	case http.MethodPatch:
		ri.Verb = "patch"
	case http.MethodDelete:
		if ri.Name == "" {
			ri.Verb = "deletecollection"
		} else {
			ri.Verb = "delete"
		}
	}
	if !viaPath && ri.Name == "" && (ri.Verb == "list" || ri.Verb == "watch") && mayName(req.URL.RawQuery) {
		// A list or watch of one name by field selector is authorized
		// as that name, so that a role's resourceNames allow it, as on
		// kube-apiserver.
		if name, ok := exactName(req.URL.Query().Get("fieldSelector")); ok {
			ri.Name = name
		}
	}
	if viaPath {
		ri.Verb = "watch"
	}
}

// mayName reports whether a query may carry a field selector.
func mayName(rawQuery string) bool {
	return strings.Contains(rawQuery, "fieldSelector") || strings.ContainsRune(rawQuery, '%')
}

// exactName is the name a field selector requires, as apimachinery's
// fields.Selector.RequiresExactMatch("metadata.name") gives it: one of
// its comma-separated terms is metadata.name=<name> (or ==). A selector
// that does not parse gives none, as does a name that could not be a path
// segment.
func exactName(selector string) (string, bool) {
	name, found := "", false
	terms := splitUnescaped(selector, ',')
	slices.Sort(terms) // apimachinery sorts them: the first name in order wins
	for _, term := range terms {
		if term == "" {
			continue
		}
		field, op, value, ok := splitTerm(term)
		if !ok {
			return "", false // kube's parse fails: no name
		}
		v, ok := unescapeValue(value)
		if !ok {
			return "", false
		}
		if op != "!=" && field == "metadata.name" && !found {
			name, found = v, true
		}
	}
	if !found || name == "." || name == ".." || strings.ContainsAny(name, "/%") {
		return "", false
	}
	return name, true
}

// splitUnescaped splits s at each sep not escaped by a backslash.
func splitUnescaped(s string, sep byte) []string {
	var out []string
	start, escaped := 0, false
	for i := 0; i < len(s); i++ {
		switch {
		case escaped:
			escaped = false
		case s[i] == '\\':
			escaped = true
		case s[i] == sep:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// splitTerm finds a term's first operator, trying "!=", "==" and "=" at
// each position as apimachinery's field selector parser does.
func splitTerm(term string) (field, op, value string, ok bool) {
	for i := range term {
		for _, op := range [...]string{"!=", "==", "="} {
			if strings.HasPrefix(term[i:], op) {
				return term[:i], op, term[i+len(op):], true
			}
		}
	}
	return "", "", "", false
}

// unescapeValue undoes a field selector value's escapes (\\, \, and \=);
// any other escape, or an unescaped "," or "=", fails, as in apimachinery,
// whose rune-wise rewrite also turns invalid UTF-8 into U+FFFD.
func unescapeValue(v string) (string, bool) {
	if !strings.ContainsAny(v, "\\,=") {
		return v, true
	}
	var b strings.Builder
	escaped := false
	for _, c := range v {
		if escaped {
			if c != '\\' && c != ',' && c != '=' {
				return "", false
			}
			b.WriteRune(c)
			escaped = false
			continue
		}
		switch c {
		case '\\':
			escaped = true
		case ',', '=':
			return "", false
		default:
			b.WriteRune(c)
		}
	}
	if escaped {
		return "", false
	}
	return b.String(), true
}

// mayWatch reports whether a query may name the watch parameter, so that
// the query of most reads is not parsed here (the handler parses it).
// A key may be escaped ("w%61tch"): any escape is parsed.
func mayWatch(rawQuery string) bool {
	return strings.Contains(rawQuery, "watch") || strings.ContainsRune(rawQuery, '%')
}

// LowerMethod is strings.ToLower(m) without allocating for the usual
// methods.
func LowerMethod(m string) string {
	switch m {
	case http.MethodGet:
		return "get"
	case http.MethodPost:
		return "post"
	case http.MethodPut:
		return "put"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	case http.MethodHead:
		return "head"
	}
	return strings.ToLower(m)
}

// QueryBool reads a boolean query parameter as kube-apiserver's parameter
// codec does: absent, "false" or "0" (any case) is false, anything else
// true (?watch=yes is a watch). The filters and the handlers both read
// ?watch through it, so a request is a watch for all of them or none.
func QueryBool(q url.Values, name string) bool {
	vs, ok := q[name]
	if !ok || len(vs) == 0 {
		return false
	}
	switch strings.ToLower(vs[0]) {
	case "false", "0":
		return false
	}
	return true
}

// maxParts is more path segments than any resource path has (the longest,
// /apis/<g>/<v>/namespaces/<ns>/<resource>/<name>/<sub>, has eight);
// splitPath appends to a buffer of that size without allocating.
const maxParts = 9

// splitPath appends the segments of p (leading and trailing slashes
// trimmed) to dst.
func splitPath(p string, dst []string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return dst
	}
	for {
		seg, rest, found := strings.Cut(p, "/")
		dst = append(dst, seg)
		if !found {
			return dst
		}
		p = rest
	}
}

// State is what the filter chain knows of one request, in one context
// value placed once by WithState: the request info, and the values other
// packages keep per request (the user, the audit record), which the
// filters set in place rather than each copying the request with
// http.Request.WithContext (a copy of the request and a context value
// each: about 1.5 KB of a small get's allocations went to eight of them).
//
// A filter sets a slot before it hands the request on, never after, so
// the handlers and the goroutines they start read it without locks.
type State struct {
	// Info is the request info, parsed once.
	Info  Info
	slots [numSlots]any
	// handled records that a filter, not a resource handler, answered
	// (runtime/filters counts those in its metrics).
	handled atomic.Bool
	// endWatched: the request's context ends when the server's end
	// context for it does (runtime/filters' Options.EndWith).
	endWatched bool
}

// Slot names a value a State holds for another package. It is also that
// package's context key: WithValue(ctx, slot, v) inside the state's
// context shadows the state's value, as any context value does.
type Slot int

// The slots; each is owned by the package named.
const (
	// SlotUser is runtime/auth's user.
	SlotUser Slot = iota
	// SlotAuditRecord is runtime/audit's record of the request.
	SlotAuditRecord
	numSlots
)

// Set stores v in slot s (before the request is handed on; see State).
func (st *State) Set(s Slot, v any) { st.slots[s] = v }

// SetIn makes v the value of slot s in ctx: in place in the request's
// State when ctx has one (the filter chain), else as a context value
// keyed by s, which State's context also answers.
func SetIn(ctx context.Context, s Slot, v any) context.Context {
	if st := StateFrom(ctx); st != nil {
		st.Set(s, v)
		return ctx
	}
	return context.WithValue(ctx, s, v)
}

// SetEndWatched records that the request's context ends with the end
// context the filters were given for it (before the request is handed on).
func (st *State) SetEndWatched() { st.endWatched = true }

// EndWatched reports whether SetEndWatched was called.
func (st *State) EndWatched() bool { return st.endWatched }

// MarkHandled records that a filter answered the request.
func (st *State) MarkHandled() { st.handled.Store(true) }

// Handled reports whether MarkHandled was called.
func (st *State) Handled() bool { return st.handled.Load() }

type stateKey struct{}

// stateContext is the context that carries a State: one allocation for
// both.
type stateContext struct {
	context.Context
	st State
}

func (c *stateContext) Value(key any) any {
	switch k := key.(type) {
	case stateKey:
		return &c.st
	case infoKey:
		return &c.st.Info
	case Slot:
		if v := c.st.slots[k]; v != nil {
			return v
		}
	}
	return c.Context.Value(key)
}

// String names the context as the standard library's do.
func (c *stateContext) String() string { return "request.WithState" }

// WithState returns a context that carries a new State holding the
// request info ri.
func WithState(ctx context.Context, ri Info) (context.Context, *State) {
	c := &stateContext{Context: ctx}
	c.st.Info = ri
	return c, &c.st
}

// StateFrom returns the request's State, nil outside the filter chain.
func StateFrom(ctx context.Context) *State {
	st, _ := ctx.Value(stateKey{}).(*State)
	return st
}

type infoKey struct{}

// WithInfo returns a context that carries ri.
func WithInfo(ctx context.Context, ri *Info) context.Context {
	return context.WithValue(ctx, infoKey{}, ri)
}

// InfoFrom returns the info stored by WithInfo or WithState, if any.
func InfoFrom(ctx context.Context) (*Info, bool) {
	ri, ok := ctx.Value(infoKey{}).(*Info)
	return ri, ok && ri != nil
}

// InfoOf returns the info the filter chain stored in req's context, or
// parses it: handlers reached without the chain (tests, in-process calls)
// see the same answer.
func InfoOf(req *http.Request) *Info {
	if ri, ok := InfoFrom(req.Context()); ok {
		return ri
	}
	return Parse(req)
}

// HasBody reports whether req may carry a body. Go's HTTP/1.1 server gives
// a request without one http.NoBody; its HTTP/2 server gives a stream the
// client ended with its headers a reader that returns EOF at once, a zero
// ContentLength and no Content-Length header (an open stream without the
// header has -1). Such a request has no body to wait for (over HTTP/2
// each read deadline set is a message to the connection's goroutine and a
// timer: four per GET before the filters checked) or to read (a DELETE's
// io.ReadAll took a 512-byte buffer for nothing).
func HasBody(req *http.Request) bool {
	if req.Body == nil || req.Body == http.NoBody {
		return false
	}
	if req.ProtoMajor == 2 && req.ContentLength == 0 {
		_, declared := req.Header["Content-Length"]
		return declared
	}
	return true
}

// IsWebSocket reports whether r asks to upgrade its HTTP/1.1 connection
// to a WebSocket, as apimachinery's wsstream decides it: Upgrade is
// "websocket" and Connection holds the token "upgrade".
func IsWebSocket(r *http.Request) bool {
	if !strings.EqualFold(strings.TrimSpace(r.Header.Get("Upgrade")), "websocket") {
		return false
	}
	for _, v := range r.Header.Values("Connection") {
		for _, token := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(token), "upgrade") {
				return true
			}
		}
	}
	return false
}
