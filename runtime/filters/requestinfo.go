package filters

import (
	"context"
	"net/http"
	"strings"

	"github.com/kubeforge/kubeforge/runtime/endpoints"
)

// RequestInfo is what the filters know about a request from its URL alone.
type RequestInfo struct {
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
func (ri *RequestInfo) IsLongRunning() bool { return ri.Verb == "watch" }

// IsMutating reports whether the request writes.
func (ri *RequestInfo) IsMutating() bool {
	switch ri.Verb {
	case "create", "update", "patch", "delete", "deletecollection", "post", "put", "delete_nonresource":
		return true
	}
	return false
}

// ParseRequestInfo reads the request's URL the way kube-apiserver's request
// info resolver does.
func ParseRequestInfo(req *http.Request) *RequestInfo {
	ri := &RequestInfo{Path: req.URL.Path, Verb: strings.ToLower(req.Method)}
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
	isWatch := endpoints.QueryBool(req.URL.Query(), "watch")
	switch req.Method {
	case http.MethodGet, http.MethodHead:
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

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

type requestInfoKey struct{}

// WithRequestInfo parses the request info once and stores it in the context.
func WithRequestInfo(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ri := ParseRequestInfo(req)
		next.ServeHTTP(w, req.WithContext(context.WithValue(req.Context(), requestInfoKey{}, ri)))
	})
}

// RequestInfoFrom returns the request info stored by WithRequestInfo, or
// parses it.
func RequestInfoFrom(req *http.Request) *RequestInfo {
	if ri, ok := req.Context().Value(requestInfoKey{}).(*RequestInfo); ok {
		return ri
	}
	return ParseRequestInfo(req)
}
