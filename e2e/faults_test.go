package e2e

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubeforge/kubeforge/runtime/etcd"
)

// TestEtcdOutage: with its external etcd stopped, the server answers
// requests that need etcd with a 503 and Retry-After within seconds,
// /readyz fails, and both recover within seconds of etcd's return.
func TestEtcdOutage(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "etcd.sock")
	start := func() *etcd.Embedded {
		e, err := etcd.StartEmbedded(ctx(t, time.Minute), filepath.Join(dir, "etcd"), etcd.WithClientSocket(sock))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := start()
	defer func() { _ = e.Close() }()
	s, err := startServerBin(binary, filepath.Join(dir, "data"), 0, "--etcd-servers", "unix://"+sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Error(err)
		}
	})
	hc, err := rest.HTTPClientFor(s.config)
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, string, http.Header) {
		resp, err := hc.Get(s.config.Host + path)
		if err != nil {
			return 0, err.Error(), nil
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	const ns = "/api/v1/namespaces/default"
	if code, body, _ := get(ns); code != 200 {
		t.Fatalf("before the outage: %d %s", code, body)
	}

	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	down := time.Now()
	eventually(t, 10*time.Second, "a 503 while etcd is down", func() error {
		code, body, hdr := get(ns)
		if code != http.StatusServiceUnavailable || hdr.Get("Retry-After") == "" || !strings.Contains(body, "etcd does not answer") {
			return fmt.Errorf("%d %s", code, body)
		}
		return nil
	})
	if d := time.Since(down); d > 8*time.Second {
		t.Errorf("503 only after %s", d)
	} else {
		t.Logf("503 %s after etcd stopped", d.Round(time.Millisecond))
	}
	began := time.Now()
	if code, body, _ := get(ns); code != http.StatusServiceUnavailable || time.Since(began) > time.Second {
		t.Errorf("during the outage: %d after %s: %s", code, time.Since(began), body)
	}
	if code, _, _ := get("/readyz"); code == http.StatusOK {
		t.Error("/readyz is ok while etcd is down")
	}
	if code, _, _ := get("/livez"); code != http.StatusOK {
		t.Errorf("/livez: %d while etcd is down", code)
	}
	time.Sleep(5 * time.Second) // long enough for gRPC's backoff to grow

	e = start()
	back := time.Now()
	eventually(t, 15*time.Second, "service back after etcd returns", func() error {
		if code, body, _ := get(ns); code != 200 {
			return fmt.Errorf("%d %s", code, body)
		}
		if code, body, _ := get("/readyz"); code != 200 {
			return fmt.Errorf("readyz %d %s", code, body)
		}
		return nil
	})
	if d := time.Since(back); d > 5*time.Second {
		t.Errorf("recovered only %s after etcd returned", d)
	} else {
		t.Logf("served again %s after etcd returned", d.Round(time.Millisecond))
	}
	newKubectl(t, s).ok(t, "", "create", "namespace", "after-outage")
}
