package filters

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubeforge/kubeforge/runtime/auth"
)

// fairServer: the user is the X-Test-User header ("root" is in
// system:masters); the handler blocks until release is closed for paths
// ending in /block.
func fairServer(t *testing.T, maxMutating int, bodyTimeout time.Duration, release chan struct{}) *httptest.Server {
	t.Helper()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.HasSuffix(r.URL.Path, "/block") {
			<-release
		}
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(body)
	})
	authn := func(req *http.Request) (*auth.User, error) {
		u := &auth.User{Name: req.Header.Get("X-Test-User"), Groups: []string{auth.AllAuthenticated}}
		if u.Name == "root" {
			u.Groups = append(u.Groups, auth.SystemPrivilegedGroup)
		}
		return u, nil
	}
	quiet := slog.New(slog.DiscardHandler)
	chain := WithRequestInfo(WithAuthentication(WithBodyRead(WithMaxInFlight(h, maxMutating, 0, nil), 1<<20, bodyTimeout), authn, nil, quiet))
	srv := httptest.NewServer(chain)
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, url, user, path string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", url+path, strings.NewReader(`{}`))
	req.Header.Set("X-Test-User", user)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestFairShare: one user holds at most half of the slots; others, and
// system:masters, still get theirs.
func TestFairShare(t *testing.T) {
	release := make(chan struct{})
	srv := fairServer(t, 4, time.Minute, release)
	const path = "/apis/g/v1/namespaces/a/things/block"
	var wg sync.WaitGroup
	codes := make(chan int, 4)
	for _, u := range []string{"mallory", "mallory", "root"} {
		wg.Add(1)
		go func() { defer wg.Done(); codes <- post(t, srv.URL, u, path) }()
	}
	time.Sleep(300 * time.Millisecond) // the three hold their slots
	if code := post(t, srv.URL, "mallory", "/apis/g/v1/namespaces/a/things"); code != http.StatusTooManyRequests {
		t.Errorf("mallory's third request: %d, want 429", code)
	}
	wg.Add(1)
	go func() { defer wg.Done(); codes <- post(t, srv.URL, "alice", path) }()
	time.Sleep(300 * time.Millisecond)
	if code := post(t, srv.URL, "bob", "/apis/g/v1/namespaces/a/things"); code != http.StatusTooManyRequests {
		t.Errorf("bob with every slot taken: %d, want 429", code)
	}
	close(release)
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != http.StatusCreated {
			t.Errorf("held request: %d", c)
		}
	}
}

// TestSlowBodyHoldsNoSlot: bodies that never finish arriving take no
// in-flight slot, and get a 408 Status when the time is up.
func TestSlowBodyHoldsNoSlot(t *testing.T) {
	srv := fairServer(t, 1, 500*time.Millisecond, make(chan struct{}))
	addr := strings.TrimPrefix(srv.URL, "http://")
	var conns []net.Conn
	for i := range 5 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		fmt.Fprintf(c, "POST /apis/g/v1/namespaces/a/things HTTP/1.1\r\nHost: x\r\nX-Test-User: u%d\r\nContent-Length: 100\r\n\r\n{\"half", i)
	}
	// The one mutating slot is free for a real request meanwhile.
	if code := post(t, srv.URL, "alice", "/apis/g/v1/namespaces/a/things"); code != http.StatusCreated {
		t.Errorf("request beside the slow bodies: %d", code)
	}
	for _, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("slow body: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), "was not received within 500ms") {
			t.Errorf("slow body: %d %s", resp.StatusCode, body)
		}
		c.Close()
	}
}
