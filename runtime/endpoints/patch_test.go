package endpoints_test

import (
	"encoding/json"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestFieldValidation(t *testing.T) {
	ts := newServer(t)
	body := func(name string) string {
		return `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":{"replcas":2,"size":"small"}}`
	}
	// Warn is the default: stored, with a Warning header per unknown field.
	for _, q := range []string{"", "?fieldValidation=Warn"} {
		name := "warn" + map[string]string{"": "default", "?fieldValidation=Warn": "explicit"}[q]
		r := ts.do(t, "POST", widgetsPath("default")+q, jsonType, body(name))
		if r.code != http.StatusCreated {
			t.Fatalf("warn create: %s", r)
		}
		if got := r.header.Values("Warning"); len(got) != 1 || got[0] != `299 - "unknown field \"spec.replcas\""` {
			t.Errorf("Warning headers %q", got)
		}
	}
	r := ts.do(t, "POST", widgetsPath("default")+"?fieldValidation=Ignore", jsonType, body("ignore"))
	if r.code != http.StatusCreated || len(r.header.Values("Warning")) != 0 {
		t.Errorf("ignore: %s %v", r, r.header.Values("Warning"))
	}
	rev, keys := ts.etcdState(t)
	r = ts.do(t, "POST", widgetsPath("default")+"?fieldValidation=Strict", jsonType, body("strict"))
	wantStatus(t, r, http.StatusBadRequest, metav1.StatusReasonBadRequest, `strict decoding error: unknown field "spec.replcas"`)
	ts.nothingStored(t, rev, keys)

	// YAML duplicate keys warn too.
	r = ts.do(t, "POST", widgetsPath("default"), "application/yaml", "apiVersion: test.kubeforge.dev/v1\nkind: Widget\nmetadata:\n  name: dupyaml\nspec:\n  size: small\n  size: large\n")
	if r.code != http.StatusCreated || len(r.header.Values("Warning")) == 0 {
		t.Errorf("yaml duplicate: %s %v", r, r.header)
	}

	// Patches: the patched object is checked the same way.
	r = ts.do(t, "PATCH", widgetsPath("default")+"/ignore", "application/merge-patch+json", `{"spec":{"sise":"large"}}`)
	if r.code != http.StatusOK || len(r.header.Values("Warning")) != 1 {
		t.Errorf("warn patch: %s %v", r, r.header)
	}
	r = ts.do(t, "PATCH", widgetsPath("default")+"/ignore", "application/json-patch+json", `[{"op":"add","path":"/spec/sise","value":"x","extra":1}]`)
	if r.code != http.StatusOK || len(r.header.Values("Warning")) != 2 {
		t.Errorf("warn json patch (unknown op field and unknown object field): %s %v", r, r.header.Values("Warning"))
	}
	r = ts.do(t, "PATCH", widgetsPath("default")+"/ignore?fieldValidation=Ignore", "application/merge-patch+json", `{"spec":{"sise":"large"}}`)
	if r.code != http.StatusOK || len(r.header.Values("Warning")) != 0 {
		t.Errorf("ignore patch: %s %v", r, r.header)
	}
}

func TestPatch(t *testing.T) {
	ts := newServer(t)
	w := ts.createWidget(t, "default", "p1", `{"owner":"a@example.dev"}`)
	path := widgetsPath("default") + "/p1"

	r := ts.do(t, "PATCH", path, "application/merge-patch+json", `{"spec":{"size":"small"}}`)
	if r.code != http.StatusOK {
		t.Fatalf("merge patch: %s", r)
	}
	got := decodeWidget(t, r)
	if got.Spec.Size != "small" || got.Generation != 2 || got.Kind != "Widget" || got.Spec.Owner != "a@example.dev" {
		t.Errorf("merge patch result %+v", got)
	}

	r = ts.do(t, "PATCH", path, "application/json-patch+json; charset=utf-8", `[{"op":"test","path":"/spec/size","value":"small"},{"op":"replace","path":"/spec/owner","value":"b@example.dev"}]`)
	if r.code != http.StatusOK || decodeWidget(t, r).Spec.Owner != "b@example.dev" {
		t.Fatalf("json patch: %s", r)
	}

	// Removing a defaulted field: defaults come back.
	r = ts.do(t, "PATCH", path, "application/json-patch+json", `[{"op":"remove","path":"/spec/replicas"}]`)
	if r.code != http.StatusOK || decodeWidget(t, r).Spec.Replicas == nil {
		t.Fatalf("defaults after patch: %s", r)
	}

	// The current resourceVersion in a patch is a precondition that holds.
	cur := decodeWidget(t, ts.do(t, "GET", path, "", ""))
	pb, _ := json.Marshal(map[string]any{"metadata": map[string]any{"resourceVersion": cur.ResourceVersion}, "spec": map[string]any{"size": "large"}})
	r = ts.do(t, "PATCH", path, "application/merge-patch+json", string(pb))
	if r.code != http.StatusOK || decodeWidget(t, r).Spec.Size != "large" {
		t.Fatalf("patch with current resourceVersion: %s", r)
	}
	// ...and the same one again is now stale.
	r = ts.do(t, "PATCH", path, "application/merge-patch+json", string(pb))
	wantStatus(t, r, http.StatusConflict, metav1.StatusReasonConflict, "the object has been modified")

	// Status: /status patches take only status; main patches keep it.
	r = ts.do(t, "PATCH", path+"/status", "application/merge-patch+json", `{"status":{"phase":"Ready"},"spec":{"size":"small"}}`)
	if r.code != http.StatusOK {
		t.Fatal(r)
	}
	if st := decodeWidget(t, r); st.Status.Phase != "Ready" || st.Spec.Size != "large" {
		t.Errorf("status patch result spec %+v status %+v", st.Spec, st.Status)
	}
	r = ts.do(t, "PATCH", path, "application/merge-patch+json", `{"status":{"phase":"Broken"}}`)
	if r.code != http.StatusOK || decodeWidget(t, r).Status.Phase != "Ready" {
		t.Errorf("main patch changed status: %s", r)
	}
	r = ts.do(t, "PATCH", path+"/status", "application/json-patch+json", `[{"op":"replace","path":"/status/phase","value":"Done"}]`)
	if r.code != http.StatusOK || decodeWidget(t, r).Status.Phase != "Done" {
		t.Errorf("json patch on status: %s", r)
	}

	// Labels only: generation stays.
	before := decodeWidget(t, ts.do(t, "GET", path, "", ""))
	r = ts.do(t, "PATCH", path, "application/merge-patch+json", `{"metadata":{"labels":{"tier":"gold"}}}`)
	if after := decodeWidget(t, r); after.Labels["tier"] != "gold" || after.Generation != before.Generation {
		t.Errorf("label patch: gen %d -> %d, labels %v", before.Generation, after.Generation, after.Labels)
	}
	if w.UID != before.UID {
		t.Error("uid changed")
	}
}
