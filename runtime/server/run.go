package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	restful "github.com/emicklei/go-restful/v3"
	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/kubeforge/kubeforge/runtime/admission"
	"github.com/kubeforge/kubeforge/runtime/audit"
	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/delegate"
	"github.com/kubeforge/kubeforge/runtime/discovery"
	"github.com/kubeforge/kubeforge/runtime/encryption"
	"github.com/kubeforge/kubeforge/runtime/endpoints"
	"github.com/kubeforge/kubeforge/runtime/etcd"
	"github.com/kubeforge/kubeforge/runtime/fieldmanager"
	"github.com/kubeforge/kubeforge/runtime/filters"
	"github.com/kubeforge/kubeforge/runtime/garbagecollector"
	"github.com/kubeforge/kubeforge/runtime/informer"
	"github.com/kubeforge/kubeforge/runtime/metrics"
	"github.com/kubeforge/kubeforge/runtime/namespaces"
	"github.com/kubeforge/kubeforge/runtime/rbac"
	"github.com/kubeforge/kubeforge/runtime/request"
	"github.com/kubeforge/kubeforge/runtime/resource"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// Server is one apiserver replica. Build it with New, register generated
// group-versions with AddGroupVersion, then call Run.
type Server struct {
	cfg Config
	log *slog.Logger

	// discovery serves /api and /apis; Run tells it the advertised address.
	discovery *discovery.Handler

	embedded *etcd.Embedded // nil with external etcd
	client   *clientv3.Client
	backend  *storage.Backend

	container *restful.Container
	metrics   *metrics.Metrics
	// fieldManagers: server-side apply field managers, typed by the
	// schemas of the added group-versions.
	fieldManagers *fieldmanager.Registry

	mu      sync.Mutex
	groups  []GroupVersion
	running bool
	// collections: every hub store (AddCollection); namespaceStore is the
	// core/v1 namespaces one, when served.
	collections    []storage.Collection
	namespaceStore NamespaceStore
	// lifecycle is the namespace lifecycle, set by Run before serving when
	// namespaces are served; read-only afterwards.
	lifecycle *namespaces.Lifecycle

	// stopCh is closed when shutdown starts: watches end.
	stopCh   chan struct{}
	stopOnce sync.Once
	ready    chan struct{}
	url      string
	closed   bool

	// etcd holds the *etcdState the health probe keeps (etcdhealth.go);
	// noSpace is set while etcd's NOSPACE alarm is raised; quota is the
	// embedded etcd's backend quota.
	etcd    atomic.Value
	noSpace atomic.Bool
	quota   int64
	// unreadableLogged: when each unreadable key was last logged.
	unreadableLogged sync.Map
	// auditor writes the audit log; nil without one.
	auditor *audit.Auditor

	// sec is nil with PlainHTTP; rbac is the RBAC authorizer once RBAC
	// is served.
	sec *security
	// rbacReady: the RBAC informers have listed and the bootstrap policy
	// is in; until then only system:masters is allowed.
	rbacReady atomic.Bool
	// rbacStores and serviceAccounts are set by AddCollection when the
	// generated install serves those kinds.
	rbacStores rbacStores
	// admissionStores are the admissionregistration.k8s.io stores;
	// admission is the chain every handler calls, conversions what it
	// converts objects between versions with.
	admissionStores admissionStores
	admission       admissionChain
	// admissionPlugins are the in-process plug-ins AddAdmission added.
	admissionPlugins []admission.Interface
	conversions      conversions
	serviceAccounts  ServiceAccountStore
	rbacAuthorizer   *rbac.Authorizer
	// saCache holds the ServiceAccounts tokens are checked against.
	saCache *informer.Cache[*corev1.ServiceAccount, *corev1.ServiceAccountList]
	// delegation is the main cluster in aggregated mode, else nil.
	delegation *delegation
	// skippedGroups are the group-versions aggregated mode leaves to the
	// main cluster.
	skippedGroups []string
	// gc is the garbage collector, once Run started it (standalone mode).
	gc *garbagecollector.GarbageCollector
}

func (c *Config) complete() error {
	if c.BindAddress == "" {
		c.BindAddress = DefaultBindAddress
	}
	if net.ParseIP(c.BindAddress) == nil {
		return fmt.Errorf("bind address %q is not an IP address", c.BindAddress)
	}
	if c.Port < 0 || c.Port > 65535 {
		return fmt.Errorf("port %d out of range", c.Port)
	}
	if c.DataDir == "" {
		return errors.New("data dir is required")
	}
	if c.EtcdQuotaBackendBytes <= 0 {
		c.EtcdQuotaBackendBytes = etcd.DefaultQuotaBackendBytes
	}
	if c.EtcdMaxRequestBytes <= 0 {
		c.EtcdMaxRequestBytes = storage.DefaultMaxRequestBytes
	}
	if c.EtcdPrefix == "" {
		c.EtcdPrefix = DefaultEtcdPrefix
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.MinRequestTimeout == 0 {
		c.MinRequestTimeout = DefaultMinRequestTimeout
	}
	if c.MaxRequestBodyBytes == 0 {
		c.MaxRequestBodyBytes = DefaultMaxRequestBodyBytes
	}
	if c.MaxMutatingInFlight == 0 {
		c.MaxMutatingInFlight = DefaultMaxMutatingInFlight
	}
	if c.MaxReadOnlyInFlight == 0 {
		c.MaxReadOnlyInFlight = DefaultMaxReadOnlyInFlight
	}
	if c.CompactionInterval == 0 {
		c.CompactionInterval = DefaultCompactionInterval
	}
	if c.ShutdownTimeout == 0 {
		c.ShutdownTimeout = DefaultShutdownTimeout
	}
	if c.EventTTL == 0 {
		c.EventTTL = DefaultEventTTL
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.TokenCacheTTL == 0 {
		c.TokenCacheTTL = delegate.DefaultTokenCacheTTL
	}
	if c.AllowedCacheTTL == 0 {
		c.AllowedCacheTTL = delegate.DefaultAllowedCacheTTL
	}
	if c.DeniedCacheTTL == 0 {
		c.DeniedCacheTTL = delegate.DefaultDeniedCacheTTL
	}
	if c.Aggregated && c.PlainHTTP {
		return errors.New("aggregated mode needs TLS and authentication: it cannot serve plain HTTP")
	}
	return nil
}

// New validates cfg, starts the embedded etcd (unless cfg.EtcdServers is
// set) and builds the storage backend. ctx bounds only the start-up. The
// caller must call Run (which releases everything when it returns) or, if
// it never runs the server, Close.
func New(ctx context.Context, cfg Config) (*Server, error) {
	if err := cfg.complete(); err != nil {
		return nil, fmt.Errorf("configure apiserver: %w", err)
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	// A kubeconfig left by an earlier run names a stale port: whoever waits
	// for it must only see the one this run writes once ready.
	if err := os.Remove(filepath.Join(cfg.DataDir, KubeconfigName)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("remove stale kubeconfig: %w", err)
	}
	s := &Server{
		cfg:    cfg,
		log:    cfg.Logger,
		stopCh: make(chan struct{}),
		ready:  make(chan struct{}),
	}
	s.container = restful.NewContainer()
	s.fieldManagers = fieldmanager.NewRegistry()
	s.metrics = metrics.New()
	if cfg.AuditLogPath != "" {
		a, err := audit.New(audit.Options{
			Path: cfg.AuditLogPath, PolicyFile: cfg.AuditPolicyFile,
			MaxSizeMB: cfg.AuditLogMaxSizeMB, MaxBackups: cfg.AuditLogMaxBackups, MaxAgeDays: cfg.AuditLogMaxAgeDays,
		}, s.log)
		if err != nil {
			return nil, fmt.Errorf("configure apiserver: %w", err)
		}
		s.auditor = a
	}
	var enc *encryption.Config
	if cfg.EncryptionProviderConfig != "" {
		var err error
		if enc, err = encryption.Load(cfg.EncryptionProviderConfig); err != nil {
			return nil, fmt.Errorf("configure apiserver: %w", err)
		}
		s.log.Info("encryption at rest", "resources", enc.Resources())
	}
	if len(cfg.EtcdServers) > 0 {
		c, err := etcd.NewClient(cfg.EtcdServers, etcd.TLSFiles{CAFile: cfg.EtcdCAFile, CertFile: cfg.EtcdCertFile, KeyFile: cfg.EtcdKeyFile})
		if err != nil {
			return nil, fmt.Errorf("connect to etcd: %w", err)
		}
		s.client = c
	} else {
		quota, err := etcd.QuotaForDisk(cfg.DataDir, cfg.EtcdQuotaBackendBytes)
		if err != nil {
			return nil, fmt.Errorf("start apiserver: %w", err)
		}
		if quota < cfg.EtcdQuotaBackendBytes {
			s.log.Warn("etcd quota lowered to fit the free disk space", "quotaBytes", quota, "askedBytes", cfg.EtcdQuotaBackendBytes)
		}
		s.quota = quota
		e, err := etcd.StartEmbedded(ctx, filepath.Join(cfg.DataDir, "etcd"), etcd.WithQuotaBackendBytes(quota), etcd.WithTLS(filepath.Join(s.pkiDir(), "etcd")),
			etcd.WithClientSocket(filepath.Join(cfg.DataDir, "etcd.sock")), etcd.WithMaxRequestBytes(cfg.EtcdMaxRequestBytes))
		if err != nil {
			return nil, fmt.Errorf("start apiserver: %w", err)
		}
		s.embedded = e
		s.client = e.Client()
	}
	s.backend = storage.NewBackend(s.client, cfg.EtcdPrefix, storage.BackendOptions{
		ObserveLatency:  s.metrics.ObserveEtcd,
		TTL:             eventTTL(cfg.EventTTL),
		Transformer:     enc.TransformerFor,
		MaxRequestBytes: cfg.EtcdMaxRequestBytes,
		Unreadable:      s.reportUnreadable,
		SlowWatcher:     s.metrics.WatcherTerminated,

		WatchCache:       !cfg.NoWatchCache,
		WatchCacheEvents: cfg.WatchCacheEvents,
		WatchCacheBytes:  cfg.WatchCacheBytes,
		CacheMetrics:     s.metrics,

		NoGarbageCollection: cfg.NoGarbageCollector,
	})
	return s, nil
}

// reportUnreadable counts a stored value a list, watch or delete left out
// and logs it, once per key every unreadableLogEvery: every list of the
// collection meets it again until an admin deletes it (DELETE with
// ignoreStoreReadErrorWithClusterBreakingPotential=true).
func (s *Server) reportUnreadable(resource, key string, err error) {
	s.metrics.Unreadable(resource)
	now := time.Now()
	if last, ok := s.unreadableLogged.Load(key); ok && now.Sub(last.(time.Time)) < unreadableLogEvery {
		return
	}
	s.unreadableLogged.Store(key, now)
	s.log.Error("unreadable object in storage, left out of lists and watches; delete it with ignoreStoreReadErrorWithClusterBreakingPotential=true",
		"resource", resource, "key", key, "err", err)
}

const unreadableLogEvery = 5 * time.Minute

// EtcdClientTLS returns the TLS files the server connects to etcd with:
// another replica on the same etcd uses them.
func (s *Server) EtcdClientTLS() etcd.TLSFiles {
	if s.embedded != nil {
		return s.embedded.ClientTLS()
	}
	return etcd.TLSFiles{CAFile: s.cfg.EtcdCAFile, CertFile: s.cfg.EtcdCertFile, KeyFile: s.cfg.EtcdKeyFile}
}

// Backend returns the etcd backend every generated store is built on.
func (s *Server) Backend() *storage.Backend { return s.backend }

// EndpointOptions returns the options every generated handler is built
// with: watches end when shutdown starts, the request timeout and body
// limit of the Config, request metrics, the server's logger and the
// server-side apply field managers (typed by the schemas AddGroupVersion
// adds; handlers look theirs up on first use).
func (s *Server) EndpointOptions() endpoints.Options {
	return endpoints.Options{
		Stop:                s.stopCh,
		RequestTimeout:      s.cfg.RequestTimeout,
		MinRequestTimeout:   s.cfg.MinRequestTimeout,
		MaxRequestBodyBytes: s.cfg.MaxRequestBodyBytes,
		Observe:             s.metrics.ObserveRequest,
		Logger:              s.log,
		FieldManagers:       s.fieldManagers,
		Admit:               s.admit,
		Admission:           &s.admission,
	}
}

// admit is the admission of every handler: the namespace lifecycle when
// namespaces are served.
func (s *Server) admit(ctx context.Context, a endpoints.Attributes) error {
	if a.IgnoreStoreReadError {
		if err := s.authorizeUnsafeDelete(ctx, a); err != nil {
			return err
		}
	}
	if s.delegation != nil {
		return s.delegation.admitNamespace(ctx, a)
	}
	if s.lifecycle == nil {
		return nil
	}
	return s.lifecycle.Admit(ctx, a)
}

// authorizeUnsafeDelete asks for kube's verb
// unsafe-delete-ignore-read-errors on the resource, besides delete: a
// delete that skips reading the object skips its finalizers and hooks.
func (s *Server) authorizeUnsafeDelete(ctx context.Context, a endpoints.Attributes) error {
	_, authz := s.filterAuth()
	u, _ := auth.UserFrom(ctx)
	attrs := auth.Attributes{User: u, Info: request.Info{
		Verb: "unsafe-delete-ignore-read-errors", IsResourceRequest: true,
		APIGroup: a.Info.Group, APIVersion: a.Info.Version, Namespace: a.Namespace, Resource: a.Info.Plural, Name: a.Name,
	}}
	d, reason, err := authz.Authorize(ctx, attrs)
	if d == auth.DecisionAllow {
		return nil
	}
	if err != nil {
		s.log.Warn("authorize unsafe delete", "err", err)
	}
	return filters.ForbiddenError(attrs, reason)
}

// AddGroupVersion registers a group-version: its routes are served and it
// appears in discovery and OpenAPI. It must be called before Run.
func (s *Server) AddGroupVersion(gv GroupVersion) error {
	if err := gv.validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running {
		return fmt.Errorf("add group-version %q: server already running", gv.String())
	}
	for _, g := range s.groups {
		if g.Group == gv.Group && g.Version == gv.Version {
			return fmt.Errorf("add group-version %q: already added", gv.String())
		}
	}
	if s.skipped(gv.Group) {
		s.skippedGroups = append(s.skippedGroups, gv.String())
		return nil
	}
	sgv := schema.GroupVersion{Group: gv.Group, Version: gv.Version}
	if err := s.fieldManagers.AddSchemas(sgv, gv.Schemas); err != nil {
		return fmt.Errorf("add group-version %q: %w", gv.String(), err)
	}
	s.groups = append(s.groups, gv)
	s.container.Add(gv.WebService)
	return nil
}

// AddConversions gives server-side apply the conversions of served
// versions of kinds to and from their storage versions (a generated
// Conversions), so that managedFields entries written through one version
// are kept, and conflict, on writes through another. It must be called
// before Run.
func (s *Server) AddConversions(cs ...fieldmanager.Conversion) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running {
		return fmt.Errorf("add conversions: server already running")
	}
	for _, c := range cs {
		if err := s.fieldManagers.AddConversion(c); err != nil {
			return err
		}
	}
	s.conversions.add(cs...)
	return nil
}

// Ready is closed once the server listens, etcd answers and the kubeconfig
// is written.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// URL is the base URL clients use (set once Ready is closed).
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// KubeconfigPath is where the admin kubeconfig is written.
func (s *Server) KubeconfigPath() string { return filepath.Join(s.cfg.DataDir, KubeconfigName) }

// Close releases etcd without serving; Run calls it on return.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.stopOnce.Do(func() { close(s.stopCh) })
	s.delegation.close()
	var errs []error
	if err := s.auditor.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close audit log: %w", err))
	}
	if s.backend != nil {
		s.backend.Close()
	}
	if s.embedded != nil {
		if err := s.embedded.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close embedded etcd: %w", err))
		}
	} else if err := s.client.Close(); err != nil && !errors.Is(err, context.Canceled) {
		errs = append(errs, fmt.Errorf("close etcd client: %w", err))
	}
	return errors.Join(errs...)
}

func hostURL(scheme, bind string, port int) string {
	host := bind
	if ip := net.ParseIP(bind); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return scheme + "://" + net.JoinHostPort(host, strconv.Itoa(port))
}

// advertiseAddress is the address the server tells clients to reach it at
// (/api's serverAddressByClientCIDRs): AdvertiseAddress, else the bind
// address, else (bound to every interface) the host's default interface
// address, as kube-apiserver chooses it; loopback when there is none.
func (s *Server) advertiseAddress() string {
	if s.cfg.AdvertiseAddress != "" {
		return s.cfg.AdvertiseAddress
	}
	ip := net.ParseIP(s.cfg.BindAddress)
	if ip != nil && !ip.IsUnspecified() {
		return ip.String()
	}
	if ip == nil {
		ip = net.IPv4zero
	}
	if chosen, err := utilnet.ResolveBindAddress(ip); err == nil && chosen != nil && !chosen.IsUnspecified() {
		return chosen.String()
	}
	return "127.0.0.1"
}

// Run serves until ctx is cancelled, then shuts down gracefully: readyz
// fails, the listener closes, watch streams end, in-flight requests drain
// (up to ShutdownTimeout), the compactor stops and etcd is closed. It
// returns nil after a clean shutdown. Once listening and connected to etcd
// it writes DataDir/admin.kubeconfig and logs one "ready" line.
func (s *Server) Run(ctx context.Context) (err error) {
	s.mu.Lock()
	if s.running || s.closed {
		s.mu.Unlock()
		return errors.New("run apiserver: already run")
	}
	s.mu.Unlock()
	if s.rbacStores.complete() {
		s.rbacAuthorizer = rbac.New(rbac.Stores(s.rbacStores), s.log)
	}
	if err := s.setupSecurity(); err != nil {
		_ = s.Close()
		return fmt.Errorf("run apiserver: %w", err)
	}
	if len(s.skippedGroups) > 0 {
		s.log.Info("aggregated mode: built-in groups are left to the main cluster", "skipped", s.skippedGroups)
	}
	if err := s.addBuiltinRoutes(); err != nil {
		_ = s.Close()
		return fmt.Errorf("run apiserver: %w", err)
	}
	s.mu.Lock()
	s.running = true
	groups := append([]GroupVersion(nil), s.groups...)
	if s.namespaceStore != nil {
		s.lifecycle = namespaces.New(s.namespaceStore, s.collections, namespaces.Options{Logger: s.log})
		s.namespaceStore.SetHooks(s.lifecycle.Hooks())
	}
	s.mu.Unlock()
	defer func() {
		if cerr := s.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()

	if s.cfg.PlainHTTP {
		s.log.Warn("serving plain HTTP without authentication or authorization: every request is an administrator; for local debugging only", "bind-address", s.cfg.BindAddress)
	}
	handler, err := s.buildHandler(groups)
	if err != nil {
		return fmt.Errorf("run apiserver: %w", err)
	}
	addr := net.JoinHostPort(s.cfg.BindAddress, strconv.Itoa(s.cfg.Port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("run apiserver: listen on %s: %w", addr, err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if err := s.discovery.SetServerAddress(net.JoinHostPort(s.advertiseAddress(), strconv.Itoa(port))); err != nil {
		_ = ln.Close()
		return fmt.Errorf("run apiserver: %w", err)
	}
	baseCtx, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelBase()
	srv := &http.Server{
		Handler:           handler,
		BaseContext:       func(net.Listener) context.Context { return baseCtx },
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       90 * time.Second,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	serveErr := make(chan error, 1)
	scheme := "http"
	if s.sec != nil {
		scheme = "https"
		srv.TLSConfig = s.tlsConfig()
		if err := serveHTTP2(srv, s.isFrontProxy); err != nil {
			_ = ln.Close()
			return fmt.Errorf("run apiserver: %w", err)
		}
		go func() { serveErr <- srv.ServeTLS(ln, "", "") }()
	} else {
		go func() { serveErr <- srv.Serve(ln) }()
	}

	var wg sync.WaitGroup
	workerCtx, stopWorkers := context.WithCancel(context.Background())
	defer func() {
		stopWorkers()
		wg.Wait()
	}()
	if s.cfg.CompactionInterval > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.backend.RunCompactor(workerCtx, s.cfg.CompactionInterval)
		}()
	}

	wg.Add(1)
	go func() {
		defer wg.Done()
		s.monitorEtcd(workerCtx)
	}()

	if err := s.waitForEtcd(ctx, serveErr); err != nil {
		_ = srv.Close()
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("run apiserver: %w", err)
	}
	if err := s.waitForDelegation(ctx, s.cfg.RequestTimeout); err != nil {
		_ = srv.Close()
		return nil
	}
	if s.lifecycle != nil {
		nsCtx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
		err := s.lifecycle.EnsureSystemNamespaces(nsCtx)
		cancel()
		if err != nil {
			_ = srv.Close()
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("run apiserver: %w", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.lifecycle.Run(workerCtx)
		}()
	}
	if gc := s.garbageCollector(); gc != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			gc.Run(workerCtx)
		}()
	}
	if s.saCache != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.saCache.Run(workerCtx)
		}()
		select {
		case <-s.saCache.Synced():
		case <-ctx.Done():
			_ = srv.Close()
			return nil
		}
	}
	if s.rbacAuthorizer != nil {
		if err := s.startRBAC(ctx, workerCtx, &wg, groups); err != nil {
			_ = srv.Close()
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("run apiserver: %w", err)
		}
	}
	if err := s.startAdmission(ctx, workerCtx, &wg, groups); err != nil {
		_ = srv.Close()
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("run apiserver: %w", err)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.renewServing(workerCtx)
	}()
	url := hostURL(scheme, s.cfg.BindAddress, port)
	if err := writeKubeconfig(s.KubeconfigPath(), url, s.sec); err != nil {
		_ = srv.Close()
		return fmt.Errorf("run apiserver: %w", err)
	}
	s.mu.Lock()
	s.url = url
	s.mu.Unlock()
	close(s.ready)
	s.log.Info(fmt.Sprintf("kubeforge apiserver ready: export KUBECONFIG=%s; kubectl api-resources", s.KubeconfigPath()), "url", url)

	select {
	case <-ctx.Done():
	case err := <-serveErr:
		return fmt.Errorf("run apiserver: serve: %w", err)
	}
	s.log.Info("kubeforge apiserver shutting down")
	// Readyz fails and watches end from here.
	s.stopOnce.Do(func() { close(s.stopCh) })
	shutdownCtx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		s.log.Warn("in-flight requests did not finish in time; closing connections", "timeout", s.cfg.ShutdownTimeout, "err", err)
		cancelBase()
		_ = srv.Close()
	}
	<-serveErr
	return nil
}

// waitForEtcd polls the backend until etcd answers.
func (s *Server) waitForEtcd(ctx context.Context, serveErr <-chan error) error {
	delay := 100 * time.Millisecond
	logged := false
	for {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := s.backend.Ready(rctx)
		cancel()
		if err == nil {
			return nil
		}
		if !logged && delay >= time.Second {
			s.log.Warn("waiting for etcd", "err", err)
			logged = true
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-serveErr:
			return fmt.Errorf("serve: %w", err)
		case <-time.After(delay):
		}
		if delay < 2*time.Second {
			delay *= 2
		}
	}
}

// eventTTL gives core events and events.k8s.io events their time to live.
// The store asks with its own resource (storage.Backend TTL), the stored
// one: events.k8s.io events stored as core events (the generated install)
// are core events here, written through either group; the events.k8s.io
// entry covers a server that stores them on their own.
func eventTTL(ttl time.Duration) func(schema.GroupResource) time.Duration {
	return func(gr schema.GroupResource) time.Duration {
		if ttl <= 0 || gr.Resource != "events" {
			return 0
		}
		if gr.Group == "" || gr.Group == "events.k8s.io" {
			return ttl
		}
		return 0
	}
}

// startRBAC runs the RBAC informers (the authorizer answers from them once
// they have listed) and reconciles the bootstrap policy.
func (s *Server) startRBAC(ctx, workerCtx context.Context, wg *sync.WaitGroup, groups []GroupVersion) error {
	syncCtx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	defer cancel()
	if err := s.rbacAuthorizer.Start(workerCtx, wg); err != nil {
		return fmt.Errorf("start rbac: %w", err)
	}
	var served []*resource.Info
	for _, gv := range groups {
		served = append(served, gv.Resources...)
	}
	if err := s.rbacAuthorizer.Reconcile(syncCtx, served); err != nil {
		return fmt.Errorf("bootstrap rbac policy: %w", err)
	}
	s.rbacReady.Store(true)
	return nil
}

// garbageCollector builds the garbage collector of a standalone server
// over every collection, nil when there is none to run: garbage
// collection off, or aggregated mode (the main cluster's
// kube-controller-manager collects our kinds there).
func (s *Server) garbageCollector() *garbagecollector.GarbageCollector {
	if s.cfg.NoGarbageCollector || s.cfg.Aggregated {
		return nil
	}
	s.mu.Lock()
	collections := slices.Clone(s.collections)
	s.mu.Unlock()
	var events garbagecollector.EventStore
	for _, c := range collections {
		if i := c.Info(); i.Group == "" && i.Plural == "events" {
			events, _ = c.(garbagecollector.EventStore)
		}
	}
	gc := garbagecollector.New(collections, garbagecollector.Options{
		Logger: s.log, Workers: s.cfg.GarbageCollectorWorkers, Registerer: s.metrics.Registry(), Events: events,
	})
	s.mu.Lock()
	s.gc = gc
	s.mu.Unlock()
	return gc
}

// GarbageCollector returns the running garbage collector, nil in
// aggregated mode, with garbage collection off, or before Run.
func (s *Server) GarbageCollector() *garbagecollector.GarbageCollector {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gc
}
