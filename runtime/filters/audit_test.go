package filters

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"

	"github.com/kubeforge/kubeforge/runtime/audit"
	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/request"
)

const testPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
omitManagedFields: true
rules:
- level: None
  users: [quiet]
- level: RequestResponse
  resources: [{group: "", resources: [secrets]}]
- level: Request
  verbs: [patch]
- level: Metadata
`

// auditServer serves h behind the audit chain; the user is the
// X-Test-User header, and a "bad" one fails authentication.
func auditServer(t *testing.T, policy string, h http.HandlerFunc) (*httptest.Server, string) {
	t.Helper()
	dir := t.TempDir()
	opts := audit.Options{Path: filepath.Join(dir, "audit.log")}
	if policy != "" {
		opts.PolicyFile = filepath.Join(dir, "policy.yaml")
		if err := os.WriteFile(opts.PolicyFile, []byte(policy), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	a, err := audit.New(opts, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	authn := func(req *http.Request) (*auth.User, error) {
		name := req.Header.Get("X-Test-User")
		if name == "bad" {
			return nil, errors.New("bad credentials")
		}
		return &auth.User{Name: name, Groups: []string{auth.AllAuthenticated}}, nil
	}
	quiet := slog.New(slog.DiscardHandler)
	chain := WithPanicRecovery(WithRequestInfo(WithAuthentication(WithAudit(h, a), authn, a, quiet)), quiet)
	srv := httptest.NewServer(chain)
	t.Cleanup(srv.Close)
	return srv, opts.Path
}

func auditLines(t *testing.T, path string) []auditv1.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []auditv1.Event
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ev auditv1.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		out = append(out, ev)
	}
	return out
}

func do(t *testing.T, method, url, user, body string, hdr ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("X-Test-User", user)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func TestAuditPolicyLevels(t *testing.T) {
	srv, log := auditServer(t, testPolicy, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodPost:
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"kind":"Secret","metadata":{"name":"s1","managedFields":[{"manager":"x"}]},"status":{"phase":"x"}}`))
		case strings.HasSuffix(r.URL.Path, "/missing"):
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"things \"missing\" not found","reason":"NotFound","code":404}`))
		case strings.HasSuffix(r.URL.Path, "/boom"):
			panic("boom")
		default:
			_, _ = w.Write(append([]byte(`{"kind":"Thing","echo":`), append(body, '}')...))
		}
	})
	secrets := srv.URL + "/api/v1/namespaces/a/secrets"
	if resp := do(t, "POST", secrets, "alice", `{"kind":"Secret","metadata":{"name":"s1","managedFields":[{"manager":"y"}]}}`, AuditIDHeader, "fixed-id"); resp.Header.Get(AuditIDHeader) != "fixed-id" {
		t.Errorf("Audit-Id %q, want the request's", resp.Header.Get(AuditIDHeader))
	}
	do(t, "PATCH", srv.URL+"/apis/g/v1/namespaces/a/things/t1", "alice", `{"spec":{"x":1}}`)
	do(t, "GET", srv.URL+"/apis/g/v1/namespaces/a/things/missing", "alice", "")
	do(t, "GET", srv.URL+"/apis/g/v1/namespaces/a/things/t1", "quiet", "")
	do(t, "GET", srv.URL+"/apis/g/v1/namespaces/a/things/t1", "bad", "")
	if resp := do(t, "GET", srv.URL+"/apis/g/v1/namespaces/a/things/boom", "alice", ""); resp.StatusCode != 500 {
		t.Errorf("panic: %d", resp.StatusCode)
	}

	evs := auditLines(t, log)
	if len(evs) != 5 {
		t.Fatalf("%d events, want 5 (none for the quiet user): %+v", len(evs), evs)
	}
	create, patch, missing, unauth, panicked := evs[0], evs[1], evs[2], evs[3], evs[4]
	if create.Level != auditv1.LevelRequestResponse || create.AuditID != "fixed-id" || create.Stage != auditv1.StageResponseComplete ||
		create.ObjectRef.Name != "s1" || create.ResponseStatus.Code != 201 || create.User.Username != "alice" {
		t.Errorf("create: %+v", create)
	}
	for _, obj := range []string{string(create.RequestObject.Raw), string(create.ResponseObject.Raw)} {
		if strings.Contains(obj, "managedFields") || !strings.Contains(obj, `"name":"s1"`) {
			t.Errorf("create body kept managed fields or lost the name: %s", obj)
		}
	}
	if patch.Level != auditv1.LevelRequest || patch.Verb != "patch" || string(patch.RequestObject.Raw) != `{"spec":{"x":1}}` || patch.ResponseObject != nil {
		t.Errorf("patch: %+v", patch)
	}
	if missing.Level != auditv1.LevelMetadata || missing.RequestObject != nil || missing.ResponseStatus.Code != 404 ||
		missing.ResponseStatus.Reason != "NotFound" || missing.ResponseStatus.Message != `things "missing" not found` {
		t.Errorf("404: %+v %+v", missing, missing.ResponseStatus)
	}
	if unauth.Stage != auditv1.StageResponseStarted || unauth.ResponseStatus.Code != 401 || unauth.User.Username != "" {
		t.Errorf("401: %+v", unauth)
	}
	if panicked.Stage != auditv1.StagePanic || panicked.ResponseStatus.Code != 500 {
		t.Errorf("panic: %+v", panicked)
	}
}

// TestAuditWatchAndRotation: a watch is logged when it starts and when it
// ends; the file rotates at its size.
func TestAuditWatchAndRotation(t *testing.T) {
	srv, log := auditServer(t, "", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"type":"ADDED"}`))
	})
	do(t, "GET", srv.URL+"/api/v1/namespaces/a/configmaps?watch=true", "alice", "")
	evs := auditLines(t, log)
	if len(evs) != 2 || evs[0].Stage != auditv1.StageResponseStarted || evs[1].Stage != auditv1.StageResponseComplete || evs[1].Verb != "watch" {
		t.Fatalf("watch events: %+v", evs)
	}

	dir := t.TempDir()
	a, err := audit.New(audit.Options{Path: filepath.Join(dir, "audit.log"), MaxSizeMB: 1, MaxBackups: 2}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ev := auditv1.Event{RequestURI: "/" + strings.Repeat("x", 10_000)}
	for range 400 { // about 4 MB
		a.Start(auth.Attributes{Info: request.Info{Verb: "get"}}, ev).Stage(auditv1.StageResponseComplete, ev.StageTimestamp)
	}
	// lumberjack removes old backups in a goroutine of its own: wait for it.
	var files []string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		files, _ = filepath.Glob(filepath.Join(dir, "audit*.log"))
		if len(files) == 3 || time.Now().After(deadline) {
			break
		}
	}
	if len(files) != 3 {
		t.Fatalf("files after rotation: %v, want the log and 2 backups", files)
	}
	for _, f := range files {
		if st, _ := os.Stat(f); st.Size() > 1<<20 {
			t.Errorf("%s is %d bytes", f, st.Size())
		}
	}
}
