package serviceaccount

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiscoveryKeys: an ECDSA signing key and an RSA key being rotated out
// are both published, each with the kid tokens carry, coordinates padded
// to 32 bytes, the algorithms sorted; the configuration names the key set
// given, else the external address.
func TestDiscoveryKeys(t *testing.T) {
	dir := t.TempDir()
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalECPrivateKey(ec)
	if err != nil {
		t.Fatal(err)
	}
	signing := filepath.Join(dir, "sa.key")
	if err := os.WriteFile(signing, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	old, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&old.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	oldFile := filepath.Join(dir, "old.pub")
	if err := os.WriteFile(oldFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	tokens, err := New(dir, Options{SigningKeyFile: signing, KeyFiles: []string{oldFile}, Issuer: "https://issuer.example"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := tokens.Discovery("")
	if err != nil {
		t.Fatal(err)
	}
	serve := func(path string) (int, []byte) {
		rec := httptest.NewRecorder()
		if !d.Serve(rec, httptest.NewRequest("GET", path, nil)) {
			return 0, nil
		}
		return rec.Code, rec.Body.Bytes()
	}
	if code, _ := serve(OpenIDConfigPath); code != 0 {
		t.Errorf("configuration served before the server knows its address: %d", code)
	}
	if err := d.SetExternalAddress("10.0.0.1:6443"); err != nil {
		t.Fatal(err)
	}
	_, body := serve(OpenIDConfigPath)
	want := `{"issuer":"https://issuer.example","jwks_uri":"https://10.0.0.1:6443/openid/v1/jwks","response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256","RS256"]}`
	if string(body) != want {
		t.Errorf("configuration\n got %s\nwant %s", body, want)
	}
	if d2, err := tokens.Discovery("https://keys.example/jwks"); err != nil {
		t.Fatal(err)
	} else if rec := httptest.NewRecorder(); !d2.Serve(rec, httptest.NewRequest("GET", OpenIDConfigPath, nil)) || !strings.Contains(rec.Body.String(), `"jwks_uri":"https://keys.example/jwks"`) {
		t.Errorf("configured jwks_uri: %s", rec.Body)
	}
	code, body := serve(JWKSPath)
	var set struct {
		Keys []struct{ Use, Kty, Kid, Crv, Alg, X, Y, N, E string }
	}
	if code != http.StatusOK || json.Unmarshal(body, &set) != nil || len(set.Keys) != 2 {
		t.Fatalf("key set: %d %s", code, body)
	}
	e, r := set.Keys[0], set.Keys[1]
	if e.Kty != "EC" || e.Crv != "P-256" || e.Alg != "ES256" || e.Kid != tokens.keyID || e.Use != "sig" {
		t.Errorf("EC key %+v (signing kid %s)", e, tokens.keyID)
	}
	x, _ := base64.RawURLEncoding.DecodeString(e.X)
	y, _ := base64.RawURLEncoding.DecodeString(e.Y)
	if len(x) != 32 || len(y) != 32 || new(big.Int).SetBytes(x).Cmp(ec.X) != 0 || new(big.Int).SetBytes(y).Cmp(ec.Y) != 0 {
		t.Errorf("EC point does not match the key")
	}
	n, _ := base64.RawURLEncoding.DecodeString(r.N)
	if r.Kty != "RSA" || r.Alg != "RS256" || r.E != "AQAB" || new(big.Int).SetBytes(n).Cmp(old.N) != 0 || r.Kid == e.Kid {
		t.Errorf("RSA key %+v", r)
	}
	if code, _ := serve("/openid/v1/other"); code != 0 {
		t.Errorf("another path served: %d", code)
	}
}
