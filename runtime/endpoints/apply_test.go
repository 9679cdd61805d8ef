package endpoints_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforge/kubeforge/runtime/endpoints"
	"github.com/kubeforge/kubeforge/runtime/fieldmanager"
)

const applyType = "application/apply-patch+yaml"

// widgetSchemas are the OpenAPI v3 component schemas the openapi generator
// would write for the test kinds: spec.ports is a list-map keyed by name.
var widgetSchemas = map[string]json.RawMessage{
	"dev.kubeforge.test.v1.Widget": json.RawMessage(`{"type":"object","properties":{
		"apiVersion":{"type":"string"},"kind":{"type":"string"},
		"metadata":{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}],"default":{}},
		"spec":{"allOf":[{"$ref":"#/components/schemas/dev.kubeforge.test.v1.WidgetSpec"}],"default":{}},
		"status":{"allOf":[{"$ref":"#/components/schemas/dev.kubeforge.test.v1.WidgetStatus"}],"default":{}}},
		"x-kubernetes-group-version-kind":[{"group":"test.kubeforge.dev","version":"v1","kind":"Widget"},{"group":"test.kubeforge.dev","version":"v1","kind":"Gizmo"}]}`),
	"dev.kubeforge.test.v1.WidgetSpec": json.RawMessage(`{"type":"object","properties":{
		"size":{"type":"string"},"replicas":{"type":"integer","format":"int32"},"owner":{"type":"string"},
		"ports":{"type":"array","items":{"allOf":[{"$ref":"#/components/schemas/dev.kubeforge.test.v1.WidgetPort"}],"default":{}},
			"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"]}}}`),
	"dev.kubeforge.test.v1.WidgetPort": json.RawMessage(`{"type":"object","required":["name"],"properties":{
		"name":{"type":"string"},"port":{"type":"integer","format":"int32"}}}`),
	"dev.kubeforge.test.v1.WidgetStatus": json.RawMessage(`{"type":"object","properties":{
		"phase":{"type":"string"},
		"readyAt":{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Time"}]}}}`),
}

// withSchemas gives the handlers a field manager registry typed by
// widgetSchemas, as the server does with the generated schemas.
func withSchemas(t *testing.T) func(*endpoints.Options) {
	t.Helper()
	reg := fieldmanager.NewRegistry()
	if err := reg.AddSchemas(schema.GroupVersion{Group: testGroup, Version: "v1"}, widgetSchemas); err != nil {
		t.Fatal(err)
	}
	return func(o *endpoints.Options) { o.FieldManagers = reg }
}

// applyWidget is an apply configuration of the widget name with the given
// spec lines (YAML, relative to spec).
func applyWidget(name, spec string) string {
	var b strings.Builder
	b.WriteString("apiVersion: " + testGroup + "/v1\nkind: Widget\nmetadata:\n  name: " + name + "\nspec:\n")
	for _, line := range strings.Split(spec, "\n") {
		b.WriteString("  " + line + "\n")
	}
	return b.String()
}

// stored reads the widget from etcd (nil when absent).
func (ts *testServer) stored(t *testing.T, ns, name string) *Widget {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := etcdClient.Get(ctx, ts.prefix+"/"+testGroup+"/widgets/"+ns+"/"+name)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) == 0 {
		return nil
	}
	var w Widget
	if err := json.Unmarshal(resp.Kvs[0].Value, &w); err != nil {
		t.Fatalf("decode stored widget: %v", err)
	}
	return &w
}

// entry returns the managedFields entry of manager (and subresource).
func entry(t *testing.T, w *Widget, manager, subresource string) metav1.ManagedFieldsEntry {
	t.Helper()
	for _, e := range w.ManagedFields {
		if e.Manager == manager && e.Subresource == subresource {
			return e
		}
	}
	t.Fatalf("no managedFields entry for %q (subresource %q) in %+v", manager, subresource, w.ManagedFields)
	return metav1.ManagedFieldsEntry{}
}

// fields is the fieldsV1 of an entry, decoded.
func fields(t *testing.T, e metav1.ManagedFieldsEntry) map[string]any {
	t.Helper()
	if e.FieldsV1 == nil {
		t.Fatalf("entry %q without fieldsV1", e.Manager)
	}
	var m map[string]any
	if err := json.Unmarshal(e.FieldsV1.Raw, &m); err != nil {
		t.Fatalf("decode fieldsV1: %v", err)
	}
	return m
}

// owns reports whether the fieldsV1 set holds the path (keys like "f:spec").
func owns(set map[string]any, path ...string) bool {
	cur := set
	for _, p := range path {
		next, ok := cur[p].(map[string]any)
		if !ok {
			return false
		}
		cur = next
	}
	return true
}

func TestApply(t *testing.T) {
	ts := newServer(t, withSchemas(t))
	path := widgetsPath("default") + "/a1"

	// Apply to a missing object creates it.
	r := ts.do(t, "PATCH", path+"?fieldManager=alice", applyType, applyWidget("a1", "size: small\nowner: alice@example.dev"))
	if r.code != http.StatusCreated {
		t.Fatalf("apply create: %s", r)
	}
	w := decodeWidget(t, r)
	if w.UID == "" || w.Generation != 1 || w.Spec.Size != "small" || w.Spec.Replicas == nil || *w.Spec.Replicas != 1 {
		t.Errorf("created %+v", w)
	}
	if len(w.ManagedFields) != 1 {
		t.Fatalf("managedFields %+v", w.ManagedFields)
	}
	e := w.ManagedFields[0]
	if e.Manager != "alice" || e.Operation != metav1.ManagedFieldsOperationApply || e.APIVersion != testGroup+"/v1" ||
		e.Time == nil || e.FieldsType != "FieldsV1" || e.Subresource != "" {
		t.Errorf("entry %+v", e)
	}
	set := fields(t, e)
	if !owns(set, "f:spec", "f:size") || !owns(set, "f:spec", "f:owner") || owns(set, "f:spec", "f:replicas") {
		t.Errorf("alice's fields %v: want spec.size and spec.owner, not the defaulted spec.replicas", set)
	}
	if got := ts.stored(t, "default", "a1"); got == nil || len(got.ManagedFields) != 1 || got.ManagedFields[0].Manager != "alice" {
		t.Errorf("stored %+v", got)
	}

	// Apply again with a change: updated, generation bumped.
	r = ts.do(t, "PATCH", path+"?fieldManager=alice", applyType, applyWidget("a1", "size: large\nowner: alice@example.dev"))
	if r.code != http.StatusOK {
		t.Fatalf("apply update: %s", r)
	}
	w = decodeWidget(t, r)
	if w.Spec.Size != "large" || w.Generation != 2 || len(w.ManagedFields) != 1 {
		t.Errorf("updated %+v", w)
	}

	// Apply of the same configuration writes nothing.
	rev, keys := ts.etcdState(t)
	r = ts.do(t, "PATCH", path+"?fieldManager=alice", applyType, applyWidget("a1", "size: large\nowner: alice@example.dev"))
	if r.code != http.StatusOK || decodeWidget(t, r).ResourceVersion != w.ResourceVersion {
		t.Errorf("no-op apply: %s", r)
	}
	ts.nothingStored(t, rev, keys)

	// A field dropped from the configuration is removed.
	r = ts.do(t, "PATCH", path+"?fieldManager=alice", applyType, applyWidget("a1", "size: large"))
	if r.code != http.StatusOK || decodeWidget(t, r).Spec.Owner != "" {
		t.Errorf("apply dropping owner: %s", r)
	}

	// JSON is YAML: an apply configuration in JSON works too.
	r = ts.do(t, "PATCH", path+"?fieldManager=alice", applyType, `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"a1"},"spec":{"size":"medium"}}`)
	if r.code != http.StatusOK || decodeWidget(t, r).Spec.Size != "medium" {
		t.Errorf("JSON apply: %s", r)
	}
}

func TestApplyConflict(t *testing.T) {
	ts := newServer(t, withSchemas(t))
	path := widgetsPath("default") + "/c1"
	cfg := applyWidget("c1", "size: small\nowner: alice@example.dev")
	if r := ts.do(t, "PATCH", path+"?fieldManager=alice", applyType, cfg); r.code != http.StatusCreated {
		t.Fatalf("apply: %s", r)
	}
	// bob takes spec.owner with a merge patch (operation Update).
	r := ts.do(t, "PATCH", path+"?fieldManager=bob", "application/merge-patch+json", `{"spec":{"owner":"bob@example.dev"}}`)
	if r.code != http.StatusOK {
		t.Fatalf("merge patch: %s", r)
	}
	w := decodeWidget(t, r)
	bob := entry(t, w, "bob", "")
	if bob.Operation != metav1.ManagedFieldsOperationUpdate || !owns(fields(t, bob), "f:spec", "f:owner") {
		t.Errorf("bob's entry %+v", bob)
	}
	if owns(fields(t, entry(t, w, "alice", "")), "f:spec", "f:owner") {
		t.Errorf("alice still owns spec.owner")
	}

	// alice applies her owner again without force: 409, nothing stored.
	rev, keys := ts.etcdState(t)
	r = ts.do(t, "PATCH", path+"?fieldManager=alice", applyType, cfg)
	st := wantStatus(t, r, http.StatusConflict, metav1.StatusReasonConflict, "Apply failed with 1 conflict")
	if st.Details == nil || len(st.Details.Causes) != 1 {
		t.Fatalf("causes %+v", st.Details)
	}
	c := st.Details.Causes[0]
	if c.Type != metav1.CauseTypeFieldManagerConflict || c.Field != ".spec.owner" || !strings.HasPrefix(c.Message, `conflict with "bob"`) {
		t.Errorf("cause %+v", c)
	}
	ts.nothingStored(t, rev, keys)

	// force=true takes ownership.
	r = ts.do(t, "PATCH", path+"?fieldManager=alice&force=true", applyType, cfg)
	if r.code != http.StatusOK {
		t.Fatalf("forced apply: %s", r)
	}
	w = decodeWidget(t, r)
	if w.Spec.Owner != "alice@example.dev" || !owns(fields(t, entry(t, w, "alice", "")), "f:spec", "f:owner") {
		t.Errorf("after force %+v", w)
	}
	for _, e := range w.ManagedFields {
		if e.Manager == "bob" && owns(fields(t, e), "f:spec", "f:owner") {
			t.Errorf("bob still owns spec.owner: %+v", w.ManagedFields)
		}
	}
}

func TestApplyListMap(t *testing.T) {
	ts := newServer(t, withSchemas(t))
	path := widgetsPath("default") + "/l1"
	if r := ts.do(t, "PATCH", path+"?fieldManager=alice", applyType, applyWidget("l1", "ports:\n- name: http\n  port: 80")); r.code != http.StatusCreated {
		t.Fatalf("alice: %s", r)
	}
	if r := ts.do(t, "PATCH", path+"?fieldManager=bob", applyType, applyWidget("l1", "ports:\n- name: metrics\n  port: 9090")); r.code != http.StatusOK {
		t.Fatalf("bob: %s", r)
	}
	// alice changes her entry: bob's entry stays.
	r := ts.do(t, "PATCH", path+"?fieldManager=alice", applyType, applyWidget("l1", "ports:\n- name: http\n  port: 8080"))
	if r.code != http.StatusOK {
		t.Fatalf("alice again: %s", r)
	}
	w := decodeWidget(t, r)
	want := []WidgetPort{{Name: "http", Port: 8080}, {Name: "metrics", Port: 9090}}
	if len(w.Spec.Ports) != 2 || w.Spec.Ports[0] != want[0] || w.Spec.Ports[1] != want[1] {
		t.Errorf("ports %+v, want %+v", w.Spec.Ports, want)
	}
	if !owns(fields(t, entry(t, w, "bob", "")), "f:spec", "f:ports", `k:{"name":"metrics"}`) {
		t.Errorf("bob's fields %v", fields(t, entry(t, w, "bob", "")))
	}
	// alice drops her entry: only hers goes.
	r = ts.do(t, "PATCH", path+"?fieldManager=alice", applyType, applyWidget("l1", "size: small"))
	if r.code != http.StatusOK {
		t.Fatalf("alice drops: %s", r)
	}
	if w = decodeWidget(t, r); len(w.Spec.Ports) != 1 || w.Spec.Ports[0].Name != "metrics" {
		t.Errorf("ports %+v, want bob's only", w.Spec.Ports)
	}
}

func TestManagedFieldsOnUpdates(t *testing.T) {
	ts := newServer(t, withSchemas(t))
	p := widgetsPath("default")

	// Create without fieldManager: the manager is the User-Agent's product.
	r := ts.do(t, "POST", p, jsonType, `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"u1"},"spec":{"size":"small"}}`,
		"User-Agent", "kubectl/v1.37.0 (linux/amd64) kubernetes/abc")
	if r.code != http.StatusCreated {
		t.Fatalf("create: %s", r)
	}
	w := decodeWidget(t, r)
	e := entry(t, w, "kubectl", "")
	if e.Operation != metav1.ManagedFieldsOperationUpdate || e.APIVersion != testGroup+"/v1" || e.Time == nil || e.FieldsType != "FieldsV1" ||
		!owns(fields(t, e), "f:spec", "f:size") {
		t.Errorf("create entry %+v", e)
	}

	// PUT with a fieldManager.
	w.Spec.Owner = "carol@example.dev"
	body, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	r = ts.do(t, "PUT", p+"/u1?fieldManager=carol", jsonType, string(body))
	if r.code != http.StatusOK {
		t.Fatalf("put: %s", r)
	}
	w = decodeWidget(t, r)
	if e := entry(t, w, "carol", ""); e.Operation != metav1.ManagedFieldsOperationUpdate || !owns(fields(t, e), "f:spec", "f:owner") {
		t.Errorf("put entry %+v", e)
	}
	if w.Generation != 2 {
		t.Errorf("generation %d after a spec change, want 2", w.Generation)
	}

	// A status write is recorded with subresource status, and only the
	// status write's fields.
	r = ts.do(t, "PATCH", p+"/u1/status?fieldManager=ctrl", "application/merge-patch+json", `{"status":{"phase":"Ready"}}`)
	if r.code != http.StatusOK {
		t.Fatalf("status patch: %s", r)
	}
	w = decodeWidget(t, r)
	e = entry(t, w, "ctrl", "status")
	if e.Operation != metav1.ManagedFieldsOperationUpdate || !owns(fields(t, e), "f:status", "f:phase") || owns(fields(t, e), "f:spec") {
		t.Errorf("status entry %+v", e)
	}
	if w.Generation != 2 {
		t.Errorf("generation %d after a status write, want 2", w.Generation)
	}
	// Status apply: ctrl owns status.phase, so it takes force.
	r = ts.do(t, "PATCH", p+"/u1/status?fieldManager=ctrl-apply", applyType,
		"apiVersion: test.kubeforge.dev/v1\nkind: Widget\nmetadata:\n  name: u1\nstatus:\n  phase: Done\n")
	wantStatus(t, r, http.StatusConflict, metav1.StatusReasonConflict, `conflict with "ctrl" with subresource "status"`)
	r = ts.do(t, "PATCH", p+"/u1/status?fieldManager=ctrl-apply&force=true", applyType,
		"apiVersion: test.kubeforge.dev/v1\nkind: Widget\nmetadata:\n  name: u1\nstatus:\n  phase: Done\n")
	if r.code != http.StatusOK {
		t.Fatalf("status apply: %s", r)
	}
	w = decodeWidget(t, r)
	if e := entry(t, w, "ctrl-apply", "status"); e.Operation != metav1.ManagedFieldsOperationApply || w.Status.Phase != "Done" {
		t.Errorf("status apply entry %+v, phase %q", e, w.Status.Phase)
	}

	// JSON patch, then a merge patch that only touches managedFields'
	// neighbours: no change, no write, same resourceVersion.
	r = ts.do(t, "PATCH", p+"/u1?fieldManager=dave", "application/json-patch+json", `[{"op":"replace","path":"/spec/size","value":"large"}]`)
	if r.code != http.StatusOK {
		t.Fatalf("json patch: %s", r)
	}
	w = decodeWidget(t, r)
	if e := entry(t, w, "dave", ""); !owns(fields(t, e), "f:spec", "f:size") {
		t.Errorf("dave's entry %+v", e)
	}
	rev, keys := ts.etcdState(t)
	r = ts.do(t, "PATCH", p+"/u1?fieldManager=erin", "application/merge-patch+json", `{"spec":{"size":"large"}}`)
	if r.code != http.StatusOK || decodeWidget(t, r).ResourceVersion != w.ResourceVersion {
		t.Errorf("no-op patch: %s", r)
	}
	ts.nothingStored(t, rev, keys)

	// A client that drops managedFields from a PUT body keeps them.
	w.ManagedFields = nil
	w.Spec.Size = "small"
	body, err = json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	r = ts.do(t, "PUT", p+"/u1?fieldManager=gina", jsonType, string(body))
	if r.code != http.StatusOK {
		t.Fatalf("put without managedFields: %s", r)
	}
	w = decodeWidget(t, r)
	entry(t, w, "ctrl-apply", "status")
	if e := entry(t, w, "gina", ""); !owns(fields(t, e), "f:spec", "f:size") {
		t.Errorf("gina's entry %+v", e)
	}

	// managedFields a client makes up never make a 500: what does not
	// decode is replaced by the live object's, the rest is validated.
	for _, mf := range []string{
		`[{"manager":"x","operation":"Bogus","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{}}}]`,
		`[{"manager":"x","operation":"Update","fieldsType":"FieldsV2","fieldsV1":{"f:nope":1}}]`,
		`[{"manager":"x"}]`,
		`"junk"`,
	} {
		r = ts.do(t, "PATCH", p+"/u1?fieldManager=mallory", "application/merge-patch+json", `{"metadata":{"managedFields":`+mf+`}}`)
		if r.code >= 500 {
			t.Errorf("managedFields %s: %s", mf, r)
		}
	}

	// PartialObjectMetadata carries them.
	r = ts.do(t, "GET", p+"/u1", "", "", "Accept", "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io")
	var pom metav1.PartialObjectMetadata
	if err := json.Unmarshal(r.body, &pom); err != nil || r.code != http.StatusOK || len(pom.ManagedFields) != len(w.ManagedFields) {
		t.Errorf("PartialObjectMetadata: %v %s", err, r)
	}

	// managedFields: [] resets them, as kube-apiserver does: the fields
	// of later updates are not tracked until the next apply.
	r = ts.do(t, "PATCH", p+"/u1?fieldManager=frank", "application/merge-patch+json", `{"metadata":{"managedFields":[]},"spec":{"owner":"frank@example.dev"}}`)
	if r.code != http.StatusOK {
		t.Fatalf("reset: %s", r)
	}
	if w = decodeWidget(t, r); len(w.ManagedFields) != 0 || w.Spec.Owner != "frank@example.dev" {
		t.Errorf("after reset %+v", w.ManagedFields)
	}
	if got := ts.stored(t, "default", "u1"); len(got.ManagedFields) != 0 {
		t.Errorf("stored after reset %+v", got.ManagedFields)
	}
	// The first apply then finds the untracked fields owned by
	// "before-first-apply", as kube-apiserver records them.
	r = ts.do(t, "PATCH", p+"/u1?fieldManager=alice", applyType, applyWidget("u1", "size: medium"))
	wantStatus(t, r, http.StatusConflict, metav1.StatusReasonConflict, `conflict with "before-first-apply"`)
	r = ts.do(t, "PATCH", p+"/u1?fieldManager=alice&force=true", applyType, applyWidget("u1", "size: medium"))
	if r.code != http.StatusOK {
		t.Fatalf("apply after reset: %s", r)
	}
	w = decodeWidget(t, r)
	if e := entry(t, w, "alice", ""); !owns(fields(t, e), "f:spec", "f:size") {
		t.Errorf("alice's entry %+v", e)
	}
	if e := entry(t, w, "before-first-apply", ""); !owns(fields(t, e), "f:spec", "f:owner") {
		t.Errorf("before-first-apply entry %+v", e)
	}
}

func TestApplyDryRun(t *testing.T) {
	ts := newServer(t, withSchemas(t))
	path := widgetsPath("default")
	rev, keys := ts.etcdState(t)
	r := ts.do(t, "PATCH", path+"/d1?fieldManager=alice&dryRun=All", applyType, applyWidget("d1", "size: small"))
	if r.code != http.StatusCreated {
		t.Fatalf("dry-run apply create: %s", r)
	}
	if w := decodeWidget(t, r); w.Spec.Size != "small" || len(w.ManagedFields) != 1 {
		t.Errorf("dry-run create %+v", w)
	}
	ts.nothingStored(t, rev, keys)
	if ts.stored(t, "default", "d1") != nil {
		t.Fatal("dry-run apply stored the object")
	}

	if r := ts.do(t, "PATCH", path+"/d1?fieldManager=alice", applyType, applyWidget("d1", "size: small")); r.code != http.StatusCreated {
		t.Fatalf("apply: %s", r)
	}
	before := ts.stored(t, "default", "d1")
	rev, keys = ts.etcdState(t)
	for _, c := range []struct{ contentType, query, body string }{
		{applyType, "?fieldManager=alice&dryRun=All", applyWidget("d1", "size: large")},
		{"application/merge-patch+json", "?fieldManager=bob&dryRun=All", `{"spec":{"owner":"bob@example.dev"}}`},
	} {
		r := ts.do(t, "PATCH", path+"/d1"+c.query, c.contentType, c.body)
		if r.code != http.StatusOK {
			t.Fatalf("dry-run %s: %s", c.contentType, r)
		}
		w := decodeWidget(t, r)
		if w.Spec.Size != "large" && w.Spec.Owner != "bob@example.dev" {
			t.Errorf("dry-run %s did not answer the patched object: %+v", c.contentType, w.Spec)
		}
	}
	ts.nothingStored(t, rev, keys)
	if after := ts.stored(t, "default", "d1"); !reflect.DeepEqual(after.Spec, before.Spec) || after.ResourceVersion != before.ResourceVersion || len(after.ManagedFields) != 1 {
		t.Errorf("stored changed: %+v -> %+v", before, after)
	}
}

func TestApplyFieldValidation(t *testing.T) {
	ts := newServer(t, withSchemas(t))
	path := widgetsPath("default") + "/v1"
	cfg := applyWidget("v1", "size: small\nsise: typo")
	// Warn (the default): applied without the unknown field, with a warning.
	r := ts.do(t, "PATCH", path+"?fieldManager=alice", applyType, cfg)
	if r.code != http.StatusCreated {
		t.Fatalf("warn: %s", r)
	}
	if got := r.header.Values("Warning"); len(got) != 1 || !strings.Contains(got[0], `unknown field \"spec.sise\"`) {
		t.Errorf("warnings %q", got)
	}
	// Ignore: no warning.
	r = ts.do(t, "PATCH", path+"?fieldManager=alice&fieldValidation=Ignore", applyType, cfg)
	if r.code != http.StatusOK || len(r.header.Values("Warning")) != 0 {
		t.Errorf("ignore: %s %q", r, r.header.Values("Warning"))
	}
	// Duplicate keys are strict errors too.
	r = ts.do(t, "PATCH", path+"?fieldManager=alice&fieldValidation=Strict", applyType, applyWidget("v1", "size: small\nsize: large"))
	wantStatus(t, r, http.StatusBadRequest, metav1.StatusReasonBadRequest, "already set in map")
	// A known field at its zero value is kept and owned.
	r = ts.do(t, "PATCH", path+"?fieldManager=alice", applyType, applyWidget("v1", "size: small\nreplicas: 0"))
	if r.code != http.StatusOK {
		t.Fatalf("zero value: %s", r)
	}
	w := decodeWidget(t, r)
	if w.Spec.Replicas == nil || *w.Spec.Replicas != 0 || !owns(fields(t, entry(t, w, "alice", "")), "f:spec", "f:replicas") {
		t.Errorf("replicas %v, fields %v", w.Spec.Replicas, fields(t, entry(t, w, "alice", "")))
	}
}

// TestApplyWithoutSchemas: a handler without schemas deduces the types
// (every field atomic) and still records managers and conflicts.
func TestApplyWithoutSchemas(t *testing.T) {
	ts := newServer(t)
	path := widgetsPath("default") + "/n1"
	if r := ts.do(t, "PATCH", path+"?fieldManager=alice", applyType, applyWidget("n1", "owner: alice@example.dev")); r.code != http.StatusCreated {
		t.Fatalf("apply: %s", r)
	}
	if r := ts.do(t, "PATCH", path+"?fieldManager=bob", "application/merge-patch+json", `{"spec":{"owner":"bob@example.dev"}}`); r.code != http.StatusOK {
		t.Fatalf("merge: %s", r)
	}
	r := ts.do(t, "PATCH", path+"?fieldManager=alice", applyType, applyWidget("n1", "owner: alice@example.dev"))
	st := wantStatus(t, r, http.StatusConflict, metav1.StatusReasonConflict, "conflict")
	if st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0].Field != ".spec.owner" {
		t.Errorf("causes %+v", st.Details)
	}
}

// TestCreateManagedFieldsAsCustomResource: a create's entry is the one
// kube-apiserver records for a custom resource, whose live object is
// empty: the spec it sets is owned with its own entry ("."), and the
// status a create resets is not owned at all.
func TestCreateManagedFieldsAsCustomResource(t *testing.T) {
	ts := newServer(t, withSchemas(t))
	r := ts.do(t, "POST", widgetsPath("default")+"?fieldManager=m", jsonType,
		`{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"mf1","labels":{"a":"b"}},"spec":{"size":"small"}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("create: %s", r)
	}
	e := entry(t, decodeWidget(t, r), "m", "")
	if got := string(e.FieldsV1.Raw); !strings.HasPrefix(got, `{"f:metadata":{"f:labels":{".":{},"f:a":{}}},"f:spec":{".":{},`) || strings.Contains(got, "f:status") {
		t.Errorf("fieldsV1 %s, want f:spec with its own entry and no f:status", got)
	}
}
