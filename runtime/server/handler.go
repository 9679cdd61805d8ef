package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	restful "github.com/emicklei/go-restful/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"

	"github.com/kubeforge/kubeforge/runtime/builtinkinds"
	"github.com/kubeforge/kubeforge/runtime/discovery"
	"github.com/kubeforge/kubeforge/runtime/endpoints"
	"github.com/kubeforge/kubeforge/runtime/filters"
	"github.com/kubeforge/kubeforge/runtime/openapi"
	"github.com/kubeforge/kubeforge/runtime/request"
	"github.com/kubeforge/kubeforge/runtime/serviceaccount"
)

// GitVersion is the version the server reports (/version, OpenAPI info):
// the Kubernetes API it follows, marked as kubeforge.
const GitVersion = "v1.37.0-kubeforge"

// VersionInfo is what /version serves.
func VersionInfo() version.Info {
	info := version.Info{
		Major:        "1",
		Minor:        "37",
		GitVersion:   GitVersion,
		GitTreeState: "clean",
		GoVersion:    runtime.Version(),
		Compiler:     runtime.Compiler,
		Platform:     runtime.GOOS + "/" + runtime.GOARCH,
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.GitCommit = s.Value
			case "vcs.time":
				info.BuildDate = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					info.GitTreeState = "dirty"
				}
			}
		}
	}
	return info
}

func notFound(w http.ResponseWriter, req *http.Request) {
	filters.WriteStatus(w, req, http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource", nil)
}

func notAcceptable(w http.ResponseWriter, req *http.Request) {
	filters.WriteStatus(w, req, http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
		"only the following media types are accepted: application/json", nil)
}

// serviceError renders go-restful's routing errors (404, 405, 406, 415) as
// Status objects.
func serviceError(serr restful.ServiceError, req *restful.Request, resp *restful.Response) {
	for k, vs := range serr.Header {
		for _, v := range vs {
			resp.Header().Add(k, v)
		}
	}
	reason := metav1.StatusReasonUnknown
	msg := serr.Message
	switch serr.Code {
	case http.StatusNotFound:
		reason, msg = metav1.StatusReasonNotFound, "the server could not find the requested resource"
	case http.StatusMethodNotAllowed:
		// apimachinery's generic message, which kube-apiserver's routing
		// errors carry.
		reason, msg = metav1.StatusReasonMethodNotAllowed, "the server does not allow this method on the requested resource"
	case http.StatusNotAcceptable:
		// kube-apiserver's negotiation error, which names its serializers.
		reason = metav1.StatusReasonNotAcceptable
		accepted := "application/json, application/yaml"
		if builtinGroup(request.InfoOf(req.Request).APIGroup) {
			accepted += ", " + endpoints.MediaTypeProtobuf
		}
		msg = "only the following media types are accepted: " + accepted
	case http.StatusUnsupportedMediaType:
		reason = metav1.StatusReasonUnsupportedMediaType
		if req.Request.Method != http.MethodPatch {
			// kube-apiserver's create and update routes take any body
			// and its decoder answers this: protobuf too for Kubernetes'
			// own kinds, not for a custom resource.
			accepted := "application/json, application/yaml"
			if builtinGroup(request.InfoOf(req.Request).APIGroup) {
				accepted += ", " + endpoints.MediaTypeProtobuf
			}
			msg = "the body of the request was in an unknown format - accepted media types include: " + accepted
		}
	}
	filters.WriteStatus(resp.ResponseWriter, req.Request, serr.Code, reason, msg, nil)
}

// healthCheck is one named check of /healthz, /livez and /readyz.
type healthCheck struct {
	name  string
	check func(ctx context.Context) error
}

func (s *Server) healthChecks(kind string) []healthCheck {
	checks := []healthCheck{{name: "ping", check: func(context.Context) error { return nil }}}
	if kind == "livez" {
		return checks
	}
	checks = append(checks, healthCheck{name: "etcd", check: func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		return s.backend.Ready(ctx)
	}})
	if kind == "readyz" {
		checks = append(checks, healthCheck{name: "etcd-space", check: func(context.Context) error {
			if s.noSpace.Load() {
				return fmt.Errorf("etcd is out of space (NOSPACE alarm): writes are refused")
			}
			return nil
		}})
		if s.delegation != nil {
			checks = append(checks, healthCheck{name: "main-cluster-authentication", check: s.delegationCheck})
		}
		for _, step := range s.steps {
			checks = append(checks, healthCheck{name: "poststarthook/" + step.name, check: func(context.Context) error {
				if !step.done.Load() {
					return errStepPending
				}
				return nil
			}})
		}
		checks = append(checks, healthCheck{name: "shutdown", check: func(context.Context) error {
			select {
			case <-s.stopCh:
				return fmt.Errorf("server is shutting down")
			default:
				return nil
			}
		}})
	}
	return checks
}

// serveHealth answers /<kind>, /<kind>/<check>; ?verbose lists the checks,
// ?exclude=<check> skips some.
func (s *Server) serveHealth(w http.ResponseWriter, req *http.Request, kind string) {
	checks := s.healthChecks(kind)
	rest := strings.Trim(strings.TrimPrefix(req.URL.Path, "/"+kind), "/")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-cache, private")
	if rest != "" {
		for _, c := range checks {
			if c.name == rest {
				if err := c.check(req.Context()); err != nil {
					s.log.Info("health check failed", "check", kind+"/"+c.name, "err", err)
					http.Error(w, fmt.Sprintf("internal server error: %s", err), http.StatusInternalServerError)
					return
				}
				_, _ = w.Write([]byte("ok"))
				return
			}
		}
		notFound(w, req)
		return
	}
	excluded := map[string]bool{}
	for _, e := range req.URL.Query()["exclude"] {
		excluded[e] = true
	}
	var b strings.Builder
	failed := false
	for _, c := range checks {
		if excluded[c.name] {
			fmt.Fprintf(&b, "[+]%s excluded: ok\n", c.name)
			continue
		}
		if err := c.check(req.Context()); err != nil {
			failed = true
			s.log.Info("health check failed", "check", kind+"/"+c.name, "err", err)
			fmt.Fprintf(&b, "[-]%s failed: reason withheld\n", c.name)
			continue
		}
		fmt.Fprintf(&b, "[+]%s ok\n", c.name)
	}
	_, verbose := req.URL.Query()["verbose"]
	if failed {
		fmt.Fprintf(&b, "%s check failed\n", kind)
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(b.String()))
		return
	}
	if verbose {
		fmt.Fprintf(&b, "%s check passed\n", kind)
		_, _ = w.Write([]byte(b.String()))
		return
	}
	_, _ = w.Write([]byte("ok"))
}

func writeJSON(w http.ResponseWriter, v any) {
	body, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(append(body, '\n'))
}

// discoveryGroupVersion is what discovery lists of gv: its resources and
// the subresources served with a kind of their own.
func (s *Server) discoveryGroupVersion(gv GroupVersion) discovery.GroupVersion {
	subKinds := builtinkinds.SubresourceKinds(gv.Resources)
	if gv.Group == "" && gv.Version == "v1" && s.lifecycle != nil {
		// addNamespaceFinalize's route, listed as kube-apiserver lists it.
		if subKinds == nil {
			subKinds = map[string]discovery.SubresourceKind{}
		}
		subKinds["namespaces/finalize"] = discovery.SubresourceKind{
			Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Namespace"}, Verbs: []string{"update"}}
	}
	return discovery.GroupVersion{Group: gv.Group, Version: gv.Version, Resources: gv.Resources, SubresourceKinds: subKinds}
}

// buildHandler assembles discovery, OpenAPI, health, version, metrics and
// the resource routes behind the filter chain.
func (s *Server) buildHandler(groups []GroupVersion) (http.Handler, error) {
	var dgvs []discovery.GroupVersion
	var ogvs []openapi.GroupVersion
	paths := []string{"/api", "/apis", "/healthz", "/livez", "/metrics", "/openapi/v2", "/openapi/v3", "/readyz", "/version"}
	if s.oidc != nil {
		paths = append(paths, serviceaccount.OpenIDConfigPath, serviceaccount.JWKSPath)
	}
	for _, gv := range groups {
		dgvs = append(dgvs, s.discoveryGroupVersion(gv))
		ogvs = append(ogvs, openapi.GroupVersion{Group: gv.Group, Version: gv.Version, WebService: gv.WebService, Schemas: gv.Schemas})
		paths = append(paths, RootPath(gv.Group, gv.Version))
		if gv.Group != "" {
			paths = append(paths, "/apis/"+gv.Group)
		}
	}
	sort.Strings(paths)
	paths = compact(paths)
	disc, err := discovery.New(dgvs)
	if err != nil {
		return nil, fmt.Errorf("build discovery: %w", err)
	}
	s.discovery = disc
	oapi, err := openapi.New(ogvs, GitVersion)
	if err != nil {
		return nil, fmt.Errorf("build openapi: %w", err)
	}
	router := endpoints.NewRouter(s.container.RegisteredWebServices())
	s.container.Router(router)
	s.container.ServiceErrorHandler(serviceError)
	// Panics are handled by the recovery filter, with a Status body.
	s.container.DoNotRecover(true)
	versionInfo := VersionInfo()
	metricsHandler := s.metrics.Handler()

	mux := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		p := req.URL.Path
		first, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
		switch first {
		case "healthz", "livez", "readyz":
			s.serveHealth(w, req, first)
			return
		case "version":
			if p == "/version" || p == "/version/" {
				writeJSON(w, versionInfo)
				return
			}
		case "metrics":
			if p == "/metrics" {
				metricsHandler.ServeHTTP(w, req)
				return
			}
		case "":
			writeJSON(w, map[string][]string{"paths": paths})
			return
		case ".well-known", "openid":
			if s.oidc != nil && (p == serviceaccount.OpenIDConfigPath || p == serviceaccount.JWKSPath) {
				if req.Method != http.MethodGet && req.Method != http.MethodHead {
					w.Header().Set("Allow", "GET")
					filters.WriteStatus(w, req, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed, "the server does not allow this method on the requested resource", nil)
					return
				}
				if s.oidc.Serve(w, req) {
					return
				}
			}
		case "openapi":
			if oapi.Serve(w, req, notAcceptable, notFound) {
				return
			}
		case "api", "apis":
			ri := request.InfoOf(req)
			// Discovery documents are never resource requests (they have
			// fewer path segments than any resource path).
			if !ri.IsResourceRequest && disc.Serve(w, req, notFound) {
				return
			}
			if ri.IsLongRunning() {
				// Watches end when shutdown starts, whatever the handler.
				ctx, cancel := context.WithCancel(req.Context())
				defer cancel()
				go func() {
					select {
					case <-s.stopCh:
						cancel()
					case <-ctx.Done():
					}
				}()
				req = req.WithContext(ctx)
			}
			if (req.Method == http.MethodPost || req.Method == http.MethodPut) && req.Header.Get("Content-Type") == "" {
				// kube-apiserver reads a body without a Content-Type as JSON
				// (its first media type); client-go's scale client sends
				// none (kubectl scale --resource-version).
				req.Header.Set("Content-Type", "application/json")
			}
			// The route remembered for the request's shape, served
			// directly; else go-restful selects one (and the router
			// remembers it) or answers 404, 405, 406 or 415.
			if !router.Serve(w, req) {
				s.container.Dispatch(w, req)
			}
			return
		}
		notFound(w, req)
	})
	authenticate, authorizer := s.filterAuth()
	return filters.Chain(s.withEtcdAvailable(mux), filters.Options{
		Authenticate:        authenticate,
		Authorizer:          authorizer,
		Logger:              s.log,
		RequestTimeout:      s.cfg.RequestTimeout,
		MaxRequestBodyBytes: s.cfg.MaxRequestBodyBytes,
		MaxMutatingInFlight: s.cfg.MaxMutatingInFlight,
		MaxReadOnlyInFlight: s.cfg.MaxReadOnlyInFlight,
		InFlight:            s.metrics.InFlight,
		Observe:             s.metrics.ObserveRequest,
		Auditor:             s.auditor,
		EndWith:             s.etcdEnd,
	}), nil
}

func compact(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
