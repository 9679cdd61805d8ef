package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/kubeforge/kubeforge/runtime/authn"
	"github.com/kubeforge/kubeforge/runtime/delegate"
	"github.com/kubeforge/kubeforge/runtime/etcd"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// Defaults, from kube-apiserver's.
const (
	DefaultPort                = 6443
	DefaultBindAddress         = "127.0.0.1"
	DefaultEtcdPrefix          = "/registry"
	DefaultRequestTimeout      = 60 * time.Second
	DefaultMaxRequestBodyBytes = 3 << 20
	DefaultMaxMutatingInFlight = 200
	DefaultMaxReadOnlyInFlight = 400
	// DefaultMinRequestTimeout: a watch without timeoutSeconds lasts
	// between it and twice it.
	DefaultMinRequestTimeout  = 30 * time.Minute
	DefaultCompactionInterval = 5 * time.Minute
	DefaultShutdownTimeout    = 30 * time.Second
	// DefaultEventTTL is how long events are kept (kube-apiserver's --event-ttl).
	DefaultEventTTL = time.Hour
	// KubeconfigName is the file written into DataDir once the server is ready.
	KubeconfigName = "admin.kubeconfig"
)

// Config configures a Server. Zero fields take the Default* values.
type Config struct {
	// BindAddress is the IP to listen on (default 127.0.0.1).
	BindAddress string
	// Port to listen on; 0 picks a free port (the kubeconfig has the real one).
	Port int
	// AdvertiseAddress is the IP clients are told to reach the server at
	// (/api's serverAddressByClientCIDRs, kube's --advertise-address);
	// default: BindAddress, or the host's default interface address when
	// that is unspecified.
	AdvertiseAddress string
	// DataDir holds the embedded etcd data (DataDir/etcd) and admin.kubeconfig.
	DataDir string
	// EtcdServers, when set, are the endpoints of an external etcd cluster and
	// no embedded etcd is started.
	EtcdServers []string
	// EtcdCAFile, EtcdCertFile and EtcdKeyFile secure the connection to
	// EtcdServers (https endpoints): the CA bundle verifying etcd, and the
	// client certificate and key it authenticates the server with. The
	// embedded etcd always uses TLS with its own CA in <data-dir>/pki/etcd.
	EtcdCAFile, EtcdCertFile, EtcdKeyFile string
	// EtcdMaxRequestBytes is the largest etcd request (etcd's
	// --max-request-bytes, default 1.5 MiB): the embedded etcd is started
	// with it, and a write whose stored object would exceed it is a 413
	// before it reaches etcd. Set it to an external cluster's value.
	EtcdMaxRequestBytes int
	// EtcdQuotaBackendBytes is the embedded etcd's database quota (etcd's
	// --quota-backend-bytes, default 2 GiB), lowered at start to fit the
	// free disk space: past it etcd raises its NOSPACE alarm, writes get
	// a 507 and reads go on; deleting objects recovers (the server
	// compacts, defragments and disarms the alarm).
	EtcdQuotaBackendBytes int64
	// EncryptionProviderConfig is kube's EncryptionConfiguration file
	// (--encryption-provider-config): the resources it names are
	// encrypted at rest (package runtime/encryption).
	EncryptionProviderConfig string
	// AuditLogPath, when set, writes the audit log there ("-": standard
	// output) at the levels of AuditPolicyFile (kube's audit.k8s.io/v1
	// Policy; empty: Metadata for every request), rotated at
	// AuditLogMaxSizeMB (default 100), keeping AuditLogMaxBackups files
	// (0: all; the command's --audit-log-maxbackup default is 10) for
	// AuditLogMaxAgeDays (0: no limit).
	AuditLogPath, AuditPolicyFile                             string
	AuditLogMaxSizeMB, AuditLogMaxBackups, AuditLogMaxAgeDays int
	// EtcdPrefix is the key prefix of every object (default /registry).
	EtcdPrefix string
	// RequestTimeout bounds non-watch requests, and the time to receive a
	// request body (default 60 s).
	RequestTimeout time.Duration
	// MinRequestTimeout: a watch without timeoutSeconds lasts a random
	// time between it and twice it (default 30 min).
	MinRequestTimeout time.Duration
	// MaxRequestBodyBytes bounds request bodies (default 3 MiB).
	MaxRequestBodyBytes int64
	// MaxMutatingInFlight and MaxReadOnlyInFlight bound concurrent requests
	// (kube's defaults 200 and 400; watches are not counted); no user but
	// system:masters holds more than half of either.
	MaxMutatingInFlight int
	MaxReadOnlyInFlight int
	// CompactionInterval is how often etcd is compacted (default 5 min;
	// negative disables compaction).
	CompactionInterval time.Duration
	// ShutdownTimeout bounds the drain of in-flight requests (default 30 s).
	ShutdownTimeout time.Duration
	// EventTTL is the time to live of core events and events.k8s.io
	// events: each write attaches the object to an etcd lease (default 1 h;
	// negative keeps events forever). It goes by the stored resource, so
	// events.k8s.io events stored as core events (+kubeforge:external
	// storedAs=) get it through the core store whichever group wrote them.
	EventTTL time.Duration
	// NoWatchCache turns the watch cache off (--watch-cache=false): every
	// watch, list and get reads etcd. With it (the default) each resource
	// has one etcd watch feeding an in-memory copy that serves watches,
	// and lists and gets whose resourceVersion allows it.
	NoWatchCache bool
	// WatchCacheEvents and WatchCacheBytes bound each resource's window
	// of recent events, from which a watch can resume without etcd
	// (defaults storage.DefaultWatchCacheEvents and DefaultWatchCacheBytes).
	WatchCacheEvents int
	WatchCacheBytes  int
	// NoGarbageCollector turns garbage collection off
	// (--enable-garbage-collector=false, as kube-apiserver's and
	// kube-controller-manager's flag): deletes add no orphan or
	// foregroundDeletion finalizer and no collector runs. With it (the
	// default) the stores do their half and, in standalone mode, the
	// server runs runtime/garbagecollector; in aggregated mode the main
	// cluster's kube-controller-manager collects.
	NoGarbageCollector bool
	// GarbageCollectorWorkers: concurrent attemptToDelete workers
	// (default garbagecollector.DefaultWorkers).
	GarbageCollectorWorkers int
	// Logger receives the server's logs (default slog.Default()).
	Logger *slog.Logger

	// PlainHTTP serves plain HTTP with neither authentication nor
	// authorization: every request is system:unsecured in system:masters.
	// For local debugging only (--insecure-plain-http-no-auth).
	PlainHTTP bool
	// TLSCertFile and TLSKeyFile are the serving certificate and key; when
	// empty, one signed by the generated CA (<data-dir>/pki) is used, for
	// localhost, 127.0.0.1, ::1, the host name, the bind address and
	// TLSSANs.
	TLSCertFile, TLSKeyFile string
	TLSSANs                 []string
	// ClientCAFile verifies client certificates besides the generated CA
	// (kube's --client-ca-file): CN is the user, O the groups.
	ClientCAFile string
	// TokenAuthFile is kube's static token file (--token-auth-file).
	TokenAuthFile string
	// DisableAnonymousAuth answers requests without credentials with 401
	// instead of serving them as system:anonymous (--anonymous-auth=false).
	DisableAnonymousAuth bool
	// AuthorizationMode is RBAC (default) or AlwaysAllow.
	AuthorizationMode string
	// ServiceAccountJWKSURI is the jwks_uri of the issuer discovery
	// document (/.well-known/openid-configuration); empty names
	// https://<advertised address>/openid/v1/jwks, as kube-apiserver does.
	ServiceAccountJWKSURI string
	// ServiceAccountIssuer is the iss of ServiceAccount tokens (default
	// serviceaccount.DefaultIssuer); APIAudiences the audiences a token
	// must name one of (default: the issuer).
	ServiceAccountIssuer string
	APIAudiences         []string
	// ServiceAccountSigningKeyFile signs tokens (default
	// <data-dir>/pki/sa.key, generated); ServiceAccountKeyFiles hold more
	// keys tokens are verified with.
	ServiceAccountSigningKeyFile string
	ServiceAccountKeyFiles       []string

	// Aggregated runs the server behind kube-apiserver as an aggregated
	// API server (--mode=aggregated, aggregated.go): the main cluster
	// authenticates, authorizes and owns namespaces, and the server serves
	// only the user's own groups.
	Aggregated bool
	// Kubeconfig reaches the main cluster in aggregated mode; empty is the
	// in-cluster configuration.
	Kubeconfig string
	// RequestHeader, when set, is the front proxy trusted (the
	// --requestheader-* flags), in either mode; in aggregated mode without
	// it, the main cluster's extension-apiserver-authentication ConfigMap
	// says.
	RequestHeader *authn.RequestHeader
	// TokenCacheTTL is how long a TokenReview answer is remembered;
	// AllowedCacheTTL and DeniedCacheTTL those of SubjectAccessReview
	// (aggregated mode; defaults kube's, 10 s each).
	TokenCacheTTL, AllowedCacheTTL, DeniedCacheTTL time.Duration
}

func (c *Config) complete() error {
	orDefault(&c.BindAddress, DefaultBindAddress)
	if net.ParseIP(c.BindAddress) == nil {
		return fmt.Errorf("bind address %q is not an IP address", c.BindAddress)
	}
	if c.Port < 0 || c.Port > 65535 {
		return fmt.Errorf("port %d out of range", c.Port)
	}
	if c.DataDir == "" {
		return errors.New("data dir is required")
	}
	orDefault(&c.EtcdPrefix, DefaultEtcdPrefix)
	orDefault(&c.RequestTimeout, DefaultRequestTimeout)
	orDefault(&c.MinRequestTimeout, DefaultMinRequestTimeout)
	orDefault(&c.MaxRequestBodyBytes, DefaultMaxRequestBodyBytes)
	orDefault(&c.MaxMutatingInFlight, DefaultMaxMutatingInFlight)
	orDefault(&c.MaxReadOnlyInFlight, DefaultMaxReadOnlyInFlight)
	orDefault(&c.CompactionInterval, DefaultCompactionInterval)
	orDefault(&c.ShutdownTimeout, DefaultShutdownTimeout)
	orDefault(&c.EventTTL, DefaultEventTTL)
	orDefault(&c.Logger, slog.Default())
	orDefault(&c.TokenCacheTTL, delegate.DefaultTokenCacheTTL)
	orDefault(&c.AllowedCacheTTL, delegate.DefaultAllowedCacheTTL)
	orDefault(&c.DeniedCacheTTL, delegate.DefaultDeniedCacheTTL)
	if c.EtcdQuotaBackendBytes <= 0 {
		c.EtcdQuotaBackendBytes = etcd.DefaultQuotaBackendBytes
	}
	if c.EtcdMaxRequestBytes <= 0 {
		c.EtcdMaxRequestBytes = storage.DefaultMaxRequestBytes
	}
	if c.Aggregated && c.PlainHTTP {
		return errors.New("aggregated mode needs TLS and authentication: it cannot serve plain HTTP")
	}
	return nil
}

// orDefault sets *p to def when it is the zero value (the field unset).
func orDefault[T comparable](p *T, def T) {
	var zero T
	if *p == zero {
		*p = def
	}
}
