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
	"strings"
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
	ri := &Info{Path: req.URL.Path, Verb: strings.ToLower(req.Method)}
	parts := splitPath(req.URL.Path)
	var rest []string
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		ri.APIVersion = parts[1]
		rest = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		ri.APIGroup, ri.APIVersion = parts[1], parts[2]
		rest = parts[3:]
	default:
		return ri
	}
	if len(rest) == 0 {
		return ri
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
		isWatch = QueryBool(req.URL.Query(), "watch")
		switch {
		case isWatch:
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
	if ri.Verb == "list" && isWatch {
		ri.Verb = "watch"
	}
	return ri
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

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

type infoKey struct{}

// WithInfo returns a context that carries ri.
func WithInfo(ctx context.Context, ri *Info) context.Context {
	return context.WithValue(ctx, infoKey{}, ri)
}

// InfoFrom returns the info stored by WithInfo, if any.
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
