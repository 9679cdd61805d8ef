package server_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubeforge/kubeforge/generated"
	"github.com/kubeforge/kubeforge/runtime/pki"
	"github.com/kubeforge/kubeforge/runtime/server"
)

// secureServer is a server over HTTPS and HTTP/2 with RBAC, and clients
// for its admin (system:masters) and for a user with a client certificate
// of its CA and no group.
type secureServer struct {
	url         string
	admin, user *http.Client
}

func startSecureServer(tb testing.TB, userName string) *secureServer {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	dir := tb.TempDir()
	s, err := server.New(ctx, server.Config{DataDir: dir, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		cancel()
		tb.Fatalf("new server: %v", err)
	}
	if err := generated.Install(s); err != nil {
		cancel()
		tb.Fatalf("install: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	tb.Cleanup(func() { cancel(); <-done })
	select {
	case <-s.Ready():
	case err := <-done:
		tb.Fatalf("run: %v", err)
	case <-time.After(60 * time.Second):
		tb.Fatal("server not ready after 60 s")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", s.KubeconfigPath())
	if err != nil {
		tb.Fatal(err)
	}
	admin, err := rest.HTTPClientFor(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	ca, err := pki.EnsureCA(filepath.Join(dir, "pki"))
	if err != nil {
		tb.Fatal(err)
	}
	pair, err := pki.IssueClient(ca, userName, nil, time.Hour)
	if err != nil {
		tb.Fatal(err)
	}
	cert, err := pair.TLS()
	if err != nil {
		tb.Fatal(err)
	}
	tc, err := rest.TLSConfigFor(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tc = tc.Clone()
	tc.Certificates = []tls.Certificate{cert}
	tc.GetClientCertificate = nil
	tc.NextProtos = []string{"h2"}
	user := &http.Client{Transport: &http.Transport{TLSClientConfig: tc, ForceAttemptHTTP2: true}}
	return &secureServer{url: cfg.Host, admin: admin, user: user}
}

// call sends method url with body (JSON) as c and returns the status code.
func call(tb testing.TB, c *http.Client, method, url, body string) int {
	return callAccept(tb, c, method, url, body, "")
}

// callAccept is call with an Accept header (none when empty).
func callAccept(tb testing.TB, c *http.Client, method, url, body, accept string) int {
	tb.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := c.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// waitFor calls until the answer is want, for up to 10 s.
func waitFor(tb testing.TB, c *http.Client, method, url string, want int) {
	tb.Helper()
	got := 0
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got = call(tb, c, method, url, ""); got == want {
			return
		}
	}
	tb.Fatalf("%s %s: %d after 10 s, want %d", method, url, got, want)
}

const editBinding = `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"%[1]s-edit"},
"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"edit"},
"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"%[1]s"}]}`

// BenchmarkGetCachedTLS is BenchmarkGetCached over HTTPS and HTTP/2 with
// client certificates, as the admin (system:masters, allowed before RBAC)
// and as a user RBAC allows through the ClusterRole edit; admin-json sends
// "Accept: application/json" as cmd/bench's clients do.
func BenchmarkGetCachedTLS(b *testing.B) {
	s := startSecureServer(b, "bench-user")
	cms := s.url + "/api/v1/namespaces/default/configmaps"
	if code := call(b, s.admin, "POST", cms, `{"metadata":{"name":"cm"},"data":{"a":"b"}}`); code != http.StatusCreated {
		b.Fatalf("create: %d", code)
	}
	if code := call(b, s.admin, "POST", s.url+"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", fmt.Sprintf(editBinding, "bench-user")); code != http.StatusCreated {
		b.Fatalf("bind: %d", code)
	}
	for _, c := range []struct {
		name, accept string
		client       *http.Client
	}{{"admin", "", s.admin}, {"rbac", "", s.user}, {"admin-json", "application/json", s.admin}} {
		b.Run(c.name, func(b *testing.B) {
			waitFor(b, c.client, "GET", cms+"/cm?resourceVersion=0", http.StatusOK)
			b.ReportAllocs()
			start := cpuTime(b)
			n := 0
			for b.Loop() {
				if code := callAccept(b, c.client, "GET", cms+"/cm?resourceVersion=0", "", c.accept); code != http.StatusOK {
					b.Fatalf("get: %d", code)
				}
				n++
			}
			b.ReportMetric(float64(cpuTime(b)-start)/float64(n), "cpu-ns/op")
		})
	}
}

// TestRBACChangeApplies: a user's requests are allowed while a binding
// grants them and refused once it is gone, although the same question was
// answered (and remembered) many times before: no authorization outlives
// the RBAC objects it was read from.
func TestRBACChangeApplies(t *testing.T) {
	s := startSecureServer(t, "rbac-user")
	cm := s.url + "/api/v1/namespaces/default/configmaps/cm"
	bindings := s.url + "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"
	if code := call(t, s.user, "GET", cm, ""); code != http.StatusForbidden {
		t.Fatalf("before the binding: %d, want 403", code)
	}
	if code := call(t, s.admin, "POST", bindings, fmt.Sprintf(editBinding, "rbac-user")); code != http.StatusCreated {
		t.Fatalf("bind: %d", code)
	}
	waitFor(t, s.user, "GET", cm, http.StatusNotFound)
	for range 5 {
		if code := call(t, s.user, "GET", cm, ""); code != http.StatusNotFound {
			t.Fatalf("while bound: %d, want 404", code)
		}
	}
	if code := call(t, s.admin, "DELETE", bindings+"/rbac-user-edit", ""); code != http.StatusOK {
		t.Fatalf("unbind: %d", code)
	}
	waitFor(t, s.user, "GET", cm, http.StatusForbidden)
	for range 5 {
		if code := call(t, s.user, "GET", cm, ""); code != http.StatusForbidden {
			t.Fatalf("once unbound: %d, want 403", code)
		}
	}
}
