package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubeforge/kubeforge/generated"
	"github.com/kubeforge/kubeforge/runtime/admission"
	"github.com/kubeforge/kubeforge/runtime/server"
)

// startGenerated runs the server with every generated kind, over plain
// HTTP (the benchmark measures admission, not TLS).
func startGenerated(b testing.TB, plugins ...admission.Interface) string {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s, err := server.New(ctx, server.Config{DataDir: b.TempDir(), PlainHTTP: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		cancel()
		b.Fatalf("new server: %v", err)
	}
	if err := generated.Install(s); err != nil {
		cancel()
		b.Fatalf("install: %v", err)
	}
	for _, p := range plugins {
		if err := s.AddAdmission(p); err != nil {
			cancel()
			b.Fatalf("add admission: %v", err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	b.Cleanup(func() { cancel(); <-done })
	select {
	case <-s.Ready():
	case err := <-done:
		b.Fatalf("run: %v", err)
	case <-time.After(60 * time.Second):
		b.Fatal("server not ready after 60 s")
	}
	return s.URL()
}

func post(b testing.TB, url, body string, want int) []byte {
	b.Helper()
	resp, err := http.Post(url, "application/yaml", bytes.NewBufferString(body))
	if err != nil {
		b.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != want {
		b.Fatalf("POST %s: %d, want %d: %s", url, resp.StatusCode, want, data)
	}
	return data
}

// inProcess is an admission plug-in compiled into the server: it labels
// every ConfigMap it is asked to mutate and refuses one named "refused".
type inProcess struct{}

func (inProcess) Mutate(_ context.Context, a *admission.Attributes) error {
	if cm, ok := a.Object.(*corev1.ConfigMap); ok {
		if cm.Labels == nil {
			cm.Labels = map[string]string{}
		}
		cm.Labels["in-process"] = "yes"
	}
	return nil
}

func (inProcess) Validate(_ context.Context, a *admission.Attributes) error {
	if a.Operation == admission.Create && a.Name == "refused" {
		return apierrors.NewForbidden(a.Resource.GroupResource(), a.Name, errors.New("refused in process"))
	}
	return nil
}

// TestAddAdmission: an in-process plug-in mutates and refuses writes
// through the same seam as the webhooks.
func TestAddAdmission(t *testing.T) {
	url := startGenerated(t, inProcess{}) + "/api/v1/namespaces/default/configmaps"
	out := post(t, url, `{"metadata":{"name":"labelled"}}`, http.StatusCreated)
	if !bytes.Contains(out, []byte(`"in-process":"yes"`)) {
		t.Errorf("the in-process mutation is not stored: %s", out)
	}
	out = post(t, url, `{"metadata":{"name":"refused"}}`, http.StatusForbidden)
	if !bytes.Contains(out, []byte(`configmaps \"refused\" is forbidden: refused in process`)) {
		t.Errorf("refusal: %s", out)
	}
}

const benchPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: bench}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  validations:
  - {expression: "!has(object.data) || !('forbidden' in object.data)", message: "forbidden key"}
`

const benchBinding = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: bench}
spec: {policyName: bench, validationActions: [Deny]}
`

// benchWebhook is a validating webhook over TLS that allows everything.
func benchWebhook(b *testing.B) string {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rv admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&rv); err != nil || rv.Request == nil {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		rv.Response = &admissionv1.AdmissionResponse{UID: rv.Request.UID, Allowed: true}
		rv.Request = nil
		_ = json.NewEncoder(w).Encode(rv)
	}))
	srv.StartTLS()
	b.Cleanup(srv.Close)
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	return fmt.Sprintf(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: bench}
webhooks:
- name: bench.kubeforge.dev
  clientConfig: {url: "%s/", caBundle: "%s"}
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  sideEffects: None
  admissionReviewVersions: [v1]
`, srv.URL, ca)
}

// BenchmarkCreateAdmission creates ConfigMaps with no admission
// configuration, with one matching ValidatingAdmissionPolicy, and with
// one matching validating webhook (over TLS, on loopback).
func BenchmarkCreateAdmission(b *testing.B) {
	for _, tc := range []struct {
		name    string
		configs func(b *testing.B) map[string]string // collection path -> body
	}{
		{"none", func(*testing.B) map[string]string { return nil }},
		{"policy", func(*testing.B) map[string]string {
			return map[string]string{
				"validatingadmissionpolicies":       benchPolicy,
				"validatingadmissionpolicybindings": benchBinding,
			}
		}},
		{"webhook", func(b *testing.B) map[string]string {
			return map[string]string{"validatingwebhookconfigurations": benchWebhook(b)}
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			url := startGenerated(b)
			for coll, body := range tc.configs(b) {
				post(b, url+"/apis/admissionregistration.k8s.io/v1/"+coll, body, http.StatusCreated)
			}
			time.Sleep(200 * time.Millisecond) // the informers see the configuration
			cms := url + "/api/v1/namespaces/default/configmaps"
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				post(b, cms, fmt.Sprintf(`{"metadata":{"name":"cm-%d"},"data":{"a":"b"}}`, i), http.StatusCreated)
			}
			b.StopTimer()
			// The configuration was in force: a denied create proves it.
			if tc.name == "policy" {
				post(b, cms, `{"metadata":{"name":"denied"},"data":{"forbidden":"x"}}`, http.StatusUnprocessableEntity)
			}
		})
	}
}
