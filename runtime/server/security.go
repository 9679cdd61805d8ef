package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/authn"
	"github.com/kubeforge/kubeforge/runtime/filters"
	"github.com/kubeforge/kubeforge/runtime/informer"
	"github.com/kubeforge/kubeforge/runtime/pki"
	"github.com/kubeforge/kubeforge/runtime/serviceaccount"
)

// Authorization modes (--authorization-mode).
const (
	AuthorizationRBAC        = "RBAC"
	AuthorizationAlwaysAllow = "AlwaysAllow"
)

// Names of the generated credentials.
const (
	// AdminUser is the common name of the admin client certificate in the
	// generated kubeconfig; its group is system:masters.
	AdminUser = "kubeforge-admin"
	// UnsecuredUser is the user of every request on the plain-HTTP debug
	// listener, as kube-apiserver's old insecure port named it.
	UnsecuredUser = "system:unsecured"
)

// security is what serving over TLS with authentication needs, built at
// start from the Config and <data-dir>/pki.
type security struct {
	ca         *pki.CA // the generated CA; nil with PlainHTTP
	caPEM      []byte  // for the kubeconfig; nil when the serving cert is the user's
	serving    atomic.Pointer[tls.Certificate]
	admin      pki.Pair
	clientCAs  *x509.CertPool
	authn      *authn.Authenticator
	authorizer auth.Authorizer
	tokens     *serviceaccount.Tokens // nil when ServiceAccounts are not served
	// renew re-issues the generated serving certificate when it nears
	// expiry; nil when the certificate is the user's.
	renew func() (pki.Pair, error)
}

// pkiDir is where generated keys and certificates live.
func (s *Server) pkiDir() string { return filepath.Join(s.cfg.DataDir, "pki") }

// servingHosts are the names the generated serving certificate covers.
func (s *Server) servingHosts() []string {
	hosts := []string{"localhost", "127.0.0.1", "::1"}
	if h, err := os.Hostname(); err == nil && h != "" {
		hosts = append(hosts, h)
	}
	if ip := net.ParseIP(s.cfg.BindAddress); ip != nil && !ip.IsUnspecified() && !ip.IsLoopback() {
		hosts = append(hosts, ip.String())
	}
	return append(hosts, s.cfg.TLSSANs...)
}

// setupSecurity loads or creates the certificates and builds the
// authenticator and authorizer.
func (s *Server) setupSecurity() error {
	if s.cfg.PlainHTTP {
		return nil
	}
	sec := &security{}
	ca, err := pki.EnsureCA(s.pkiDir())
	if err != nil {
		return fmt.Errorf("certificate authority: %w", err)
	}
	sec.ca = ca
	if s.cfg.TLSCertFile != "" || s.cfg.TLSKeyFile != "" {
		if s.cfg.TLSCertFile == "" || s.cfg.TLSKeyFile == "" {
			return fmt.Errorf("serving certificate: --tls-cert-file and --tls-private-key-file go together")
		}
		c, err := tls.LoadX509KeyPair(s.cfg.TLSCertFile, s.cfg.TLSKeyFile)
		if err != nil {
			return fmt.Errorf("serving certificate: %w", err)
		}
		sec.serving.Store(&c)
	} else {
		hosts := s.servingHosts()
		sec.renew = func() (pki.Pair, error) { return pki.Serving(s.pkiDir(), "serving", ca, hosts) }
		pair, err := sec.renew()
		if err != nil {
			return fmt.Errorf("serving certificate: %w", err)
		}
		c, err := pair.TLS()
		if err != nil {
			return fmt.Errorf("serving certificate: %w", err)
		}
		sec.serving.Store(&c)
		sec.caPEM = ca.PEM
	}
	// The admin kubeconfig's certificate is signed by the generated CA,
	// which is always trusted besides --client-ca-file.
	sec.clientCAs = ca.Pool()
	if s.cfg.ClientCAFile != "" {
		data, err := os.ReadFile(s.cfg.ClientCAFile)
		if err != nil {
			return fmt.Errorf("client CA: %w", err)
		}
		if !sec.clientCAs.AppendCertsFromPEM(data) {
			return fmt.Errorf("client CA %s: no PEM certificates", s.cfg.ClientCAFile)
		}
	}
	if sec.admin, err = pki.Client(s.pkiDir(), "admin", ca, AdminUser, []string{auth.SystemPrivilegedGroup}); err != nil {
		return fmt.Errorf("admin client certificate: %w", err)
	}
	sec.authn = &authn.Authenticator{ClientCAs: sec.clientCAs, Anonymous: !s.cfg.DisableAnonymousAuth}
	if s.cfg.TokenAuthFile != "" {
		tf, err := authn.LoadTokenFile(s.cfg.TokenAuthFile)
		if err != nil {
			return err
		}
		sec.authn.Tokens = append(sec.authn.Tokens, tf)
	}
	if s.serviceAccounts != nil {
		s.saCache = informer.New(s.serviceAccounts, nil, s.log)
		lookup := func(ns, name string) (*corev1.ServiceAccount, bool) { return s.saCache.Get(ns, name) }
		sec.tokens, err = serviceaccount.New(s.pkiDir(), serviceaccount.Options{
			SigningKeyFile: s.cfg.ServiceAccountSigningKeyFile,
			KeyFiles:       s.cfg.ServiceAccountKeyFiles,
			Issuer:         s.cfg.ServiceAccountIssuer,
			APIAudiences:   s.cfg.APIAudiences,
		}, lookup)
		if err != nil {
			return err
		}
		sec.authn.Tokens = append(sec.authn.Tokens, sec.tokens)
		if u, err := url.Parse(sec.tokens.Issuer()); err == nil && u.Scheme == "https" {
			// kube-apiserver serves issuer discovery for an https issuer.
			if s.oidc, err = sec.tokens.Discovery(s.cfg.ServiceAccountJWKSURI); err != nil {
				return err
			}
		}
	}
	if s.cfg.RequestHeader != nil {
		static := s.cfg.RequestHeader
		sec.authn.FrontProxy = func() *authn.RequestHeader { return static }
	}
	if s.cfg.Aggregated {
		s.sec = sec
		return s.setupDelegation(sec)
	}
	switch s.cfg.AuthorizationMode {
	case AuthorizationAlwaysAllow:
		sec.authorizer = auth.AlwaysAllow
	case "", AuthorizationRBAC:
		if s.rbacAuthorizer == nil {
			return fmt.Errorf("authorization mode RBAC: the rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding and ClusterRoleBinding kinds are not served; declare them in types/doc.go (+kubeforge:external:package=k8s.io/api/rbac/v1,kind=...) or use --authorization-mode=AlwaysAllow")
		}
		sec.authorizer = privileged(s.authorizer())
	default:
		return fmt.Errorf("authorization mode %q: want %s or %s", s.cfg.AuthorizationMode, AuthorizationRBAC, AuthorizationAlwaysAllow)
	}
	s.sec = sec
	return nil
}

// privileged allows system:masters everything, before asking next, as
// kube-apiserver's first authorizer does.
func privileged(next auth.Authorizer) auth.Authorizer {
	return auth.AuthorizerFunc(func(ctx context.Context, a auth.Attributes) (auth.Decision, string, error) {
		if a.User.InGroup(auth.SystemPrivilegedGroup) {
			return auth.DecisionAllow, "", nil
		}
		if next == nil {
			return auth.DecisionNoOpinion, "", nil
		}
		return next.Authorize(ctx, a)
	})
}

// authorizer is the RBAC authorizer once its informers have listed.
func (s *Server) authorizer() auth.Authorizer {
	return auth.AuthorizerFunc(func(ctx context.Context, a auth.Attributes) (auth.Decision, string, error) {
		if !s.rbacReady.Load() {
			return auth.DecisionNoOpinion, "", nil
		}
		return s.rbacAuthorizer.Authorize(ctx, a)
	})
}

// filterAuth is the authentication and authorization the filter chain
// runs: none but the unsecured superuser on the plain-HTTP listener.
func (s *Server) filterAuth() (filters.Authenticate, auth.Authorizer) {
	if s.sec == nil {
		unsecured := &auth.User{Name: UnsecuredUser, Groups: []string{auth.SystemPrivilegedGroup, auth.AllAuthenticated}}
		return func(*http.Request) (*auth.User, error) { return unsecured, nil }, auth.AlwaysAllow
	}
	return s.sec.authn.Authenticate, s.sec.authorizer
}

// tlsConfig serves the current serving certificate, asks for (but does
// not require) a client certificate, which the authenticator verifies so
// that a bad one is a 401 rather than a failed handshake, and offers
// HTTP/2 as client-go expects.
func (s *Server) tlsConfig() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		ClientAuth: tls.RequestClientCert,
		NextProtos: []string{"h2", "http/1.1"},
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return s.sec.serving.Load(), nil
		},
	}
}

// renewServing checks the generated serving certificate daily and swaps in
// a new one when it nears expiry.
func (s *Server) renewServing(ctx context.Context) {
	if s.sec == nil || s.sec.renew == nil {
		return
	}
	t := time.NewTicker(24 * time.Hour)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pair, err := s.sec.renew()
		if err != nil {
			s.log.Error("renew the serving certificate", "err", err)
			continue
		}
		c, err := pair.TLS()
		if err != nil {
			s.log.Error("renew the serving certificate", "err", err)
			continue
		}
		s.sec.serving.Store(&c)
	}
}
