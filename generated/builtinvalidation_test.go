package generated_test

import (
	"bytes"
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
	req, err := http.NewRequest(method, url, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	var out obj
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s %s: %d, body is not JSON: %v", method, url, resp.StatusCode, err)
	}
	return resp.StatusCode, out, resp.Header.Values("Warning")
}
