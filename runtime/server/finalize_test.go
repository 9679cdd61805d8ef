package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestNamespaceFinalize: PUT /api/v1/namespaces/{name}/finalize writes
// spec.finalizers only, as kube-apiserver's subresource does, and a
// namespace stuck Terminating (an object in it holds a finalizer nobody
// removes) goes once they are cleared; a bad finalizer name is a 422, a
// body naming another namespace a 400.
func TestNamespaceFinalize(t *testing.T) {
	s := startSecureServer(t, "finalize-user")
	do := func(method, path, body string) (int, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := s.admin.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, data
	}
	if code, body := do("POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"stuck"}}`); code != http.StatusCreated {
		t.Fatalf("create namespace: %d %s", code, body)
	}
	if code, body := do("POST", "/api/v1/namespaces/stuck/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"held","finalizers":["example.com/hold"]}}`); code != http.StatusCreated {
		t.Fatalf("create configmap: %d %s", code, body)
	}
	if code, body := do("DELETE", "/api/v1/namespaces/stuck", ""); code != http.StatusOK || strings.Contains(string(body), "deletionGracePeriodSeconds") {
		t.Fatalf("delete namespace: %d %s (kube's namespace registry sets no grace period)", code, body)
	}
	time.Sleep(500 * time.Millisecond)
	if code, body := do("GET", "/api/v1/namespaces/stuck", ""); code != http.StatusOK || !strings.Contains(string(body), `"phase":"Terminating"`) {
		t.Fatalf("the namespace is not stuck Terminating: %d %s", code, body)
	}

	for _, tc := range []struct {
		body string
		code int
		msg  string
	}{
		{`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"other"},"spec":{"finalizers":[]}}`, http.StatusBadRequest, "does not match the name on the URL"},
		{`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"stuck"},"spec":{"finalizers":["not a name"]}}`, http.StatusUnprocessableEntity, "spec.finalizers"},
		{`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"stuck"}}`, http.StatusBadRequest, "not a v1 Namespace"},
	} {
		code, body := do("PUT", "/api/v1/namespaces/stuck/finalize", tc.body)
		var st struct{ Message string }
		_ = json.Unmarshal(body, &st)
		if code != tc.code || !strings.Contains(st.Message, tc.msg) {
			t.Errorf("finalize %s: %d %s, want %d with %q", tc.body, code, body, tc.code, tc.msg)
		}
	}

	// A dry run (or a bad dryRun) changes nothing.
	clear := `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"stuck"},"spec":{"finalizers":[]}}`
	if code, body := do("PUT", "/api/v1/namespaces/stuck/finalize?dryRun=All", clear); code != http.StatusOK {
		t.Fatalf("dry-run finalize: %d %s", code, body)
	}
	if code, _ := do("PUT", "/api/v1/namespaces/stuck/finalize?dryRun=Bogus", clear); code != http.StatusUnprocessableEntity && code != http.StatusBadRequest {
		t.Errorf("finalize with dryRun=Bogus: %d, want a 4xx", code)
	}
	if code, body := do("GET", "/api/v1/namespaces/stuck", ""); code != http.StatusOK || !strings.Contains(string(body), `"finalizers":["kubernetes"]`) {
		t.Fatalf("a dry-run finalize changed the namespace: %d %s", code, body)
	}

	code, body := do("PUT", "/api/v1/namespaces/stuck/finalize", clear)
	if code != http.StatusOK || !strings.Contains(string(body), `"kind":"Namespace"`) {
		t.Fatalf("finalize: %d %s", code, body)
	}
	if code, body := do("GET", "/api/v1/namespaces/stuck", ""); code != http.StatusNotFound {
		t.Fatalf("the finalized namespace is still there: %d %s", code, body)
	}
	// The OpenAPI document lists it, as kube's does.
	if code, body := do("GET", "/openapi/v3/api/v1", ""); code != http.StatusOK || !strings.Contains(string(body), `"/api/v1/namespaces/{name}/finalize"`) ||
		!strings.Contains(string(body), `"replaceNamespaceFinalize"`) {
		t.Errorf("/openapi/v3/api/v1 without the finalize path: %d", code)
	}
}
