package builtinkinds_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	restful "github.com/emicklei/go-restful/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubeforge/kubeforge/generated"
	corev1gen "github.com/kubeforge/kubeforge/generated/core/v1"
	"github.com/kubeforge/kubeforge/runtime/builtinkinds"
	"github.com/kubeforge/kubeforge/runtime/resource"
	"github.com/kubeforge/kubeforge/runtime/server"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// handlers serves every computed resource, or none, and keeps the targets
// it was asked for.
type handlers struct {
	serve   bool
	targets *[]string
}

func (h handlers) fn(t builtinkinds.Target) restful.RouteFunction {
	if h.targets != nil {
		*h.targets = append(*h.targets, t.Resource+"/"+t.Subresource+" "+t.GVK.String())
	}
	if !h.serve {
		return nil
	}
	return func(*restful.Request, *restful.Response) {}
}

func (h handlers) ServiceAccountToken(t builtinkinds.Target) restful.RouteFunction { return h.fn(t) }
func (h handlers) SelfSubjectReview(t builtinkinds.Target) restful.RouteFunction   { return h.fn(t) }
func (h handlers) TokenReview(t builtinkinds.Target) restful.RouteFunction         { return h.fn(t) }
func (h handlers) SelfSubjectAccessReview(t builtinkinds.Target) restful.RouteFunction {
	return h.fn(t)
}
func (h handlers) SubjectAccessReview(t builtinkinds.Target) restful.RouteFunction { return h.fn(t) }
func (h handlers) LocalSubjectAccessReview(t builtinkinds.Target) restful.RouteFunction {
	return h.fn(t)
}
func (h handlers) SelfSubjectRulesReview(t builtinkinds.Target) restful.RouteFunction { return h.fn(t) }

// TestComputedGroups: the review group-versions' discovery rows and routes
// come from the same rows; a server serving none gets none.
func TestComputedGroups(t *testing.T) {
	if gvs := builtinkinds.ComputedGroups(handlers{}, server.NewWebService); len(gvs) != 0 {
		t.Errorf("nothing served, got %d group-versions", len(gvs))
	}
	var targets []string
	gvs := builtinkinds.ComputedGroups(handlers{serve: true, targets: &targets}, server.NewWebService)
	if want := []string{
		"selfsubjectreviews/ authentication.k8s.io/v1, Kind=SelfSubjectReview",
		"tokenreviews/ authentication.k8s.io/v1, Kind=TokenReview",
		"localsubjectaccessreviews/ authorization.k8s.io/v1, Kind=LocalSubjectAccessReview",
		"selfsubjectaccessreviews/ authorization.k8s.io/v1, Kind=SelfSubjectAccessReview",
		"selfsubjectrulesreviews/ authorization.k8s.io/v1, Kind=SelfSubjectRulesReview",
		"subjectaccessreviews/ authorization.k8s.io/v1, Kind=SubjectAccessReview",
	}; !slices.Equal(targets, want) {
		t.Errorf("handlers asked for\n%s\nwant\n%s", strings.Join(targets, "\n"), strings.Join(want, "\n"))
	}
	want := map[string][]string{
		"authentication.k8s.io": {"POST /apis/authentication.k8s.io/v1/selfsubjectreviews createAuthenticationV1SelfSubjectReview",
			"POST /apis/authentication.k8s.io/v1/tokenreviews createAuthenticationV1TokenReview"},
		"authorization.k8s.io": {"POST /apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews createAuthorizationV1NamespacedLocalSubjectAccessReview",
			"POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews createAuthorizationV1SelfSubjectAccessReview",
			"POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews createAuthorizationV1SelfSubjectRulesReview",
			"POST /apis/authorization.k8s.io/v1/subjectaccessreviews createAuthorizationV1SubjectAccessReview"},
	}
	if len(gvs) != 2 || gvs[0].Group != "authentication.k8s.io" || gvs[1].Group != "authorization.k8s.io" {
		t.Fatalf("group-versions %+v", gvs)
	}
	for _, gv := range gvs {
		var routes []string
		for _, r := range gv.WebService.Routes() {
			routes = append(routes, r.Method+" "+r.Path+" "+r.Operation)
		}
		if !slices.Equal(routes, want[gv.Group]) {
			t.Errorf("%s routes:\n%s\nwant\n%s", gv.Group, strings.Join(routes, "\n"), strings.Join(want[gv.Group], "\n"))
		}
		if len(gv.Resources) != len(routes) {
			t.Fatalf("%s: %d resources for %d routes", gv.Group, len(gv.Resources), len(routes))
		}
		for i, info := range gv.Resources {
			if !strings.HasSuffix(gv.WebService.Routes()[i].Path, "/"+info.Plural) || !slices.Equal(info.Verbs, []string{"create"}) || gv.Version != "v1" {
				t.Errorf("%s: resource %+v for route %s", gv.Group, info, gv.WebService.Routes()[i].Path)
			}
			if k, ok := builtinkinds.Lookup(info.GroupResource()); !ok || k.Computed == nil || k.Computed.Info != info {
				t.Errorf("%s is not its table row's", info.GroupResource())
			}
		}
	}
}

// TestAddSubresources: the token subresource is routed and listed on a
// copy of the ServiceAccount row; the generated row is left as it is.
func TestAddSubresources(t *testing.T) {
	sa := corev1gen.ServiceAccountInfo
	resources := []*resource.Info{&corev1gen.ConfigMapInfo, &sa}
	ws := server.NewWebService("", "v1")
	if got := builtinkinds.AddSubresources(ws, resources, handlers{}); got[1] != &sa || len(ws.Routes()) != 0 {
		t.Errorf("no token issuer: serviceaccounts copied: %t, %d routes", got[1] != &sa, len(ws.Routes()))
	}
	var targets []string
	got := builtinkinds.AddSubresources(ws, resources, handlers{serve: true, targets: &targets})
	if want := "serviceaccounts/token authentication.k8s.io/v1, Kind=TokenRequest"; len(targets) != 1 || targets[0] != want {
		t.Errorf("handlers asked for %q, want %q", targets, want)
	}
	if got[0] != &corev1gen.ConfigMapInfo || got[1] == &sa || !slices.Equal(got[1].Subresources, []string{"token"}) || len(sa.Subresources) != 0 {
		t.Errorf("configmaps kept: %t, serviceaccounts copied: %t with subresources %v, generated row's %v", got[0] == &corev1gen.ConfigMapInfo, got[1] != &sa, got[1].Subresources, sa.Subresources)
	}
	if rs := ws.Routes(); len(rs) != 1 || rs[0].Path != "/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token" || rs[0].Operation != "createCoreV1NamespacedServiceAccountToken" {
		t.Errorf("routes %+v", rs)
	}
}

// collection is a Collection that is no typed store.
type collection struct{ info *resource.Info }

var _ storage.Collection = collection{}

func (c collection) Info() *resource.Info                                      { return c.info }
func (c collection) DeleteAllInNamespace(context.Context, string) (int, error) { return 0, nil }

func TestAttachRefusesUntypedStore(t *testing.T) {
	var rs struct {
		sa builtinkinds.Store[*corev1.ServiceAccount, *corev1.ServiceAccountList]
	}
	err := builtinkinds.Attach(collection{&corev1gen.ServiceAccountInfo}, builtinkinds.Stores{ServiceAccounts: &rs.sa})
	if err == nil || !strings.Contains(err.Error(), "storage.Interface[*v1.ServiceAccount, *v1.ServiceAccountList]") || rs.sa != nil {
		t.Errorf("untyped serviceaccounts store: %v", err)
	}
	other := resource.Info{Group: "example.dev", Version: "v1", Plural: "serviceaccounts"}
	if err := builtinkinds.Attach(collection{&other}, builtinkinds.Stores{}); err != nil {
		t.Errorf("a resource the table does not name: %v", err)
	}
}

// startSecure starts a secure server with the generated kinds and returns
// its admin client configuration and HTTP client.
func startSecure(t *testing.T) (*rest.Config, *http.Client) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	s, err := server.New(ctx, server.Config{DataDir: dir, Port: 0, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if err := generated.Install(s); err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			t.Error("server did not stop within 60 s")
		}
	})
	select {
	case <-s.Ready():
	case err := <-done:
		t.Fatalf("run: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("server not ready after 60 s")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", s.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, hc
}

// TestServed: a secure server serves and lists the token subresource and
// the reviews from the table, and they answer.
func TestServed(t *testing.T) {
	cfg, hc := startSecure(t)
	call := func(method, path string, body any, header ...string) (int, map[string]any) {
		t.Helper()
		var r io.Reader
		if body != nil {
			data, _ := json.Marshal(body)
			r = bytes.NewReader(data)
		}
		req, _ := http.NewRequest(method, cfg.Host+path, r)
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}

	_, core := call("GET", "/api/v1", nil)
	if !listed(core, "serviceaccounts/token", "TokenRequest", "authentication.k8s.io") {
		t.Errorf("/api/v1 lacks serviceaccounts/token: %v", core)
	}
	_, agg := call("GET", "/api", nil, "Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
	if sub := aggregatedSubresource(agg, "serviceaccounts", "token"); field(sub, "responseKind", "kind") != "TokenRequest" || fmt.Sprint(sub["verbs"]) != "[create]" {
		t.Errorf("aggregated discovery of serviceaccounts/token: %v", sub)
	}
	if slices.Contains(corev1gen.ServiceAccountInfo.Subresources, "token") {
		t.Error("the generated ServiceAccountInfo was changed")
	}
	for gv, names := range map[string][]string{
		"authentication.k8s.io/v1": {"selfsubjectreviews", "tokenreviews"},
		"authorization.k8s.io/v1":  {"localsubjectaccessreviews", "selfsubjectaccessreviews", "selfsubjectrulesreviews", "subjectaccessreviews"},
	} {
		_, list := call("GET", "/apis/"+gv, nil)
		for _, n := range names {
			if !listed(list, n, "", "") {
				t.Errorf("/apis/%s lacks %s: %v", gv, n, list)
			}
		}
	}

	if code, _ := call("POST", "/api/v1/namespaces/default/serviceaccounts", corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot"}}); code != 201 {
		t.Fatalf("create serviceaccount: %d", code)
	}
	code, tr := call("POST", "/api/v1/namespaces/default/serviceaccounts/robot/token", map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest"})
	token, _ := field(tr, "status", "token").(string)
	if code != 201 || token == "" {
		t.Fatalf("token request: %d %v", code, tr)
	}
	// Tokens are checked against a watch-fed copy of the ServiceAccounts,
	// which may not hold robot yet.
	var rev map[string]any
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		code, rev = call("POST", "/apis/authentication.k8s.io/v1/tokenreviews", map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": map[string]any{"token": token}})
		if code != 201 || field(rev, "status", "authenticated") == true || time.Now().After(deadline) {
			break
		}
	}
	if code != 201 || field(rev, "status", "user", "username") != "system:serviceaccount:default:robot" {
		t.Errorf("token review: %d %v", code, rev)
	}
	code, ssar := call("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", map[string]any{"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
		"spec": map[string]any{"resourceAttributes": map[string]any{"verb": "get", "resource": "secrets", "namespace": "default"}}})
	if code != 201 || field(ssar, "status", "allowed") != true {
		t.Errorf("self subject access review: %d %v", code, ssar)
	}
	code, lsar := call("POST", "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews", map[string]any{"apiVersion": "authorization.k8s.io/v1", "kind": "LocalSubjectAccessReview",
		"spec": map[string]any{"user": "alice", "resourceAttributes": map[string]any{"verb": "get", "resource": "secrets", "namespace": "other"}}})
	if code != 400 {
		t.Errorf("local subject access review in another namespace: %d %v", code, lsar)
	}

	if code, v2 := call("GET", "/openapi/v2", nil); code != 200 || field(v2, "paths", "/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token", "post") == nil ||
		field(v2, "paths", "/apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews", "post") == nil {
		t.Errorf("openapi v2 (%d) lacks the token or a review", code)
	}
	_, doc := call("GET", "/openapi/v3/api/v1", nil)
	op, _ := field(doc, "paths", "/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token", "post").(map[string]any)
	if op["operationId"] != "createCoreV1NamespacedServiceAccountToken" || field(op, "x-kubernetes-group-version-kind", "kind") != "TokenRequest" {
		t.Errorf("openapi token operation: %v", op)
	}
}

// aggregatedSubresource returns the subresource sub of resource in an
// APIGroupDiscoveryList, nil when not listed.
func aggregatedSubresource(list map[string]any, resource, sub string) map[string]any {
	groups, _ := list["items"].([]any)
	for _, g := range groups {
		versions, _ := field(g.(map[string]any), "versions").([]any)
		for _, v := range versions {
			rs, _ := v.(map[string]any)["resources"].([]any)
			for _, r := range rs {
				rm, _ := r.(map[string]any)
				if rm["resource"] != resource {
					continue
				}
				subs, _ := rm["subresources"].([]any)
				for _, sr := range subs {
					if m, _ := sr.(map[string]any); m["subresource"] == sub {
						return m
					}
				}
			}
		}
	}
	return nil
}

// listed reports whether an APIResourceList names resource name (of kind
// in group, when given).
func listed(list map[string]any, name, kind, group string) bool {
	rs, _ := list["resources"].([]any)
	for _, r := range rs {
		m, _ := r.(map[string]any)
		if m["name"] == name && (kind == "" || m["kind"] == kind && m["group"] == group) {
			return true
		}
	}
	return false
}

func field(obj map[string]any, path ...string) any {
	var v any = obj
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}
