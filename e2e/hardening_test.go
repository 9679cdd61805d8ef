package e2e

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// Tests of the second hardening round (issue 24): what an attacker's run
// found, each a bound asserted against a real server process.

// tokenServer starts a server with a token file: "alice-token" is alice,
// who has no role (so is forbidden everything but discovery).
func tokenServer(t *testing.T, extra ...string) *apiserver {
	t.Helper()
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte("alice-token,alice,uid-alice\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return newServer(t, append([]string{"--token-auth-file", tokens}, extra...)...)
}

// anonTLS is a TLS config trusting the server's CA with no client
// certificate: the connection authenticates only by what it sends.
func (s *apiserver) anonTLS(t *testing.T, protos ...string) *tls.Config {
	t.Helper()
	ca := s.config.CAData
	if len(ca) == 0 {
		var err error
		if ca, err = os.ReadFile(s.config.CAFile); err != nil {
			t.Fatal(err)
		}
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		t.Fatal("no CA in the kubeconfig")
	}
	return &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", NextProtos: protos}
}

// goroutines is the server's go_goroutines metric.
func (s *apiserver) goroutines(t *testing.T) int {
	t.Helper()
	hc, err := rest.HTTPClientFor(s.config)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Get(s.config.Host + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "go_goroutines "); ok {
			n, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return int(n)
		}
	}
	t.Fatal("no go_goroutines metric")
	return 0
}

// TestRefusedHalfBodies: requests refused before their body is read (a
// bad token: 401; a forbidden user: 403), whose body never arrives, are
// answered at once and their connections closed, over HTTP/1.1 with a
// Content-Length or chunked, and over HTTP/2; the server's goroutines go
// back to where they were while the clients still hold their sockets.
// Before the fix none was answered: Go's server waited, without a
// deadline, for the body it drains after the handler.
func TestRefusedHalfBodies(t *testing.T) {
	const timeout = 5 * time.Second
	s := tokenServer(t, "--request-timeout", timeout.String())
	newKubectl(t, s).ok(t, "", "create", "namespace", "t1")
	addr := strings.TrimPrefix(s.config.Host, "https://")
	base := s.goroutines(t)

	type half struct {
		name, head string
		want       int
	}
	post := "POST /api/v1/namespaces/t1/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
	kinds := []half{
		{"bad token, Content-Length", post + "Authorization: Bearer bogus\r\nContent-Length: 200000\r\n\r\n{", http.StatusUnauthorized},
		{"bad token, chunked", post + "Authorization: Bearer bogus\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n", http.StatusUnauthorized},
		{"forbidden, Content-Length", post + "Authorization: Bearer alice-token\r\nContent-Length: 1000\r\n\r\n{", http.StatusForbidden},
		{"forbidden, chunked", post + "Authorization: Bearer alice-token\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n", http.StatusForbidden},
	}
	const perKind = 100
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	var mu sync.Mutex
	var failures []string
	var wg sync.WaitGroup
	began := time.Now()
	for _, k := range kinds {
		for range perKind {
			c, err := tls.Dial("tcp", addr, s.anonTLS(t, "http/1.1"))
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
			if _, err := io.WriteString(c, k.head); err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Answered, then closed by the server, well within the
				// request timeout.
				_ = c.SetReadDeadline(time.Now().Add(timeout))
				br := bufio.NewReader(c)
				resp, err := http.ReadResponse(br, nil)
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					_, err = br.ReadByte() // the server's close: io.EOF
				}
				switch {
				case resp == nil:
					err = fmt.Errorf("no response: %w", err)
				case resp.StatusCode != k.want:
					err = fmt.Errorf("status %d, want %d", resp.StatusCode, k.want)
				case err == io.EOF:
					err = nil
				default:
					err = fmt.Errorf("%d answered but the connection stayed open: %v", resp.StatusCode, err)
				}
				if err != nil {
					mu.Lock()
					failures = append(failures, k.name+": "+err.Error())
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	took := time.Since(began)
	if len(failures) > 0 {
		t.Errorf("%d of %d refused half-bodies were not answered and closed; first: %s", len(failures), len(conns), failures[0])
	}
	t.Logf("%d refused half-bodies answered and closed in %s", len(conns), took)

	// HTTP/2: the refusal comes while the client's body is still open.
	h2 := &http.Transport{TLSClientConfig: s.anonTLS(t, "h2"), ForceAttemptHTTP2: true}
	defer h2.CloseIdleConnections()
	for _, tc := range []struct {
		token string
		want  int
	}{{"bogus", http.StatusUnauthorized}, {"alice-token", http.StatusForbidden}} {
		for range 20 {
			pr, pw := io.Pipe()
			defer pw.Close()
			req, _ := http.NewRequest(http.MethodPost, s.config.Host+"/api/v1/namespaces/t1/configmaps", pr)
			req.Header.Set("Authorization", "Bearer "+tc.token)
			req.Header.Set("Content-Type", "application/json")
			req.ContentLength = 1000
			start := time.Now()
			resp, err := (&http.Client{Transport: h2, Timeout: timeout}).Do(req)
			if err != nil {
				t.Fatalf("HTTP/2 half-body with token %s: %v after %s", tc.token, err, time.Since(start))
			}
			resp.Body.Close()
			if resp.ProtoMajor != 2 || resp.StatusCode != tc.want {
				t.Fatalf("HTTP/2 half-body with token %s: %s %d", tc.token, resp.Proto, resp.StatusCode)
			}
		}
	}

	// The server holds nothing for the sockets the clients keep open.
	eventually(t, 2*timeout, "the server's goroutines back to their baseline", func() error {
		if g := s.goroutines(t); g > base+50 {
			return fmt.Errorf("%d goroutines, %d before %d half-bodies", g, base, len(conns))
		}
		return nil
	})
}
