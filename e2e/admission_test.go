package e2e

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// webhookServer is a real admission webhook over TLS: each path is one
// behaviour, and every AdmissionReview request it gets is kept.
type webhookServer struct {
	url    string
	caPEM  string // base64, for caBundle
	mu     sync.Mutex
	seen   []seenReview
	server *httptest.Server
}

type seenReview struct {
	path string
	req  admissionv1.AdmissionRequest
}

func annotations(obj []byte) map[string]string {
	var o struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
			Labels      map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(obj, &o)
	return o.Metadata.Annotations
}

// addAnnotation is a JSONPatch adding key=value to the object's annotations.
func addAnnotation(obj []byte, key, value string) []byte {
	var patch []map[string]any
	if annotations(obj) == nil {
		patch = append(patch, map[string]any{"op": "add", "path": "/metadata/annotations", "value": map[string]string{}})
	}
	patch = append(patch, map[string]any{"op": "add", "path": "/metadata/annotations/" + strings.ReplaceAll(key, "/", "~1"), "value": value})
	b, _ := json.Marshal(patch)
	return b
}

// startWebhook serves:
//
//	/deny      denies everything ("denied by the e2e webhook")
//	/allow     allows (the request is recorded)
//	/mutate    adds the annotation e2e/mutated=yes
//	/slow      answers after 3 s
//	/warn      allows with a warning
//	/reinvoke-a adds e2e/a=yes once e2e/b is there; /reinvoke-b adds e2e/b=yes
func startWebhook(t *testing.T) *webhookServer {
	t.Helper()
	ws := &webhookServer{}
	mux := http.NewServeMux()
	handle := func(path string, answer func(req *admissionv1.AdmissionRequest, resp *admissionv1.AdmissionResponse)) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			var rv admissionv1.AdmissionReview
			if err := json.Unmarshal(body, &rv); err != nil || rv.Request == nil {
				http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
				return
			}
			ws.mu.Lock()
			ws.seen = append(ws.seen, seenReview{path: path, req: *rv.Request})
			ws.mu.Unlock()
			resp := &admissionv1.AdmissionResponse{UID: rv.Request.UID, Allowed: true}
			answer(rv.Request, resp)
			rv.Request, rv.Response = nil, resp
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(rv)
		})
	}
	jsonPatch := admissionv1.PatchTypeJSONPatch
	handle("/deny", func(_ *admissionv1.AdmissionRequest, resp *admissionv1.AdmissionResponse) {
		resp.Allowed = false
		resp.Result = &metav1.Status{Code: 403, Message: "denied by the e2e webhook"}
	})
	handle("/allow", func(*admissionv1.AdmissionRequest, *admissionv1.AdmissionResponse) {})
	handle("/warn", func(_ *admissionv1.AdmissionRequest, resp *admissionv1.AdmissionResponse) {
		resp.Warnings = []string{"the e2e webhook warns"}
	})
	handle("/slow", func(*admissionv1.AdmissionRequest, *admissionv1.AdmissionResponse) { time.Sleep(3 * time.Second) })
	handle("/mutate", func(req *admissionv1.AdmissionRequest, resp *admissionv1.AdmissionResponse) {
		resp.Patch, resp.PatchType = addAnnotation(req.Object.Raw, "e2e/mutated", "yes"), &jsonPatch
	})
	handle("/reinvoke-a", func(req *admissionv1.AdmissionRequest, resp *admissionv1.AdmissionResponse) {
		if a := annotations(req.Object.Raw); a["e2e/b"] == "yes" && a["e2e/a"] == "" {
			resp.Patch, resp.PatchType = addAnnotation(req.Object.Raw, "e2e/a", "yes"), &jsonPatch
		}
	})
	handle("/reinvoke-b", func(req *admissionv1.AdmissionRequest, resp *admissionv1.AdmissionResponse) {
		if annotations(req.Object.Raw)["e2e/b"] == "" {
			resp.Patch, resp.PatchType = addAnnotation(req.Object.Raw, "e2e/b", "yes"), &jsonPatch
		}
	})
	ws.server = httptest.NewUnstartedServer(mux)
	ws.server.StartTLS()
	t.Cleanup(ws.server.Close)
	ws.url = ws.server.URL
	ws.caPEM = base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ws.server.Certificate().Raw}))
	return ws
}

// requests returns what path was asked about objects named name.
func (ws *webhookServer) requests(path, name string) []admissionv1.AdmissionRequest {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	var out []admissionv1.AdmissionRequest
	for _, s := range ws.seen {
		if s.path == path && s.req.Name == name {
			out = append(out, s.req)
		}
	}
	return out
}

// webhookConfig is a webhook configuration of one webhook on shipments
// (every version) for objects labelled selector.
func (ws *webhookServer) webhookConfig(kind, name, path, ops, resources, selector string, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: admissionregistration.k8s.io/v1
kind: %s
metadata: {name: %s}
webhooks:
- name: %s.e2e.kubeforge.dev
  clientConfig: {url: "%s%s", caBundle: "%s"}
  rules:
  - {apiGroups: [shipping.kubeforge.dev], apiVersions: ["*"], operations: [%s], resources: [%s]}
  objectSelector: {matchLabels: {%s}}
  sideEffects: None
  admissionReviewVersions: [v1]
`, kind, name, name, ws.url, path, ws.caPEM, ops, resources, selector)
	for _, l := range extra {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// labelledShipment is a v1 Shipment in namespace ns with labels.
func labelledShipment(name, ns, city, labels string) string {
	m := shipmentManifest(name, city)
	m = strings.Replace(m, "  namespace: default\n", "  namespace: "+ns+"\n  labels: {"+labels+"}\n", 1)
	return m
}

// eventuallyFails retries kubectl until it fails with want in its output.
func eventuallyFails(t *testing.T, k *kubectl, stdin, want string, args ...string) result {
	t.Helper()
	var r result
	eventually(t, 10*time.Second, want, func() error {
		r = k.run(t, stdin, args...)
		if r.code != 0 && strings.Contains(r.stderr, want) {
			return nil
		}
		if r.code == 0 && strings.HasPrefix(args[0], "create") {
			k.run(t, stdin, "delete", "--ignore-not-found", "-f", "-")
		}
		return fmt.Errorf("kubectl %s: %s", strings.Join(args, " "), r)
	})
	return r
}

// TestAdmissionPolicies: a ValidatingAdmissionPolicy with a ConfigMap
// param, bound to the namespaces labelled e2e-admission=on, denies a
// Shipment from a banned city with its messageExpression, through v1 and
// (matchPolicy Equivalent: the rule names v1 only) through v1alpha1, and
// lets it be elsewhere; a Warn and Audit binding shows kubectl's warning
// and stores the object; a policy whose CEL does not compile is refused
// with the compiler's message.
func TestAdmissionPolicies(t *testing.T) {
	auditLog := filepath.Join(t.TempDir(), "audit.log")
	s := newServer(t, "--audit-log-path", auditLog)
	k := newKubectl(t, s)
	k.ok(t, `apiVersion: v1
kind: Namespace
metadata: {name: adm-on, labels: {e2e-admission: "on"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: adm-off}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: banned-cities, namespace: default}
data: {banned: Nowhere}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: banned-origin}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: [shipping.kubeforge.dev], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [shipments]}
  variables:
  - {name: city, expression: "object.spec.origin.city"}
  validations:
  - expression: "variables.city != params.data.banned"
    messageExpression: "'origin city ' + variables.city + ' is banned'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: banned-origin}
spec:
  policyName: banned-origin
  paramRef: {name: banned-cities, namespace: default, parameterNotFoundAction: Deny}
  validationActions: [Deny]
  matchResources:
    namespaceSelector: {matchLabels: {e2e-admission: "on"}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: warn-label}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [shipping.kubeforge.dev], apiVersions: ["*"], operations: [CREATE], resources: [shipments]}
  validations:
  - {expression: "!('warn' in object.metadata.labels)", message: "labelled warn"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: warn-label}
spec:
  policyName: warn-label
  validationActions: [Warn, Audit]
`, "create", "-f", "-")

	eventuallyFails(t, k, labelledShipment("banned", "adm-on", "Nowhere", "a: b"), "origin city Nowhere is banned", "create", "-f", "-")
	r := k.run(t, labelledShipment("banned", "adm-on", "Nowhere", "a: b"), "create", "-f", "-")
	// kube's Status: reason Invalid, one cause without a field, which
	// kubectl prints as ": <message>".
	want := `The shipments "banned" is invalid: : ValidatingAdmissionPolicy 'banned-origin' with binding 'banned-origin' denied request: origin city Nowhere is banned`
	if r.code == 0 || !strings.Contains(r.stderr, want) {
		t.Errorf("want %q:\n%s", want, r)
	}
	k.ok(t, labelledShipment("allowed", "adm-on", "Berlin", "a: b"), "create", "-f", "-")
	k.ok(t, labelledShipment("banned", "adm-off", "Nowhere", "a: b"), "create", "-f", "-")

	alpha := `apiVersion: shipping.kubeforge.dev/v1alpha1
kind: Shipment
metadata: {name: banned-alpha, namespace: adm-on}
spec:
  from: {street: Hauptstr. 1, city: Nowhere}
  destination: {street: High St 2, city: London}
  parcels: [{name: box}]
`
	if r := k.run(t, alpha, "create", "-f", "-"); r.code == 0 || !strings.Contains(r.stderr, "origin city Nowhere is banned") {
		t.Errorf("a v1alpha1 write is not denied by the v1 policy (matchPolicy Equivalent):\n%s", r)
	}

	r = k.run(t, labelledShipment("warned", "adm-off", "Berlin", "warn: x"), "create", "-f", "-")
	wantWarn := "Warning: Validation failed for ValidatingAdmissionPolicy 'warn-label' with binding 'warn-label': labelled warn"
	if r.code != 0 || !strings.Contains(r.stderr, wantWarn) {
		t.Errorf("want the object created with %q:\n%s", wantWarn, r)
	}
	// Audit: kube's annotation on the create's audit event.
	wantAudit := `"validation.policy.admission.k8s.io/validation_failure":"[{\"message\":\"labelled warn\",\"policy\":\"warn-label\",\"binding\":\"warn-label\",\"expressionIndex\":0,\"validationActions\":[\"Warn\",\"Audit\"]}]"`
	eventually(t, 10*time.Second, "the Audit annotation", func() error {
		data, err := os.ReadFile(auditLog)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, `"name":"warned"`) && strings.Contains(line, `"verb":"create"`) && strings.Contains(line, wantAudit) {
				return nil
			}
		}
		return fmt.Errorf("no create of warned with %s in the audit log", wantAudit)
	})

	metrics := k.ok(t, "", "get", "--raw", "/metrics")
	for _, want := range []string{
		`apiserver_validating_admission_policy_check_total{enforcement_action="deny",error_type="no_error",policy="banned-origin",policy_binding="banned-origin"}`,
		`apiserver_validating_admission_policy_check_total{enforcement_action="warn",error_type="no_error",policy="warn-label",policy_binding="warn-label"} 1`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}

	bad := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: broken}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  validations:
  - expression: "object.data +"
`
	// status.typeChecking, as kube's status controller fills it: the
	// expressions checked against the schema of each kind the rules name.
	k.ok(t, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: mistyped}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [shipping.kubeforge.dev], apiVersions: [v1], operations: [CREATE], resources: [shipments]}
  validations:
  - expression: "object.spec.nope == 1"
`, "create", "-f", "-")
	eventually(t, 10*time.Second, "status.typeChecking", func() error {
		ok := k.run(t, "", "get", "validatingadmissionpolicy", "banned-origin", "-o", "jsonpath={.status.observedGeneration} {.status.typeChecking}")
		warned := k.run(t, "", "get", "validatingadmissionpolicy", "mistyped", "-o", "jsonpath={.status.typeChecking.expressionWarnings[0].fieldRef} {.status.typeChecking.expressionWarnings[0].warning}")
		if ok.stdout != "1 {}" || !strings.Contains(warned.stdout, "spec.validations[0].expression shipping.kubeforge.dev/v1, Kind=Shipment: ERROR: <input>:1:12: undefined field 'nope'") {
			return fmt.Errorf("banned-origin status %q, mistyped warning %q", ok.stdout, warned.stdout)
		}
		return nil
	})

	r = k.run(t, bad, "create", "-f", "-")
	if r.code == 0 || !strings.Contains(r.stderr, `spec.validations[0].expression: Invalid value: "object.data +": compilation failed: ERROR: <input>:1:14: Syntax error`) {
		t.Errorf("a policy that does not compile is not refused with the compiler's message:\n%s", r)
	}
}

// TestAdmissionWebhooks drives real webhooks over TLS through kubectl:
// objectSelector, a v1alpha1 write sent converted to a v1-only mutating
// webhook (matchPolicy Equivalent) whose patch is stored, a warning,
// dry-run with sideEffects None (and Some refused by validation),
// reinvocation, timeouts under failurePolicy Fail and Ignore, a webhook
// on /status and one on delete, matchConditions.
func TestAdmissionWebhooks(t *testing.T) {
	s := newServer(t)
	k := newKubectl(t, s)
	ws := startWebhook(t)
	V, M := "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"
	cfgs := strings.Join([]string{
		ws.webhookConfig(V, "deny", "/deny", "CREATE", "shipments", "e2e-deny: x"),
		ws.webhookConfig(V, "warn", "/warn", "CREATE", "shipments", "e2e-warn: x"),
		ws.webhookConfig(V, "dryrun", "/allow", "CREATE", "shipments", "e2e-dryrun: x"),
		ws.webhookConfig(M, "reinvoke-a", "/reinvoke-a", "CREATE", "shipments", "e2e-reinvoke: x", "reinvocationPolicy: IfNeeded"),
		ws.webhookConfig(M, "reinvoke-b", "/reinvoke-b", "CREATE", "shipments", "e2e-reinvoke: x"),
		ws.webhookConfig(V, "slow-fail", "/slow", "CREATE", "shipments", "e2e-slow: fail", "timeoutSeconds: 1", "failurePolicy: Fail"),
		ws.webhookConfig(V, "slow-ignore", "/slow", "CREATE", "shipments", "e2e-slow: ignore", "timeoutSeconds: 1", "failurePolicy: Ignore"),
		ws.webhookConfig(V, "status", "/deny", "UPDATE", "shipments/status", "e2e-status: x"),
		ws.webhookConfig(V, "delete", "/deny", "DELETE", "shipments", "e2e-protect: x"),
		ws.webhookConfig(V, "conditions", "/deny", "CREATE", "shipments", "e2e-mc: x",
			"matchConditions:", "- {name: named-mc, expression: \"object.metadata.name.startsWith('mc-')\"}"),
	}, "---\n")
	k.ok(t, cfgs, "create", "-f", "-")
	// The mutating webhook for v1 only.
	k.ok(t, strings.Replace(ws.webhookConfig(M, "mutate-v1", "/mutate", "CREATE", "shipments", "e2e-v1: x"), `apiVersions: ["*"]`, "apiVersions: [v1]", 1), "create", "-f", "-")

	eventuallyFails(t, k, labelledShipment("denied", "default", "Berlin", "e2e-deny: x"),
		`admission webhook "deny.e2e.kubeforge.dev" denied the request: denied by the e2e webhook`, "create", "-f", "-")
	k.ok(t, labelledShipment("not-selected", "default", "Berlin", "other: x"), "create", "-f", "-")
	if n := len(ws.requests("/deny", "not-selected")); n != 0 {
		t.Errorf("an object outside the objectSelector reached the webhook %d times", n)
	}

	// matchConditions: only names starting with mc- reach the webhook.
	eventuallyFails(t, k, labelledShipment("mc-denied", "default", "Berlin", "e2e-mc: x"),
		`admission webhook "conditions.e2e.kubeforge.dev" denied the request`, "create", "-f", "-")
	k.ok(t, labelledShipment("other-mc", "default", "Berlin", "e2e-mc: x"), "create", "-f", "-")
	if n := len(ws.requests("/deny", "other-mc")); n != 0 {
		t.Errorf("a write whose matchConditions are false reached the webhook %d times", n)
	}

	alpha := `apiVersion: shipping.kubeforge.dev/v1alpha1
kind: Shipment
metadata: {name: converted, namespace: default, labels: {e2e-v1: x}}
spec:
  from: {street: Hauptstr. 1, city: Berlin}
  destination: {street: High St 2, city: London}
  parcels: [{name: box}]
`
	k.ok(t, alpha, "create", "-f", "-")
	if got := k.ok(t, "", "get", "shipments.v1alpha1.shipping.kubeforge.dev", "converted", "-o", "jsonpath={.metadata.annotations.e2e/mutated}"); got != "yes" {
		t.Errorf("the v1 webhook's patch of a v1alpha1 write is not stored: annotation %q", got)
	}
	if reqs := ws.requests("/mutate", "converted"); len(reqs) != 1 {
		t.Errorf("the v1 mutating webhook got %d requests for the v1alpha1 write, want 1", len(reqs))
	} else if q := reqs[0]; q.Kind.Version != "v1" || q.RequestKind == nil || q.RequestKind.Version != "v1alpha1" ||
		q.Resource.Version != "v1" || !strings.Contains(string(q.Object.Raw), `"origin"`) || q.Operation != admissionv1.Create {
		t.Errorf("the webhook did not get the write converted to v1 with requestKind v1alpha1: kind %v requestKind %v resource %v object %s",
			q.Kind, q.RequestKind, q.Resource, q.Object.Raw)
	}

	r := k.run(t, labelledShipment("warned", "default", "Berlin", "e2e-warn: x"), "create", "-f", "-")
	if r.code != 0 || !strings.Contains(r.stderr, "Warning: the e2e webhook warns") {
		t.Errorf("want the webhook's warning from kubectl:\n%s", r)
	}

	k.ok(t, labelledShipment("dry", "default", "Berlin", "e2e-dryrun: x"), "create", "--dry-run=server", "-f", "-")
	if reqs := ws.requests("/allow", "dry"); len(reqs) != 1 || reqs[0].DryRun == nil || !*reqs[0].DryRun {
		t.Errorf("a dry run did not reach the sideEffects None webhook with dryRun true: %+v", reqs)
	}
	some := strings.Replace(ws.webhookConfig(V, "some", "/allow", "CREATE", "shipments", "x: z"), "sideEffects: None", "sideEffects: Some", 1)
	if r := k.run(t, some, "create", "-f", "-"); r.code == 0 || !strings.Contains(r.stderr, `webhooks[0].sideEffects: Unsupported value: "Some"`) {
		t.Errorf("sideEffects Some is not refused:\n%s", r)
	}

	k.ok(t, labelledShipment("reinvoked", "default", "Berlin", "e2e-reinvoke: x"), "create", "-f", "-")
	if got := k.ok(t, "", "get", "shipment", "reinvoked", "-o", "jsonpath={.metadata.annotations.e2e/a}/{.metadata.annotations.e2e/b}"); got != "yes/yes" {
		t.Errorf("reinvocation: annotations a/b = %q, want yes/yes", got)
	}
	if n := len(ws.requests("/reinvoke-a", "reinvoked")); n != 2 {
		t.Errorf("the IfNeeded webhook was called %d times, want 2", n)
	}

	start := time.Now()
	r = k.run(t, labelledShipment("slow-fail", "default", "Berlin", "e2e-slow: fail"), "create", "-f", "-")
	if r.code == 0 || !strings.Contains(r.stderr, `failed calling webhook "slow-fail.e2e.kubeforge.dev"`) || !strings.Contains(r.stderr, "deadline exceeded") {
		t.Errorf("a webhook that times out under failurePolicy Fail does not refuse the write:\n%s", r)
	}
	if d := time.Since(start); d > 2900*time.Millisecond {
		t.Errorf("the 1 s timeout took %s", d)
	}
	k.ok(t, labelledShipment("slow-ignore", "default", "Berlin", "e2e-slow: ignore"), "create", "-f", "-")

	k.ok(t, labelledShipment("status", "default", "Berlin", "e2e-status: x"), "create", "-f", "-")
	r = k.run(t, "", "patch", "shipment", "status", "--subresource=status", "--type=merge", "-p", readyCondition("True"))
	if r.code == 0 || !strings.Contains(r.stderr, `admission webhook "status.e2e.kubeforge.dev" denied the request`) {
		t.Errorf("the /status webhook did not deny:\n%s", r)
	}
	// A denial of a write begun on the watch cache's copy is retried on
	// etcd's, as kube-apiserver retries it: one or two calls.
	if reqs := ws.requests("/deny", "status"); len(reqs) == 0 || reqs[0].SubResource != "status" || reqs[0].Operation != admissionv1.Update || len(reqs[0].OldObject.Raw) == 0 ||
		!strings.Contains(string(reqs[0].Options.Raw), `"kind":"UpdateOptions"`) {
		t.Errorf("the /status webhook got %+v", reqs)
	}

	k.ok(t, labelledShipment("protected", "default", "Berlin", "e2e-protect: x"), "create", "-f", "-")
	r = k.run(t, "", "delete", "shipment", "protected", "--wait=false")
	if r.code == 0 || !strings.Contains(r.stderr, `admission webhook "delete.e2e.kubeforge.dev" denied the request`) {
		t.Errorf("the delete webhook did not deny:\n%s", r)
	}
	if reqs := ws.requests("/deny", "protected"); len(reqs) == 0 || reqs[0].Operation != admissionv1.Delete || len(reqs[0].OldObject.Raw) == 0 || len(reqs[0].Options.Raw) == 0 {
		t.Errorf("the delete webhook got %+v", reqs)
	}
	k.ok(t, "", "get", "shipment", "protected")

	metrics := k.ok(t, "", "get", "--raw", "/metrics")
	for _, want := range []string{
		`apiserver_admission_webhook_rejection_count{error_type="no_error",name="deny.e2e.kubeforge.dev",operation="CREATE",rejection_code="403",type="validating"}`,
		`apiserver_admission_webhook_rejection_count{error_type="calling_webhook_error",name="slow-fail.e2e.kubeforge.dev",operation="CREATE",rejection_code="0",type="validating"} 1`,
		`apiserver_admission_webhook_fail_open_count{name="slow-ignore.e2e.kubeforge.dev",type="validating"} 1`,
		`apiserver_admission_webhook_admission_duration_seconds_count{name="mutate-v1.e2e.kubeforge.dev",operation="CREATE",rejected="false",type="admit"}`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
