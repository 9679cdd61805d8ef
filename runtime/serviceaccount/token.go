// Package serviceaccount issues and verifies ServiceAccount tokens as
// kube-apiserver does: bound, expiring JWTs (RS256 or ES256) with kube's
// claims, signed by a key in <data-dir>/pki (or
// --service-account-signing-key-file) and verified against that key and
// any --service-account-key-file, for the issuer and audiences the server
// accepts; a token authenticates only while its ServiceAccount exists with
// the same UID.
package serviceaccount

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/pki"
)

// DefaultIssuer is the issuer of tokens without --service-account-issuer.
const DefaultIssuer = "https://kubernetes.default.svc.cluster.local"

// Lookup finds a ServiceAccount (from memory: no etcd read per request).
type Lookup func(namespace, name string) (*corev1.ServiceAccount, bool)

// Tokens issues and verifies tokens.
type Tokens struct {
	signer    crypto.Signer
	keyID     string
	alg       string
	verifiers []crypto.PublicKey
	issuer    string
	audiences []string // the API audiences a token must name one of
	lookup    Lookup
	now       func() time.Time
}

// Options configure New.
type Options struct {
	// SigningKeyFile is a PEM private key (RSA or ECDSA P-256); empty
	// means <pkiDir>/sa.key, created when missing.
	SigningKeyFile string
	// KeyFiles hold extra PEM public (or private) keys tokens may be
	// signed with (keys being rotated out).
	KeyFiles []string
	// Issuer is the iss claim (default DefaultIssuer); APIAudiences the
	// audiences a token must name one of (default: the issuer).
	Issuer       string
	APIAudiences []string
}

// New loads or creates the signing key.
func New(pkiDir string, o Options, lookup Lookup) (*Tokens, error) {
	path := o.SigningKeyFile
	if path == "" {
		path = pkiDir + "/sa.key"
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			if err := pki.EnsureDir(pkiDir); err != nil {
				return nil, err
			}
			key, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				return nil, fmt.Errorf("generate service account key: %w", err)
			}
			der := x509.MarshalPKCS1PrivateKey(key)
			if err := pki.WriteFileAtomic(path, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: der}), 0o600); err != nil {
				return nil, err
			}
		}
	}
	signer, err := readPrivateKey(path)
	if err != nil {
		return nil, fmt.Errorf("service account signing key: %w", err)
	}
	t := &Tokens{signer: signer, issuer: o.Issuer, audiences: o.APIAudiences, lookup: lookup, now: time.Now}
	if t.issuer == "" {
		t.issuer = DefaultIssuer
	}
	if len(t.audiences) == 0 {
		t.audiences = []string{t.issuer}
	}
	switch k := signer.Public().(type) {
	case *rsa.PublicKey:
		t.alg = "RS256"
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return nil, errors.New("service account signing key: only P-256 ECDSA keys are supported")
		}
		t.alg = "ES256"
	default:
		return nil, fmt.Errorf("service account signing key: unsupported key type %T", k)
	}
	der, err := x509.MarshalPKIXPublicKey(signer.Public())
	if err != nil {
		return nil, fmt.Errorf("service account signing key: %w", err)
	}
	sum := sha256.Sum256(der)
	t.keyID = base64.RawURLEncoding.EncodeToString(sum[:])
	t.verifiers = []crypto.PublicKey{signer.Public()}
	for _, f := range o.KeyFiles {
		keys, err := readPublicKeys(f)
		if err != nil {
			return nil, fmt.Errorf("service account key file: %w", err)
		}
		t.verifiers = append(t.verifiers, keys...)
	}
	return t, nil
}

// Issuer is the iss claim of issued tokens.
func (t *Tokens) Issuer() string { return t.issuer }

// APIAudiences are the audiences a token for this server names.
func (t *Tokens) APIAudiences() []string { return slices.Clone(t.audiences) }

type claims struct {
	Issuer    string   `json:"iss"`
	Subject   string   `json:"sub"`
	Audience  []string `json:"aud"`
	Expiry    int64    `json:"exp"`
	NotBefore int64    `json:"nbf"`
	IssuedAt  int64    `json:"iat"`
	ID        string   `json:"jti,omitempty"`
	Kube      struct {
		Namespace      string `json:"namespace"`
		ServiceAccount struct {
			Name string `json:"name"`
			UID  string `json:"uid"`
		} `json:"serviceaccount"`
	} `json:"kubernetes.io"`
}

// Issue signs a token for sa, for audiences (default: the API audiences),
// valid for lifetime.
func (t *Tokens) Issue(sa *corev1.ServiceAccount, audiences []string, lifetime time.Duration) (token string, expires time.Time, err error) {
	if len(audiences) == 0 {
		audiences = t.audiences
	}
	now := t.now()
	expires = now.Add(lifetime)
	var c claims
	c.Issuer, c.Subject, c.Audience = t.issuer, auth.ServiceAccountUsernamePrefix+sa.Namespace+":"+sa.Name, audiences
	c.IssuedAt, c.NotBefore, c.Expiry = now.Unix(), now.Unix(), expires.Unix()
	c.ID = string(uuid.NewUUID())
	c.Kube.Namespace = sa.Namespace
	c.Kube.ServiceAccount.Name, c.Kube.ServiceAccount.UID = sa.Name, string(sa.UID)
	header, err := json.Marshal(map[string]string{"alg": t.alg, "kid": t.keyID})
	if err != nil {
		return "", time.Time{}, err
	}
	payload, err := json.Marshal(c)
	if err != nil {
		return "", time.Time{}, err
	}
	signing := b64(header) + "." + b64(payload)
	sig, err := t.sign([]byte(signing))
	if err != nil {
		return "", time.Time{}, fmt.Errorf("sign token: %w", err)
	}
	return signing + "." + b64(sig), expires, nil
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func (t *Tokens) sign(data []byte) ([]byte, error) {
	sum := sha256.Sum256(data)
	switch t.alg {
	case "RS256":
		return t.signer.Sign(rand.Reader, sum[:], crypto.SHA256)
	default: // ES256: r||s, 32 bytes each
		key, ok := t.signer.(*ecdsa.PrivateKey)
		if !ok {
			return nil, errors.New("ES256 needs an ECDSA private key")
		}
		r, s, err := ecdsa.Sign(rand.Reader, key, sum[:])
		if err != nil {
			return nil, err
		}
		out := make([]byte, 64)
		r.FillBytes(out[:32])
		s.FillBytes(out[32:])
		return out, nil
	}
}

// AuthenticateToken implements authn.TokenAuthenticator: a token that is
// not a JWT of this issuer is not its kind; one that is must verify,
// be current, name one of the API audiences and belong to a
// ServiceAccount that still exists with the same UID.
func (t *Tokens) AuthenticateToken(_ context.Context, token string) (*auth.User, bool, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, false, nil
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, false, nil
	}
	var c claims
	if err := json.Unmarshal(payload, &c); err != nil || c.Issuer != t.issuer {
		return nil, false, nil
	}
	headerRaw, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return nil, true, errors.New("malformed token header")
	}
	var header struct {
		Alg string `json:"alg"`
	}
	if err := json.Unmarshal(headerRaw, &header); err != nil {
		return nil, true, errors.New("malformed token header")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return nil, true, errors.New("malformed token signature")
	}
	if !t.verify(header.Alg, []byte(parts[0]+"."+parts[1]), sig) {
		return nil, true, errors.New("invalid token signature")
	}
	now := t.now().Unix()
	const leeway = 60 // seconds of clock skew, as kube allows
	if c.Expiry == 0 || now > c.Expiry+leeway {
		return nil, true, errors.New("token has expired")
	}
	if c.NotBefore > now+leeway {
		return nil, true, errors.New("token is not valid yet")
	}
	if !slices.ContainsFunc(c.Audience, func(a string) bool { return slices.Contains(t.audiences, a) }) {
		return nil, true, errors.New("token audiences are invalid")
	}
	ns, name := c.Kube.Namespace, c.Kube.ServiceAccount.Name
	if ns == "" || name == "" || c.Subject != auth.ServiceAccountUsernamePrefix+ns+":"+name {
		return nil, true, errors.New("token claims are inconsistent")
	}
	sa, ok := t.lookup(ns, name)
	if !ok {
		return nil, true, fmt.Errorf("service account %s/%s has been deleted", ns, name)
	}
	if string(sa.UID) != c.Kube.ServiceAccount.UID || sa.DeletionTimestamp != nil {
		return nil, true, fmt.Errorf("service account %s/%s has been deleted or recreated", ns, name)
	}
	u := &auth.User{
		Name:   c.Subject,
		UID:    string(sa.UID),
		Groups: []string{auth.ServiceAccountGroup, auth.ServiceAccountGroupPrefix + ns},
	}
	if c.ID != "" {
		u.Extra = map[string][]string{"authentication.kubernetes.io/credential-id": {"JTI=" + c.ID}}
	}
	return u, true, nil
}

func (t *Tokens) verify(alg string, data, sig []byte) bool {
	sum := sha256.Sum256(data)
	for _, k := range t.verifiers {
		switch key := k.(type) {
		case *rsa.PublicKey:
			if alg == "RS256" && rsa.VerifyPKCS1v15(key, crypto.SHA256, sum[:], sig) == nil {
				return true
			}
		case *ecdsa.PublicKey:
			if alg == "ES256" && len(sig) == 64 {
				r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
				if ecdsa.Verify(key, sum[:], r, s) {
					return true
				}
			}
		}
	}
	return false
}

func readPrivateKey(path string) (crypto.Signer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, fmt.Errorf("%s: no PEM private key", path)
		}
		switch block.Type {
		case "RSA PRIVATE KEY":
			return x509.ParsePKCS1PrivateKey(block.Bytes)
		case "EC PRIVATE KEY":
			return x509.ParseECPrivateKey(block.Bytes)
		case "PRIVATE KEY":
			k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
			if err != nil {
				return nil, err
			}
			s, ok := k.(crypto.Signer)
			if !ok {
				return nil, fmt.Errorf("%s: unsupported private key", path)
			}
			return s, nil
		}
	}
}

func readPublicKeys(path string) ([]crypto.PublicKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []crypto.PublicKey
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		switch block.Type {
		case "PUBLIC KEY":
			k, err := x509.ParsePKIXPublicKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			out = append(out, k)
		case "RSA PUBLIC KEY":
			k, err := x509.ParsePKCS1PublicKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			out = append(out, k)
		case "RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY":
			s, err := readPrivateKey(path)
			if err != nil {
				return nil, err
			}
			out = append(out, s.Public())
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no PEM public keys", path)
	}
	return out, nil
}
