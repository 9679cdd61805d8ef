package endpoints_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforge/kubeforge/runtime/admission"
	"github.com/kubeforge/kubeforge/runtime/endpoints"
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
