package etcd

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubeforge/kubeforge/runtime/pki"
)

func TestStartEmbeddedPutGetRestart(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := StartEmbedded(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Endpoints()) != 1 {
		t.Fatalf("endpoints = %v", e.Endpoints())
	}
	if _, err := e.Client().Put(ctx, "/k", "v"); err != nil {
		t.Fatal(err)
	}
	// A second client through NewClient sees the write.
	c, err := NewClient(e.Endpoints(), e.ClientTLS())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Get(ctx, "/k")
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "v" {
		t.Fatalf("get = %v", resp.Kvs)
	}
	_ = c.Close()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// Acknowledged writes survive a restart on the same data dir.
	e2, err := StartEmbedded(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	resp, err = e2.Client().Get(ctx, "/k")
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "v" {
		t.Fatalf("get after restart = %v", resp.Kvs)
	}
}

func TestNewClientNoEndpoints(t *testing.T) {
	if _, err := NewClient(nil, TLSFiles{}); err == nil {
		t.Fatal("want error")
	}
}

// TestEmbeddedTLS: with WithTLS the client and peer ports take only
// certificates signed by etcd's own CA, and the keys are private.
func TestEmbeddedTLS(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pkiDir := filepath.Join(dir, "pki")
	e, err := StartEmbedded(ctx, filepath.Join(dir, "etcd"), WithTLS(pkiDir))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if !strings.HasPrefix(e.Endpoints()[0], "https://127.0.0.1:") {
		t.Fatalf("endpoints %v", e.Endpoints())
	}
	if _, err := e.Client().Put(ctx, "/k", "v"); err != nil {
		t.Fatal(err)
	}
	files := e.ClientTLS()
	for _, f := range []string{files.KeyFile, filepath.Join(pkiDir, "server.key"), filepath.Join(pkiDir, "ca.key")} {
		if st, err := os.Stat(f); err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v", f, st.Mode(), err)
		}
	}
	// Another CA's client certificate, or none, gets nowhere.
	other := t.TempDir()
	ca, err := pki.EnsureCA(other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pki.Client(other, "intruder", ca, "intruder", nil); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]TLSFiles{
		"no certificate":      {CAFile: files.CAFile},
		"another CA's client": {CAFile: files.CAFile, CertFile: filepath.Join(other, "intruder.crt"), KeyFile: filepath.Join(other, "intruder.key")},
	} {
		c, err := NewClient(e.Endpoints(), f)
		if err != nil {
			t.Fatal(err)
		}
		short, done := context.WithTimeout(ctx, time.Second)
		_, err = c.Get(short, "/k")
		done()
		_ = c.Close()
		if err == nil {
			t.Errorf("%s: read etcd", name)
		}
	}
	// The peer port (which would hand out the member list) too.
	tlsConfig, err := TLSFiles{CAFile: files.CAFile}.Config()
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig}, Timeout: 5 * time.Second}
	peer := e.etcd.Config().ListenPeerUrls[0]
	if resp, err := hc.Get(peer.String() + "/members"); err == nil {
		resp.Body.Close()
		t.Fatalf("peer port answered %s without a client certificate", resp.Status)
	}
	if resp, err := http.Get("http://" + peer.Host + "/members"); err == nil && resp.StatusCode == http.StatusOK {
		resp.Body.Close()
		t.Fatal("peer port answered plain HTTP")
	}
}

// TestEmbeddedSocket: WithClientSocket serves clients on a 0600 unix
// socket and nothing on TCP but the TLS peer port; a path too long for a
// socket falls back to a TLS loopback port.
func TestEmbeddedSocket(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sock := filepath.Join(dir, "etcd.sock")
	e, err := StartEmbedded(ctx, filepath.Join(dir, "etcd"), WithTLS(filepath.Join(dir, "pki")), WithClientSocket(sock))
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Endpoints(); len(got) != 1 || got[0] != "unix://"+sock {
		t.Fatalf("endpoints %v", got)
	}
	if st, err := os.Stat(sock); err != nil || st.Mode().Perm() != 0o600 || st.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket %v %v", st.Mode(), err)
	}
	if e.ClientTLS() != (TLSFiles{}) {
		t.Fatalf("client TLS files for a socket: %+v", e.ClientTLS())
	}
	// A second server on the same socket is refused and leaves it alone.
	if _, err := StartEmbedded(ctx, filepath.Join(dir, "etcd-other"), WithClientSocket(sock)); err == nil || !strings.Contains(err.Error(), "is in use") {
		t.Fatalf("second server on the socket: %v", err)
	}
	if _, err := e.Client().Put(ctx, "/k", "v"); err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(e.Endpoints(), TLSFiles{})
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := c.Get(ctx, "/k"); err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("second client: %v %v", resp, err)
	}
	_ = c.Close()
	if peer := e.etcd.Config().ListenPeerUrls[0]; peer.Scheme != "https" {
		t.Fatalf("peer URL %s", peer.String())
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	long := filepath.Join(dir, strings.Repeat("d", 120), "etcd.sock")
	e, err = StartEmbedded(ctx, filepath.Join(dir, "etcd2"), WithTLS(filepath.Join(dir, "pki2")), WithClientSocket(long))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if !strings.HasPrefix(e.Endpoints()[0], "https://127.0.0.1:") || e.ClientTLS() == (TLSFiles{}) {
		t.Fatalf("long socket path: endpoints %v, TLS %+v", e.Endpoints(), e.ClientTLS())
	}
}

// TestQuotaForDisk: the quota never exceeds what the disk can hold, and a
// quota that fits is kept.
func TestQuotaForDisk(t *testing.T) {
	dir := t.TempDir()
	q, err := QuotaForDisk(dir, 1<<62)
	if err != nil {
		t.Fatal(err)
	}
	if q >= 1<<62 || q < 16<<20 {
		t.Fatalf("quota %d for an enormous ask", q)
	}
	if q, err := QuotaForDisk(dir, 1<<20); err != nil || q != 1<<20 {
		t.Fatalf("small quota: %d %v", q, err)
	}
	if _, err := QuotaForDisk(filepath.Join(dir, "missing"), 1); err == nil {
		t.Fatal("no error for a missing dir")
	}
}
