package serviceaccount

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"sync/atomic"
)

// The paths of ServiceAccount issuer discovery, kube-apiserver's
// (ServiceAccountIssuerDiscovery, GA since 1.21): what a relying party
// (a cloud's workload identity federation, Vault's Kubernetes auth with
// a JWKS) reads to verify this server's tokens without calling it.
const (
	OpenIDConfigPath = "/.well-known/openid-configuration"
	JWKSPath         = "/openid/v1/jwks"
)

// Discovery serves the OpenID provider configuration and the key set.
type Discovery struct {
	issuer string
	algs   []string
	jwks   []byte
	config atomic.Pointer[[]byte]
}

// jwk is one key as kube-apiserver writes it (go-jose's field order).
type jwk struct {
	Use string `json:"use"`
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Crv string `json:"crv,omitempty"`
	Alg string `json:"alg"`
	X   string `json:"x,omitempty"`
	Y   string `json:"y,omitempty"`
	N   string `json:"n,omitempty"`
	E   string `json:"e,omitempty"`
}

// Discovery returns the documents of t's keys, the signing key and the
// keys tokens are still verified with. Its configuration names the key
// set at jwksURI, or until SetExternalAddress at the issuer's host.
func (t *Tokens) Discovery(jwksURI string) (*Discovery, error) {
	d := &Discovery{issuer: t.issuer}
	keys := []jwk{}
	seen := map[string]bool{}
	for _, k := range t.verifiers {
		j, ok, err := toJWK(k)
		if err != nil {
			return nil, err
		}
		if !ok || seen[j.Kid] {
			continue
		}
		seen[j.Kid] = true
		keys = append(keys, j)
		if !slices.Contains(d.algs, j.Alg) {
			d.algs = append(d.algs, j.Alg)
		}
	}
	slices.Sort(d.algs)
	jwks, err := json.Marshal(map[string][]jwk{"keys": keys})
	if err != nil {
		return nil, fmt.Errorf("encode the service account key set: %w", err)
	}
	d.jwks = jwks
	if jwksURI != "" {
		if err := d.setJWKSURI(jwksURI); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// SetExternalAddress names the key set at https://<hostport>/openid/v1/jwks,
// kube-apiserver's default (its external address) when no JWKS URI is
// configured. The server calls it once it knows its port.
func (d *Discovery) SetExternalAddress(hostport string) error {
	return d.setJWKSURI((&url.URL{Scheme: "https", Host: hostport, Path: JWKSPath}).String())
}

func (d *Discovery) setJWKSURI(uri string) error {
	config, err := json.Marshal(struct {
		Issuer        string   `json:"issuer"`
		JWKSURI       string   `json:"jwks_uri"`
		ResponseTypes []string `json:"response_types_supported"`
		SubjectTypes  []string `json:"subject_types_supported"`
		SigningAlgs   []string `json:"id_token_signing_alg_values_supported"`
	}{d.issuer, uri, []string{"id_token"}, []string{"public"}, d.algs})
	if err != nil {
		return fmt.Errorf("encode the openid configuration: %w", err)
	}
	d.config.Store(&config)
	return nil
}

// Serve answers a GET or HEAD of the two paths (handled false for any
// other path), as kube-apiserver does: cacheable for an hour.
func (d *Discovery) Serve(w http.ResponseWriter, r *http.Request) (handled bool) {
	var body []byte
	var contentType string
	switch r.URL.Path {
	case OpenIDConfigPath:
		if p := d.config.Load(); p != nil {
			body, contentType = *p, "application/json"
		}
	case JWKSPath:
		body, contentType = d.jwks, "application/jwk-set+json"
	}
	if body == nil {
		return false
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(body)
	}
	return true
}

// toJWK is k as a JSON Web Key with kube's key ID (the unpadded base64url
// SHA-256 of its PKIX form, the kid tokens carry); ok is false for a key
// tokens cannot be signed with here.
func toJWK(k any) (jwk, bool, error) {
	der, err := x509.MarshalPKIXPublicKey(k)
	if err != nil {
		return jwk{}, false, fmt.Errorf("service account key: %w", err)
	}
	sum := sha256.Sum256(der)
	j := jwk{Use: "sig", Kid: base64.RawURLEncoding.EncodeToString(sum[:])}
	switch key := k.(type) {
	case *rsa.PublicKey:
		j.Kty, j.Alg = "RSA", "RS256"
		j.N = base64.RawURLEncoding.EncodeToString(key.N.Bytes())
		j.E = base64.RawURLEncoding.EncodeToString(big.NewInt(int64(key.E)).Bytes())
	case *ecdsa.PublicKey:
		if key.Curve != elliptic.P256() {
			return jwk{}, false, nil
		}
		x, y, err := ecPoint(key)
		if err != nil {
			return jwk{}, false, err
		}
		j.Kty, j.Crv, j.Alg = "EC", "P-256", "ES256"
		j.X = base64.RawURLEncoding.EncodeToString(x)
		j.Y = base64.RawURLEncoding.EncodeToString(y)
	default:
		return jwk{}, false, nil
	}
	return j, true, nil
}

// ecPoint is a P-256 key's coordinates, 32 bytes each.
func ecPoint(key *ecdsa.PublicKey) (x, y []byte, err error) {
	raw, err := key.Bytes() // 0x04 || X || Y
	if err != nil {
		return nil, nil, fmt.Errorf("service account key: %w", err)
	}
	return raw[1:33], raw[33:65], nil
}
