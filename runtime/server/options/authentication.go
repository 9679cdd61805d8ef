package options

import (
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/kubeforge/kubeforge/runtime/authn"
	"github.com/kubeforge/kubeforge/runtime/server"
)

// Authentication is who a request is: client certificates, static tokens,
// ServiceAccount tokens, anonymous requests, a trusted front proxy, and
// the TokenReview cache of aggregated mode.
type Authentication struct {
	ClientCAFile string
	TokenFile    string
	Anonymous    bool

	ServiceAccountIssuer         string
	ServiceAccountJWKSURI        string
	ServiceAccountSigningKeyFile string
	ServiceAccountKeyFiles       StringList
	APIAudiences                 StringList

	RequestHeader RequestHeader

	// TokenCacheTTL: 0 remembers nothing.
	TokenCacheTTL time.Duration
}

// RequestHeader is the front proxy whose request headers name the user.
type RequestHeader struct {
	ClientCAFile                              string
	AllowedNames, Username, UID, Group, Extra StringList
}

// NewAuthentication returns the defaults: anonymous requests allowed what
// RBAC grants them, TokenReview answers remembered 10 s.
func NewAuthentication() *Authentication {
	return &Authentication{Anonymous: true, TokenCacheTTL: 10 * time.Second}
}

func (o *Authentication) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.ClientCAFile, "client-ca-file", o.ClientCAFile, "CA bundle verifying client certificates (CN is the user, O the groups), besides the generated CA")
	fs.StringVar(&o.TokenFile, "token-auth-file", o.TokenFile, "static bearer tokens, kube's CSV format: token,user,uid[,\"group1,group2\"]")
	fs.BoolVar(&o.Anonymous, "anonymous-auth", o.Anonymous, "serve requests without credentials as system:anonymous (group system:unauthenticated), allowed only what RBAC grants them; false answers them 401")
	fs.StringVar(&o.ServiceAccountIssuer, "service-account-issuer", o.ServiceAccountIssuer, "iss claim of ServiceAccount tokens (default https://kubernetes.default.svc.cluster.local)")
	fs.StringVar(&o.ServiceAccountJWKSURI, "service-account-jwks-uri", o.ServiceAccountJWKSURI, "jwks_uri of the discovery document at /.well-known/openid-configuration (default https://<advertise address>:<port>/openid/v1/jwks); for relying parties that reach the key set elsewhere")
	fs.StringVar(&o.ServiceAccountSigningKeyFile, "service-account-signing-key-file", o.ServiceAccountSigningKeyFile, "PEM private key (RSA or ECDSA P-256) signing ServiceAccount tokens; default <data-dir>/pki/sa.key, generated")
	fs.Var(&o.ServiceAccountKeyFiles, "service-account-key-file", "PEM keys ServiceAccount tokens are also verified with (repeatable)")
	fs.Var(&o.APIAudiences, "api-audiences", "audiences a ServiceAccount token must name one of (default: the issuer)")
	rh := &o.RequestHeader
	fs.StringVar(&rh.ClientCAFile, "requestheader-client-ca-file", rh.ClientCAFile, "CA bundle verifying the front proxy's client certificate, whose request headers then name the user; in aggregated mode default: the main cluster's extension-apiserver-authentication ConfigMap")
	fs.Var(&rh.AllowedNames, "requestheader-allowed-names", "common names the front proxy's certificate may have (empty: any the CA signed)")
	fs.Var(&rh.Username, "requestheader-username-headers", "headers holding the user name (default X-Remote-User)")
	fs.Var(&rh.UID, "requestheader-uid-headers", "headers holding the user's UID (none by default; X-Remote-Uid is usual)")
	fs.Var(&rh.Group, "requestheader-group-headers", "headers holding the user's groups (default X-Remote-Group)")
	fs.Var(&rh.Extra, "requestheader-extra-headers-prefix", "prefixes of the headers holding the user's extra values (default X-Remote-Extra-)")
	fs.DurationVar(&o.TokenCacheTTL, "authentication-token-webhook-cache-ttl", o.TokenCacheTTL, "aggregated mode: how long a TokenReview answer is remembered")
}

func (o *Authentication) Validate() []error {
	var errs []error
	if o.TokenCacheTTL < 0 {
		errs = append(errs, errors.New("--authentication-token-webhook-cache-ttl must not be negative"))
	}
	rh := o.RequestHeader
	if rh.ClientCAFile == "" && len(rh.AllowedNames)+len(rh.Username)+len(rh.UID)+len(rh.Group)+len(rh.Extra) > 0 {
		errs = append(errs, errors.New("the --requestheader-* flags need --requestheader-client-ca-file"))
	}
	return errs
}

// ApplyTo reads the front proxy's CA bundle, if any.
func (o *Authentication) ApplyTo(cfg *server.Config) error {
	cfg.ClientCAFile = o.ClientCAFile
	cfg.TokenAuthFile = o.TokenFile
	cfg.DisableAnonymousAuth = !o.Anonymous
	cfg.ServiceAccountIssuer = o.ServiceAccountIssuer
	cfg.ServiceAccountJWKSURI = o.ServiceAccountJWKSURI
	cfg.ServiceAccountSigningKeyFile = o.ServiceAccountSigningKeyFile
	cfg.ServiceAccountKeyFiles = o.ServiceAccountKeyFiles
	cfg.APIAudiences = o.APIAudiences
	cfg.TokenCacheTTL = orNoCache(o.TokenCacheTTL)
	cfg.RequestHeader = nil
	if o.RequestHeader.ClientCAFile != "" {
		rh, err := o.RequestHeader.load()
		if err != nil {
			return err
		}
		cfg.RequestHeader = rh
	}
	return nil
}

// load reads the CA bundle and fills in the default header names.
func (o RequestHeader) load() (*authn.RequestHeader, error) {
	data, err := os.ReadFile(o.ClientCAFile)
	if err != nil {
		return nil, fmt.Errorf("--requestheader-client-ca-file: %w", err)
	}
	rh := &authn.RequestHeader{
		CAs:                 x509.NewCertPool(),
		AllowedNames:        o.AllowedNames,
		UsernameHeaders:     orDefault(o.Username, authn.DefaultUsernameHeaders),
		UIDHeaders:          o.UID,
		GroupHeaders:        orDefault(o.Group, authn.DefaultGroupHeaders),
		ExtraHeaderPrefixes: orDefault(o.Extra, authn.DefaultExtraHeaderPrefixes),
	}
	if !rh.CAs.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("--requestheader-client-ca-file %s: no PEM certificates", o.ClientCAFile)
	}
	return rh, nil
}

func orDefault(v, def []string) []string {
	if len(v) == 0 {
		return def
	}
	return v
}

// orNoCache maps a TTL flag of 0 (no caching) to the smallest duration
// Config takes as "remember nothing"; Config's 0 is the default.
func orNoCache(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// Authorization is what a request may do: RBAC or everything, and the
// SubjectAccessReview cache of aggregated mode.
type Authorization struct {
	Mode string
	// AllowedCacheTTL and DeniedCacheTTL: 0 remembers nothing.
	AllowedCacheTTL, DeniedCacheTTL time.Duration
}

// NewAuthorization returns the defaults: RBAC, answers remembered 10 s.
func NewAuthorization() *Authorization {
	return &Authorization{Mode: server.AuthorizationRBAC, AllowedCacheTTL: 10 * time.Second, DeniedCacheTTL: 10 * time.Second}
}

func (o *Authorization) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Mode, "authorization-mode", o.Mode, "RBAC or AlwaysAllow")
	fs.DurationVar(&o.AllowedCacheTTL, "authorization-webhook-cache-authorized-ttl", o.AllowedCacheTTL, "aggregated mode: how long an allowed SubjectAccessReview answer is remembered")
	fs.DurationVar(&o.DeniedCacheTTL, "authorization-webhook-cache-unauthorized-ttl", o.DeniedCacheTTL, "aggregated mode: how long a denied SubjectAccessReview answer is remembered")
}

// Validate checks the cache TTLs; the server checks the mode.
func (o *Authorization) Validate() []error {
	if o.AllowedCacheTTL < 0 || o.DeniedCacheTTL < 0 {
		return []error{errors.New("--authorization-webhook-cache-authorized-ttl and --authorization-webhook-cache-unauthorized-ttl must not be negative")}
	}
	return nil
}

func (o *Authorization) ApplyTo(cfg *server.Config) error {
	cfg.AuthorizationMode = o.Mode
	cfg.AllowedCacheTTL, cfg.DeniedCacheTTL = orNoCache(o.AllowedCacheTTL), orNoCache(o.DeniedCacheTTL)
	return nil
}
