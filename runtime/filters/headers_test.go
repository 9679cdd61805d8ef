package filters

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubeforge/kubeforge/runtime/audit"
	"github.com/kubeforge/kubeforge/runtime/auth"
)

// TestResponseHeaders: every answer of the chain, a handler's or a
// filter's (401), carries kube's Cache-Control and an Audit-Id, the
// client's own when it sent one, and the audit log records the ID the
// client got; a handler serving a cacheable document keeps its own
// Cache-Control.
func TestResponseHeaders(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "audit.log")
	a, err := audit.New(audit.Options{Path: logPath}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	authn := func(req *http.Request) (*auth.User, error) {
		if req.Header.Get("X-Test-User") == "bad" {
			return nil, errors.New("bad credentials")
		}
		return &auth.User{Name: "alice", Groups: []string{auth.AllAuthenticated}}, nil
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/openapi/v3" {
			w.Header().Set("Cache-Control", "public, immutable")
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	})
	srv := httptest.NewServer(Chain(h, Options{Logger: slog.New(slog.DiscardHandler), Authenticate: authn, Auditor: a}))
	t.Cleanup(srv.Close)

	ids := map[string]bool{}
	for _, tc := range []struct {
		path, user, id string
		code           int
		cache          string
	}{
		{"/api/v1/namespaces/a/configmaps", "alice", "", http.StatusOK, "no-cache, private"},
		{"/api/v1/namespaces/a/configmaps", "alice", "", http.StatusOK, "no-cache, private"},
		{"/api/v1/namespaces/a/secrets/s", "alice", "front-proxy-id", http.StatusOK, "no-cache, private"},
		{"/api/v1/namespaces/a/secrets/s", "bad", "", http.StatusUnauthorized, "no-cache, private"},
		{"/openapi/v3", "alice", "", http.StatusOK, "public, immutable"},
	} {
		var hdr []string
		if tc.id != "" {
			hdr = []string{AuditIDHeader, tc.id}
		}
		resp := do(t, "GET", srv.URL+tc.path, tc.user, "", hdr...)
		if resp.StatusCode != tc.code {
			t.Fatalf("GET %s as %s: %d, want %d", tc.path, tc.user, resp.StatusCode, tc.code)
		}
		if got := resp.Header.Values("Cache-Control"); len(got) != 1 || got[0] != tc.cache {
			t.Errorf("GET %s as %s: Cache-Control %q, want %q", tc.path, tc.user, got, tc.cache)
		}
		id := resp.Header.Get(AuditIDHeader)
		switch {
		case tc.id != "" && id != tc.id:
			t.Errorf("GET %s: Audit-Id %q, want the request's %q", tc.path, id, tc.id)
		case id == "" || ids[id]:
			t.Errorf("GET %s: Audit-Id %q, want a new one", tc.path, id)
		}
		ids[id] = true
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(logPath); err != nil {
		t.Fatal(err)
	}
	logged := map[string]bool{}
	for _, ev := range auditLines(t, logPath) {
		logged[string(ev.AuditID)] = true
	}
	for id := range ids {
		if !logged[id] {
			t.Errorf("Audit-Id %q is not in the audit log (%v)", id, logged)
		}
	}
}
