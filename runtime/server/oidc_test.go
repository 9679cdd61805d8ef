package server_test

import (
	"bytes"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/runtime/serviceaccount"
)

// TestServiceAccountIssuerDiscovery: the server publishes its token
// issuer's OpenID configuration and key set, as kube-apiserver does, and a
// relying party that has only those documents verifies a token the
// TokenRequest API issued. ServiceAccounts may read them (kube's
// system:service-account-issuer-discovery binding); anonymous users may
// not; other methods are a 405.
func TestServiceAccountIssuerDiscovery(t *testing.T) {
	s := startSecureServer(t, "relying-user")
	get := func(c *http.Client, path string, header ...string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest("GET", s.url+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, body
	}
	resp, body := get(s.admin, serviceaccount.OpenIDConfigPath)
	var config struct {
		Issuer        string   `json:"issuer"`
		JWKSURI       string   `json:"jwks_uri"`
		ResponseTypes []string `json:"response_types_supported"`
		SubjectTypes  []string `json:"subject_types_supported"`
		Algs          []string `json:"id_token_signing_alg_values_supported"`
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &config) != nil {
		t.Fatalf("openid configuration: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	if config.Issuer != serviceaccount.DefaultIssuer || !strings.HasPrefix(config.JWKSURI, "https://") || !strings.HasSuffix(config.JWKSURI, serviceaccount.JWKSPath) ||
		strings.HasSuffix(config.JWKSURI, ":0"+serviceaccount.JWKSPath) || strings.Join(config.ResponseTypes, ",") != "id_token" ||
		strings.Join(config.SubjectTypes, ",") != "public" || strings.Join(config.Algs, ",") != "RS256" {
		t.Errorf("openid configuration: %s", body)
	}
	resp, body = get(s.admin, serviceaccount.JWKSPath)
	var set struct {
		Keys []struct{ Use, Kty, Kid, Alg, N, E string }
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/jwk-set+json" ||
		resp.Header.Get("Cache-Control") != "public, max-age=3600" || json.Unmarshal(body, &set) != nil || len(set.Keys) != 1 {
		t.Fatalf("key set: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	key := set.Keys[0]
	if key.Use != "sig" || key.Kty != "RSA" || key.Alg != "RS256" || key.Kid == "" {
		t.Errorf("key: %+v", key)
	}

	// A token from the TokenRequest API, verified with the key set alone.
	post := func(path, body string) []byte {
		t.Helper()
		resp, err := s.admin.Post(s.url+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("POST %s: %d %s", path, resp.StatusCode, out)
		}
		return out
	}
	post("/api/v1/namespaces/default/serviceaccounts", `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"relying"}}`)
	var tr struct{ Status struct{ Token string } }
	if err := json.Unmarshal(post("/api/v1/namespaces/default/serviceaccounts/relying/token",
		`{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"audiences":["vault"]}}`), &tr); err != nil || tr.Status.Token == "" {
		t.Fatalf("token request: %v", err)
	}
	parts := strings.Split(tr.Status.Token, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q is not a JWT", tr.Status.Token)
	}
	var header struct{ Alg, Kid string }
	if raw, err := base64.RawURLEncoding.DecodeString(parts[0]); err != nil || json.Unmarshal(raw, &header) != nil || header.Kid != key.Kid || header.Alg != "RS256" {
		t.Fatalf("token header %s: %+v, want kid %s", parts[0], header, key.Kid)
	}
	n, errN := base64.RawURLEncoding.DecodeString(key.N)
	e, errE := base64.RawURLEncoding.DecodeString(key.E)
	sig, errS := base64.RawURLEncoding.DecodeString(parts[2])
	if errN != nil || errE != nil || errS != nil {
		t.Fatalf("decode: %v %v %v", errN, errE, errS)
	}
	pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], sig); err != nil {
		t.Fatalf("the token does not verify with the published key: %v", err)
	}
	claims, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if !bytes.Contains(claims, []byte(`"iss":"`+config.Issuer+`"`)) {
		t.Errorf("claims %s: want iss %s", claims, config.Issuer)
	}

	// Who may read them: a ServiceAccount (with a token for this API),
	// not an anonymous client.
	var apiToken struct{ Status struct{ Token string } }
	if err := json.Unmarshal(post("/api/v1/namespaces/default/serviceaccounts/relying/token",
		`{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}}`), &apiToken); err != nil {
		t.Fatal(err)
	}
	anon := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	if resp, _ := get(anon, serviceaccount.JWKSPath, "Authorization", "Bearer "+apiToken.Status.Token); resp.StatusCode != http.StatusOK {
		t.Errorf("the ServiceAccount reading the key set: %d", resp.StatusCode)
	}
	if resp, _ := get(anon, serviceaccount.OpenIDConfigPath); resp.StatusCode != http.StatusForbidden {
		t.Errorf("an anonymous client reading the configuration: %d, want 403", resp.StatusCode)
	}
	req, _ := http.NewRequest("POST", s.url+serviceaccount.JWKSPath, strings.NewReader("{}"))
	if resp, err := s.admin.Do(req); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST the key set: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
}
