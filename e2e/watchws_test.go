package e2e

import (
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/websocket"
	"k8s.io/client-go/rest"
)

// TestWatchOverWebSocket drives a watch the way a browser dashboard does,
// over TLS and HTTP/1.1 on the real server: a WebSocket upgrade whose
// bearer token rides in a subprotocol (browsers cannot set
// Authorization on a WebSocket), each event a text message; a user
// without the right is refused before the upgrade, a bad token too; the
// audit log records the watch with 101, as kube-apiserver's does.
func TestWatchOverWebSocket(t *testing.T) {
	auditLog := filepath.Join(t.TempDir(), "audit.log")
	s := newServer(t, "--token-auth-file", tokenFile(t, "root-token,root,uid-root,\"system:masters\"\nalice-token,alice,uid-alice\n"),
		"--audit-log-path", auditLog)
	tc, err := rest.TLSConfigFor(s.config)
	if err != nil {
		t.Fatal(err)
	}
	// The server's CA only: the token is the credential.
	tc = &tls.Config{RootCAs: tc.RootCAs, ServerName: tc.ServerName, NextProtos: []string{"http/1.1"}}
	host := strings.TrimPrefix(s.config.Host, "https://")
	const path = "/api/v1/namespaces/default/configmaps"
	dial := func(token string) (*websocket.Conn, error) {
		cfg, err := websocket.NewConfig("wss://"+host+path+"?watch=1&allowWatchBookmarks=false", "https://dashboard.example")
		if err != nil {
			t.Fatal(err)
		}
		cfg.TlsConfig = tc
		cfg.Protocol = []string{"base64.binary.k8s.io", "base64url.bearer.authorization.k8s.io." + base64.RawURLEncoding.EncodeToString([]byte(token))}
		return websocket.DialConfig(cfg)
	}
	ws, err := dial("root-token")
	if err != nil {
		t.Fatalf("dial as root: %v", err)
	}
	if got := ws.Config().Protocol; len(got) != 1 || got[0] != "base64.binary.k8s.io" {
		t.Errorf("echoed subprotocols %q: want the token removed", got)
	}
	admin, err := rest.HTTPClientFor(s.config)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ws-a", "ws-b"} {
		body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"},"data":{"k":"v"}}`
		resp, err := admin.Post(s.config.Host+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("create %s: %d", name, resp.StatusCode)
		}
	}
	seen := map[string]bool{}
	for !seen["ws-a"] || !seen["ws-b"] {
		if err := ws.SetReadDeadline(time.Now().Add(20 * time.Second)); err != nil {
			t.Fatal(err)
		}
		var msg string
		if err := websocket.Message.Receive(ws, &msg); err != nil {
			t.Fatalf("receive (seen %v): %v", seen, err)
		}
		var ev struct {
			Type   string
			Object struct {
				Kind     string
				Metadata struct{ Name string }
			}
		}
		if err := json.Unmarshal([]byte(msg), &ev); err != nil || ev.Type != "ADDED" || ev.Object.Kind != "ConfigMap" {
			t.Fatalf("message %q: %v", msg, err)
		}
		seen[ev.Object.Metadata.Name] = true
	}
	ws.Close()

	// alice may not watch ConfigMaps; a made-up token is no one. Both are
	// answered before any upgrade.
	for token, want := range map[string]string{"alice-token": "403", "nope": "401"} {
		if _, err := dial(token); err == nil || !strings.Contains(err.Error(), "bad status") {
			t.Errorf("dial with %s: %v, want a refused handshake (%s)", token, err, want)
		}
	}
	req, _ := http.NewRequest("GET", s.config.Host+path+"?watch=1", nil)
	for k, v := range map[string]string{"Connection": "Upgrade", "Upgrade": "websocket", "Origin": "https://dashboard.example",
		"Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
		"Sec-WebSocket-Protocol": "x, base64url.bearer.authorization.k8s.io." + base64.RawURLEncoding.EncodeToString([]byte("alice-token"))} {
		req.Header.Set(k, v)
	}
	plain := &http.Client{Transport: &http.Transport{TLSClientConfig: tc}}
	resp, err := plain.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("alice's upgrade: %d, want 403", resp.StatusCode)
	}

	// The audit event of root's watch, once it has ended.
	deadline := time.Now().Add(10 * time.Second)
	for {
		found := false
		for _, ev := range readAudit(t, auditLog) {
			if ev.Verb == "watch" && ev.User.Username == "root" && ev.Stage == "ResponseComplete" && ev.ResponseStatus.Code == http.StatusSwitchingProtocols {
				found = true
			}
		}
		if found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no ResponseComplete audit event with code 101 for root's websocket watch")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
