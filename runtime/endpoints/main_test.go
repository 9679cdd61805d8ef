package endpoints_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emicklei/go-restful/v3"
	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubeforge/kubeforge/internal/etcdtest"
	"github.com/kubeforge/kubeforge/runtime/endpoints"
	"github.com/kubeforge/kubeforge/runtime/etcd"
	"github.com/kubeforge/kubeforge/runtime/resource"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

var etcdClient *clientv3.Client

func TestMain(m *testing.M) {
	os.Exit(etcdtest.Run(m, func(e *etcd.Embedded) { etcdClient = e.Client() }))
}

type observation struct {
	verb, resource, sub string
	code                int
}

// testServer is a go-restful container with hand-written routes for the
// widgets (namespaced) and gizmos (cluster-scoped) test kinds, over a
// store with its own etcd key prefix.
type testServer struct {
	*httptest.Server
	prefix string
	stop   chan struct{}

	mu       sync.Mutex
	observed []observation
}

func newServer(t *testing.T, mutate ...func(*endpoints.Options)) *testServer {
	t.Helper()
	ts := &testServer{prefix: "/" + strings.ReplaceAll(t.Name(), "/", "_"), stop: make(chan struct{})}
	opts := endpoints.Options{
		Stop:                ts.stop,
		MaxRequestBodyBytes: 64 * 1024,
		Observe: func(verb, res, sub string, code int, d time.Duration) {
			ts.mu.Lock()
			defer ts.mu.Unlock()
			ts.observed = append(ts.observed, observation{verb, res, sub, code})
		},
	}
	for _, m := range mutate {
		m(&opts)
	}
	backend := storage.NewBackend(etcdClient, ts.prefix, storage.BackendOptions{WatchCache: os.Getenv("KUBEFORGE_WATCH_CACHE") != "off"})
	ws := new(restful.WebService).Path("/apis/" + testGroup + "/v1").Produces(endpoints.Produces...)
	wi, gi := widgetInfo, gizmoInfo
	install(ws, backend, newStrategy(&wi), opts)
	install(ws, backend, newStrategy(&gi), opts)
	c := restful.NewContainer()
	c.ServiceErrorHandler(endpoints.ServiceErrorHandler)
	c.Add(ws)
	ts.Server = httptest.NewServer(c)
	t.Cleanup(backend.Close)
	t.Cleanup(func() {
		select {
		case <-ts.stop:
		default:
			close(ts.stop)
		}
		ts.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = etcdClient.Delete(ctx, ts.prefix+"/", clientv3.WithPrefix())
	})
	return ts
}

// install writes the routes the routes generator writes for one kind.
func install(ws *restful.WebService, b *storage.Backend, s *resource.Strategy[*Widget, *WidgetList], opts endpoints.Options) {
	h := endpoints.NewHandler(storage.NewStore(b, s), s, opts)
	plural := s.Info.Plural
	base := "/" + plural
	if s.Info.Namespaced {
		ws.Route(ws.GET(base).To(h.List))
		base = "/namespaces/{namespace}/" + plural
	}
	ws.Route(ws.GET(base).To(h.List))
	ws.Route(ws.POST(base).To(h.Create))
	ws.Route(ws.DELETE(base).To(h.DeleteCollection))
	ws.Route(ws.GET(base + "/{name}").To(h.Get))
	ws.Route(ws.PUT(base + "/{name}").To(h.Update))
	ws.Route(ws.PATCH(base + "/{name}").To(h.Patch).Consumes(endpoints.ConsumesPatch...))
	ws.Route(ws.DELETE(base + "/{name}").To(h.Delete))
	if s.Info.HasStatus() {
		ws.Route(ws.GET(base + "/{name}/status").To(h.GetStatus))
		ws.Route(ws.PUT(base + "/{name}/status").To(h.UpdateStatus))
		ws.Route(ws.PATCH(base + "/{name}/status").To(h.PatchStatus).Consumes(endpoints.ConsumesPatch...))
	}
}

func (ts *testServer) observations() []observation {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]observation(nil), ts.observed...)
}

const apiPath = "/apis/" + testGroup + "/v1"

func widgetsPath(ns string) string { return apiPath + "/namespaces/" + ns + "/widgets" }

type response struct {
	code   int
	header http.Header
	body   []byte
}

func (r response) String() string { return fmt.Sprintf("%d %s", r.code, r.body) }

// do sends one request; headers come in name, value pairs.
func (ts *testServer) do(t *testing.T, method, path, contentType, body string, headers ...string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, ts.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return response{code: resp.StatusCode, header: resp.Header, body: data}
}

const jsonType = "application/json"

func (ts *testServer) createWidget(t *testing.T, ns, name, spec string) *Widget {
	t.Helper()
	body := fmt.Sprintf(`{"apiVersion":"%s/v1","kind":"Widget","metadata":{"name":%q},"spec":%s}`, testGroup, name, spec)
	r := ts.do(t, "POST", widgetsPath(ns), jsonType, body)
	if r.code != http.StatusCreated {
		t.Fatalf("create %s/%s: %s", ns, name, r)
	}
	return decodeWidget(t, r)
}

func decodeWidget(t *testing.T, r response) *Widget {
	t.Helper()
	var w Widget
	if err := json.Unmarshal(r.body, &w); err != nil {
		t.Fatalf("decode widget: %v: %s", err, r.body)
	}
	return &w
}

// wantStatus checks a Status error body: kind, apiVersion, status, code
// and reason, and that the message contains msg.
func wantStatus(t *testing.T, r response, code int, reason metav1.StatusReason, msg string) *metav1.Status {
	t.Helper()
	if r.code != code {
		t.Fatalf("got HTTP %d, want %d: %s", r.code, code, r.body)
	}
	// Errors are JSON unless the client asked for YAML.
	body := r.body
	if ct := r.header.Get("Content-Type"); ct == "application/yaml" {
		var err error
		if body, err = yaml.YAMLToJSON(body); err != nil {
			t.Fatalf("decode yaml status: %v: %s", err, r.body)
		}
	} else if ct != jsonType {
		t.Errorf("Content-Type %q, want %q", ct, jsonType)
	}
	var raw map[string]any
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatalf("decode status: %v: %s", err, r.body)
	}
	if _, ok := raw["metadata"]; !ok {
		t.Errorf("status without metadata: %s", r.body)
	}
	var st metav1.Status
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("decode status: %v", err)
	}
	if st.Kind != "Status" || st.APIVersion != "v1" || st.Status != metav1.StatusFailure || int(st.Code) != code || st.Reason != reason {
		t.Errorf("status %+v, want code %d reason %s", st, code, reason)
	}
	if !strings.Contains(st.Message, msg) {
		t.Errorf("message %q does not contain %q", st.Message, msg)
	}
	return &st
}

// etcdState is the revision and the keys under the server's prefix.
func (ts *testServer) etcdState(t *testing.T) (int64, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := etcdClient.Get(ctx, ts.prefix+"/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, kv := range resp.Kvs {
		keys = append(keys, string(kv.Key))
	}
	return resp.Header.Revision, keys
}

// nothingStored fails if etcd changed since (rev, keys).
func (ts *testServer) nothingStored(t *testing.T, rev int64, keys []string) {
	t.Helper()
	rev2, keys2 := ts.etcdState(t)
	if rev2 != rev || strings.Join(keys, ",") != strings.Join(keys2, ",") {
		t.Errorf("etcd changed: revision %d -> %d, keys %v -> %v", rev, rev2, keys, keys2)
	}
}

func mustJSON(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatalf("decode: %v: %s", err, data)
	}
	return m
}
