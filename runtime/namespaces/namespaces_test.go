package namespaces_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/kubeforge/kubeforge/runtime/presence"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	restful "github.com/emicklei/go-restful/v3"
	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeforge/kubeforge/runtime/endpoints"
	"github.com/kubeforge/kubeforge/runtime/namespaces"
	"github.com/kubeforge/kubeforge/runtime/resource"
	"github.com/kubeforge/kubeforge/runtime/server"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// Hand-written core/v1 resources shaped like the generated ones:
// namespaces (cluster-scoped, status subresource), configmaps (the
// namespaced test kind) and events (namespaced, with a TTL).

var (
	namespaceInfo = resource.Info{Version: "v1", Kind: "Namespace", ListKind: "NamespaceList", Plural: "namespaces",
		Singular: "namespace", ShortNames: []string{"ns"}, Subresources: []string{"status"}, StorageVersion: "v1", ServedVersions: []string{"v1"}}
	configMapInfo = resource.Info{Version: "v1", Kind: "ConfigMap", ListKind: "ConfigMapList", Plural: "configmaps",
		Singular: "configmap", Namespaced: true, ShortNames: []string{"cm"}, StorageVersion: "v1", ServedVersions: []string{"v1"}}
	eventInfo = resource.Info{Version: "v1", Kind: "Event", ListKind: "EventList", Plural: "events",
		Singular: "event", Namespaced: true, ShortNames: []string{"ev"}, StorageVersion: "v1", ServedVersions: []string{"v1"}}
)

func validateMeta(obj metav1.Object) field.ErrorList {
	var errs field.ErrorList
	if obj.GetName() == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "name"), "name or generateName is required"))
	}
	return errs
}

var namespaceStrategy = &resource.Strategy[*corev1.Namespace, *corev1.NamespaceList]{
	Info:        &namespaceInfo,
	New:         func() *corev1.Namespace { return &corev1.Namespace{} },
	NewList:     func() *corev1.NamespaceList { return &corev1.NamespaceList{} },
	SetItems:    func(l *corev1.NamespaceList, items []*corev1.Namespace) { l.Items = deref(items) },
	GetItems:    func(l *corev1.NamespaceList) []*corev1.Namespace { return refs(l.Items) },
	Validate:    func(obj *corev1.Namespace, _ presence.Node) field.ErrorList { return validateMeta(obj) },
	ResetStatus: func(obj *corev1.Namespace) { obj.Status = corev1.NamespaceStatus{} },
	CopyStatus:  func(dst, src *corev1.Namespace) { dst.Status = *src.Status.DeepCopy() },
	SpecChanged: func(o, n *corev1.Namespace) bool { return !equalJSON(o.Spec, n.Spec) },
}

var configMapStrategy = &resource.Strategy[*corev1.ConfigMap, *corev1.ConfigMapList]{
	Info:        &configMapInfo,
	New:         func() *corev1.ConfigMap { return &corev1.ConfigMap{} },
	NewList:     func() *corev1.ConfigMapList { return &corev1.ConfigMapList{} },
	SetItems:    func(l *corev1.ConfigMapList, items []*corev1.ConfigMap) { l.Items = deref(items) },
	GetItems:    func(l *corev1.ConfigMapList) []*corev1.ConfigMap { return refs(l.Items) },
	Validate:    func(obj *corev1.ConfigMap, _ presence.Node) field.ErrorList { return validateMeta(obj) },
	SpecChanged: func(o, n *corev1.ConfigMap) bool { return !equalJSON(o.Data, n.Data) },
}

var eventStrategy = &resource.Strategy[*corev1.Event, *corev1.EventList]{
	Info:     &eventInfo,
	New:      func() *corev1.Event { return &corev1.Event{} },
	NewList:  func() *corev1.EventList { return &corev1.EventList{} },
	SetItems: func(l *corev1.EventList, items []*corev1.Event) { l.Items = deref(items) },
	GetItems: func(l *corev1.EventList) []*corev1.Event { return refs(l.Items) },
	Validate: func(obj *corev1.Event, _ presence.Node) field.ErrorList { return validateMeta(obj) },
	SpecChanged: func(o, n *corev1.Event) bool {
		a, b := o.DeepCopy(), n.DeepCopy()
		a.ObjectMeta, b.ObjectMeta = metav1.ObjectMeta{}, metav1.ObjectMeta{}
		return !equalJSON(a, b)
	},
}

func deref[T any](items []*T) []T {
	out := make([]T, len(items))
	for i, p := range items {
		out[i] = *p
	}
	return out
}

func refs[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// installRoutes writes the routes the routes generator writes for one kind.
func installRoutes[T resource.Object, L resource.ListObject](ws *restful.WebService, store storage.Interface[T, L], s *resource.Strategy[T, L], opts endpoints.Options) {
	h := endpoints.NewHandler(store, s, opts)
	base := "/" + s.Info.Plural
	if s.Info.Namespaced {
		ws.Route(ws.GET(base).To(h.List))
		base = "/namespaces/{namespace}/" + s.Info.Plural
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

type testServer struct {
	s   *server.Server
	url string
}

// startServer runs a server serving core/v1 namespaces, configmaps and
// events, with events kept eventTTL.
// With replicaOf, it shares that server's etcd.
func startServer(t *testing.T, eventTTL time.Duration, withNamespaces bool, replicaOf ...*testServer) *testServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cfg := server.Config{
		DataDir: t.TempDir(), EventTTL: eventTTL, PlainHTTP: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	for _, r := range replicaOf {
		files := r.s.EtcdClientTLS()
		cfg.EtcdServers = r.s.Backend().Client().Endpoints()
		cfg.EtcdCAFile, cfg.EtcdCertFile, cfg.EtcdKeyFile = files.CAFile, files.CertFile, files.KeyFile
	}
	s, err := server.New(ctx, cfg)
	if err != nil {
		cancel()
		t.Fatalf("new server: %v", err)
	}
	ws := server.NewWebService("", "v1").Produces(endpoints.Produces...)
	opts := s.EndpointOptions()
	resources := []*resource.Info{&configMapInfo, &eventInfo}
	cms := storage.NewStore(s.Backend(), configMapStrategy)
	evs := storage.NewStore(s.Backend(), eventStrategy)
	installRoutes(ws, cms, configMapStrategy, opts)
	installRoutes(ws, evs, eventStrategy, opts)
	collections := []storage.Collection{cms, evs}
	if withNamespaces {
		nss := storage.NewStore(s.Backend(), namespaceStrategy)
		installRoutes(ws, nss, namespaceStrategy, opts)
		resources = append([]*resource.Info{&namespaceInfo}, resources...)
		collections = append(collections, nss)
	}
	for _, c := range collections {
		if err := s.AddCollection(c); err != nil {
			t.Fatalf("add collection: %v", err)
		}
	}
	if err := s.AddGroupVersion(server.GroupVersion{Version: "v1", Resources: resources, WebService: ws}); err != nil {
		t.Fatalf("add group-version: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	select {
	case <-s.Ready():
	case err := <-done:
		t.Fatalf("run: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("server not ready after 60 s")
	}
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run: %v", err)
			}
		case <-time.After(60 * time.Second):
			t.Error("Run did not return within 60 s of cancel")
		}
	})
	return &testServer{s: s, url: s.URL()}
}

type response struct {
	code int
	body []byte
}

func (ts *testServer) do(t *testing.T, method, path, contentType, body string) response {
	t.Helper()
	req, err := http.NewRequest(method, ts.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{resp.StatusCode, b}
}

func (ts *testServer) create(t *testing.T, path, body string) response {
	t.Helper()
	return ts.do(t, http.MethodPost, path, "application/json", body)
}

func decode[T any](t *testing.T, r response) *T {
	t.Helper()
	out := new(T)
	if err := json.Unmarshal(r.body, out); err != nil {
		t.Fatalf("decode %T from %d %s: %v", out, r.code, r.body, err)
	}
	return out
}

func wantCode(t *testing.T, r response, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("got %d %s, want %d", r.code, r.body, code)
	}
}

func (ts *testServer) keys(t *testing.T, prefix string) []string {
	t.Helper()
	resp, err := ts.s.Backend().Client().Get(context.Background(), ts.s.Backend().Prefix()+prefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, kv := range resp.Kvs {
		out = append(out, string(kv.Key))
	}
	return out
}

func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func cm(ns, name string, finalizers ...string) string {
	b, _ := json.Marshal(corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Finalizers: finalizers},
		Data:       map[string]string{"k": "v"},
	})
	return string(b)
}

func ev(name string) string {
	return `{"apiVersion":"v1","kind":"Event","metadata":{"name":"` + name + `"},"reason":"Test","message":"hello"}`
}

func TestSystemNamespacesExistAndAreImmortal(t *testing.T) {
	ts := startServer(t, time.Hour, true)
	for _, name := range namespaces.SystemNamespaces {
		r := ts.do(t, http.MethodGet, "/api/v1/namespaces/"+name, "", "")
		wantCode(t, r, http.StatusOK)
		ns := decode[corev1.Namespace](t, r)
		if ns.Status.Phase != corev1.NamespaceActive || len(ns.Spec.Finalizers) != 1 || ns.Spec.Finalizers[0] != corev1.FinalizerKubernetes {
			t.Errorf("namespace %s: phase %q finalizers %v, want Active [kubernetes]", name, ns.Status.Phase, ns.Spec.Finalizers)
		}
	}
	r := ts.do(t, http.MethodDelete, "/api/v1/namespaces/default", "", "")
	wantCode(t, r, http.StatusForbidden)
	st := decode[metav1.Status](t, r)
	if want := `namespaces "default" is forbidden: this namespace may not be deleted`; st.Message != want {
		t.Errorf("message %q, want %q", st.Message, want)
	}
	r = ts.do(t, http.MethodDelete, "/api/v1/namespaces", "", "")
	wantCode(t, r, http.StatusForbidden)
	wantCode(t, ts.do(t, http.MethodGet, "/api/v1/namespaces/kube-system", "", ""), http.StatusOK)

	// Several replicas on one etcd: start-up is idempotent.
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := storage.NewStore(ts.s.Backend(), namespaceStrategy)
			lc := namespaces.New(st, nil, namespaces.Options{})
			st.SetHooks(lc.Hooks())
			errs <- lc.EnsureSystemNamespaces(context.Background())
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("ensure system namespaces again: %v", err)
		}
	}
}

func TestCreateInMissingNamespace(t *testing.T) {
	ts := startServer(t, time.Hour, true)
	for _, path := range []string{"/api/v1/namespaces/nope/configmaps", "/api/v1/namespaces/nope/events"} {
		body := cm("nope", "c1")
		if strings.HasSuffix(path, "events") {
			body = ev("e1")
		}
		r := ts.create(t, path, body)
		wantCode(t, r, http.StatusNotFound)
		st := decode[metav1.Status](t, r)
		if st.Message != `namespaces "nope" not found` || st.Reason != metav1.StatusReasonNotFound ||
			st.Details == nil || st.Details.Kind != "namespaces" || st.Details.Name != "nope" || st.Details.Group != "" {
			t.Errorf("status %+v %+v", st, st.Details)
		}
	}
	// Server-side apply creating the object is admitted the same way.
	r := ts.do(t, http.MethodPatch, "/api/v1/namespaces/nope/configmaps/c2?fieldManager=test", "application/apply-patch+yaml", cm("nope", "c2"))
	wantCode(t, r, http.StatusNotFound)
	if k := ts.keys(t, "/configmaps/"); len(k) != 0 {
		t.Errorf("stored %v", k)
	}
	if k := ts.keys(t, "/events/"); len(k) != 0 {
		t.Errorf("stored %v", k)
	}
	// The namespace exists: the create succeeds.
	wantCode(t, ts.create(t, "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"nope"}}`), http.StatusCreated)
	wantCode(t, ts.create(t, "/api/v1/namespaces/nope/configmaps", cm("nope", "c1")), http.StatusCreated)
}

// watchNamespace streams the events of one namespace object.
func (ts *testServer) watchNamespace(t *testing.T, name string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ts.url+"/api/v1/namespaces?watch=1&fieldSelector=metadata.name%3D"+name, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan string, 100)
	go func() {
		defer resp.Body.Close()
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var e struct {
				Type   string           `json:"type"`
				Object corev1.Namespace `json:"object"`
			}
			if json.Unmarshal(sc.Bytes(), &e) == nil {
				out <- e.Type + " " + string(e.Object.Status.Phase)
			}
		}
	}()
	return out
}

func TestNamespaceDeletion(t *testing.T) {
	ts := startServer(t, time.Hour, true)
	wantCode(t, ts.create(t, "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"}}`), http.StatusCreated)
	events := ts.watchNamespace(t, "team-a")
	wantCode(t, ts.create(t, "/api/v1/namespaces/team-a/configmaps", cm("team-a", "c1")), http.StatusCreated)
	wantCode(t, ts.create(t, "/api/v1/namespaces/team-a/configmaps", cm("team-a", "held", "example.dev/hold")), http.StatusCreated)
	wantCode(t, ts.create(t, "/api/v1/namespaces/team-a/events", ev("e1")), http.StatusCreated)
	// Another namespace is left alone.
	wantCode(t, ts.create(t, "/api/v1/namespaces/default/configmaps", cm("default", "keep")), http.StatusCreated)

	r := ts.do(t, http.MethodDelete, "/api/v1/namespaces/team-a", "", "")
	wantCode(t, r, http.StatusOK)
	ns := decode[corev1.Namespace](t, r)
	if ns.Kind != "Namespace" || ns.DeletionTimestamp == nil || ns.Status.Phase != corev1.NamespaceTerminating {
		t.Fatalf("delete answered %s", r.body)
	}
	// Deleting again changes nothing.
	wantCode(t, ts.do(t, http.MethodDelete, "/api/v1/namespaces/team-a", "", ""), http.StatusOK)

	r = ts.create(t, "/api/v1/namespaces/team-a/configmaps", cm("team-a", "c3"))
	wantCode(t, r, http.StatusForbidden)
	st := decode[metav1.Status](t, r)
	if want := `configmaps "c3" is forbidden: unable to create new content in namespace team-a because it is being terminated`; st.Message != want {
		t.Errorf("message %q, want %q", st.Message, want)
	}
	if st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0].Type != corev1.NamespaceTerminatingCause ||
		st.Details.Causes[0].Field != "metadata.namespace" {
		t.Errorf("details %+v", st.Details)
	}
	r = ts.create(t, "/api/v1/namespaces/team-a/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"gen-"}}`)
	wantCode(t, r, http.StatusForbidden)
	if st := decode[metav1.Status](t, r); !strings.HasPrefix(st.Message, `configmaps "gen-" is forbidden`) {
		t.Errorf("message %q", st.Message)
	}

	// The contents go, except the object with a finalizer, which holds
	// the namespace.
	eventually(t, 10*time.Second, "team-a contents deleted", func() bool {
		return ts.do(t, http.MethodGet, "/api/v1/namespaces/team-a/configmaps/c1", "", "").code == http.StatusNotFound &&
			ts.do(t, http.MethodGet, "/api/v1/namespaces/team-a/events/e1", "", "").code == http.StatusNotFound
	})
	r = ts.do(t, http.MethodGet, "/api/v1/namespaces/team-a/configmaps/held", "", "")
	wantCode(t, r, http.StatusOK)
	if decode[corev1.ConfigMap](t, r).DeletionTimestamp == nil {
		t.Errorf("held configmap not marked for deletion: %s", r.body)
	}
	time.Sleep(2 * time.Second)
	r = ts.do(t, http.MethodGet, "/api/v1/namespaces/team-a", "", "")
	wantCode(t, r, http.StatusOK)
	if decode[corev1.Namespace](t, r).Status.Phase != corev1.NamespaceTerminating {
		t.Errorf("namespace not Terminating: %s", r.body)
	}

	// Removing the finalizer lets the namespace go.
	wantCode(t, ts.do(t, http.MethodPatch, "/api/v1/namespaces/team-a/configmaps/held", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`), http.StatusOK)
	eventually(t, 10*time.Second, "team-a deleted", func() bool {
		return ts.do(t, http.MethodGet, "/api/v1/namespaces/team-a", "", "").code == http.StatusNotFound
	})
	var seen []string
	timeout := time.After(5 * time.Second)
loop:
	for {
		select {
		case e, ok := <-events:
			if !ok {
				break loop
			}
			seen = append(seen, e)
			if strings.HasPrefix(e, "DELETED") {
				break loop
			}
		case <-timeout:
			break loop
		}
	}
	if len(seen) == 0 || seen[len(seen)-1] != "DELETED Terminating" {
		t.Errorf("watch saw %v, want it to end with DELETED Terminating", seen)
	}
	wantCode(t, ts.do(t, http.MethodGet, "/api/v1/namespaces/default/configmaps/keep", "", ""), http.StatusOK)
	if k := ts.keys(t, "/configmaps/team-a/"); len(k) != 0 {
		t.Errorf("left in etcd: %v", k)
	}
	// The name can be used again.
	wantCode(t, ts.create(t, "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"}}`), http.StatusCreated)
	wantCode(t, ts.create(t, "/api/v1/namespaces/team-a/configmaps", cm("team-a", "c1")), http.StatusCreated)
}

func TestWithoutNamespacesNoLifecycle(t *testing.T) {
	ts := startServer(t, time.Hour, false)
	wantCode(t, ts.create(t, "/api/v1/namespaces/anything/configmaps", cm("anything", "c1")), http.StatusCreated)
}

func TestEventTTL(t *testing.T) {
	ts := startServer(t, 2*time.Second, true)
	wantCode(t, ts.create(t, "/api/v1/namespaces/default/events", ev("e1")), http.StatusCreated)
	wantCode(t, ts.create(t, "/api/v1/namespaces/default/configmaps", cm("default", "c1")), http.StatusCreated)
	c := ts.s.Backend().Client()
	ctx := context.Background()
	resp, err := c.Get(ctx, ts.s.Backend().Prefix()+"/events/default/e1")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("get event key: %v %v", resp, err)
	}
	lease := clientv3.LeaseID(resp.Kvs[0].Lease)
	if lease == clientv3.NoLease {
		t.Fatal("event stored without a lease")
	}
	ttl, err := c.TimeToLive(ctx, lease)
	if err != nil || ttl.GrantedTTL != 2 {
		t.Fatalf("lease ttl %+v %v, want granted 2 s", ttl, err)
	}
	resp, err = c.Get(ctx, ts.s.Backend().Prefix()+"/configmaps/default/c1")
	if err != nil || len(resp.Kvs) != 1 || resp.Kvs[0].Lease != 0 {
		t.Fatalf("configmap key: %+v %v, want no lease", resp, err)
	}
	// An update keeps a lease too.
	wantCode(t, ts.do(t, http.MethodPatch, "/api/v1/namespaces/default/events/e1", "application/merge-patch+json", `{"message":"again"}`), http.StatusOK)
	resp, err = c.Get(ctx, ts.s.Backend().Prefix()+"/events/default/e1")
	if err != nil || len(resp.Kvs) != 1 || resp.Kvs[0].Lease == 0 {
		t.Fatalf("updated event key: %+v %v, want a lease", resp, err)
	}
	eventually(t, 10*time.Second, "the event to expire", func() bool {
		return ts.do(t, http.MethodGet, "/api/v1/namespaces/default/events/e1", "", "").code == http.StatusNotFound
	})
	wantCode(t, ts.do(t, http.MethodGet, "/api/v1/namespaces/default/configmaps/c1", "", ""), http.StatusOK)
}

func TestEventLeaseReuse(t *testing.T) {
	ts := startServer(t, time.Hour, true)
	wantCode(t, ts.create(t, "/api/v1/namespaces/default/events", ev("e1")), http.StatusCreated)
	wantCode(t, ts.create(t, "/api/v1/namespaces/default/events", ev("e2")), http.StatusCreated)
	resp, err := ts.s.Backend().Client().Get(context.Background(), ts.s.Backend().Prefix()+"/events/default/", clientv3.WithPrefix())
	if err != nil || len(resp.Kvs) != 2 {
		t.Fatalf("get events: %v %v", resp, err)
	}
	if resp.Kvs[0].Lease == 0 || resp.Kvs[0].Lease != resp.Kvs[1].Lease {
		t.Errorf("leases %d and %d, want one shared lease", resp.Kvs[0].Lease, resp.Kvs[1].Lease)
	}
	ttl, err := ts.s.Backend().Client().TimeToLive(context.Background(), clientv3.LeaseID(resp.Kvs[0].Lease))
	if err != nil || ttl.GrantedTTL != 3600+60 {
		t.Errorf("lease %+v %v, want granted 3660 s", ttl, err)
	}
}

func TestCoreDiscovery(t *testing.T) {
	ts := startServer(t, time.Hour, true)
	r := ts.do(t, http.MethodGet, "/api", "", "")
	wantCode(t, r, http.StatusOK)
	av := decode[metav1.APIVersions](t, r)
	if av.Kind != "APIVersions" || len(av.Versions) != 1 || av.Versions[0] != "v1" {
		t.Errorf("/api: %s", r.body)
	}
	r = ts.do(t, http.MethodGet, "/api/v1", "", "")
	wantCode(t, r, http.StatusOK)
	rl := decode[metav1.APIResourceList](t, r)
	got := map[string]metav1.APIResource{}
	for _, res := range rl.APIResources {
		got[res.Name] = res
	}
	if rl.GroupVersion != "v1" || got["namespaces"].Namespaced || got["namespaces"].Kind != "Namespace" ||
		strings.Join(got["namespaces"].ShortNames, ",") != "ns" || !got["events"].Namespaced || strings.Join(got["events"].ShortNames, ",") != "ev" {
		t.Errorf("/api/v1: %s", r.body)
	}
	req, _ := http.NewRequest(http.MethodGet, ts.url+"/api", nil)
	req.Header.Set("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(resp.Header.Get("Content-Type"), "as=APIGroupDiscoveryList") {
		t.Fatalf("aggregated /api content type %q", resp.Header.Get("Content-Type"))
	}
	var agg struct {
		Items []struct {
			Metadata struct{ Name string } `json:"metadata"`
			Versions []struct {
				Version   string `json:"version"`
				Resources []struct {
					Resource string `json:"resource"`
					Scope    string `json:"scope"`
				} `json:"resources"`
			} `json:"versions"`
		} `json:"items"`
	}
	if err := json.Unmarshal(body, &agg); err != nil {
		t.Fatal(err)
	}
	if len(agg.Items) != 1 || agg.Items[0].Metadata.Name != "" || len(agg.Items[0].Versions) != 1 || agg.Items[0].Versions[0].Version != "v1" {
		t.Fatalf("aggregated /api: %s", body)
	}
	scopes := map[string]string{}
	for _, res := range agg.Items[0].Versions[0].Resources {
		scopes[res.Resource] = res.Scope
	}
	if scopes["namespaces"] != "Cluster" || scopes["events"] != "Namespaced" {
		t.Errorf("aggregated scopes %v", scopes)
	}
}

// namedCollection is a Collection that is not a namespace store.
type namedCollection struct{ info *resource.Info }

func (c namedCollection) Info() *resource.Info { return c.info }
func (c namedCollection) DeleteAllInNamespace(context.Context, string) (int, error) {
	return 0, nil
}

func TestAddCollection(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := server.New(ctx, server.Config{DataDir: t.TempDir(), PlainHTTP: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.AddCollection(namedCollection{&namespaceInfo}); err == nil || !strings.Contains(err.Error(), "storage.Interface") {
		t.Errorf("a namespaces collection that is not a namespace store: %v", err)
	}
	cms := storage.NewStore(s.Backend(), configMapStrategy)
	if err := s.AddCollection(cms); err != nil {
		t.Fatal(err)
	}
	if err := s.AddCollection(cms); err == nil {
		t.Error("adding configmaps twice succeeded")
	}
	if err := s.AddCollection(nil); err == nil {
		t.Error("adding nil succeeded")
	}
	if err := s.AddCollection(storage.NewStore(s.Backend(), namespaceStrategy)); err != nil {
		t.Errorf("add the namespace store: %v", err)
	}
	var c storage.Collection = cms
	if c.Info().GroupResource() != (schema.GroupResource{Resource: "configmaps"}) {
		t.Errorf("info %v", c.Info())
	}
	// DeleteAllInNamespace straight on the store.
	for _, name := range []string{"a", "b"} {
		obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "x"}}
		if name == "b" {
			obj.Finalizers = []string{"example.dev/hold"}
		}
		if _, err := cms.Create(ctx, obj, storage.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := cms.DeleteAllInNamespace(ctx, "x"); err != nil || n != 1 {
		t.Errorf("DeleteAllInNamespace = %d, %v; want 1 remaining", n, err)
	}
	if _, err := cms.Get(ctx, "x", "a", storage.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a still there: %v", err)
	}
	if n, err := cms.DeleteAllInNamespace(ctx, "x"); err != nil || n != 1 {
		t.Errorf("DeleteAllInNamespace again = %d, %v; want 1 remaining", n, err)
	}
}

func TestNamespaceUpdateKeepsFinalizersAndStatus(t *testing.T) {
	ts := startServer(t, time.Hour, true)
	wantCode(t, ts.create(t, "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n1"},"spec":{"finalizers":["example.dev/other"]}}`), http.StatusCreated)
	r := ts.do(t, http.MethodGet, "/api/v1/namespaces/n1", "", "")
	wantCode(t, r, http.StatusOK)
	ns := decode[corev1.Namespace](t, r)
	if strings.Join(finalizerNames(ns), ",") != "example.dev/other,kubernetes" || ns.Status.Phase != corev1.NamespaceActive {
		t.Fatalf("created namespace: %s", r.body)
	}
	ns.Spec.Finalizers = nil
	ns.Status.Phase = corev1.NamespaceTerminating
	ns.Labels = map[string]string{"a": "b"}
	body, _ := json.Marshal(ns)
	r = ts.do(t, http.MethodPut, "/api/v1/namespaces/n1", "application/json", string(body))
	wantCode(t, r, http.StatusOK)
	got := decode[corev1.Namespace](t, r)
	if strings.Join(finalizerNames(got), ",") != "example.dev/other,kubernetes" || got.Status.Phase != corev1.NamespaceActive || got.Labels["a"] != "b" {
		t.Errorf("after PUT: %s", r.body)
	}
	// A finalizer the lifecycle does not own holds the namespace once its
	// contents are gone (kube's /finalize would remove it).
	wantCode(t, ts.create(t, "/api/v1/namespaces/n1/configmaps", cm("n1", "c1")), http.StatusCreated)
	wantCode(t, ts.do(t, http.MethodDelete, "/api/v1/namespaces/n1", "", ""), http.StatusOK)
	eventually(t, 10*time.Second, "the kubernetes finalizer removed", func() bool {
		r := ts.do(t, http.MethodGet, "/api/v1/namespaces/n1", "", "")
		return r.code == http.StatusOK && strings.Join(finalizerNames(decode[corev1.Namespace](t, r)), ",") == "example.dev/other"
	})
	wantCode(t, ts.do(t, http.MethodGet, "/api/v1/namespaces/n1/configmaps/c1", "", ""), http.StatusNotFound)
}

func finalizerNames(ns *corev1.Namespace) []string {
	var out []string
	for _, f := range ns.Spec.Finalizers {
		out = append(out, string(f))
	}
	return out
}

// protobufBody is what client-go's typed clients send for k8s.io/api kinds.
func protobufBody(t *testing.T, apiVersion, kind string, obj interface{ Marshal() ([]byte, error) }) string {
	t.Helper()
	raw, err := obj.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	unk := k8sruntime.Unknown{TypeMeta: k8sruntime.TypeMeta{APIVersion: apiVersion, Kind: kind}, Raw: raw, ContentType: endpoints.MediaTypeProtobuf}
	env, err := unk.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return "k8s\x00" + string(env)
}

func TestProtobufRequestBodies(t *testing.T) {
	ts := startServer(t, time.Hour, true)
	body := protobufBody(t, "v1", "Namespace", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "pb", Labels: map[string]string{"a": "b"}}})
	r := ts.do(t, http.MethodPost, "/api/v1/namespaces", endpoints.MediaTypeProtobuf, body)
	wantCode(t, r, http.StatusCreated)
	if ns := decode[corev1.Namespace](t, r); ns.Name != "pb" || ns.Labels["a"] != "b" || ns.Status.Phase != corev1.NamespaceActive {
		t.Errorf("created %s", r.body)
	}
	r = ts.do(t, http.MethodPost, "/api/v1/namespaces", endpoints.MediaTypeProtobuf, protobufBody(t, "v1", "ConfigMap", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}))
	wantCode(t, r, http.StatusBadRequest)
	wantCode(t, ts.do(t, http.MethodPost, "/api/v1/namespaces", endpoints.MediaTypeProtobuf, "not protobuf"), http.StatusBadRequest)
	r = ts.do(t, http.MethodDelete, "/api/v1/namespaces/pb", endpoints.MediaTypeProtobuf, protobufBody(t, "v1", "DeleteOptions", &metav1.DeleteOptions{}))
	wantCode(t, r, http.StatusOK)
	if ns := decode[corev1.Namespace](t, r); ns.Status.Phase != corev1.NamespaceTerminating {
		t.Errorf("deleted %s", r.body)
	}
}

func TestTwoReplicas(t *testing.T) {
	first := startServer(t, time.Hour, true)
	second := startServer(t, time.Hour, true, first)
	wantCode(t, second.do(t, http.MethodGet, "/api/v1/namespaces/kube-public", "", ""), http.StatusOK)
	wantCode(t, first.create(t, "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shared"}}`), http.StatusCreated)
	for i, ts := range []*testServer{first, second} {
		for j := range 5 {
			wantCode(t, ts.create(t, "/api/v1/namespaces/shared/configmaps", cm("shared", "c"+string(rune('a'+i))+string(rune('0'+j)))), http.StatusCreated)
		}
	}
	// A finalizer keeps the namespace Terminating until it is removed
	// below, however fast the controller empties the rest.
	wantCode(t, first.create(t, "/api/v1/namespaces/shared/configmaps", cm("shared", "held", "test.kubeforge.dev/hold")), http.StatusCreated)
	wantCode(t, second.do(t, http.MethodDelete, "/api/v1/namespaces/shared", "", ""), http.StatusOK)
	// The other replica refuses new content once its watch of namespaces
	// has the deletion: as in kube, whose namespace lifecycle admission
	// reads an informer, only the replica that took the delete looks it up
	// live. A create that got in before is emptied with the rest.
	late := 0
	eventually(t, 5*time.Second, "the other replica to refuse new content", func() bool {
		late++
		return first.create(t, "/api/v1/namespaces/shared/configmaps", cm("shared", fmt.Sprintf("late%d", late))).code == http.StatusForbidden
	})
	wantCode(t, first.do(t, http.MethodPatch, "/api/v1/namespaces/shared/configmaps/held", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`), http.StatusOK)
	eventually(t, 10*time.Second, "the namespace to go", func() bool {
		return first.do(t, http.MethodGet, "/api/v1/namespaces/shared", "", "").code == http.StatusNotFound
	})
	if k := first.keys(t, "/configmaps/shared/"); len(k) != 0 {
		t.Errorf("left in etcd: %v", k)
	}
	wantCode(t, second.create(t, "/api/v1/namespaces/shared/configmaps", cm("shared", "after")), http.StatusNotFound)
}

// TestNamespaceNameLabel: kubernetes.io/metadata.name is set on create,
// and put back on every update that removes or changes it (PUT, merge and
// JSON patch, server-side apply), as kube-apiserver does.
func TestNamespaceNameLabel(t *testing.T) {
	ts := startServer(t, time.Hour, true)
	label := func(r response) string {
		t.Helper()
		return decode[corev1.Namespace](t, r).Labels[corev1.LabelMetadataName]
	}
	r := ts.create(t, "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"lbl","labels":{"kubernetes.io/metadata.name":"other","team":"a"}}}`)
	wantCode(t, r, http.StatusCreated)
	if got := label(r); got != "lbl" {
		t.Fatalf("created namespace label %q, want lbl", got)
	}
	for _, p := range []struct{ contentType, body string }{
		{"application/merge-patch+json", `{"metadata":{"labels":{"kubernetes.io/metadata.name":null}}}`},
		{"application/merge-patch+json", `{"metadata":{"labels":{"kubernetes.io/metadata.name":"x"}}}`},
		{"application/json-patch+json", `[{"op":"remove","path":"/metadata/labels"}]`},
		{"application/strategic-merge-patch+json", `{"metadata":{"labels":{"kubernetes.io/metadata.name":"y"}}}`},
		{"application/apply-patch+yaml", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"lbl","labels":{"kubernetes.io/metadata.name":"z"}}}`},
	} {
		path := "/api/v1/namespaces/lbl"
		if p.contentType == "application/apply-patch+yaml" {
			path += "?fieldManager=test&force=true"
		}
		r := ts.do(t, http.MethodPatch, path, p.contentType, p.body)
		wantCode(t, r, http.StatusOK)
		if got := label(r); got != "lbl" {
			t.Errorf("after %s %s: label %q, want lbl", p.contentType, p.body, got)
		}
	}
	r = ts.do(t, http.MethodGet, "/api/v1/namespaces/lbl", "", "")
	ns := decode[corev1.Namespace](t, r)
	ns.Labels = nil
	body, _ := json.Marshal(ns)
	r = ts.do(t, http.MethodPut, "/api/v1/namespaces/lbl", "application/json", string(body))
	wantCode(t, r, http.StatusOK)
	if got := label(r); got != "lbl" {
		t.Errorf("after a PUT without labels: label %q, want lbl", got)
	}
	// The system namespaces carry it too.
	if got := label(ts.do(t, http.MethodGet, "/api/v1/namespaces/kube-system", "", "")); got != "kube-system" {
		t.Errorf("kube-system label %q", got)
	}
}

// Admit reads namespaces from the watch cache; a create right after the
// namespace's delete (or right after it is created) on the same server
// must still see etcd's state, not a cache that has not caught up.
func TestCreateRightAfterNamespaceDelete(t *testing.T) {
	ts := startServer(t, time.Hour, true)
	for i := range 20 {
		name := "churn-" + string(rune('a'+i))
		wantCode(t, ts.create(t, "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"`+name+`"}}`), http.StatusCreated)
		wantCode(t, ts.create(t, "/api/v1/namespaces/"+name+"/configmaps", cm(name, "c1")), http.StatusCreated)
		wantCode(t, ts.do(t, http.MethodDelete, "/api/v1/namespaces/"+name, "", ""), http.StatusOK)
		r := ts.create(t, "/api/v1/namespaces/"+name+"/configmaps", cm(name, "c2"))
		if r.code != http.StatusForbidden && r.code != http.StatusNotFound {
			t.Fatalf("create in %s right after its delete: got %d %s, want 403 or 404", name, r.code, r.body)
		}
		if r.code == http.StatusForbidden {
			if st := decode[metav1.Status](t, r); st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0].Type != corev1.NamespaceTerminatingCause {
				t.Errorf("details %+v", st.Details)
			}
		}
	}
	// Once a namespace is gone and made again, creates into it succeed
	// at once, although the cache may still hold it Terminating.
	eventually(t, 20*time.Second, "churn-a deleted", func() bool {
		return ts.do(t, http.MethodGet, "/api/v1/namespaces/churn-a", "", "").code == http.StatusNotFound
	})
	wantCode(t, ts.create(t, "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"churn-a"}}`), http.StatusCreated)
	wantCode(t, ts.create(t, "/api/v1/namespaces/churn-a/configmaps", cm("churn-a", "c3")), http.StatusCreated)
}
