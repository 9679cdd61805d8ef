package server

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	restful "github.com/emicklei/go-restful/v3"
	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/kubeforge/kubeforge/internal/freeport"
	"github.com/kubeforge/kubeforge/runtime/discovery"
	"github.com/kubeforge/kubeforge/runtime/fieldmanager"
	"github.com/kubeforge/kubeforge/runtime/openapi"
	"github.com/kubeforge/kubeforge/runtime/openapidefs"
	"github.com/kubeforge/kubeforge/runtime/resource"
)

const (
	testGroup  = "test.kubeforge.dev"
	widgetName = "dev.kubeforge.test.v1.Widget"
)

// slowInFlight is signalled when a GET of widget "slow" is being served, so
// a test knows the request holds its in-flight slot.
var slowInFlight = make(chan struct{}, 1)

var widgetInfo = resource.Info{
	Group: testGroup, Version: "v1", Kind: "Widget", ListKind: "WidgetList",
	Plural: "widgets", Singular: "widget", Namespaced: true,
	ShortNames: []string{"wd"}, Categories: []string{"all"},
	Subresources: []string{"status"}, StorageVersion: "v1", ServedVersions: []string{"v1"},
}

var gadgetInfo = resource.Info{
	Group: testGroup, Version: "v1alpha1", Kind: "Gadget", ListKind: "GadgetList",
	Plural: "gadgets", Singular: "gadget", Namespaced: false,
}

var widgetSchema = json.RawMessage(`{"type":"object","properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"metadata":{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},"spec":{"type":"object"}},"x-kubernetes-group-version-kind":[{"group":"test.kubeforge.dev","version":"v1","kind":"Widget"}]}`)

// testGroupVersion is a hand-written group-version with routes shaped like
// the generated ones, and handlers that exercise the filters.
func testGroupVersion(t *testing.T) GroupVersion {
	ws := NewWebService(testGroup, "v1")
	gvk := metav1.GroupVersionKind{Group: testGroup, Version: "v1", Kind: "Widget"}
	list := func(req *restful.Request, resp *restful.Response) {
		if req.QueryParameter("watch") == "true" {
			resp.Header().Set("Content-Type", "application/json")
			resp.WriteHeader(http.StatusOK)
			resp.Flush()
			<-req.Request.Context().Done()
			return
		}
		resp.Header().Set("Content-Type", "application/json")
		_, _ = resp.Write([]byte(`{"kind":"WidgetList","apiVersion":"test.kubeforge.dev/v1","metadata":{},"items":[]}`))
	}
	ws.Route(ws.GET("/namespaces/{namespace}/widgets").To(list).
		Operation("listNamespacedWidget").
		Param(ws.PathParameter("namespace", "namespace")).
		Param(ws.QueryParameter("watch", "watch").DataType("boolean")).
		Metadata(openapi.GroupVersionKindKey, gvk).
		Metadata(openapi.ActionKey, "list").
		Metadata(openapi.ResponseSchemaKey, widgetName))
	ws.Route(ws.POST("/namespaces/{namespace}/widgets").To(func(req *restful.Request, resp *restful.Response) {
		_, err := io.ReadAll(req.Request.Body)
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			resp.WriteHeader(http.StatusRequestEntityTooLarge)
			return
		}
		resp.WriteHeader(http.StatusCreated)
	}).
		Operation("createNamespacedWidget").
		Param(ws.PathParameter("namespace", "namespace")).
		Metadata(openapi.GroupVersionKindKey, gvk).
		Metadata(openapi.ActionKey, "post").
		Metadata(openapi.RequestSchemaKey, widgetName).
		Metadata(openapi.ResponseSchemaKey, widgetName))
	for _, p := range []string{"/namespaces/{namespace}/widgets/{name}", "/namespaces/{namespace}/widgets/{name}/status"} {
		ws.Route(ws.PATCH(p).To(func(req *restful.Request, resp *restful.Response) {}).
			Operation("patchNamespacedWidget"+map[bool]string{true: "Status"}[strings.HasSuffix(p, "status")]).
			Consumes("application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json").
			Param(ws.PathParameter("namespace", "namespace")).
			Param(ws.PathParameter("name", "name")).
			Param(ws.QueryParameter("dryRun", "dry run")).
			Metadata(openapi.GroupVersionKindKey, gvk).
			Metadata(openapi.ActionKey, "patch").
			Metadata(openapi.RequestSchemaKey, openapidefs.Patch).
			Metadata(openapi.ResponseSchemaKey, widgetName))
	}
	ws.Route(ws.GET("/namespaces/{namespace}/widgets/{name}").To(func(req *restful.Request, resp *restful.Response) {
		switch req.PathParameter("name") {
		case "panic":
			panic("test panic")
		case "slow":
			select {
			case slowInFlight <- struct{}{}:
			default:
			}
			select {
			case <-req.Request.Context().Done():
			case <-time.After(10 * time.Second):
			}
			_, _ = resp.Write([]byte("late"))
			return
		}
		resp.Header().Set("Content-Type", "application/json")
		_, _ = resp.Write([]byte(`{"kind":"Widget","apiVersion":"test.kubeforge.dev/v1","metadata":{"name":"` + req.PathParameter("name") + `"}}`))
	}).
		Operation("readNamespacedWidget").
		Param(ws.PathParameter("namespace", "namespace")).
		Param(ws.PathParameter("name", "name")).
		Metadata(openapi.GroupVersionKindKey, gvk).
		Metadata(openapi.ActionKey, "get").
		Metadata(openapi.ResponseSchemaKey, widgetName))
	return GroupVersion{
		Group: testGroup, Version: "v1",
		Resources:  []*resource.Info{&widgetInfo},
		WebService: ws,
		Schemas:    map[string]json.RawMessage{widgetName: widgetSchema},
	}
}

func testAlphaGroupVersion() GroupVersion {
	return GroupVersion{
		Group: testGroup, Version: "v1alpha1",
		Resources:  []*resource.Info{&gadgetInfo},
		WebService: NewWebService(testGroup, "v1alpha1"),
	}
}

type testServer struct {
	s      *Server
	url    string
	cancel context.CancelFunc
	done   chan error
}

func startServer(t *testing.T, dataDir string, mutate func(*Config)) *testServer {
	t.Helper()
	cfg := Config{
		DataDir: dataDir, Port: 0, PlainHTTP: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if mutate != nil {
		mutate(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s, err := New(ctx, cfg)
	if err != nil {
		cancel()
		t.Fatalf("new server: %v", err)
	}
	if err := s.AddGroupVersion(testGroupVersion(t)); err != nil {
		t.Fatalf("add group-version: %v", err)
	}
	if err := s.AddGroupVersion(testAlphaGroupVersion()); err != nil {
		t.Fatalf("add group-version: %v", err)
	}
	ts := &testServer{s: s, cancel: cancel, done: make(chan error, 1)}
	go func() { ts.done <- s.Run(ctx) }()
	select {
	case <-s.Ready():
	case err := <-ts.done:
		t.Fatalf("run: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("server not ready after 60 s")
	}
	ts.url = s.URL()
	t.Cleanup(func() { ts.stop(t) })
	return ts
}

func (ts *testServer) stop(t *testing.T) error {
	t.Helper()
	ts.cancel()
	select {
	case err, ok := <-ts.done:
		if ok {
			close(ts.done)
		}
		return err
	case <-time.After(60 * time.Second):
		t.Fatal("Run did not return within 60 s of cancel")
		return nil
	}
}

func (ts *testServer) get(t *testing.T, path string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, ts.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return resp, body
}

func decodeStatus(t *testing.T, body []byte) metav1.Status {
	t.Helper()
	var st metav1.Status
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("decode Status %q: %v", body, err)
	}
	if st.Kind != "Status" || st.APIVersion != "v1" {
		t.Fatalf("not a Status: %s", body)
	}
	return st
}

const aggregatedAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"

// serverChecks are the subtests of TestServer, all against one server
// (dir is its data directory).
var serverChecks = []struct {
	name string
	run  func(t *testing.T, ts *testServer, dir string)
}{
	{"unclean paths are not redirected", uncleanPathsNotRedirected},
	{"kubeconfig", func(t *testing.T, ts *testServer, dir string) {
		data, err := os.ReadFile(filepath.Join(dir, KubeconfigName))
		if err != nil {
			t.Fatal(err)
		}
		var kc struct {
			Clusters []struct {
				Cluster struct{ Server string } `json:"cluster"`
			} `json:"clusters"`
			CurrentContext string `json:"current-context"`
			Contexts       []struct {
				Name string `json:"name"`
			} `json:"contexts"`
			Users []struct {
				Name string `json:"name"`
			} `json:"users"`
		}
		if err := yaml.Unmarshal(data, &kc); err != nil {
			t.Fatal(err)
		}
		if len(kc.Clusters) != 1 || kc.Clusters[0].Cluster.Server != ts.url || !strings.HasPrefix(ts.url, "http://127.0.0.1:") || strings.HasSuffix(ts.url, ":0") {
			t.Fatalf("kubeconfig server = %+v, server URL %s", kc.Clusters, ts.url)
		}
		if len(kc.Contexts) != 1 || kc.Contexts[0].Name != kc.CurrentContext || len(kc.Users) != 1 {
			t.Fatalf("kubeconfig contexts/users: %s", data)
		}
		// The URL in it reaches the server.
		if resp, _ := ts.get(t, "/healthz"); resp.StatusCode != 200 {
			t.Fatalf("healthz through kubeconfig URL: %d", resp.StatusCode)
		}
	}},

	{"legacy discovery", func(t *testing.T, ts *testServer, dir string) {
		resp, body := ts.get(t, "/api", "Accept", "application/json")
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Fatalf("/api: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		var versions metav1.APIVersions
		if err := json.Unmarshal(body, &versions); err != nil || versions.Kind != "APIVersions" || versions.Versions == nil || len(versions.Versions) != 0 {
			t.Fatalf("/api = %s (%v)", body, err)
		}
		if !strings.Contains(string(body), `"versions":[]`) {
			t.Fatalf("/api versions not []: %s", body)
		}

		resp, body = ts.get(t, "/apis", "Accept", "application/json")
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("ETag") == "" || resp.Header.Get("Vary") != "Accept" {
			t.Fatalf("/apis: %d %v", resp.StatusCode, resp.Header)
		}
		var groups metav1.APIGroupList
		if err := json.Unmarshal(body, &groups); err != nil {
			t.Fatal(err)
		}
		if groups.Kind != "APIGroupList" || groups.APIVersion != "v1" || len(groups.Groups) != 1 {
			t.Fatalf("/apis = %s", body)
		}
		g := groups.Groups[0]
		if g.Name != testGroup || len(g.Versions) != 2 || g.Versions[0].Version != "v1" || g.Versions[1].Version != "v1alpha1" ||
			g.PreferredVersion.GroupVersion != testGroup+"/v1" {
			t.Fatalf("group = %+v", g)
		}
		// If-None-Match with the ETag is a 304.
		resp2, _ := ts.get(t, "/apis", "Accept", "application/json", "If-None-Match", resp.Header.Get("ETag"))
		if resp2.StatusCode != http.StatusNotModified {
			t.Fatalf("conditional /apis: %d", resp2.StatusCode)
		}

		resp, body = ts.get(t, "/apis/"+testGroup)
		var group metav1.APIGroup
		if err := json.Unmarshal(body, &group); err != nil || resp.StatusCode != 200 || group.Kind != "APIGroup" || group.Name != testGroup {
			t.Fatalf("/apis/<g> = %d %s", resp.StatusCode, body)
		}

		resp, body = ts.get(t, "/apis/"+testGroup+"/v1")
		var rl metav1.APIResourceList
		if err := json.Unmarshal(body, &rl); err != nil || resp.StatusCode != 200 {
			t.Fatalf("/apis/<g>/v1 = %d %s", resp.StatusCode, body)
		}
		if rl.Kind != "APIResourceList" || rl.GroupVersion != testGroup+"/v1" || len(rl.APIResources) != 2 {
			t.Fatalf("resource list = %s", body)
		}
		r, sub := rl.APIResources[0], rl.APIResources[1]
		if r.Name != "widgets" || r.SingularName != "widget" || !r.Namespaced || r.Kind != "Widget" ||
			strings.Join(r.Verbs, " ") != "create delete deletecollection get list patch update watch" ||
			strings.Join(r.ShortNames, ",") != "wd" || strings.Join(r.Categories, ",") != "all" {
			t.Fatalf("widgets = %+v", r)
		}
		if sub.Name != "widgets/status" || strings.Join(sub.Verbs, " ") != "get patch update" {
			t.Fatalf("widgets/status = %+v", sub)
		}

		for _, p := range []string{"/apis/nope.example.dev", "/apis/" + testGroup + "/v9"} {
			resp, body := ts.get(t, p)
			if resp.StatusCode != 404 || decodeStatus(t, body).Reason != metav1.StatusReasonNotFound {
				t.Fatalf("%s: %d %s", p, resp.StatusCode, body)
			}
		}
	}},

	{"aggregated discovery", func(t *testing.T, ts *testServer, dir string) {
		for _, path := range []string{"/apis", "/api"} {
			resp, body := ts.get(t, path, "Accept", aggregatedAccept)
			if resp.StatusCode != 200 {
				t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" {
				t.Fatalf("%s content type %q", path, ct)
			}
			if resp.Header.Get("ETag") == "" || resp.Header.Get("Vary") != "Accept" {
				t.Fatalf("%s headers %v", path, resp.Header)
			}
			var list discovery.APIGroupDiscoveryList
			if err := json.Unmarshal(body, &list); err != nil {
				t.Fatal(err)
			}
			if list.Kind != "APIGroupDiscoveryList" || list.APIVersion != "apidiscovery.k8s.io/v2" || list.Items == nil {
				t.Fatalf("%s = %s", path, body)
			}
			if path == "/api" {
				if len(list.Items) != 0 {
					t.Fatalf("/api items = %s", body)
				}
				continue
			}
			if len(list.Items) != 1 || list.Items[0].Metadata.Name != testGroup || len(list.Items[0].Versions) != 2 || list.Items[0].Versions[0].Version != "v1" {
				t.Fatalf("/apis = %s", body)
			}
			rs := list.Items[0].Versions[0].Resources
			if len(rs) != 1 || rs[0].Resource != "widgets" || rs[0].Scope != "Namespaced" || rs[0].SingularResource != "widget" ||
				rs[0].ResponseKind == nil || rs[0].ResponseKind.Kind != "Widget" || rs[0].ResponseKind.Group != testGroup ||
				len(rs[0].Subresources) != 1 || rs[0].Subresources[0].Subresource != "status" || len(rs[0].Verbs) != 8 {
				t.Fatalf("widgets = %+v", rs)
			}
			if alpha := list.Items[0].Versions[1].Resources; len(alpha) != 1 || alpha[0].Scope != "Cluster" {
				t.Fatalf("v1alpha1 = %+v", alpha)
			}
		}
		// v2beta1 only.
		resp, body := ts.get(t, "/apis", "Accept", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList")
		if ct := resp.Header.Get("Content-Type"); ct != "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList" || !strings.Contains(string(body), `"apiVersion":"apidiscovery.k8s.io/v2beta1"`) {
			t.Fatalf("v2beta1: %q %s", ct, body)
		}
		// Something unmatched is legacy JSON, never 406.
		resp, body = ts.get(t, "/apis", "Accept", "application/vnd.kubernetes.protobuf")
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"kind":"APIGroupList"`) {
			t.Fatalf("protobuf accept: %d %s", resp.StatusCode, body)
		}
	}},

	{"openapi v3", func(t *testing.T, ts *testServer, dir string) {
		resp, body := ts.get(t, "/openapi/v3")
		if resp.StatusCode != 200 {
			t.Fatalf("/openapi/v3: %d %s", resp.StatusCode, body)
		}
		var index struct {
			Paths map[string]struct {
				ServerRelativeURL string `json:"serverRelativeURL"`
			} `json:"paths"`
		}
		if err := json.Unmarshal(body, &index); err != nil {
			t.Fatal(err)
		}
		entry, ok := index.Paths["apis/"+testGroup+"/v1"]
		if !ok || !strings.HasPrefix(entry.ServerRelativeURL, "/openapi/v3/apis/"+testGroup+"/v1?hash=") {
			t.Fatalf("index = %s", body)
		}
		resp, body = ts.get(t, entry.ServerRelativeURL)
		if resp.StatusCode != 200 || resp.Header.Get("ETag") == "" || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
			t.Fatalf("group doc: %d %v", resp.StatusCode, resp.Header)
		}
		var doc struct {
			OpenAPI    string                               `json:"openapi"`
			Paths      map[string]map[string]map[string]any `json:"paths"`
			Components struct {
				Schemas map[string]json.RawMessage `json:"schemas"`
			} `json:"components"`
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(doc.OpenAPI, "3.") {
			t.Fatalf("openapi = %q", doc.OpenAPI)
		}
		for _, p := range []string{
			"/apis/" + testGroup + "/v1/namespaces/{namespace}/widgets/{name}",
			"/apis/" + testGroup + "/v1/namespaces/{namespace}/widgets/{name}/status",
		} {
			patch := doc.Paths[p]["patch"]
			if patch == nil {
				t.Fatalf("no PATCH on %s: %v", p, doc.Paths)
			}
			names := map[string]bool{}
			for _, prm := range patch["parameters"].([]any) {
				names[prm.(map[string]any)["name"].(string)] = true
			}
			for _, n := range []string{"fieldValidation", "dryRun", "fieldManager", "force", "name", "namespace"} {
				if !names[n] {
					t.Errorf("PATCH %s lacks parameter %s", p, n)
				}
			}
			content := patch["requestBody"].(map[string]any)["content"].(map[string]any)
			if content["application/json-patch+json"] == nil || content["application/merge-patch+json"] == nil || content["application/strategic-merge-patch+json"] == nil {
				t.Errorf("PATCH %s content types = %v", p, content)
			}
			gvk, ok := patch["x-kubernetes-group-version-kind"].(map[string]any)
			if !ok || gvk["kind"] != "Widget" || gvk["group"] != testGroup || gvk["version"] != "v1" {
				t.Errorf("PATCH %s gvk = %v", p, patch["x-kubernetes-group-version-kind"])
			}
			if patch["x-kubernetes-action"] != "patch" || patch["operationId"] == nil {
				t.Errorf("PATCH %s = %v", p, patch)
			}
		}
		// Every $ref resolves.
		all, err := json.Marshal(doc.Paths)
		if err != nil {
			t.Fatal(err)
		}
		refs, err := openapidefs.Refs(all)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range doc.Components.Schemas {
			more, err := openapidefs.Refs(s)
			if err != nil {
				t.Fatal(err)
			}
			refs = append(refs, more...)
		}
		for _, r := range append(refs, widgetName, openapidefs.Status, openapidefs.DeleteOptions, openapidefs.WatchEvent) {
			if _, ok := doc.Components.Schemas[r]; !ok {
				t.Errorf("schema %s not in components", r)
			}
		}
		if !strings.Contains(string(doc.Components.Schemas[widgetName]), `"x-kubernetes-group-version-kind":[`) {
			t.Errorf("widget schema gvk is not an array: %s", doc.Components.Schemas[widgetName])
		}
		// A stale hash is redirected to the current document.
		req, _ := http.NewRequest(http.MethodGet, ts.url+"/openapi/v3/apis/"+testGroup+"/v1?hash=stale", nil)
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		r2, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r2.Body.Close()
		if r2.StatusCode != http.StatusMovedPermanently || r2.Header.Get("Location") != entry.ServerRelativeURL {
			t.Fatalf("stale hash: %d %s", r2.StatusCode, r2.Header.Get("Location"))
		}
	}},

	{"openapi v2", func(t *testing.T, ts *testServer, dir string) {
		resp, body := ts.get(t, "/openapi/v2", "Accept", "application/json")
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"swagger":"2.0"`) ||
			strings.Contains(string(body), "#/components/schemas/") || !strings.Contains(string(body), `"#/definitions/`+widgetName+`"`) {
			t.Fatalf("/openapi/v2: %d %.300s", resp.StatusCode, body)
		}
		jsonETag := resp.Header.Get("ETag")
		// kubectl before 1.27 asks for protobuf only, under either name.
		for _, accept := range []string{
			"application/com.github.proto-openapi.spec.v2@v1.0+protobuf",
			"application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
			"application/json;q=0.5, application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
		} {
			resp, body = ts.get(t, "/openapi/v2", "Accept", accept)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/com.github.proto-openapi.spec.v2.v1.0+protobuf" ||
				resp.Header.Get("Vary") != "Accept" {
				t.Fatalf("/openapi/v2 Accept %s: %d %v", accept, resp.StatusCode, resp.Header)
			}
			doc := &openapi_v2.Document{}
			if err := proto.Unmarshal(body, doc); err != nil {
				t.Fatalf("/openapi/v2 protobuf does not decode: %v", err)
			}
			if doc.Swagger != "2.0" || doc.Paths == nil || len(doc.Paths.Path) == 0 || doc.Definitions == nil {
				t.Fatalf("/openapi/v2 protobuf: swagger %q, %d paths", doc.Swagger, len(doc.GetPaths().GetPath()))
			}
			found := false
			for _, d := range doc.Definitions.AdditionalProperties {
				found = found || d.Name == widgetName
			}
			if !found {
				t.Fatalf("/openapi/v2 protobuf lacks the definition %s", widgetName)
			}
			etag := resp.Header.Get("ETag")
			if etag == "" || etag == jsonETag {
				t.Fatalf("/openapi/v2 protobuf ETag %q (JSON's is %q)", etag, jsonETag)
			}
			if r, _ := ts.get(t, "/openapi/v2", "Accept", accept, "If-None-Match", etag); r.StatusCode != http.StatusNotModified {
				t.Fatalf("/openapi/v2 protobuf with its ETag: %d, want 304", r.StatusCode)
			}
		}
		// JSON preferred by q-value, and a type nobody serves.
		resp, _ = ts.get(t, "/openapi/v2", "Accept", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf;q=0.1, application/json")
		if resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("/openapi/v2 preferring JSON: %v", resp.Header)
		}
		resp, body = ts.get(t, "/openapi/v2", "Accept", "application/xml")
		if resp.StatusCode != http.StatusNotAcceptable || decodeStatus(t, body).Code != 406 {
			t.Fatalf("/openapi/v2 xml: %d %s", resp.StatusCode, body)
		}
		// Compressed for a client that accepts gzip, as kube-openapi's v2
		// handler does (quality values read); the v3 documents are not.
		_, plain := ts.get(t, "/openapi/v2", "Accept", "application/json", "Accept-Encoding", "identity")
		resp, body = ts.get(t, "/openapi/v2", "Accept", "application/json", "Accept-Encoding", "br;q=1, gzip;q=0.8")
		if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("ETag") != jsonETag ||
			!slices.Contains(resp.Header.Values("Vary"), "Accept-Encoding") {
			t.Fatalf("/openapi/v2 accepting gzip: %v", resp.Header)
		}
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := io.ReadAll(zr); err != nil || !bytes.Equal(got, plain) || len(body)*3 > len(plain) {
			t.Fatalf("/openapi/v2 gzip: %v, %d bytes for %d", err, len(body), len(plain))
		}
		if r, _ := ts.get(t, "/openapi/v2", "Accept-Encoding", "gzip", "If-None-Match", jsonETag); r.StatusCode != http.StatusNotModified || r.Header.Get("Content-Encoding") != "" {
			t.Fatalf("/openapi/v2 gzip with its ETag: %d %v", r.StatusCode, r.Header)
		}
		for _, p := range []string{"/openapi/v2", "/openapi/v3"} {
			ae := "gzip"
			if p == "/openapi/v2" {
				ae = "gzip;q=0"
			}
			if r, _ := ts.get(t, p, "Accept-Encoding", ae); r.Header.Get("Content-Encoding") != "" {
				t.Fatalf("%s with Accept-Encoding %s: %v", p, ae, r.Header)
			}
		}
	}},

	{"health", func(t *testing.T, ts *testServer, dir string) {
		for _, p := range []string{"/healthz", "/livez", "/readyz", "/readyz/etcd"} {
			resp, body := ts.get(t, p)
			if resp.StatusCode != 200 || string(body) != "ok" {
				t.Fatalf("%s: %d %q", p, resp.StatusCode, body)
			}
		}
		resp, body := ts.get(t, "/readyz?verbose")
		if resp.StatusCode != 200 || !strings.Contains(string(body), "[+]etcd ok") || !strings.Contains(string(body), "readyz check passed") {
			t.Fatalf("/readyz?verbose: %d %q", resp.StatusCode, body)
		}
		// The start steps of a plain-HTTP server without the built-in
		// kinds, in order, each by name; none of the security or
		// namespace steps.
		var steps []string
		for _, line := range strings.Split(string(body), "\n") {
			if name, ok := strings.CutPrefix(line, "[+]poststarthook/"); ok {
				steps = append(steps, name)
			}
		}
		want := "start-etcd-compactor ok,start-etcd-health-monitor ok,wait-for-etcd ok,start-garbage-collector ok,start-admission-plugins ok"
		if strings.Join(steps, ",") != want {
			t.Fatalf("/readyz?verbose start steps %q, want %q", steps, want)
		}
		if resp, body := ts.get(t, "/readyz/poststarthook/wait-for-etcd"); resp.StatusCode != 200 || string(body) != "ok" {
			t.Fatalf("/readyz/poststarthook/wait-for-etcd: %d %q", resp.StatusCode, body)
		}
		resp, body = ts.get(t, "/version")
		var v struct{ GitVersion, GoVersion, Platform string }
		if err := json.Unmarshal(body, &v); err != nil || resp.StatusCode != 200 || v.GitVersion != GitVersion || v.GoVersion == "" || v.Platform == "" {
			t.Fatalf("/version: %d %s", resp.StatusCode, body)
		}
	}},

	{"406 names the media types", func(t *testing.T, ts *testServer, dir string) {
		// kube-apiserver's negotiation error for a custom resource.
		resp, body := ts.get(t, "/apis/"+testGroup+"/v1/namespaces/default/widgets", "Accept", "text/html")
		st := decodeStatus(t, body)
		if resp.StatusCode != http.StatusNotAcceptable || st.Reason != metav1.StatusReasonNotAcceptable ||
			st.Message != "only the following media types are accepted: application/json, application/yaml" {
			t.Fatalf("Accept text/html: %d %s", resp.StatusCode, body)
		}
	}},

	{"body limit", func(t *testing.T, ts *testServer, dir string) {
		big := bytes.Repeat([]byte("x"), DefaultMaxRequestBodyBytes+1)
		resp, err := http.Post(ts.url+"/apis/"+testGroup+"/v1/namespaces/default/widgets", "application/json", bytes.NewReader(big))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge || decodeStatus(t, body).Reason != metav1.StatusReasonRequestEntityTooLarge {
			t.Fatalf("big body: %d %s", resp.StatusCode, body)
		}
		// Without Content-Length the reader is limited.
		req, _ := http.NewRequest(http.MethodPost, ts.url+"/apis/"+testGroup+"/v1/namespaces/default/widgets", io.MultiReader(bytes.NewReader(big)))
		req.Header.Set("Content-Type", "application/json")
		req.ContentLength = -1
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("chunked big body: %d", resp.StatusCode)
		}
		// A small body passes.
		resp, err = http.Post(ts.url+"/apis/"+testGroup+"/v1/namespaces/default/widgets", "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("small body: %d", resp.StatusCode)
		}
	}},

	{"panic recovery", func(t *testing.T, ts *testServer, dir string) {
		resp, body := ts.get(t, "/apis/"+testGroup+"/v1/namespaces/default/widgets/panic")
		if resp.StatusCode != 500 || decodeStatus(t, body).Reason != metav1.StatusReasonInternalError {
			t.Fatalf("panic: %d %s", resp.StatusCode, body)
		}
		resp, body = ts.get(t, "/apis/"+testGroup+"/v1/namespaces/default/widgets/w1")
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"name":"w1"`) {
			t.Fatalf("after panic: %d %s", resp.StatusCode, body)
		}
	}},

	{"unknown path is a 404 Status", func(t *testing.T, ts *testServer, dir string) {
		resp, body := ts.get(t, "/apis/"+testGroup+"/v1/namespaces/default/nothings")
		if resp.StatusCode != 404 || decodeStatus(t, body).Code != 404 {
			t.Fatalf("unknown: %d %s", resp.StatusCode, body)
		}
	}},

	{"metrics", func(t *testing.T, ts *testServer, dir string) {
		ts.get(t, "/apis/"+testGroup+"/v1/namespaces/default/widgets/panic")
		ts.get(t, "/apis")
		resp, body := ts.get(t, "/metrics")
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
			t.Fatalf("/metrics: %d %v", resp.StatusCode, resp.Header)
		}
		for _, want := range []string{
			`apiserver_request_total{code="500",resource="widgets",subresource="",verb="GET"}`,
			`apiserver_request_total{code="200",resource="",subresource="",verb="GET"}`,
			`apiserver_request_duration_seconds_bucket{resource="widgets",subresource="",verb="GET",le="0.005"}`,
			`apiserver_current_inflight_requests{request_kind="readOnly"} 1`,
			`etcd_request_duration_seconds`,
		} {
			if !strings.Contains(string(body), want) {
				t.Errorf("/metrics lacks %s", want)
			}
		}
	}},
}

func TestServer(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir, nil)
	for _, c := range serverChecks {
		t.Run(c.name, func(t *testing.T) { c.run(t, ts, dir) })
	}
}

func TestRequestTimeout(t *testing.T) {
	ts := startServer(t, t.TempDir(), func(c *Config) { c.RequestTimeout = 300 * time.Millisecond })
	start := time.Now()
	resp, body := ts.get(t, "/apis/"+testGroup+"/v1/namespaces/default/widgets/slow")
	if resp.StatusCode != http.StatusGatewayTimeout || decodeStatus(t, body).Reason != metav1.StatusReasonTimeout || time.Since(start) > 5*time.Second {
		t.Fatalf("slow: %d %s after %s", resp.StatusCode, body, time.Since(start))
	}
	// Watches are not cut by the timeout.
	req, _ := http.NewRequest(http.MethodGet, ts.url+"/apis/"+testGroup+"/v1/namespaces/default/widgets?watch=true", nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	wresp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer wresp.Body.Close()
	_, err = io.ReadAll(wresp.Body)
	if wresp.StatusCode != 200 || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("watch: %d, read ended with %v (want the client's deadline)", wresp.StatusCode, err)
	}
}

func TestMaxInFlight(t *testing.T) {
	ts := startServer(t, t.TempDir(), func(c *Config) { c.MaxReadOnlyInFlight = 1; c.RequestTimeout = 2 * time.Second })
	select { // a signal left by an earlier test's slow request
	case <-slowInFlight:
	default:
	}
	slow := make(chan struct{})
	go func() {
		defer close(slow)
		ts.get(t, "/apis/"+testGroup+"/v1/namespaces/default/widgets/slow")
	}()
	// Only once the slow request holds the one slot is a 429 certain: a
	// probe sent earlier could take the slot itself.
	select {
	case <-slowInFlight:
	case <-time.After(10 * time.Second):
		t.Fatal("the slow request was not served within 10s")
	}
	resp, body := ts.get(t, "/apis/"+testGroup+"/v1/namespaces/default/widgets/w1")
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("GET while a read-only request was in flight with a limit of 1: %d %s, want 429", resp.StatusCode, body)
	}
	if resp.Header.Get("Retry-After") != "1" || decodeStatus(t, body).Reason != metav1.StatusReasonTooManyRequests {
		t.Fatalf("429: %v %s", resp.Header, body)
	}
	<-slow
}

func TestGracefulShutdownAndRestart(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir, nil)
	// Write an object straight to etcd under the prefix.
	key := DefaultEtcdPrefix + "/test.kubeforge.dev/widgets/default/w1"
	if _, err := ts.s.client.Put(context.Background(), key, `{"kind":"Widget"}`); err != nil {
		t.Fatal(err)
	}
	// Open a watch and wait for its headers.
	resp, err := http.Get(ts.url + "/apis/" + testGroup + "/v1/namespaces/default/widgets?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("watch: %d", resp.StatusCode)
	}
	watchDone := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, bufio.NewReader(resp.Body))
		watchDone <- err
	}()
	start := time.Now()
	if err := ts.stop(t); err != nil {
		t.Fatalf("Run returned %v after cancel, want nil", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("shutdown took %s with a watch open", d)
	}
	select {
	case <-watchDone:
	case <-time.After(5 * time.Second):
		t.Fatal("watch stream still open after shutdown")
	}
	if _, err := http.Get(ts.url + "/healthz"); err == nil {
		t.Fatal("server still accepts connections after Run returned")
	}

	// Restart on the same data dir: the object is there, and the kubeconfig
	// names the new port.
	ts2 := startServer(t, dir, nil)
	got, err := ts2.s.client.Get(context.Background(), key)
	if err != nil || len(got.Kvs) != 1 || string(got.Kvs[0].Value) != `{"kind":"Widget"}` {
		t.Fatalf("after restart: %v %v", got, err)
	}
	data, err := os.ReadFile(filepath.Join(dir, KubeconfigName))
	if err != nil || !strings.Contains(string(data), ts2.url) {
		t.Fatalf("kubeconfig after restart: %s %v", data, err)
	}
}

func TestAddGroupVersionErrors(t *testing.T) {
	gv := GroupVersion{Group: "a.dev", Version: "v1", WebService: NewWebService("b.dev", "v1")}
	if err := gv.validate(); err == nil || !strings.Contains(err.Error(), "root path") {
		t.Fatalf("mismatched root path: %v", err)
	}
	if got := RootPath("", "v1"); got != "/api/v1" {
		t.Fatalf("core root = %s", got)
	}
	if got := fmt.Sprint(NewWebService("a.dev", "v1").RootPath()); got != "/apis/a.dev/v1" {
		t.Fatalf("root = %s", got)
	}

	// Schemas that cannot type server-side apply are an error and the
	// group-version is not added.
	s := &Server{container: restful.NewContainer(), fieldManagers: fieldmanager.NewRegistry()}
	bad := GroupVersion{Group: "a.dev", Version: "v1", WebService: NewWebService("a.dev", "v1"),
		Schemas: map[string]json.RawMessage{"dev.a.v1.X": json.RawMessage(`{"type":"object","properties":{"y":{"$ref":"#/components/schemas/missing"}}}`)}}
	if err := s.AddGroupVersion(bad); err == nil || !strings.Contains(err.Error(), `add group-version "a.dev/v1": field manager schemas`) {
		t.Errorf("dangling schema ref: %v", err)
	}
	if len(s.groups) != 0 {
		t.Errorf("groups added: %v", s.groups)
	}
	bad.Schemas = nil
	if err := s.AddGroupVersion(bad); err != nil {
		t.Errorf("good group-version: %v", err)
	}

	// A conversion the field managers cannot use is an error.
	spoke := schema.GroupVersionKind{Group: "a.dev", Version: "v1alpha1", Kind: "X"}
	if err := s.AddConversions(fieldmanager.Conversion{GVK: spoke, Hub: spoke}); err == nil || !strings.Contains(err.Error(), "its own hub") {
		t.Errorf("conversion to itself: %v", err)
	}
}

// TestReadyzWaitsForStartSteps: while a start step waits (etcd does not
// answer), /readyz fails and names it, and reports the steps before it
// done; cancelling then ends Run cleanly.
func TestReadyzWaitsForStartSteps(t *testing.T) {
	free := func() int {
		p, err := freeport.Pick()
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	etcdPort, port := free(), free()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := New(ctx, Config{
		DataDir: t.TempDir(), Port: port, PlainHTTP: true,
		EtcdServers: []string{fmt.Sprintf("http://127.0.0.1:%d", etcdPort)},
		Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	url := fmt.Sprintf("http://127.0.0.1:%d/readyz?verbose&exclude=etcd", port)
	var body []byte
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			body, err = io.ReadAll(resp.Body)
			resp.Body.Close()
			if err == nil && resp.StatusCode == http.StatusInternalServerError {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz while etcd is down: %v %s", err, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, line := range []string{"[+]poststarthook/start-etcd-health-monitor ok", "[-]poststarthook/wait-for-etcd failed: reason withheld", "[-]poststarthook/start-admission-plugins failed: reason withheld", "readyz check failed"} {
		if !strings.Contains(string(body), line+"\n") {
			t.Errorf("/readyz?verbose while etcd is down has no %q:\n%s", line, body)
		}
	}
	select {
	case <-s.Ready():
		t.Fatal("ready without etcd")
	default:
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run after cancel: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return within 30 s of cancel")
	}
}

// uncleanPathsNotRedirected: API paths with "." or ".." segments, empty
// segments or an unknown group get a 4xx Status where they are, as from
// kube-apiserver (which dispatches to go-restful without http.ServeMux).
// A redirect to the cleaned path would make a client that follows it
// (Go's, kubectl's: 307 keeps the method) delete or write what the path
// only seemed to name: DELETE .../widgets/.. would delete the namespace.
func uncleanPathsNotRedirected(t *testing.T, ts *testServer, _ string) {
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	base := "/apis/" + testGroup + "/v1/namespaces/default/widgets"
	for _, c := range []struct {
		path string
		code int // 0: whatever the route answers (the test routes take any name), but there
	}{
		{base + "/..", 0},
		{base + "/.", 0},
		{base + "/../../other/widgets", http.StatusNotFound},
		{"/apis/" + testGroup + "//v1/namespaces/default/widgets", http.StatusNotFound},
		{"/apis/" + testGroup + "/./v1/namespaces/default/widgets", http.StatusNotFound},
		{"/apis/nosuch.group/v1/things", http.StatusNotFound},
	} {
		for _, method := range []string{http.MethodGet, http.MethodDelete} {
			req, err := http.NewRequest(method, ts.url+c.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("%s %s: %v", method, c.path, err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode/100 == 3 || resp.Header.Get("Location") != "" {
				t.Errorf("%s %s: redirected: %d to %q", method, c.path, resp.StatusCode, resp.Header.Get("Location"))
				continue
			}
			if c.code == 0 {
				continue
			}
			if resp.StatusCode != c.code {
				t.Errorf("%s %s: %d %s, want %d", method, c.path, resp.StatusCode, body, c.code)
				continue
			}
			if st := decodeStatus(t, body); st.Code != int32(c.code) {
				t.Errorf("%s %s: Status code %d, want %d", method, c.path, st.Code, c.code)
			}
		}
	}
}
