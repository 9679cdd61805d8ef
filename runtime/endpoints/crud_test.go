package endpoints_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

func TestCRUD(t *testing.T) {
	ts := newServer(t)
	w := ts.createWidget(t, "default", "w1", `{"owner":"a@example.dev"}`)
	if w.Kind != "Widget" || w.APIVersion != testGroup+"/v1" {
		t.Errorf("created object kind/apiVersion = %q/%q", w.Kind, w.APIVersion)
	}
	if w.Spec.Size != "medium" || w.Spec.Replicas == nil || *w.Spec.Replicas != 1 {
		t.Errorf("defaults not applied: %+v", w.Spec)
	}
	if w.UID == "" || w.ResourceVersion == "" || w.Generation != 1 || w.Namespace != "default" {
		t.Errorf("server-set metadata missing: %+v", w.ObjectMeta)
	}

	r := ts.do(t, "GET", widgetsPath("default")+"/w1", "", "")
	if r.code != http.StatusOK {
		t.Fatalf("get: %s", r)
	}
	got := decodeWidget(t, r)
	if got.UID != w.UID || got.Kind != "Widget" || got.APIVersion != testGroup+"/v1" {
		t.Errorf("get returned %+v", got)
	}

	// PUT with a stale resourceVersion is a 409 with kube's message.
	got.Spec.Size = "large"
	got.ResourceVersion = "1"
	body, _ := json.Marshal(got)
	r = ts.do(t, "PUT", widgetsPath("default")+"/w1", jsonType, string(body))
	wantStatus(t, r, http.StatusConflict, metav1.StatusReasonConflict,
		`Operation cannot be fulfilled on widgets.test.kubeforge.dev "w1": the object has been modified; please apply your changes to the latest version and try again`)

	got.ResourceVersion = w.ResourceVersion
	body, _ = json.Marshal(got)
	r = ts.do(t, "PUT", widgetsPath("default")+"/w1", jsonType, string(body))
	if r.code != http.StatusOK {
		t.Fatalf("update: %s", r)
	}
	up := decodeWidget(t, r)
	if up.Spec.Size != "large" || up.Generation != 2 || up.Kind != "Widget" {
		t.Errorf("update result %+v", up)
	}

	// A PUT without kind or apiVersion is refused, as kube-apiserver
	// refuses it for a custom resource (its decoder has nothing else to go
	// by), and nothing changes.
	up.Spec.Owner = "b@example.dev"
	for _, tc := range []struct {
		meta metav1.TypeMeta
		msg  string
	}{
		{metav1.TypeMeta{}, "Object 'Kind' is missing in 'object has no kind field '"},
		{metav1.TypeMeta{APIVersion: testGroup + "/v1"}, "Object 'Kind' is missing in 'object has no kind field '"},
		{metav1.TypeMeta{Kind: "Widget"}, "the API version in the data () does not match the expected API version (" + testGroup + "/v1)"},
	} {
		up.TypeMeta = tc.meta
		body, _ = json.Marshal(up)
		r = ts.do(t, "PUT", widgetsPath("default")+"/w1", jsonType, string(body))
		wantStatus(t, r, http.StatusBadRequest, metav1.StatusReasonBadRequest, tc.msg)
		y := ts.do(t, "PUT", widgetsPath("default")+"/w1", "application/yaml", string(body))
		wantStatus(t, y, http.StatusBadRequest, metav1.StatusReasonBadRequest, tc.msg)
	}
	if got := decodeWidget(t, ts.do(t, "GET", widgetsPath("default")+"/w1", "", "")); got.Spec.Owner == "b@example.dev" || got.ResourceVersion != up.ResourceVersion {
		t.Errorf("refused updates changed w1: %+v", got)
	}

	r = ts.do(t, "DELETE", widgetsPath("default")+"/w1", "", "")
	if r.code != http.StatusOK {
		t.Fatalf("delete: %s", r)
	}
	var st metav1.Status
	if err := json.Unmarshal(r.body, &st); err != nil {
		t.Fatal(err)
	}
	if st.Kind != "Status" || st.Status != metav1.StatusSuccess || st.Details == nil ||
		st.Details.Name != "w1" || st.Details.Kind != "widgets" || st.Details.Group != testGroup || st.Details.UID != w.UID {
		t.Errorf("delete returned %s", r.body)
	}

	r = ts.do(t, "GET", widgetsPath("default")+"/w1", "", "")
	st2 := wantStatus(t, r, http.StatusNotFound, metav1.StatusReasonNotFound, `widgets.test.kubeforge.dev "w1" not found`)
	if st2.Details == nil || st2.Details.Name != "w1" || st2.Details.Group != testGroup || st2.Details.Kind != "widgets" {
		t.Errorf("not-found details %+v", st2.Details)
	}

	r = ts.do(t, "POST", widgetsPath("default"), jsonType, `{"metadata":{"name":"w2"},"spec":{}}`)
	wantStatus(t, r, http.StatusBadRequest, metav1.StatusReasonBadRequest, "Object 'Kind' is missing in 'object has no kind field '")
	r = ts.do(t, "POST", widgetsPath("default"), jsonType, `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"w2"},"spec":{}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("create: %s", r)
	}
	r = ts.do(t, "POST", widgetsPath("default"), jsonType, `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"w2"},"spec":{}}`)
	wantStatus(t, r, http.StatusConflict, metav1.StatusReasonAlreadyExists, `widgets.test.kubeforge.dev "w2" already exists`)
}

func TestYAML(t *testing.T) {
	ts := newServer(t)
	body := "apiVersion: " + testGroup + "/v1\nkind: Widget\nmetadata:\n  name: y1\nspec:\n  size: small\n"
	r := ts.do(t, "POST", widgetsPath("default"), "application/yaml", body, "Accept", "application/yaml")
	if r.code != http.StatusCreated {
		t.Fatalf("create yaml: %s", r)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/yaml" {
		t.Errorf("Content-Type %q", ct)
	}
	var w Widget
	if err := yaml.Unmarshal(r.body, &w); err != nil {
		t.Fatalf("yaml response: %v: %s", err, r.body)
	}
	if w.Name != "y1" || w.Spec.Size != "small" || w.Kind != "Widget" {
		t.Errorf("yaml round trip: %+v", w)
	}
	// Lists in YAML, errors in YAML when YAML is asked for.
	r = ts.do(t, "GET", widgetsPath("default"), "", "", "Accept", "application/yaml")
	if r.code != http.StatusOK || !strings.Contains(string(r.body), "kind: WidgetList") {
		t.Errorf("yaml list: %s", r)
	}
	r = ts.do(t, "GET", widgetsPath("default")+"/nope", "", "", "Accept", "application/yaml")
	if r.code != http.StatusNotFound || !strings.Contains(string(r.body), "reason: NotFound") {
		t.Errorf("yaml error: %s", r)
	}
}

func TestListShape(t *testing.T) {
	ts := newServer(t)
	r := ts.do(t, "GET", widgetsPath("empty"), "", "")
	if r.code != http.StatusOK {
		t.Fatalf("list: %s", r)
	}
	m := mustJSON(t, r.body)
	if m["kind"] != "WidgetList" || m["apiVersion"] != testGroup+"/v1" {
		t.Errorf("list kind/apiVersion: %s", r.body)
	}
	if items, ok := m["items"].([]any); !ok || len(items) != 0 {
		t.Errorf("empty list items must be [], got %s", r.body)
	}
	if md, _ := m["metadata"].(map[string]any); md == nil || md["resourceVersion"] == "" {
		t.Errorf("list without resourceVersion: %s", r.body)
	}

	for i := 0; i < 3; i++ {
		ts.createWidget(t, "a", fmt.Sprintf("w%d", i), `{}`)
	}
	ts.createWidget(t, "b", "other", `{"size":"large"}`)
	r = ts.do(t, "GET", apiPath+"/widgets", "", "")
	var l WidgetList
	if err := json.Unmarshal(r.body, &l); err != nil || r.code != http.StatusOK {
		t.Fatalf("list all: %v %s", err, r)
	}
	if len(l.Items) != 4 {
		t.Fatalf("all-namespaces list has %d items", len(l.Items))
	}
	for _, it := range l.Items {
		if it.Kind != "Widget" || it.APIVersion != testGroup+"/v1" {
			t.Errorf("list item without kind/apiVersion: %+v", it.TypeMeta)
		}
	}

	// Paging: the continue token and the same list resourceVersion.
	r = ts.do(t, "GET", widgetsPath("a")+"?limit=2", "", "")
	var p1 WidgetList
	_ = json.Unmarshal(r.body, &p1)
	if len(p1.Items) != 2 || p1.Continue == "" {
		t.Fatalf("page 1: %s", r)
	}
	r = ts.do(t, "GET", widgetsPath("a")+"?limit=2&continue="+p1.Continue, "", "")
	var p2 WidgetList
	_ = json.Unmarshal(r.body, &p2)
	if len(p2.Items) != 1 || p2.Continue != "" || p2.ResourceVersion != p1.ResourceVersion {
		t.Errorf("page 2: %s (page 1 rv %s)", r.body, p1.ResourceVersion)
	}

	// Selectors.
	r = ts.do(t, "GET", apiPath+"/widgets?fieldSelector=metadata.name%3Dother", "", "")
	var sel WidgetList
	_ = json.Unmarshal(r.body, &sel)
	if len(sel.Items) != 1 || sel.Items[0].Name != "other" {
		t.Errorf("field selector: %s", r)
	}
	r = ts.do(t, "GET", apiPath+"/widgets?fieldSelector=metadata.namespace%3Db", "", "")
	sel = WidgetList{}
	_ = json.Unmarshal(r.body, &sel)
	if len(sel.Items) != 1 || sel.Items[0].Namespace != "b" {
		t.Errorf("namespace field selector: %s", r)
	}
	r = ts.do(t, "GET", apiPath+"/widgets?labelSelector=team%3Dnone&unknownParam=1", "", "")
	sel = WidgetList{}
	_ = json.Unmarshal(r.body, &sel)
	if r.code != http.StatusOK || len(sel.Items) != 0 {
		t.Errorf("label selector: %s", r)
	}
}

func TestClusterScoped(t *testing.T) {
	ts := newServer(t)
	r0 := ts.do(t, "GET", apiPath+"/gizmos", "", "")
	if items, ok := mustJSON(t, r0.body)["items"].([]any); !ok || len(items) != 0 {
		t.Errorf("empty list items must be [] even when SetItems leaves nil: %s", r0.body)
	}
	r := ts.do(t, "POST", apiPath+"/gizmos", jsonType, `{"apiVersion":"test.kubeforge.dev/v1","kind":"Gizmo","metadata":{"name":"z1","namespace":"ignored"},"spec":{}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("create gizmo: %s", r)
	}
	g := decodeWidget(t, r)
	if g.Namespace != "" || g.Kind != "Gizmo" {
		t.Errorf("cluster-scoped object: %+v", g.ObjectMeta)
	}
	r = ts.do(t, "POST", apiPath+"/gizmos", jsonType, `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"z2"},"spec":{}}`)
	wantStatus(t, r, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, `Widget.test.kubeforge.dev "z2" is invalid: kind: Invalid value: "Widget": must be Gizmo`)
	r = ts.do(t, "GET", apiPath+"/gizmos/z1", "", "")
	if r.code != http.StatusOK {
		t.Errorf("get gizmo: %s", r)
	}
	r = ts.do(t, "GET", apiPath+"/gizmos?fieldSelector=metadata.namespace%3Dx", "", "")
	wantStatus(t, r, http.StatusBadRequest, metav1.StatusReasonBadRequest, "field label not supported: metadata.namespace")
	r = ts.do(t, "GET", apiPath+"/gizmos/z1/status", "", "")
	if r.code != http.StatusNotFound {
		t.Errorf("a kind without status subresource serves no /status: %s", r)
	}
}

func TestStatusSubresource(t *testing.T) {
	ts := newServer(t)
	w := ts.createWidget(t, "default", "s1", `{}`)
	w.Status.Phase = "Ready"
	w.Spec.Size = "large" // ignored by /status
	body, _ := json.Marshal(w)
	r := ts.do(t, "PUT", widgetsPath("default")+"/s1/status", jsonType, string(body))
	if r.code != http.StatusOK {
		t.Fatalf("update status: %s", r)
	}
	got := decodeWidget(t, r)
	if got.Status.Phase != "Ready" || got.Spec.Size != "medium" || got.Generation != 1 {
		t.Errorf("status update result: spec %+v status %+v gen %d", got.Spec, got.Status, got.Generation)
	}
	r = ts.do(t, "GET", widgetsPath("default")+"/s1/status", "", "")
	if r.code != http.StatusOK || decodeWidget(t, r).Status.Phase != "Ready" {
		t.Errorf("get status: %s", r)
	}
	// A main-resource PUT keeps the old status.
	got.Status.Phase = "Broken"
	body, _ = json.Marshal(got)
	r = ts.do(t, "PUT", widgetsPath("default")+"/s1", jsonType, string(body))
	if r.code != http.StatusOK || decodeWidget(t, r).Status.Phase != "Ready" {
		t.Errorf("main PUT changed status: %s", r)
	}
}

func TestDelete(t *testing.T) {
	ts := newServer(t)
	w := ts.createWidget(t, "default", "f1", `{}`)
	r := ts.do(t, "PATCH", widgetsPath("default")+"/f1", "application/merge-patch+json", `{"metadata":{"finalizers":["example.dev/hold"]}}`)
	if r.code != http.StatusOK {
		t.Fatalf("add finalizer: %s", r)
	}

	// A uid precondition that does not match is a 409.
	r = ts.do(t, "DELETE", widgetsPath("default")+"/f1", jsonType, `{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"nope"}}`)
	wantStatus(t, r, http.StatusConflict, metav1.StatusReasonConflict, "the UID in the precondition (nope) does not match the UID in record")

	// dryRun as a query parameter: nothing happens.
	rev, keys := ts.etcdState(t)
	r = ts.do(t, "DELETE", widgetsPath("default")+"/f1?dryRun=All", "", "")
	if r.code != http.StatusOK {
		t.Fatalf("dry-run delete: %s", r)
	}
	ts.nothingStored(t, rev, keys)
	r = ts.do(t, "DELETE", widgetsPath("default")+"/f1?dryRun=Bogus", "", "")
	wantStatus(t, r, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, `dryRun: Unsupported value`)
	r = ts.do(t, "DELETE", widgetsPath("default")+"/f1?propagationPolicy=Sideways", "", "")
	wantStatus(t, r, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, `propagationPolicy: Unsupported value`)
	r = ts.do(t, "DELETE", widgetsPath("default")+"/f1", jsonType, `{"kind":"Widget"}`)
	wantStatus(t, r, http.StatusBadRequest, metav1.StatusReasonBadRequest, "cannot be converted to DeleteOptions")

	// The finalizer holds the object: 200 with it, deletionTimestamp set.
	r = ts.do(t, "DELETE", widgetsPath("default")+"/f1", jsonType, fmt.Sprintf(`{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/v1","preconditions":{"uid":%q},"propagationPolicy":"Background"}`, w.UID))
	if r.code != http.StatusOK {
		t.Fatalf("delete with finalizer: %s", r)
	}
	held := decodeWidget(t, r)
	if held.Kind != "Widget" || held.DeletionTimestamp == nil {
		t.Errorf("held object: %s", r.body)
	}
	r = ts.do(t, "PATCH", widgetsPath("default")+"/f1", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`)
	if r.code != http.StatusOK {
		t.Fatalf("remove finalizer: %s", r)
	}
	r = ts.do(t, "GET", widgetsPath("default")+"/f1", "", "")
	wantStatus(t, r, http.StatusNotFound, metav1.StatusReasonNotFound, "not found")

	// DeleteCollection with a label selector returns the deleted list.
	for _, n := range []string{"c1", "c2"} {
		r = ts.do(t, "POST", widgetsPath("default"), jsonType, fmt.Sprintf(`{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":%q,"labels":{"group":"x"}},"spec":{}}`, n))
		if r.code != http.StatusCreated {
			t.Fatal(r)
		}
	}
	ts.createWidget(t, "default", "keep", `{}`)
	r = ts.do(t, "DELETE", widgetsPath("default")+"?labelSelector=group%3Dx", "", "")
	if r.code != http.StatusOK {
		t.Fatalf("delete collection: %s", r)
	}
	var dl WidgetList
	_ = json.Unmarshal(r.body, &dl)
	if dl.Kind != "WidgetList" || len(dl.Items) != 2 {
		t.Errorf("delete collection result: %s", r.body)
	}
	r = ts.do(t, "GET", widgetsPath("default"), "", "")
	var rest WidgetList
	_ = json.Unmarshal(r.body, &rest)
	if len(rest.Items) != 1 || rest.Items[0].Name != "keep" {
		t.Errorf("after delete collection: %s", r.body)
	}
}

func TestDryRunCreateAndUpdate(t *testing.T) {
	ts := newServer(t)
	w := ts.createWidget(t, "default", "d1", `{}`)
	rev, keys := ts.etcdState(t)
	r := ts.do(t, "POST", widgetsPath("default")+"?dryRun=All", jsonType, `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"d2"},"spec":{"size":"small"}}`)
	if r.code != http.StatusCreated || decodeWidget(t, r).Spec.Size != "small" {
		t.Fatalf("dry-run create: %s", r)
	}
	// Dry run validates completely.
	r = ts.do(t, "POST", widgetsPath("default")+"?dryRun=All", jsonType, `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"d3"},"spec":{"size":"huge"}}`)
	wantStatus(t, r, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, `spec.size: Unsupported value: "huge"`)
	w.Spec.Size = "large"
	body, _ := json.Marshal(w)
	r = ts.do(t, "PUT", widgetsPath("default")+"/d1?dryRun=All", jsonType, string(body))
	if r.code != http.StatusOK || decodeWidget(t, r).Spec.Size != "large" {
		t.Fatalf("dry-run update: %s", r)
	}
	r = ts.do(t, "PATCH", widgetsPath("default")+"/d1?dryRun=All", "application/merge-patch+json", `{"spec":{"size":"small"}}`)
	if r.code != http.StatusOK || decodeWidget(t, r).Spec.Size != "small" {
		t.Fatalf("dry-run patch: %s", r)
	}
	ts.nothingStored(t, rev, keys)
}

func TestMetricsAndPanics(t *testing.T) {
	ts := newServer(t)
	ts.createWidget(t, "default", "m1", `{}`)
	ts.do(t, "GET", widgetsPath("default")+"/nope", "", "")
	ts.do(t, "GET", widgetsPath("default"), "", "")
	ts.do(t, "PATCH", widgetsPath("default")+"/m1/status", "application/merge-patch+json", `{"status":{"phase":"x"}}`)
	want := []observation{
		{"POST", "widgets", "", 201},
		{"GET", "widgets", "", 404},
		{"LIST", "widgets", "", 200},
		{"PATCH", "widgets", "status", 200},
	}
	got := ts.observations()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("observed %v, want %v", got, want)
	}

	// A panic in a hook is a 500 Status that does not leak the panic.
	r := ts.do(t, "POST", widgetsPath("default"), jsonType, `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"p1"},"spec":{"owner":"panic"}}`)
	st := wantStatus(t, r, http.StatusInternalServerError, metav1.StatusReasonInternalError, "")
	if strings.Contains(st.Message, "boom") {
		t.Errorf("panic value leaked: %q", st.Message)
	}
}
