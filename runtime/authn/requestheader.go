package authn

import (
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/kubeforge/kubeforge/runtime/auth"
)

// RequestHeader is kube's front-proxy authentication (--requestheader-*):
// a proxy that authenticated the user itself, the main cluster's
// aggregator among them, says who it is in headers. The headers are
// trusted only on a connection whose client certificate is signed by CAs
// and, when AllowedNames is set, has one of those common names; anyone
// else could write them.
type RequestHeader struct {
	// CAs verifies the proxy's client certificate.
	CAs *x509.CertPool
	// AllowedNames are the common names a proxy certificate may have;
	// empty allows any certificate CAs verifies.
	AllowedNames []string
	// UsernameHeaders, UIDHeaders and GroupHeaders name the headers that
	// carry the user's name (the first one set wins), UID and groups
	// (every value of every header); ExtraHeaderPrefixes prefix the
	// headers of the user's extra values ("X-Remote-Extra-Scopes: a" is
	// the extra "scopes"; the rest of the name is unescaped as a URL path
	// segment and lowercased).
	UsernameHeaders     []string
	UIDHeaders          []string
	GroupHeaders        []string
	ExtraHeaderPrefixes []string
}

// Default header names, kube-apiserver's flag defaults (it has none for
// the UID).
var (
	DefaultUsernameHeaders     = []string{"X-Remote-User"}
	DefaultGroupHeaders        = []string{"X-Remote-Group"}
	DefaultExtraHeaderPrefixes = []string{"X-Remote-Extra-"}
)

// IsProxy reports whether chain (a connection's client certificates) is
// the front proxy's: verified by CAs, with an allowed name.
func (r *RequestHeader) IsProxy(chain []*x509.Certificate) bool {
	if r == nil || r.CAs == nil || len(chain) == 0 {
		return false
	}
	inter := x509.NewCertPool()
	for _, c := range chain[1:] {
		inter.AddCert(c)
	}
	if _, err := chain[0].Verify(x509.VerifyOptions{Roots: r.CAs, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		return false
	}
	return len(r.AllowedNames) == 0 || slices.Contains(r.AllowedNames, chain[0].Subject.CommonName)
}

// user authenticates a request through the front proxy. ok is false when
// the connection is not the proxy's (no certificate CAs verifies) or when
// the proxy named no user: the next authenticator is asked. A certificate
// the CAs verify whose name is not allowed is an error, as in kube.
func (r *RequestHeader) user(chain []*x509.Certificate, h http.Header, verified *certCache) (*auth.User, bool, error) {
	if r == nil || r.CAs == nil || len(chain) == 0 {
		return nil, false, nil
	}
	proxy := verified.get(r.CAs, chain)
	if proxy == nil {
		inter := x509.NewCertPool()
		for _, c := range chain[1:] {
			inter.AddCert(c)
		}
		if _, err := chain[0].Verify(x509.VerifyOptions{
			Roots:         r.CAs,
			Intermediates: inter,
			KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		}); err != nil {
			return nil, false, nil
		}
		proxy = &auth.User{Name: chain[0].Subject.CommonName}
		verified.put(r.CAs, chain, proxy)
	}
	if len(r.AllowedNames) > 0 && !slices.Contains(r.AllowedNames, proxy.Name) {
		return nil, false, fmt.Errorf("%w: front proxy certificate %q is not one of --requestheader-allowed-names", ErrUnauthorized, proxy.Name)
	}
	name := ""
	for _, k := range r.UsernameHeaders {
		if v := strings.TrimSpace(h.Get(k)); v != "" {
			name = v
			break
		}
	}
	if name == "" {
		return nil, false, nil
	}
	u := &auth.User{Name: name}
	for _, k := range r.UIDHeaders {
		if v := strings.TrimSpace(h.Get(k)); v != "" {
			u.UID = v
			break
		}
	}
	for _, k := range r.GroupHeaders {
		u.Groups = append(u.Groups, h.Values(k)...)
	}
	for k, vs := range h {
		for _, p := range r.ExtraHeaderPrefixes {
			if len(k) <= len(p) || !strings.EqualFold(k[:len(p)], p) {
				continue
			}
			key, err := url.PathUnescape(k[len(p):])
			if err != nil {
				key = k[len(p):]
			}
			key = strings.ToLower(key)
			if u.Extra == nil {
				u.Extra = map[string][]string{}
			}
			u.Extra[key] = append(u.Extra[key], vs...)
		}
	}
	return u, true, nil
}

// strip removes the proxy's headers from a request served on another's
// behalf, so that nothing downstream mistakes them for the caller's own.
func (r *RequestHeader) strip(h http.Header) {
	if r == nil {
		return
	}
	for _, group := range [][]string{r.UsernameHeaders, r.UIDHeaders, r.GroupHeaders} {
		for _, k := range group {
			h.Del(k)
		}
	}
	for k := range h {
		for _, p := range r.ExtraHeaderPrefixes {
			if len(k) >= len(p) && strings.EqualFold(k[:len(p)], p) {
				delete(h, k)
			}
		}
	}
}
