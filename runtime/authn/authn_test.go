package authn

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/pki"
)

// TestTokenFileAndAnonymous: kube's CSV token file; a known token is its
// user plus system:authenticated, an unknown one is refused even when
// anonymous requests are allowed, none is anonymous or refused.
func TestTokenFileAndAnonymous(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(p, []byte("# comment\nsecret1,alice,1001,\"dev,ops\"\nsecret2,bob,1002\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tf, err := LoadTokenFile(p)
	if err != nil {
		t.Fatal(err)
	}
	a := &Authenticator{Tokens: []TokenAuthenticator{tf}, Anonymous: true}
	req := func(token string) *http.Request {
		r, _ := http.NewRequestWithContext(context.Background(), "GET", "https://x/api", nil)
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		return r
	}
	u, err := a.Authenticate(req("secret1"))
	if err != nil || u.Name != "alice" || u.UID != "1001" || strings.Join(u.Groups, ",") != "dev,ops,"+auth.AllAuthenticated {
		t.Errorf("alice: %+v %v", u, err)
	}
	if _, err := a.Authenticate(req("nope")); !errors.Is(err, ErrUnauthorized) {
		t.Errorf("unknown token: %v", err)
	}
	u, err = a.Authenticate(req(""))
	if err != nil || u.Name != auth.Anonymous || !u.InGroup(auth.AllUnauthenticated) {
		t.Errorf("anonymous: %+v %v", u, err)
	}
	a.Anonymous = false
	if _, err := a.Authenticate(req("")); !errors.Is(err, ErrUnauthorized) {
		t.Errorf("anonymous off: %v", err)
	}
	for _, bad := range []string{"onlytoken,user\n", "t,u,1\nt,v,2\n", ",u,1\n"} {
		if err := os.WriteFile(p, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadTokenFile(p); err == nil {
			t.Errorf("token file %q: want an error", bad)
		}
	}
}

// TestWebSocketProtocolToken: a WebSocket upgrade may carry its bearer
// token as the subprotocol base64url.bearer.authorization.k8s.io.<token>
// (browsers cannot set Authorization on one), as kube-apiserver's protocol
// authenticator reads it: the token subprotocol is removed once it holds,
// and the malformed cases are refused with its messages.
func TestWebSocketProtocolToken(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(p, []byte("secret1,alice,1001\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tf, err := LoadTokenFile(p)
	if err != nil {
		t.Fatal(err)
	}
	a := &Authenticator{Tokens: []TokenAuthenticator{tf}, Anonymous: true}
	enc := func(tok string) string { return bearerProtocol + base64.RawURLEncoding.EncodeToString([]byte(tok)) }
	req := func(upgrade bool, protocols ...string) *http.Request {
		r, _ := http.NewRequestWithContext(context.Background(), "GET", "https://x/api/v1/pods?watch=1", nil)
		if upgrade {
			r.Header.Set("Connection", "keep-alive, Upgrade")
			r.Header.Set("Upgrade", "websocket")
		}
		for _, p := range protocols {
			r.Header.Add("Sec-WebSocket-Protocol", p)
		}
		return r
	}
	r := req(true, "base64.binary.k8s.io, "+enc("secret1"))
	u, err := a.Authenticate(r)
	if err != nil || u.Name != "alice" || !u.InGroup(auth.AllAuthenticated) {
		t.Fatalf("token subprotocol: %+v %v", u, err)
	}
	if got := r.Header.Values("Sec-WebSocket-Protocol"); len(got) != 1 || got[0] != "base64.binary.k8s.io" {
		t.Errorf("subprotocols left %q, want the token removed", got)
	}
	// On separate header lines too.
	if u, err := a.Authenticate(req(true, enc("secret1"), "v4.channel.k8s.io")); err != nil || u.Name != "alice" {
		t.Errorf("token on its own header line: %+v %v", u, err)
	}
	// Not an upgrade: the subprotocol header means nothing (anonymous).
	if u, err := a.Authenticate(req(false, "base64.binary.k8s.io, "+enc("secret1"))); err != nil || u.Name != auth.Anonymous {
		t.Errorf("not an upgrade: %+v %v", u, err)
	}
	for _, tc := range []struct {
		protocols []string
		want      string
	}{
		{[]string{"x, " + enc("nope")}, "invalid bearer token"},
		{[]string{enc("secret1")}, "missing additional subprotocol"},
		{[]string{"x, " + enc("secret1") + ", " + enc("secret1")}, "multiple base64.bearer.authorization tokens specified"},
		{[]string{"x, " + bearerProtocol + "!!!"}, "invalid base64.bearer.authorization token encoding"},
		{[]string{"x, " + bearerProtocol + base64.RawURLEncoding.EncodeToString([]byte{0xff, 0xfe})}, "invalid base64.bearer.authorization token"},
	} {
		_, err := a.Authenticate(req(true, tc.protocols...))
		if !errors.Is(err, ErrUnauthorized) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want a 401 saying %q", tc.protocols, err, tc.want)
		}
	}
}

// TestCertificateVerdictsCached: a chain verified once is not verified
// again against the same CA pool, but is against another (a client CA
// that does not sign it refuses it though the first accepted it), and the
// remembered user, in system:authenticated, is shared by the requests
// that present the chain (a User is read-only once authenticated).
func TestCertificateVerdictsCached(t *testing.T) {
	dir := t.TempDir()
	ca, err := pki.EnsureCA(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	other, err := pki.EnsureCA(filepath.Join(dir, "b"))
	if err != nil {
		t.Fatal(err)
	}
	pair, err := pki.IssueClient(ca, "carol", []string{"devs"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(pair.CertPEM)
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	req := &http.Request{TLS: &tls.ConnectionState{PeerCertificates: []*x509.Certificate{leaf}}, Header: http.Header{}}
	a := &Authenticator{ClientCAs: ca.Pool()}
	var first *auth.User
	for i := range 2 {
		u, err := a.Authenticate(req)
		if err != nil || u.Name != "carol" || !slices.Equal(u.Groups, []string{"devs", auth.AllAuthenticated}) {
			t.Fatalf("authenticate: %+v %v", u, err)
		}
		if i == 0 {
			first = u
		} else if u != first {
			t.Error("the remembered user is not shared")
		}
	}
	// The same leaf bytes in another chain are another chain.
	twice := &http.Request{TLS: &tls.ConnectionState{PeerCertificates: []*x509.Certificate{leaf, leaf}}, Header: http.Header{}}
	if u := a.verified.get(a.ClientCAs, twice.TLS.PeerCertificates); u != nil {
		t.Error("a longer chain with the same leaf was taken for the remembered one")
	}
	if len(a.verified.m) != 1 {
		t.Fatalf("%d remembered verdicts", len(a.verified.m))
	}
	b := &Authenticator{ClientCAs: other.Pool()}
	b.verified.m = a.verified.m // even a shared memory does not carry over to another pool
	if _, err := b.Authenticate(req); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("another CA: %v", err)
	}
}

// TestCertificateUIDAndCredentialID: as kube-apiserver's x509
// authenticator, the subject's UID attribute is the user's UID (two, or an
// empty one, refuse the certificate), and the certificate's SHA-256 is the
// user's credential id.
func TestCertificateUIDAndCredentialID(t *testing.T) {
	ca, err := pki.EnsureCA(filepath.Join(t.TempDir(), "ca"))
	if err != nil {
		t.Fatal(err)
	}
	uidOID := asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57683, 2} // Kubernetes' UID attribute
	leaf := func(uids ...string) *x509.Certificate {
		t.Helper()
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		subject := pkix.Name{CommonName: "dana", Organization: []string{"ops"}}
		for _, u := range uids {
			subject.ExtraNames = append(subject.ExtraNames, pkix.AttributeTypeAndValue{Type: uidOID, Value: u})
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: subject,
			NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key)
		if err != nil {
			t.Fatal(err)
		}
		c, err := x509.ParseCertificate(der)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a := &Authenticator{ClientCAs: ca.Pool()}
	auth1 := func(c *x509.Certificate) (*auth.User, error) {
		return a.Authenticate(&http.Request{TLS: &tls.ConnectionState{PeerCertificates: []*x509.Certificate{c}}, Header: http.Header{}})
	}
	c := leaf("uid-123")
	u, err := auth1(c)
	fp := sha256.Sum256(c.Raw)
	if err != nil || u.Name != "dana" || u.UID != "uid-123" ||
		!slices.Equal(u.Extra["authentication.kubernetes.io/credential-id"], []string{"X509SHA256=" + hex.EncodeToString(fp[:])}) {
		t.Fatalf("dana: %+v %v", u, err)
	}
	if u, err := auth1(leaf()); err != nil || u.UID != "" {
		t.Errorf("no UID attribute: %+v %v", u, err)
	}
	for _, uids := range [][]string{{"a", "b"}, {""}} {
		if _, err := auth1(leaf(uids...)); !errors.Is(err, ErrUnauthorized) {
			t.Errorf("UIDs %q: %v, want a 401", uids, err)
		}
	}
}
