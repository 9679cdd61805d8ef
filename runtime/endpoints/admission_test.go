package endpoints_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/emicklei/go-restful/v3"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforge/kubeforge/runtime/admission"
	"github.com/kubeforge/kubeforge/runtime/endpoints"
	"github.com/kubeforge/kubeforge/runtime/resource"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// recordingChain records each admission call and labels what it mutates;
// it refuses objects labelled refuse=yes in Validate.
type recordingChain struct {
	mu    sync.Mutex
	calls []string
}

func (c *recordingChain) record(phase string, a *admission.Attributes) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := "-"
	if a.OldObject != nil {
		old = "old"
	}
	opts := "-"
	if a.Options != nil {
		opts = a.Options.GetObjectKind().GroupVersionKind().Kind
	}
	c.calls = append(c.calls, fmt.Sprintf("%s %s %s %s %s dry=%v %s", phase, a.Operation, a.Subresource, a.Name, old, a.DryRun, opts))
}

func (c *recordingChain) Mutate(_ context.Context, a *admission.Attributes) error {
	c.record("mutate", a)
	if w, ok := a.Object.(*Widget); ok {
		if w.Labels == nil {
			w.Labels = map[string]string{}
		}
		w.Labels["mutated"] = "yes"
	}
	return nil
}

func (c *recordingChain) Validate(_ context.Context, a *admission.Attributes) error {
	c.record("validate", a)
	if w, ok := a.Object.(*Widget); ok && w.Labels["refuse"] == "yes" {
		return apierrors.NewForbidden(a.Resource.GroupResource(), a.Name, fmt.Errorf("refused by the test"))
	}
	return nil
}

func (c *recordingChain) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.calls
	c.calls = nil
	return out
}

// TestAdmissionSeam: every kind of write calls Mutate then Validate with
// kube's attributes (operation, subresource, old object, options,
// dry-run); a mutation is stored; a refusal stores nothing; a delete is
// mutated and validated with the object being deleted.
func TestAdmissionSeam(t *testing.T) {
	chain := &recordingChain{}
	ts := newServer(t, func(o *endpoints.Options) { o.Admission = chain })
	path := widgetsPath("default")
	w := ts.createWidget(t, "default", "w1", `{"owner":"a@example.dev"}`)
	if w.Labels["mutated"] != "yes" {
		t.Errorf("the mutation is not stored: %v", w.Labels)
	}
	check := func(what string, want ...string) {
		t.Helper()
		got := chain.take()
		// A write begun on the watch cache's copy may be retried once on
		// etcd's: keep the last round.
		if len(got) > len(want) {
			got = got[len(got)-len(want):]
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: calls\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	check("create", "mutate CREATE  w1 - dry=false CreateOptions", "validate CREATE  w1 - dry=false CreateOptions")

	w.ResourceVersion = ""
	r := ts.do(t, "PATCH", path+"/w1?dryRun=All", "application/merge-patch+json", `{"spec":{"size":"large"}}`)
	if r.code != http.StatusOK {
		t.Fatalf("patch: %s", r)
	}
	check("dry-run merge patch", "mutate UPDATE  w1 old dry=true UpdateOptions", "validate UPDATE  w1 old dry=true UpdateOptions")

	r = ts.do(t, "PATCH", path+"/w1/status", "application/merge-patch+json", `{"status":{"phase":"Ready"}}`)
	if r.code != http.StatusOK {
		t.Fatalf("status patch: %s", r)
	}
	check("status patch", "mutate UPDATE status w1 old dry=false UpdateOptions", "validate UPDATE status w1 old dry=false UpdateOptions")

	r = ts.do(t, "PATCH", path+"/w2?fieldManager=test", "application/apply-patch+yaml",
		`{"apiVersion":"`+testGroup+`/v1","kind":"Widget","metadata":{"name":"w2"},"spec":{"owner":"b@example.dev"}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("apply create: %s", r)
	}
	got := chain.take()
	if len(got) < 2 || got[len(got)-2] != "mutate CREATE  w2 - dry=false CreateOptions" || got[len(got)-1] != "validate CREATE  w2 - dry=false CreateOptions" {
		t.Errorf("apply that creates: %q", got)
	}

	cur := decodeWidget(t, ts.do(t, "GET", path+"/w1", "", ""))
	cur.Labels["refuse"] = "yes"
	body, _ := json.Marshal(cur)
	r = ts.do(t, "PUT", path+"/w1", jsonType, string(body))
	wantStatus(t, r, http.StatusForbidden, metav1.StatusReasonForbidden, `widgets.`+testGroup+` "w1" is forbidden: refused by the test`)
	check("refused update", "mutate UPDATE  w1 old dry=false UpdateOptions", "validate UPDATE  w1 old dry=false UpdateOptions")
	if after := decodeWidget(t, ts.do(t, "GET", path+"/w1", "", "")); after.Labels["refuse"] == "yes" {
		t.Error("a refused update was stored")
	}

	r = ts.do(t, "DELETE", path+"/w1", "", "")
	if r.code != http.StatusOK {
		t.Fatalf("delete: %s", r)
	}
	check("delete", "mutate DELETE  w1 old dry=false DeleteOptions", "validate DELETE  w1 old dry=false DeleteOptions")
}

// scaleMutator sets every Scale it mutates to 3 replicas.
type scaleMutator struct{ recordingChain }

func (c *scaleMutator) Mutate(ctx context.Context, a *admission.Attributes) error {
	c.record("mutate", a)
	if sc, ok := a.Object.(*autoscalingv1.Scale); ok {
		sc.Spec.Replicas = 3
	}
	return nil
}

// TestAdmissionScale: a /scale write is admitted as kube admits it, an
// UPDATE of the scale subresource whose objects are autoscaling/v1
// Scales, and the mutated Scale is what is written.
func TestAdmissionScale(t *testing.T) {
	chain := &scaleMutator{}
	prefix := "/" + t.Name()
	backend := storage.NewBackend(etcdClient, prefix, storage.BackendOptions{})
	t.Cleanup(backend.Close)
	wi := widgetInfo
	s := newStrategy(&wi)
	s.GetScale = func(w *Widget) resource.Scale { return resource.Scale{SpecReplicas: *w.Spec.Replicas} }
	s.SetReplicas = func(w *Widget, n int32) { w.Spec.Replicas = &n }
	s.ScaleSpecPath = []string{"spec", "replicas"}
	h := endpoints.NewHandler(storage.NewStore(backend, s), s, endpoints.Options{Admission: chain})
	ws := new(restful.WebService).Path("/apis/" + testGroup + "/v1").Produces(endpoints.Produces...)
	base := "/namespaces/{namespace}/widgets"
	ws.Route(ws.POST(base).To(h.Create))
	ws.Route(ws.GET(base + "/{name}").To(h.Get))
	ws.Route(ws.PUT(base + "/{name}/scale").To(h.UpdateScale))
	c := restful.NewContainer()
	c.Add(ws)
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	ts := &testServer{Server: srv, prefix: prefix}
	ts.createWidget(t, "default", "w1", `{"owner":"a@example.dev"}`)
	chain.take()
	r := ts.do(t, "PUT", widgetsPath("default")+"/w1/scale", jsonType, `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"w1","namespace":"default"},"spec":{"replicas":5}}`)
	if r.code != http.StatusOK {
		t.Fatalf("scale: %s", r)
	}
	got := chain.take()
	want := []string{"mutate UPDATE scale w1 old dry=false UpdateOptions", "validate UPDATE scale w1 old dry=false UpdateOptions"}
	if len(got) < 2 || strings.Join(got[len(got)-2:], "\n") != strings.Join(want, "\n") {
		t.Errorf("calls %q, want %q", got, want)
	}
	if w := decodeWidget(t, ts.do(t, "GET", widgetsPath("default")+"/w1", "", "")); *w.Spec.Replicas != 3 {
		t.Errorf("replicas %d, want the mutated 3", *w.Spec.Replicas)
	}
}
