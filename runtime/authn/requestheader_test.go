package authn

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/pki"
)

// TestFrontProxy: the request headers name the user only on a connection
// whose certificate the request-header CA signed with an allowed name;
// the headers are removed once read; a certificate of the client CA is
// its own user whatever headers it sends; headers alone are nothing.
func TestFrontProxy(t *testing.T) {
	dir := t.TempDir()
	frontCA, err := pki.EnsureCA(dir + "/front")
	if err != nil {
		t.Fatal(err)
	}
	clientCA, err := pki.EnsureCA(dir + "/client")
	if err != nil {
		t.Fatal(err)
	}
	chain := func(ca *pki.CA, cn string) []*x509.Certificate {
		p, err := pki.IssueClient(ca, cn, []string{"org"}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		c, err := p.TLS()
		if err != nil {
			t.Fatal(err)
		}
		leaf, err := x509.ParseCertificate(c.Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		return []*x509.Certificate{leaf}
	}
	proxy, stranger, client := chain(frontCA, "front-proxy-client"), chain(frontCA, "someone-else"), chain(clientCA, "carol")
	rh := &RequestHeader{
		CAs: frontCA.Pool(), AllowedNames: []string{"front-proxy-client"},
		UsernameHeaders: DefaultUsernameHeaders, UIDHeaders: []string{"X-Remote-Uid"},
		GroupHeaders: DefaultGroupHeaders, ExtraHeaderPrefixes: DefaultExtraHeaderPrefixes,
	}
	a := &Authenticator{ClientCAs: clientCA.Pool(), Anonymous: true, FrontProxy: func() *RequestHeader { return rh }}
	// The connection-level check (the HTTP/2 reset budget of a proxy).
	if !rh.IsProxy(proxy) || rh.IsProxy(stranger) || rh.IsProxy(client) || rh.IsProxy(nil) || (*RequestHeader)(nil).IsProxy(proxy) {
		t.Error("IsProxy: only the allowed name signed by the front-proxy CA is the proxy")
	}
	req := func(peer []*x509.Certificate, h map[string][]string) *http.Request {
		r, _ := http.NewRequestWithContext(context.Background(), "GET", "https://x/api", nil)
		for k, vs := range h {
			for _, v := range vs {
				r.Header.Add(k, v)
			}
		}
		if peer != nil {
			r.TLS = tlsState(peer)
		}
		return r
	}
	headers := map[string][]string{
		"X-Remote-User":              {"alice"},
		"X-Remote-Uid":               {"1001"},
		"X-Remote-Group":             {"dev", "ops"},
		"X-Remote-Extra-Scopes":      {"a", "b"},
		"X-Remote-Extra-Acme.com%2F": {"x"},
	}

	r := req(proxy, headers)
	u, err := a.Authenticate(r)
	if err != nil {
		t.Fatal(err)
	}
	if u.Name != "alice" || u.UID != "1001" || !slices.Equal(u.Groups, []string{"dev", "ops", auth.AllAuthenticated}) ||
		!slices.Equal(u.Extra["scopes"], []string{"a", "b"}) || !slices.Equal(u.Extra["acme.com/"], []string{"x"}) {
		t.Errorf("through the front proxy: %+v", u)
	}
	for k := range headers {
		if r.Header.Get(k) != "" {
			t.Errorf("%s left on the request", k)
		}
	}
	// The second request of the connection (verified chain cached) too.
	if u, err := a.Authenticate(req(proxy, headers)); err != nil || u.Name != "alice" {
		t.Errorf("again: %+v %v", u, err)
	}
	// A certificate of the request-header CA with another name: refused.
	if _, err := a.Authenticate(req(stranger, headers)); !errors.Is(err, ErrUnauthorized) {
		t.Errorf("front-proxy CA, name not allowed: %v", err)
	}
	// The proxy without a user header: not the proxy's request; its
	// certificate is no client certificate.
	if _, err := a.Authenticate(req(proxy, nil)); !errors.Is(err, ErrUnauthorized) {
		t.Errorf("front proxy without X-Remote-User: %v", err)
	}
	// A client certificate is its own user, headers or not.
	if u, err := a.Authenticate(req(client, headers)); err != nil || u.Name != "carol" {
		t.Errorf("client certificate with forged headers: %+v %v", u, err)
	}
	// Headers without any certificate: anonymous.
	if u, err := a.Authenticate(req(nil, headers)); err != nil || u.Name != auth.Anonymous {
		t.Errorf("headers alone: %+v %v", u, err)
	}
	// No allowed names: any certificate the CA signed is a proxy.
	rh.AllowedNames = nil
	if u, err := a.Authenticate(req(stranger, headers)); err != nil || u.Name != "alice" {
		t.Errorf("no allowed names: %+v %v", u, err)
	}
	// A trust that is not there yet (the ConfigMap unread): no proxy.
	a.FrontProxy = func() *RequestHeader { return nil }
	if _, err := a.Authenticate(req(proxy, headers)); !errors.Is(err, ErrUnauthorized) {
		t.Errorf("no front proxy trusted: %v", err)
	}
	// MoreClientCAs: a second, changing pool of client CAs.
	b := &Authenticator{MoreClientCAs: func() *x509.CertPool { return clientCA.Pool() }}
	if u, err := b.Authenticate(req(client, nil)); err != nil || u.Name != "carol" {
		t.Errorf("MoreClientCAs: %+v %v", u, err)
	}
	if _, err := b.Authenticate(req(proxy, nil)); !errors.Is(err, ErrUnauthorized) {
		t.Errorf("MoreClientCAs, other CA: %v", err)
	}
}

func tlsState(chain []*x509.Certificate) *tls.ConnectionState {
	return &tls.ConnectionState{PeerCertificates: chain}
}
