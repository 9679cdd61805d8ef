// Package authn authenticates requests as kube-apiserver does, in its
// order: a front proxy's client certificate with the user in request
// headers (when a front proxy is trusted), a client certificate signed by
// the client CA (CN is the user, O the groups), then a bearer token (the static token file, then
// ServiceAccount tokens), and otherwise, when allowed, the anonymous user.
// A request whose credentials fail is refused (401) whether or not
// anonymous requests are allowed.
package authn

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	k8sasn1 "k8s.io/apimachinery/pkg/apis/asn1"

	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/request"
)

// ErrUnauthorized is the error of every refused credential: the filter
// answers it with kube's 401 Status.
var ErrUnauthorized = errors.New("Unauthorized")

// TokenAuthenticator checks one kind of bearer token. ok is false when
// the token is not of its kind (the next one is asked); err when it is but
// does not hold.
type TokenAuthenticator interface {
	AuthenticateToken(ctx context.Context, token string) (u *auth.User, ok bool, err error)
}

// Authenticator authenticates requests.
type Authenticator struct {
	// ClientCAs verifies client certificates; nil refuses every one.
	ClientCAs *x509.CertPool
	// Tokens are asked in order for a bearer token.
	Tokens []TokenAuthenticator
	// Anonymous allows requests without credentials, as system:anonymous
	// in system:unauthenticated (kube's --anonymous-auth).
	Anonymous bool
	// FrontProxy, when set and not nil, is asked first: a front proxy's
	// client certificate with the user in request headers (an aggregated
	// server behind kube-apiserver). A function, because the main
	// cluster's ConfigMap may change it at any time.
	FrontProxy func() *RequestHeader
	// MoreClientCAs, when set, verifies client certificates that
	// ClientCAs does not (the main cluster's client CA, kept current).
	MoreClientCAs func() *x509.CertPool

	verified, verifiedMore, verifiedProxy certCache
}

// Authenticate returns the request's user: from its client certificate,
// its bearer token, or anonymous. Any error is a 401.
func (a *Authenticator) Authenticate(req *http.Request) (*auth.User, error) {
	if req.TLS != nil && len(req.TLS.PeerCertificates) > 0 {
		if a.FrontProxy != nil {
			rh := a.FrontProxy()
			u, ok, err := rh.user(req.TLS.PeerCertificates, req.Header, &a.verifiedProxy)
			if err != nil {
				return nil, err
			}
			if ok {
				rh.strip(req.Header)
				return authenticated(u), nil
			}
		}
		// Already in system:authenticated, and shared: see certCache.
		return a.certificateUser(req.TLS.PeerCertificates)
	}
	if token, ok := bearerToken(req); ok {
		return a.tokenUser(req.Context(), token)
	}
	token, others, ok, err := websocketToken(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnauthorized, err)
	}
	if ok {
		u, err := a.tokenUser(req.Context(), token)
		if err == nil {
			// The token is not echoed in the handshake.
			req.Header.Set(protocolHeader, strings.Join(others, ","))
		}
		return u, err
	}
	if a.Anonymous {
		return &auth.User{Name: auth.Anonymous, Groups: []string{auth.AllUnauthenticated}}, nil
	}
	return nil, fmt.Errorf("%w: no credentials", ErrUnauthorized)
}

func (a *Authenticator) certificateUser(chain []*x509.Certificate) (*auth.User, error) {
	var more *x509.CertPool
	if a.MoreClientCAs != nil {
		more = a.MoreClientCAs()
	}
	if a.ClientCAs == nil && more == nil {
		return nil, fmt.Errorf("%w: client certificates are not accepted", ErrUnauthorized)
	}
	u, err := verifyClient(a.ClientCAs, chain, &a.verified)
	if err != nil && more != nil {
		var merr error
		if u, merr = verifyClient(more, chain, &a.verifiedMore); merr == nil {
			err = nil
		}
	}
	return u, err
}

// verifyClient verifies a client certificate chain against pool (nil
// accepts none) and returns its user: CN the name, O the groups, and
// system:authenticated. The user is remembered and shared with the
// later requests that present the chain.
func verifyClient(pool *x509.CertPool, chain []*x509.Certificate, verified *certCache) (*auth.User, error) {
	if pool == nil {
		return nil, fmt.Errorf("%w: client certificates are not accepted", ErrUnauthorized)
	}
	if u := verified.get(pool, chain); u != nil {
		return u, nil
	}
	inter := x509.NewCertPool()
	for _, c := range chain[1:] {
		inter.AddCert(c)
	}
	leaf := chain[0]
	if _, err := leaf.Verify(x509.VerifyOptions{
		Roots:         pool,
		Intermediates: inter,
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}); err != nil {
		return nil, fmt.Errorf("%w: verify client certificate: %w", ErrUnauthorized, err)
	}
	if leaf.Subject.CommonName == "" {
		return nil, fmt.Errorf("%w: client certificate has no common name", ErrUnauthorized)
	}
	uid, err := certificateUID(leaf)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnauthorized, err)
	}
	// As kube-apiserver's x509 authenticator: the subject's UID attribute
	// (AllowParsingUserUIDFromCertAuth, on since 1.33) and the
	// certificate's fingerprint as the credential id, which audit events,
	// SelfSubjectReview and webhooks show.
	fp := sha256.Sum256(leaf.Raw)
	u := authenticated(&auth.User{Name: leaf.Subject.CommonName, UID: uid, Groups: slices.Clone(leaf.Subject.Organization),
		Extra: map[string][]string{credentialIDKey: {"X509SHA256=" + hex.EncodeToString(fp[:])}}})
	verified.put(pool, chain, u)
	return u, nil
}

// credentialIDKey is the extra key of a credential's identifier
// (k8s.io/apiserver's user.CredentialIDKey).
const credentialIDKey = "authentication.kubernetes.io/credential-id"

// certificateUID is the subject's one Kubernetes UID attribute (OID
// 1.3.6.1.4.1.57683.2), "" without one; several, an empty one or a
// value that is not a string are errors, as in kube-apiserver.
func certificateUID(cert *x509.Certificate) (string, error) {
	var uids []string
	for _, name := range cert.Subject.Names {
		if !name.Type.Equal(k8sasn1.X509UID()) {
			continue
		}
		uid, ok := name.Value.(string)
		if !ok {
			return "", errors.New("unable to parse UID into a string")
		}
		uids = append(uids, uid)
	}
	switch {
	case len(uids) == 0:
		return "", nil
	case len(uids) != 1:
		return "", fmt.Errorf("expected 1 UID, but found multiple: %v", uids)
	case uids[0] == "":
		return "", errors.New("UID cannot be an empty string")
	}
	return uids[0], nil
}

// authenticated adds system:authenticated to u's groups, as kube-apiserver
// does for every authenticated user but system:anonymous.
func authenticated(u *auth.User) *auth.User {
	if u.Name != auth.Anonymous && !u.InGroup(auth.AllAuthenticated) {
		u.Groups = append(slices.Clone(u.Groups), auth.AllAuthenticated)
	}
	return u
}

// tokenUser asks the token authenticators in order.
func (a *Authenticator) tokenUser(ctx context.Context, token string) (*auth.User, error) {
	for _, t := range a.Tokens {
		u, ok, err := t.AuthenticateToken(ctx, token)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUnauthorized, err)
		}
		if ok {
			return authenticated(u), nil
		}
	}
	return nil, fmt.Errorf("%w: invalid bearer token", ErrUnauthorized)
}

const (
	protocolHeader = "Sec-Websocket-Protocol"
	// bearerProtocol prefixes a WebSocket subprotocol that carries a
	// bearer token, base64url-encoded without padding: browsers cannot
	// set an Authorization header on a WebSocket.
	bearerProtocol = "base64url.bearer.authorization.k8s.io."
)

// websocketToken reads a bearer token from a WebSocket upgrade's
// subprotocols, as kube-apiserver's protocol authenticator does, with the
// other subprotocols. A request that is not an upgrade has none. Two
// tokens, a token that does not decode to UTF-8, or a token as the only
// subprotocol (the handshake must echo one) are errors.
func websocketToken(req *http.Request) (token string, others []string, ok bool, err error) {
	if !request.IsWebSocket(req) {
		return "", nil, false, nil
	}
	seen := false
	for _, v := range req.Header.Values(protocolHeader) {
		for _, p := range strings.Split(v, ",") {
			p = strings.TrimSpace(p)
			enc, isToken := strings.CutPrefix(p, bearerProtocol)
			if !isToken {
				others = append(others, p)
				continue
			}
			if seen {
				return "", nil, false, errors.New("multiple base64.bearer.authorization tokens specified")
			}
			seen = true
			raw, err := base64.RawURLEncoding.DecodeString(enc)
			if err != nil {
				return "", nil, false, errors.New("invalid base64.bearer.authorization token encoding")
			}
			if !utf8.Valid(raw) {
				return "", nil, false, errors.New("invalid base64.bearer.authorization token")
			}
			token = string(raw)
		}
	}
	if token == "" {
		return "", nil, false, nil
	}
	if len(others) == 0 {
		return "", nil, false, errors.New("missing additional subprotocol")
	}
	return token, others, true, nil
}

// bearerToken reads "Authorization: Bearer <token>".
func bearerToken(req *http.Request) (string, bool) {
	h := strings.TrimSpace(req.Header.Get("Authorization"))
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// TokenFile is kube's --token-auth-file: CSV lines
// "token,user,uid[,\"group1,group2\"]".
type TokenFile struct {
	users map[string]*auth.User
}

// LoadTokenFile reads a token file; an error names the line.
func LoadTokenFile(path string) (*TokenFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read token file: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	r.Comment = '#'
	tf := &TokenFile{users: map[string]*auth.User{}}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read token file %s: %w", path, err)
		}
		line, _ := r.FieldPos(0)
		if len(rec) < 3 {
			return nil, fmt.Errorf("read token file %s:%d: want token,user,uid[,groups], got %d fields", path, line, len(rec))
		}
		token, name, uid := strings.TrimSpace(rec[0]), strings.TrimSpace(rec[1]), strings.TrimSpace(rec[2])
		if token == "" || name == "" {
			return nil, fmt.Errorf("read token file %s:%d: empty token or user", path, line)
		}
		if _, dup := tf.users[token]; dup {
			return nil, fmt.Errorf("read token file %s:%d: duplicate token", path, line)
		}
		u := &auth.User{Name: name, UID: uid}
		if len(rec) > 3 {
			for _, g := range strings.Split(rec[3], ",") {
				if g = strings.TrimSpace(g); g != "" {
					u.Groups = append(u.Groups, g)
				}
			}
		}
		tf.users[token] = u
	}
	return tf, nil
}

// AuthenticateToken implements TokenAuthenticator. A token that is not in
// the file is not its kind (a ServiceAccount token is asked next).
func (t *TokenFile) AuthenticateToken(_ context.Context, token string) (*auth.User, bool, error) {
	u, ok := t.users[token]
	if !ok {
		return nil, false, nil
	}
	c := *u
	c.Groups = slices.Clone(u.Groups)
	return &c, true, nil
}
