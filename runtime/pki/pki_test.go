package pki

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestReuseAndReissue: a restart reuses the CA and certificates; a serving
// certificate that misses a name asked for, or a client certificate for
// other groups, is issued again; files are private.
func TestReuseAndReissue(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pki")
	ca, err := EnsureCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	again, err := EnsureCA(dir)
	if err != nil || !bytes.Equal(again.PEM, ca.PEM) {
		t.Fatalf("the CA was not reused: %v", err)
	}
	s1, err := Serving(dir, "serving", ca, []string{"localhost", "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := Serving(dir, "serving", ca, []string{"localhost", "127.0.0.1"})
	if err != nil || !bytes.Equal(s1.CertPEM, s2.CertPEM) {
		t.Fatalf("the serving certificate was not reused: %v", err)
	}
	s3, err := Serving(dir, "serving", ca, []string{"localhost", "127.0.0.1", "api.example.com"})
	if err != nil || bytes.Equal(s1.CertPEM, s3.CertPEM) {
		t.Fatalf("the serving certificate was not reissued for a new name: %v", err)
	}
	c, _ := parseLeaf(s3)
	if c.VerifyHostname("api.example.com") != nil || c.VerifyHostname("127.0.0.1") != nil {
		t.Errorf("reissued certificate names: %v %v", c.DNSNames, c.IPAddresses)
	}
	a1, err := Client(dir, "admin", ca, "admin", []string{"system:masters"})
	if err != nil {
		t.Fatal(err)
	}
	a2, err := Client(dir, "admin", ca, "admin", []string{"other"})
	if err != nil || bytes.Equal(a1.CertPEM, a2.CertPEM) {
		t.Fatalf("the client certificate was not reissued for other groups: %v", err)
	}
	for _, f := range []string{"ca.key", "serving.key", "admin.key"} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, err %v", f, st.Mode().Perm(), err)
		}
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("pki dir mode %v, err %v", st.Mode().Perm(), err)
	}
	// A certificate signed by another CA is replaced.
	other, err := EnsureCA(filepath.Join(t.TempDir(), "other"))
	if err != nil {
		t.Fatal(err)
	}
	s4, err := Serving(dir, "serving", other, []string{"localhost", "127.0.0.1", "api.example.com"})
	if err != nil || bytes.Equal(s3.CertPEM, s4.CertPEM) {
		t.Fatalf("a certificate of another CA was kept: %v", err)
	}
}
