package e2e

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubeforge/kubeforge/runtime/pki"
)

// userKubeconfig writes a kubeconfig reaching s with the server's CA and
// either a client certificate for user in groups (token "") or a bearer
// token.
func userKubeconfig(t *testing.T, s *apiserver, user string, groups []string, token string) string {
	t.Helper()
	ca, err := pki.EnsureCA(filepath.Join(s.dataDir, "pki"))
	if err != nil {
		t.Fatal(err)
	}
	var creds string
	if token != "" {
		creds = fmt.Sprintf("token: %q", token)
	} else {
		pair, err := pki.IssueClient(ca, user, groups, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		creds = fmt.Sprintf("client-certificate-data: %s\n    client-key-data: %s", b64(pair.CertPEM), b64(pair.KeyPEM))
	}
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: u
  user:
    %s
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
`, s.config.Host, b64(ca.PEM), creds)
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(p, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// TestSecureByDefault drives TLS, authentication and RBAC as a cluster
// admin and a restricted user would, with kubectl and curl-like requests.
func TestSecureByDefault(t *testing.T) {
	auditLog := filepath.Join(t.TempDir(), "audit.log")
	s := newServer(t, "--audit-log-path", auditLog)
	admin := newKubectl(t, s)
	admin.ok(t, "", "create", "namespace", "team-a")
	admin.ok(t, "", "create", "namespace", "team-b")

	// Without credentials: 403 on a resource, 200 on health; a made-up
	// token is a 401.
	ca, err := pki.EnsureCA(filepath.Join(s.dataDir, "pki"))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca.Cert)
	anon := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	get := func(path, token string) (int, string) {
		req, _ := http.NewRequest("GET", s.config.Host+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := anon.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/apis/shipping.kubeforge.dev/v1/namespaces/team-a/shipments", ""); code != 403 ||
		!strings.Contains(body, `shipments.shipping.kubeforge.dev is forbidden: User \"system:anonymous\" cannot list resource \"shipments\" in API group \"shipping.kubeforge.dev\" in the namespace \"team-a\"`) {
		t.Errorf("anonymous list: %d %s", code, body)
	}
	if code, _ := get("/healthz", ""); code != 200 {
		t.Errorf("anonymous /healthz: %d", code)
	}
	if code, body := get("/api/v1/namespaces", "made-up-token"); code != 401 || !strings.Contains(body, `"reason":"Unauthorized"`) {
		t.Errorf("unknown token: %d %s", code, body)
	}

	// A user certificate bound to read shipments in team-a.
	admin.ok(t, "", "create", "role", "shipment-reader", "-n", "team-a", "--verb=get,list,watch", "--resource=shipments.shipping.kubeforge.dev")
	admin.ok(t, "", "create", "rolebinding", "alice-reads", "-n", "team-a", "--role=shipment-reader", "--user=alice")
	alice := &kubectl{bin: admin.bin, kubeconfig: userKubeconfig(t, s, "alice", []string{"dev"}, ""), cacheDir: kubectlTempDir(t)}
	eventually(t, 10*time.Second, "alice lists in team-a", func() error {
		if r := alice.run(t, "", "get", "shipments", "-n", "team-a"); r.code != 0 {
			return fmt.Errorf("%s", r)
		}
		return nil
	})
	wantForbidden := func(r result, what string) {
		t.Helper()
		if r.code == 0 || !strings.Contains(r.stderr, "forbidden") {
			t.Errorf("%s: want forbidden:\n%s", what, r)
		}
	}
	wantForbidden(alice.run(t, "", "get", "shipments", "-n", "team-b"), "alice lists in team-b")
	wantForbidden(alice.run(t, "", "delete", "shipment", "s1", "-n", "team-a"), "alice deletes in team-a")
	wantForbidden(alice.run(t, "", "create", "rolebinding", "mine", "-n", "team-a", "--clusterrole=cluster-admin", "--user=alice"), "alice binds cluster-admin")
	wantForbidden(alice.run(t, "", "create", "role", "bigger", "-n", "team-a", "--verb=*", "--resource=shipments.shipping.kubeforge.dev"), "alice creates a bigger role")
	if got := alice.ok(t, "", "auth", "whoami", "-o", "jsonpath={.status.userInfo.username} {.status.userInfo.groups}"); got != `alice ["dev","system:authenticated"]` {
		t.Errorf("alice whoami: %q", got)
	}
	if r := alice.run(t, "", "auth", "can-i", "list", "shipments.shipping.kubeforge.dev", "-n", "team-a"); strings.TrimSpace(r.stdout) != "yes" {
		t.Errorf("alice can-i list in team-a: %s", r)
	}
	if r := alice.run(t, "", "auth", "can-i", "delete", "shipments.shipping.kubeforge.dev", "-n", "team-a"); strings.TrimSpace(r.stdout) != "no" {
		t.Errorf("alice can-i delete in team-a: %s", r)
	}
	if out := alice.ok(t, "", "auth", "can-i", "--list", "-n", "team-a"); !strings.Contains(out, "shipments.shipping.kubeforge.dev") {
		t.Errorf("alice can-i --list lacks shipments:\n%s", out)
	}
	// Impersonation: the admin may, alice may not.
	if r := admin.run(t, "", "get", "shipments", "-n", "team-b", "--as=alice"); r.code == 0 || !strings.Contains(r.stderr, `User "alice" cannot list`) {
		t.Errorf("admin as alice in team-b: want alice's 403:\n%s", r)
	}
	admin.ok(t, "", "get", "shipments", "-n", "team-a", "--as=alice")
	wantForbidden(alice.run(t, "", "get", "shipments", "-n", "team-a", "--as=bob"), "alice impersonates bob")

	// A ServiceAccount token works while the account exists.
	admin.ok(t, "", "create", "serviceaccount", "robot", "-n", "team-a")
	admin.ok(t, "", "create", "rolebinding", "robot-reads", "-n", "team-a", "--role=shipment-reader", "--serviceaccount=team-a:robot")
	token := strings.TrimSpace(admin.ok(t, "", "create", "token", "robot", "-n", "team-a"))
	robot := &kubectl{bin: admin.bin, kubeconfig: userKubeconfig(t, s, "", nil, token), cacheDir: kubectlTempDir(t)}
	eventually(t, 10*time.Second, "the robot lists in team-a", func() error {
		if r := robot.run(t, "", "get", "shipments", "-n", "team-a"); r.code != 0 {
			return fmt.Errorf("%s", r)
		}
		return nil
	})
	if got := robot.ok(t, "", "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"); got != "system:serviceaccount:team-a:robot" {
		t.Errorf("robot whoami: %q", got)
	}
	admin.ok(t, "", "delete", "serviceaccount", "robot", "-n", "team-a")
	eventually(t, 10*time.Second, "the deleted robot's token stops working", func() error {
		r := robot.run(t, "", "get", "shipments", "-n", "team-a")
		if r.code == 0 || !strings.Contains(r.stderr, "Unauthorized") {
			return fmt.Errorf("want Unauthorized:\n%s", r)
		}
		return nil
	})
	// A token of a recreated account of the same name does not revive it.
	admin.ok(t, "", "create", "serviceaccount", "robot", "-n", "team-a")
	if r := robot.run(t, "", "get", "shipments", "-n", "team-a"); r.code == 0 {
		t.Errorf("the old token works for the recreated account:\n%s", r)
	}

	// Each of those requests is in the audit log.
	events := readAudit(t, auditLog)
	for _, w := range []struct {
		what                         string
		user, verb, uri, namespace   string
		code                         int
		impersonated, decisionWanted string
	}{
		{what: "anonymous list", user: "system:anonymous", verb: "list", namespace: "team-a", code: 403, decisionWanted: "forbid"},
		{what: "anonymous /healthz", user: "system:anonymous", verb: "get", uri: "/healthz", code: 200, decisionWanted: "allow"},
		{what: "unknown token", uri: "/api/v1/namespaces", code: 401},
		{what: "alice lists in team-a", user: "alice", verb: "list", namespace: "team-a", code: 200, decisionWanted: "allow"},
		{what: "alice lists in team-b", user: "alice", verb: "list", namespace: "team-b", code: 403, decisionWanted: "forbid"},
		{what: "alice deletes", user: "alice", verb: "delete", namespace: "team-a", code: 403},
		{what: "alice binds cluster-admin", user: "alice", verb: "create", namespace: "team-a", code: 403},
		{what: "the admin as alice", user: "kubeforge-admin", impersonated: "alice", verb: "list", namespace: "team-b", code: 403},
		{what: "alice impersonates bob", user: "alice", verb: "list", code: 403},
		{what: "the token request", user: "kubeforge-admin", verb: "create", uri: "/api/v1/namespaces/team-a/serviceaccounts/robot/token", code: 201},
		{what: "the robot lists", user: "system:serviceaccount:team-a:robot", verb: "list", namespace: "team-a", code: 200},
		{what: "the deleted robot's token", uri: "/apis/shipping.kubeforge.dev/v1/namespaces/team-a/shipments", code: 401},
	} {
		found := false
		for _, ev := range events {
			imp := ""
			if ev.ImpersonatedUser != nil {
				imp = ev.ImpersonatedUser.Username
			}
			ns := ""
			if ev.ObjectRef != nil {
				ns = ev.ObjectRef.Namespace
			}
			if ev.User.Username == w.user && (w.verb == "" || ev.Verb == w.verb) && (w.uri == "" || strings.HasPrefix(ev.RequestURI, w.uri)) &&
				(w.namespace == "" || ns == w.namespace) && ev.ResponseStatus.Code == w.code && imp == w.impersonated &&
				(w.decisionWanted == "" || ev.Annotations["authorization.k8s.io/decision"] == w.decisionWanted) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no audit event for %s (%+v) among %d", w.what, w, len(events))
		}
	}
}
