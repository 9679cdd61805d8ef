package generated_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestBuiltinValidation: kube-apiserver's hand-written validation of
// built-in kinds (runtime/builtin, called by the generated Validate<Kind>)
// refuses what kube-apiserver refuses, with its messages, and lets
// through what it lets through.
func TestBuiltinValidation(t *testing.T) {
	base := startServer(t)
	ns := base + "/api/v1/namespaces"
	cms := ns + "/default/configmaps"
	secrets := ns + "/default/secrets"
	leases := base + "/apis/coordination.k8s.io/v1/namespaces/default/leases"
	roles := base + "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles"
	for _, c := range []struct {
		name, url string
		body      obj
		want      []string // substrings of the 422 message; none: 201
	}{
		{"configmap finalizer without domain", cms, obj{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": obj{"name": "c1", "finalizers": []any{"kubernetes", "example.dev/x", "keep"}}},
			[]string{`metadata.finalizers[2]: Invalid value: "keep": name is neither a standard finalizer name nor is it fully qualified`}},
		{"configmap standard finalizers", cms, obj{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": obj{"name": "c2", "finalizers": []any{"orphan", "example.dev/x"}}}, nil},
		{"role finalizer without domain", roles, obj{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
			"metadata": obj{"name": "r1", "finalizers": []any{"keep"}}}, []string{`metadata.finalizers[0]: Invalid value: "keep"`}},
		// Leases have apimachinery's metadata validation only.
		{"lease finalizer without domain", leases, obj{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
			"metadata": obj{"name": "l0", "finalizers": []any{"keep"}}}, nil},
		{"lease spec", leases, obj{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": obj{"name": "l1"},
			"spec": obj{"leaseDurationSeconds": 0, "leaseTransitions": -1, "preferredHolder": "a"}},
			[]string{"spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
				"spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0",
				"spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined"}},
		{"lease strategy", leases, obj{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": obj{"name": "l2"},
			"spec": obj{"strategy": "Newest"}}, []string{`spec.strategy.strategy: Unsupported value: "Newest": supported values: "OldestEmulationVersion"`}},
		{"lease strategy with domain", leases, obj{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": obj{"name": "l3"},
			"spec": obj{"strategy": "example.dev/newest", "preferredHolder": "a"}}, nil},
		{"tls secret without keys", secrets, obj{"apiVersion": "v1", "kind": "Secret", "metadata": obj{"name": "s1"},
			"type": "kubernetes.io/tls", "stringData": obj{"tls.crt": "c"}}, []string{"data[tls.key]: Required value"}},
		{"tls secret", secrets, obj{"apiVersion": "v1", "kind": "Secret", "metadata": obj{"name": "s2"},
			"type": "kubernetes.io/tls", "stringData": obj{"tls.crt": "c", "tls.key": "k"}}, nil},
		{"dockerconfigjson secret", secrets, obj{"apiVersion": "v1", "kind": "Secret", "metadata": obj{"name": "s3"},
			"type": "kubernetes.io/dockerconfigjson", "stringData": obj{".dockerconfigjson": "{not json"}},
			[]string{`data[.dockerconfigjson]: Invalid value: "<secret contents redacted>"`}},
		{"token secret", secrets, obj{"apiVersion": "v1", "kind": "Secret", "metadata": obj{"name": "s4"},
			"type": "kubernetes.io/service-account-token"}, []string{"metadata.annotations[kubernetes.io/service-account.name]: Required value"}},
		{"basic-auth secret", secrets, obj{"apiVersion": "v1", "kind": "Secret", "metadata": obj{"name": "s5"},
			"type": "kubernetes.io/basic-auth", "stringData": obj{"password": ""}}, nil},
		{"namespace spec finalizer", ns, obj{"apiVersion": "v1", "kind": "Namespace", "metadata": obj{"name": "n1"},
			"spec": obj{"finalizers": []any{"bad finalizer"}}}, []string{`spec.finalizers: Invalid value: "bad finalizer"`}},
	} {
		code, out := call(t, "POST", c.url, c.body, "")
		msg, _ := out["message"].(string)
		switch {
		case c.want == nil && code != http.StatusCreated:
			t.Errorf("%s: %d %s, want 201", c.name, code, msg)
		case c.want != nil && code != http.StatusUnprocessableEntity:
			t.Errorf("%s: %d %v, want 422", c.name, code, out)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: message %q lacks %q", c.name, msg, w)
			}
		}
	}
	// A custom resource's finalizer without a domain is kube's warning,
	// not an error.
	shipment := obj{"apiVersion": "shipping.kubeforge.dev/v1", "kind": "Shipment",
		"metadata": obj{"name": "s1", "finalizers": []any{"keep"}},
		"spec": obj{"origin": obj{"street": "1 Old Road", "city": "Bonn"}, "destination": obj{"street": "2 New Road", "city": "Köln"},
			"parcels": []obj{{"name": "box"}}}}
	shipments := base + "/apis/shipping.kubeforge.dev/v1/namespaces/default/shipments"
	code, got, warns := callWarnings(t, "POST", shipments, shipment)
	if code != http.StatusCreated || len(warns) != 1 ||
		warns[0] != `299 - "metadata.finalizers: \"keep\": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers"` {
		t.Errorf("custom resource with finalizer keep: %d, warnings %q", code, warns)
	}
	// Only added finalizers are warned about.
	meta := got["metadata"].(obj)
	meta["finalizers"] = []any{"keep", "example.dev", "example.dev/x"}
	code, _, warns = callWarnings(t, "PUT", shipments+"/s1", got)
	if code != http.StatusOK || len(warns) != 1 || !strings.Contains(warns[0], `\"example.dev\": prefer a domain-qualified finalizer name including a path (/)`) {
		t.Errorf("custom resource update adding finalizers: %d, warnings %q", code, warns)
	}
	// Built-in kinds do not warn.
	_, _, warns = callWarnings(t, "POST", leases, obj{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
		"metadata": obj{"name": "l9", "finalizers": []any{"keep"}}})
	if len(warns) != 0 {
		t.Errorf("lease with finalizer keep: warnings %q", warns)
	}
}

// callWarnings is call that also returns the Warning headers.
func callWarnings(t *testing.T, method, url string, body obj) (int, obj, []string) {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	code, out, h := callHeaders(t, method, url, string(data), "application/json")
	return code, out, h.Values("Warning")
}

// TestPutStrategies: a PUT without resourceVersion and a PUT of a missing
// object behave per kind as kube-apiserver's strategies say
// (generators/builtinstrategy): a ConfigMap, Secret or RoleBinding takes an
// unconditional update; a Lease, an admission policy and a custom
// resource refuse it with 422; a Lease, an Event or a Role is created by
// a PUT (201, with managedFields of an Update), a ConfigMap or a custom
// resource is not (404). A ConfigMap has no generation; a webhook
// configuration and a custom resource start at 1.
func TestPutStrategies(t *testing.T) {
	base := startServer(t)
	cms := base + "/api/v1/namespaces/default/configmaps"
	leases := base + "/apis/coordination.k8s.io/v1/namespaces/default/leases"
	roles := base + "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles"
	shipments := base + "/apis/shipping.kubeforge.dev/v1/namespaces/default/shipments"

	cm := func(v string) obj {
		return obj{"apiVersion": "v1", "kind": "ConfigMap", "metadata": obj{"name": "c1"}, "data": obj{"k": v}}
	}
	created := mustCall(t, http.StatusCreated, "POST", cms, cm("1"), "")
	got := mustCall(t, http.StatusOK, "PUT", cms+"/c1", cm("2"), "")
	if get(got, "data", "k") != "2" || get(got, "metadata", "resourceVersion") == get(created, "metadata", "resourceVersion") {
		t.Errorf("unconditional ConfigMap update = %v, want data.k 2 at a new resourceVersion", got)
	}
	// A ConfigMap's strategy leaves metadata.generation alone.
	if g := get(got, "metadata", "generation"); g != nil || get(created, "metadata", "generation") != nil {
		t.Errorf("ConfigMap generation = %v after create, %v after update; want none", get(created, "metadata", "generation"), g)
	}
	stale := cm("3")
	stale["metadata"].(obj)["resourceVersion"] = get(created, "metadata", "resourceVersion")
	if code, out := call(t, "PUT", cms+"/c1", stale, ""); code != http.StatusConflict {
		t.Errorf("ConfigMap update at a stale resourceVersion: %d %v, want 409", code, out)
	}
	missing := cm("1")
	missing["metadata"].(obj)["name"] = "c2"
	if code, out := call(t, "PUT", cms+"/c2", missing, ""); code != http.StatusNotFound {
		t.Errorf("PUT of a missing ConfigMap: %d %v, want 404", code, out)
	}

	lease := func(holder string) obj {
		return obj{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": obj{"name": "l1", "resourceVersion": "12345"},
			"spec": obj{"holderIdentity": holder}}
	}
	got = mustCall(t, http.StatusCreated, "PUT", leases+"/l1", lease("a"), "")
	if get(got, "spec", "holderIdentity") != "a" || get(got, "metadata", "managedFields", 0, "operation") != "Update" {
		t.Errorf("Lease created by PUT = %v, want holder a, managedFields of an Update", got)
	}
	noRV := lease("b")
	delete(noRV["metadata"].(obj), "resourceVersion")
	code, out := call(t, "PUT", leases+"/l1", noRV, "")
	if msg, _ := out["message"].(string); code != http.StatusUnprocessableEntity || !strings.Contains(msg, "must be specified for an update") {
		t.Errorf("Lease update without resourceVersion: %d %v, want 422", code, out)
	}

	role := obj{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": obj{"name": "r1"},
		"rules": []any{obj{"apiGroups": []any{""}, "resources": []any{"pods"}, "verbs": []any{"get"}}}}
	mustCall(t, http.StatusCreated, "PUT", roles+"/r1", role, "")
	mustCall(t, http.StatusOK, "PUT", roles+"/r1", role, "")

	// Webhook configurations track it, as custom resources do.
	hooks := base + "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
	hook := obj{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration", "metadata": obj{"name": "h1"}}
	if g := get(mustCall(t, http.StatusCreated, "POST", hooks, hook, ""), "metadata", "generation"); g != float64(1) {
		t.Errorf("webhook configuration generation = %v, want 1", g)
	}

	shipment := obj{"apiVersion": "shipping.kubeforge.dev/v1", "kind": "Shipment", "metadata": obj{"name": "s1"},
		"spec": obj{
			"origin":      obj{"street": "1 Old Road", "city": "Bonn"},
			"destination": obj{"street": "2 New Road", "city": "Köln"},
			"parcels":     []obj{{"name": "box"}},
		}}
	if code, out := call(t, "PUT", shipments+"/s1", shipment, ""); code != http.StatusNotFound {
		t.Errorf("PUT of a missing custom resource: %d %v, want 404", code, out)
	}
	if g := get(mustCall(t, http.StatusCreated, "POST", shipments, shipment, ""), "metadata", "generation"); g != float64(1) {
		t.Errorf("custom resource generation = %v, want 1", g)
	}
	if code, out := call(t, "PUT", shipments+"/s1", shipment, ""); code != http.StatusUnprocessableEntity {
		t.Errorf("custom resource update without resourceVersion: %d %v, want 422", code, out)
	}
}

// TestBuiltinDecodeErrors: a built-in kind's body whose value its Go type
// cannot hold is kube-apiserver's 400, worded as kube's decoder words it,
// and so is an unknown field under Strict; nothing is stored.
func TestBuiltinDecodeErrors(t *testing.T) {
	base := startServer(t)
	cms := base + "/api/v1/namespaces/default/configmaps"
	for _, tc := range []struct{ query, body, want string }{
		{"", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad-type"},"data":{"a":5}}`,
			`ConfigMap in version "v1" cannot be handled as a ConfigMap: `},
		{"?fieldValidation=Strict", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad-field"},"bogus":1}`,
			`ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"`},
	} {
		code, out := callRaw(t, "POST", cms+tc.query, tc.body, "application/json")
		msg, _ := out["message"].(string)
		if code != 400 || out["reason"] != "BadRequest" || !strings.HasPrefix(msg, tc.want) {
			t.Errorf("POST %s: %d %v, want 400 starting %q", tc.body, code, out, tc.want)
		}
	}
	for _, name := range []string{"bad-type", "bad-field"} {
		mustCall(t, 404, "GET", cms+"/"+name, nil, "")
	}
}
