package main

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAggregatedFlags: flags that do not go together are refused with
// exit status 2 and a reason, before anything starts.
func TestAggregatedFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--mode", "bogus"}, `--mode "bogus"`},
		{[]string{"--kubeconfig", "x"}, "--kubeconfig is for --mode=aggregated"},
		{[]string{"--mode", "aggregated", "--insecure-plain-http-no-auth"}, "needs TLS"},
		{[]string{"--requestheader-allowed-names", "front-proxy-client"}, "need --requestheader-client-ca-file"},
		{[]string{"--requestheader-client-ca-file", "/nonexistent"}, "--requestheader-client-ca-file"},
		{[]string{"--authorization-webhook-cache-authorized-ttl", "-1s"}, "must not be negative"},
	} {
		var stderr bytes.Buffer
		args := append([]string{"--data-dir", t.TempDir()}, tc.args...)
		if code := run(args, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// TestCerts: "apiserver certs" writes a CA and a serving certificate for
// the Service's names that the CA verifies, and keeps them when run again.
func TestCerts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	var stderr bytes.Buffer
	if code := run([]string{"certs", "--dir", dir}, &stderr); code != 2 {
		t.Errorf("without --service: exit %d", code)
	}
	args := []string{"certs", "--dir", dir, "--service", "api", "--namespace", "sys", "--host", "api.example.com"}
	if code := run(args, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	caPEM, certPEM := read("ca.crt"), read("tls.crt")
	read("tls.key")
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	block, _ := pem.Decode(certPEM)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"api.sys.svc", "api.sys.svc.cluster.local", "api", "api.example.com"} {
		if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, DNSName: name}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if code := run(args, &stderr); code != 0 {
		t.Fatalf("again: exit %d", code)
	}
	if !bytes.Equal(read("tls.crt"), certPEM) || !bytes.Equal(read("ca.crt"), caPEM) {
		t.Error("a second run replaced valid certificates")
	}
}
