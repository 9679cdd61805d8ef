package endpoints_test

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestBadInput: every bad request gets a clear 4xx Status and etcd is left
// exactly as it was (same revision, same keys).
func TestBadInput(t *testing.T) {
	ts := newServer(t)
	ts.createWidget(t, "default", "existing", `{}`)
	p := widgetsPath("default")
	gv := testGroup + "/v1"
	obj := func(meta, spec string) string {
		return fmt.Sprintf(`{"apiVersion":%q,"kind":"Widget","metadata":%s,"spec":%s}`, gv, meta, spec)
	}
	bigOwner := strings.Repeat("x", 70*1024)
	patchOps := make([]string, 10001)
	for i := range patchOps {
		patchOps[i] = `{"op":"test","path":"/spec/size","value":"medium"}`
	}

	cases := []struct {
		name, method, path, contentType, body string
		headers                               []string
		code                                  int
		reason                                metav1.StatusReason
		msg                                   string
	}{
		{"malformed JSON", "POST", p, jsonType, `{"metadata":{"name":"x"`, nil, 400, metav1.StatusReasonBadRequest, "error decoding the request body"},
		{"JSON array body", "POST", p, jsonType, `[1,2]`, nil, 400, metav1.StatusReasonBadRequest, "expected a JSON or YAML object"},
		{"empty body", "POST", p, jsonType, ``, nil, 400, metav1.StatusReasonBadRequest, "the request body is empty"},
		{"wrong field type", "POST", p, jsonType, obj(`{"name":"x"}`, `{"replicas":"three"}`), nil, 422, metav1.StatusReasonInvalid,
			`spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`},
		{"YAML with tabs", "POST", p, "application/yaml", "apiVersion: " + gv + "\nkind: Widget\nmetadata:\n\tname: tabbed\n", nil, 400, metav1.StatusReasonBadRequest, "error decoding yaml"},
		{"apiVersion mismatch", "POST", p, jsonType, `{"apiVersion":"other.dev/v1","kind":"Widget","metadata":{"name":"x"},"spec":{}}`, nil, 400, metav1.StatusReasonBadRequest,
			"the API version in the data (other.dev/v1) does not match the expected API version (test.kubeforge.dev/v1)"},
		{"version mismatch", "POST", p, jsonType, `{"apiVersion":"test.kubeforge.dev/v2","kind":"Widget","metadata":{"name":"x"},"spec":{}}`, nil, 400, metav1.StatusReasonBadRequest, "does not match the expected API version"},
		// A custom resource's body must say what it is (kube-apiserver's
		// unstructured decoder); a built-in kind's typed decoder takes
		// both from the URL.
		{"no kind", "POST", p, jsonType, `{"apiVersion":"test.kubeforge.dev/v1","metadata":{"name":"x"},"spec":{}}`, nil, 400, metav1.StatusReasonBadRequest,
			"Object 'Kind' is missing in 'object has no kind field '"},
		{"no kind in YAML", "POST", p, "application/yaml", "metadata:\n  name: x\nspec: {}\n", nil, 400, metav1.StatusReasonBadRequest,
			"Object 'Kind' is missing in 'object has no kind field '"},
		{"no apiVersion", "POST", p, jsonType, `{"kind":"Widget","metadata":{"name":"x"},"spec":{}}`, nil, 400, metav1.StatusReasonBadRequest,
			"the API version in the data () does not match the expected API version (test.kubeforge.dev/v1)"},
		{"kind mismatch", "POST", p, jsonType, `{"apiVersion":"test.kubeforge.dev/v1","kind":"Gadget","metadata":{"name":"x"},"spec":{}}`, nil, 422, metav1.StatusReasonInvalid,
			`Gadget.test.kubeforge.dev "x" is invalid: kind: Invalid value: "Gadget": must be Widget`},
		{"apiVersion mismatch", "POST", p, jsonType, `{"apiVersion":"test.kubeforge.dev/v9","kind":"Gadget","metadata":{"name":"x"},"spec":{}}`, nil, 400, metav1.StatusReasonBadRequest,
			"the API version in the data (test.kubeforge.dev/v9) does not match the expected API version (test.kubeforge.dev/v1)"},
		{"namespace body differs from URL", "POST", p, jsonType, obj(`{"name":"x","namespace":"other"}`, `{}`), nil, 400, metav1.StatusReasonBadRequest,
			"the namespace of the provided object does not match the namespace sent on the request"},
		{"uppercase name", "POST", p, jsonType, obj(`{"name":"Bad"}`, `{}`), nil, 422, metav1.StatusReasonInvalid, "metadata.name: Invalid value: \"Bad\""},
		{"generateName making a bad name", "POST", p, jsonType, obj(`{"generateName":"Bad-"}`, `{}`), nil, 422, metav1.StatusReasonInvalid,
			"[metadata.generateName: Invalid value: \"Bad-\": a lowercase RFC 1123 subdomain"},
		{"name too long", "POST", p, jsonType, obj(`{"name":"`+strings.Repeat("a", 254)+`"}`, `{}`), nil, 422, metav1.StatusReasonInvalid,
			"must be no more than 253 characters"},
		{"name with slash", "POST", p, jsonType, obj(`{"name":"a/b"}`, `{}`), nil, 422, metav1.StatusReasonInvalid, "may not contain '/'"},
		{"name ..", "POST", p, jsonType, obj(`{"name":".."}`, `{}`), nil, 422, metav1.StatusReasonInvalid, "may not be '..'"},
		{"name of 254 characters", "POST", p, jsonType, obj(`{"name":"`+strings.Repeat("a", 254)+`"}`, `{}`), nil, 422, metav1.StatusReasonInvalid, "metadata.name"},
		{"no name", "POST", p, jsonType, obj(`{}`, `{}`), nil, 422, metav1.StatusReasonInvalid, "metadata.name: Required value"},
		{"invalid enum and maximum", "POST", p, jsonType, obj(`{"name":"bad"}`, `{"size":"huge","replicas":11}`), nil, 422, metav1.StatusReasonInvalid,
			`Widget.test.kubeforge.dev "bad" is invalid: [spec.size: Unsupported value: "huge"`},
		{"body over the limit", "POST", p, jsonType, obj(`{"name":"big"}`, `{"owner":"`+bigOwner+`"}`), nil, 413, metav1.StatusReasonRequestEntityTooLarge, "limit is 65536"},
		{"unknown field, Strict", "POST", p + "?fieldValidation=Strict", jsonType, obj(`{"name":"typo"}`, `{"replcas":2}`), nil, 400, metav1.StatusReasonBadRequest,
			`Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.replcas"`},
		{"duplicate field, Strict", "POST", p + "?fieldValidation=Strict", jsonType, obj(`{"name":"dup"}`, `{"size":"small","size":"large"}`), nil, 400, metav1.StatusReasonBadRequest,
			`duplicate field "spec.size"`},
		{"case-variant field, Strict", "POST", p + "?fieldValidation=Strict", jsonType, obj(`{"name":"case"}`, `{"Size":"small"}`), nil, 400, metav1.StatusReasonBadRequest,
			`strict decoding error: unknown field "spec.Size"`},
		{"duplicate metadata field, Strict", "POST", p + "?fieldValidation=Strict", jsonType, obj(`{"name":"dup","name":"dup2"}`, `{}`), nil, 400, metav1.StatusReasonBadRequest,
			`strict decoding error: duplicate field "metadata.name"`},
		{"duplicate label, Strict", "POST", p + "?fieldValidation=Strict", jsonType, obj(`{"name":"dup","labels":{"a":"1","a":"2"}}`, `{}`), nil, 400, metav1.StatusReasonBadRequest,
			`strict decoding error: duplicate field "metadata.labels.a"`},
		{"unknown field in YAML, Strict", "POST", p + "?fieldValidation=Strict", "application/yaml", "apiVersion: " + gv + "\nkind: Widget\nmetadata:\n  name: typo\nspec:\n  replcas: 2\n", nil, 400, metav1.StatusReasonBadRequest,
			`unknown field "spec.replcas"`},
		{"unsupported content type", "POST", p, "application/vnd.kubernetes.protobuf", "xx", nil, 415, metav1.StatusReasonUnsupportedMediaType, "application/json, application/yaml"},
		{"dryRun not All", "POST", p + "?dryRun=Maybe", jsonType, obj(`{"name":"dry"}`, `{}`), nil, 422, metav1.StatusReasonInvalid,
			`CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Maybe"]: supported values: "All"`},
		{"fieldManager too long", "POST", p + "?fieldManager=" + strings.Repeat("m", 129), jsonType, obj(`{"name":"fm"}`, `{}`), nil, 422, metav1.StatusReasonInvalid, "fieldManager: Too long"},
		{"fieldManager unprintable", "POST", p + "?fieldManager=a%07b", jsonType, obj(`{"name":"fm"}`, `{}`), nil, 422, metav1.StatusReasonInvalid, "fieldManager: Invalid value"},
		{"fieldValidation unknown", "POST", p + "?fieldValidation=Loose", jsonType, obj(`{"name":"fv"}`, `{}`), nil, 422, metav1.StatusReasonInvalid, "fieldValidation: Unsupported value"},
		{"PUT name differs from URL", "PUT", p + "/existing", jsonType, obj(`{"name":"other","resourceVersion":"1"}`, `{}`), nil, 400, metav1.StatusReasonBadRequest,
			"the name of the object (other) does not match the name on the URL (existing)"},
		{"PUT without resourceVersion", "PUT", p + "/existing", jsonType, obj(`{"name":"existing"}`, `{}`), nil, 422, metav1.StatusReasonInvalid,
			"metadata.resourceVersion: Invalid value: 0"},
		{"PUT with a malformed resourceVersion", "PUT", p + "/existing", jsonType, obj(`{"name":"existing","resourceVersion":"abc"}`, `{}`), nil, 400, metav1.StatusReasonBadRequest,
			`invalid resource version: "abc"`},
		{"PUT with a stale resourceVersion", "PUT", p + "/existing", jsonType, obj(`{"name":"existing","resourceVersion":"1"}`, `{}`), nil, 409, metav1.StatusReasonConflict,
			"the object has been modified"},
		{"stale resourceVersion in a patch beats its invalid content", "PATCH", p + "/existing", "application/merge-patch+json", `{"metadata":{"resourceVersion":"1"},"spec":{"size":"huge"}}`, nil, 409, metav1.StatusReasonConflict,
			"the object has been modified"},
		{"PUT of a missing object", "PUT", p + "/missing", jsonType, obj(`{"name":"missing","resourceVersion":"5"}`, `{}`), nil, 404, metav1.StatusReasonNotFound, `"missing" not found`},
		{"bad label selector", "GET", p + "?labelSelector=a%20%3D%3D%3D%20b", "", "", nil, 400, metav1.StatusReasonBadRequest, "unable to parse requirement"},
		{"unsupported field selector", "GET", p + "?fieldSelector=spec.size%3Dsmall", "", "", nil, 400, metav1.StatusReasonBadRequest, "field label not supported: spec.size"},
		{"malformed field selector", "GET", p + "?fieldSelector=%3D%3D%3D", "", "", nil, 400, metav1.StatusReasonBadRequest, ""},
		{"non-numeric list resourceVersion", "GET", p + "?resourceVersion=abc", "", "", nil, 400, metav1.StatusReasonBadRequest, `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`},
		{"non-numeric get resourceVersion", "GET", p + "/existing?resourceVersion=abc", "", "", nil, 400, metav1.StatusReasonBadRequest, `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`},
		{"non-numeric watch resourceVersion", "GET", p + "?watch=1&resourceVersion=abc", "", "", nil, 400, metav1.StatusReasonBadRequest, `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`},
		{"bad limit", "GET", p + "?limit=many", "", "", nil, 400, metav1.StatusReasonBadRequest, ""},
		{"corrupt continue token", "GET", p + "?limit=1&continue=not-a-token", "", "", nil, 400, metav1.StatusReasonBadRequest, "continue"},
		{"resourceVersionMatch without resourceVersion", "GET", p + "?resourceVersionMatch=Exact", "", "", nil, 422, metav1.StatusReasonInvalid, "resourceVersionMatch is forbidden unless resourceVersion is provided"},
		{"sendInitialEvents on a list", "GET", p + "?sendInitialEvents=true", "", "", nil, 422, metav1.StatusReasonInvalid, "sendInitialEvents is forbidden for list"},
		{"resourceVersionMatch on a watch without sendInitialEvents", "GET", p + "?watch=1&resourceVersionMatch=NotOlderThan", "", "", nil, 422, metav1.StatusReasonInvalid,
			"resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"},
		{"watch in YAML", "GET", p + "?watch=1", "", "", []string{"Accept", "application/yaml"}, 406, metav1.StatusReasonNotAcceptable, "application/json;stream=watch"},
		{"unacceptable Accept", "GET", p, "", "", []string{"Accept", "text/html"}, 406, metav1.StatusReasonNotAcceptable, ""},
		{"Table with a bad includeObject", "GET", p + "?includeObject=Everything", "", "", []string{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}, 400, metav1.StatusReasonBadRequest,
			"Unable to convert to Table as requested"},
		{"PartialObjectMetadata of a list", "GET", p, "", "", []string{"Accept", "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"}, 406, metav1.StatusReasonNotAcceptable, "is a list"},
		{"unknown patch type", "PATCH", p + "/existing", "application/x-patch+json", `{"spec":{"size":"small"}}`, nil, 415, metav1.StatusReasonUnsupportedMediaType,
			"application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml"},
		{"apply without fieldManager", "PATCH", p + "/existing", "application/apply-patch+yaml", applyWidget("existing", "size: small"), nil, 422, metav1.StatusReasonInvalid, "fieldManager: Required value: is required for apply patch"},
		{"apply with a too long fieldManager", "PATCH", p + "/existing?fieldManager=" + strings.Repeat("m", 129), "application/apply-patch+yaml", applyWidget("existing", "size: small"), nil, 422, metav1.StatusReasonInvalid, "fieldManager: Too long"},
		{"apply with an unprintable fieldManager", "PATCH", p + "/existing?fieldManager=a%07b", "application/apply-patch+yaml", applyWidget("existing", "size: small"), nil, 422, metav1.StatusReasonInvalid, "fieldManager"},
		{"apply of a list", "PATCH", p + "/existing?fieldManager=m", "application/apply-patch+yaml", "- a\n", nil, 400, metav1.StatusReasonBadRequest, "must be a YAML or JSON object"},
		{"apply of bad YAML", "PATCH", p + "/existing?fieldManager=m", "application/apply-patch+yaml", "a: [\n", nil, 400, metav1.StatusReasonBadRequest, "error decoding yaml"},
		{"apply without apiVersion", "PATCH", p + "/existing?fieldManager=m", "application/apply-patch+yaml", "kind: Widget\nmetadata:\n  name: existing\n", nil, 400, metav1.StatusReasonBadRequest, ""},
		{"apply of another version", "PATCH", p + "/existing?fieldManager=m", "application/apply-patch+yaml", "apiVersion: test.kubeforge.dev/v2\nkind: Widget\nmetadata:\n  name: existing\n", nil, 400, metav1.StatusReasonBadRequest, "invalid object type: test.kubeforge.dev/v2, Kind=Widget"},
		{"apply with a wrong type", "PATCH", p + "/existing?fieldManager=m", "application/apply-patch+yaml", applyWidget("existing", "replicas: many"), nil, 422, metav1.StatusReasonInvalid,
			`spec.replicas in body must be of type integer: "string"`},
		{"apply naming another object", "PATCH", p + "/existing?fieldManager=m", "application/apply-patch+yaml", "apiVersion: test.kubeforge.dev/v1\nkind: Widget\nmetadata:\n  name: other\n", nil, 400, metav1.StatusReasonBadRequest, "does not match the name on the URL"},
		{"apply with managedFields", "PATCH", p + "/existing?fieldManager=m", "application/apply-patch+yaml", "apiVersion: test.kubeforge.dev/v1\nkind: Widget\nmetadata:\n  name: existing\n  managedFields: [{manager: x}]\n", nil, 400, metav1.StatusReasonBadRequest, "metadata.managedFields must be nil"},
		{"apply strict with an unknown field", "PATCH", p + "/existing?fieldManager=m&fieldValidation=Strict", "application/apply-patch+yaml", applyWidget("existing", "sise: small"), nil, 400, metav1.StatusReasonBadRequest, `strict decoding error: unknown field "spec.sise"`},
		{"apply to the status of a missing object", "PATCH", p + "/missing/status?fieldManager=m", "application/apply-patch+yaml", applyWidget("missing", "size: small"), nil, 404, metav1.StatusReasonNotFound, `widgets.test.kubeforge.dev "missing" not found`},
		{"unknown patch type", "PATCH", p + "/existing", "text/plain", "x", nil, 415, metav1.StatusReasonUnsupportedMediaType, "application/json-patch+json, application/merge-patch+json"},
		{"JSON patch failing test op", "PATCH", p + "/existing", "application/json-patch+json", `[{"op":"test","path":"/spec/size","value":"large"},{"op":"replace","path":"/spec/size","value":"small"}]`, nil, 422, metav1.StatusReasonInvalid,
			"testing value /spec/size failed"},
		{"JSON patch on a missing path", "PATCH", p + "/existing", "application/json-patch+json", `[{"op":"replace","path":"/spec/nothing/deeper","value":1}]`, nil, 422, metav1.StatusReasonInvalid, ""},
		{"malformed JSON patch", "PATCH", p + "/existing", "application/json-patch+json", `[{"op":`, nil, 400, metav1.StatusReasonBadRequest, "error decoding patch"},
		{"JSON patch too long", "PATCH", p + "/existing", "application/json-patch+json", "[" + strings.Join(patchOps, ",") + "]", []string{}, 413, metav1.StatusReasonRequestEntityTooLarge, ""},
		{"malformed merge patch", "PATCH", p + "/existing", "application/merge-patch+json", `{"spec":`, nil, 400, metav1.StatusReasonBadRequest, "error decoding patch"},
		{"merge patch that is not an object", "PATCH", p + "/existing", "application/merge-patch+json", `[1]`, nil, 400, metav1.StatusReasonBadRequest, "must be a JSON object"},
		{"patch renaming the object", "PATCH", p + "/existing", "application/merge-patch+json", `{"metadata":{"name":"renamed"}}`, nil, 400, metav1.StatusReasonBadRequest,
			"the name of the object (renamed) does not match the name on the URL (existing)"},
		{"patch changing the kind", "PATCH", p + "/existing", "application/merge-patch+json", `{"kind":"Gizmo"}`, nil, 422, metav1.StatusReasonInvalid,
			`Gizmo.test.kubeforge.dev "existing" is invalid: kind: Invalid value: "Gizmo": must be Widget`},
		{"patch changing the apiVersion", "PATCH", p + "/existing", "application/json-patch+json", `[{"op":"replace","path":"/apiVersion","value":"v1"}]`, nil, 422, metav1.StatusReasonInvalid,
			`Widget "existing" is invalid: apiVersion: Invalid value: "v1": must be test.kubeforge.dev/v1`},
		{"patch moving the namespace", "PATCH", p + "/existing", "application/merge-patch+json", `{"metadata":{"namespace":"elsewhere"}}`, nil, 400, metav1.StatusReasonBadRequest, "namespace"},
		{"patch with a stale resourceVersion", "PATCH", p + "/existing", "application/merge-patch+json", `{"metadata":{"resourceVersion":"1"},"spec":{"size":"small"}}`, nil, 409, metav1.StatusReasonConflict, "the object has been modified"},
		{"patch making the object invalid", "PATCH", p + "/existing", "application/merge-patch+json", `{"spec":{"size":"huge"}}`, nil, 422, metav1.StatusReasonInvalid, `spec.size: Unsupported value: "huge"`},
		{"patch with an unknown field, Strict", "PATCH", p + "/existing?fieldValidation=Strict", "application/merge-patch+json", `{"spec":{"sise":"small"}}`, nil, 422, metav1.StatusReasonInvalid,
			`strict decoding error: unknown field "spec.sise"`},
		{"patch of a missing object", "PATCH", p + "/missing", "application/merge-patch+json", `{"spec":{"size":"small"}}`, nil, 404, metav1.StatusReasonNotFound, `"missing" not found`},
		{"force on a merge patch", "PATCH", p + "/existing?force=true", "application/merge-patch+json", `{"spec":{"size":"small"}}`, nil, 422, metav1.StatusReasonInvalid, "force: Forbidden"},
		{"status patch of a kind without status", "PATCH", apiPath + "/gizmos/x/status", "application/merge-patch+json", `{}`, nil, 404, metav1.StatusReasonNotFound, ""},
		{"path name with %", "GET", p + "/a%25b", "", "", nil, 400, metav1.StatusReasonBadRequest, `invalid name "a%b": may not contain '%'`},
		{"path name ..", "GET", p + "/%2E%2E", "", "", nil, 400, metav1.StatusReasonBadRequest, `invalid name "..": may not be '..'`},
		{"delete with a malformed body", "DELETE", p + "/existing", jsonType, `{"preconditions":`, nil, 400, metav1.StatusReasonBadRequest, "error decoding the delete options"},
		{"delete with a resourceVersion precondition that fails", "DELETE", p + "/existing", jsonType, `{"preconditions":{"resourceVersion":"1"}}`, nil, 409, metav1.StatusReasonConflict, "the ResourceVersion in the precondition (1) does not match the ResourceVersion in record"},
		{"delete of a missing object", "DELETE", p + "/missing", "", "", nil, 404, metav1.StatusReasonNotFound, `"missing" not found`},
		{"no route", "GET", apiPath + "/nothings", "", "", nil, 404, metav1.StatusReasonNotFound, "the server could not find the requested resource"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rev, keys := ts.etcdState(t)
			r := ts.do(t, c.method, c.path, c.contentType, c.body, c.headers...)
			wantStatus(t, r, c.code, c.reason, c.msg)
			ts.nothingStored(t, rev, keys)
		})
	}

	// The object the patches aimed at is unchanged.
	r := ts.do(t, "GET", p+"/existing", "", "")
	if w := decodeWidget(t, r); w.Spec.Size != "medium" || w.Generation != 1 {
		t.Errorf("existing object changed: %s", r.body)
	}
	if r.code != http.StatusOK {
		t.Fatal(r)
	}
}

// TestJSONPatchCopyBomb: a 4 KB JSON patch whose copy operations double a
// value seventeen times (gigabytes once applied) is refused quickly, with
// little memory, as kube-apiserver refuses it; nothing is stored.
func TestJSONPatchCopyBomb(t *testing.T) {
	ts := newServer(t)
	w := ts.createWidget(t, "default", "bomb", `{}`)
	ops := []string{fmt.Sprintf(`{"op":"add","path":"/d0","value":%q}`, strings.Repeat("x", 1024))}
	for k := 1; k <= 17; k++ {
		ops = append(ops,
			fmt.Sprintf(`{"op":"add","path":"/d%d","value":{}}`, k),
			fmt.Sprintf(`{"op":"copy","from":"/d%d","path":"/d%d/a"}`, k-1, k),
			fmt.Sprintf(`{"op":"copy","from":"/d%d","path":"/d%d/b"}`, k-1, k),
			fmt.Sprintf(`{"op":"remove","path":"/d%d"}`, k-1))
	}
	body := "[" + strings.Join(ops, ",") + "]"
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	r := ts.do(t, "PATCH", widgetsPath("default")+"/bomb?dryRun=All", "application/json-patch+json", body)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if r.code != 422 || !strings.Contains(string(r.body), "accumulated size increase of copy") {
		t.Fatalf("copy bomb: %s, want 422 naming the copy limit", r)
	}
	if took > 5*time.Second {
		t.Errorf("copy bomb took %v", took)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 256<<20 {
		t.Errorf("copy bomb allocated %d MiB", grown>>20)
	}
	if got := decodeWidget(t, ts.do(t, "GET", widgetsPath("default")+"/bomb", "", "")); got.ResourceVersion != w.ResourceVersion {
		t.Errorf("the refused patch changed the widget: rv %s, want %s", got.ResourceVersion, w.ResourceVersion)
	}
}
