// Package server assembles the kubeforge API server: embedded or external
// etcd, the storage backend, the filter chain, discovery, OpenAPI, health,
// version and metrics, and the generated resource routes.
//
// # The API generated code targets
//
// Per group-version the install generator writes an Install function that
// builds one go-restful WebService and registers it:
//
//	func Install(s *server.Server) error {
//		ws := server.NewWebService(GroupName, "v1") // root /apis/<group>/<version>
//		h := endpoints.NewHandler(storage.NewStore(s.Backend(), ShipmentStrategy), ShipmentStrategy, s.EndpointOptions())
//		InstallShipmentRoutes(ws, h)
//		return s.AddGroupVersion(server.GroupVersion{
//			Group:      GroupName,
//			Version:    "v1",
//			Resources:  Resources,        // []*resource.Info
//			WebService: ws,
//			Schemas:    OpenAPISchemas(), // map[string]json.RawMessage, refs "#/components/schemas/<name>"
//		})
//	}
//
// The exported surface is:
//
//   - NewWebService(group, version string) *restful.WebService: a WebService
//     rooted at /apis/<group>/<version> (/api/<version> for the core group
//     "") that consumes and produces JSON and YAML. Routes may override
//     Consumes (PATCH routes list the patch content types).
//   - (*Server).Backend() *storage.Backend: the shared etcd backend.
//   - (*Server).EndpointOptions() endpoints.Options: the options every
//     handler takes (metrics hook, shutdown signal for watches, limits).
//   - (*Server).AddGroupVersion(GroupVersion) error: registers a
//     group-version for routing, discovery and OpenAPI, and adds its
//     Schemas to the server-side apply field managers (handlers look
//     theirs up by group-version-kind on first use, so building handlers
//     before AddGroupVersion is fine). Call it before Run; a group-version
//     may be added once.
//   - (*Server).AddCollection(storage.Collection) error: registers the hub
//     store of a resource (generated.Install calls it for every hub store).
//     Namespaced collections are emptied when their namespace is deleted;
//     the core/v1 namespaces store (a *storage.Store of *corev1.Namespace)
//     turns on the namespace lifecycle (package runtime/namespaces):
//     default, kube-system and kube-public are created at start-up,
//     creates in a missing namespace are 404 and in a terminating one 403,
//     and a namespace controller empties and removes deleted namespaces.
//     Call it before Run.
//
// Route metadata that feeds OpenAPI (group-version-kind, action, request and
// response schema names) is described in package runtime/openapi.
//
// main builds the server with New, calls the generated Install, then Run.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	restful "github.com/emicklei/go-restful/v3"
	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforge/kubeforge/runtime/admission"
	"github.com/kubeforge/kubeforge/runtime/audit"
	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/builtinkinds"
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
	"github.com/kubeforge/kubeforge/runtime/serviceaccount"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// Media types the generated WebServices consume and produce.
const (
	MediaTypeJSON = "application/json"
	MediaTypeYAML = "application/yaml"
)

// GroupVersion is what one generated Install registers.
type GroupVersion struct {
	// Group is the API group ("" for the core group served under /api).
	Group string
	// Version is the API version, e.g. "v1".
	Version string
	// Resources is the generated resource table of the group-version.
	Resources []*resource.Info
	// WebService holds the generated routes; build it with NewWebService.
	WebService *restful.WebService
	// Schemas are the OpenAPI v3 component schemas of the group-version by
	// name, with refs of the form "#/components/schemas/<name>". They also
	// type server-side apply: list-map keys and sets come from
	// x-kubernetes-list-type and x-kubernetes-list-map-keys.
	Schemas map[string]json.RawMessage
}

// String is "<group>/<version>" ("<version>" for the core group).
func (gv GroupVersion) String() string {
	if gv.Group == "" {
		return gv.Version
	}
	return gv.Group + "/" + gv.Version
}

// RootPath is where the group-version is served: /apis/<group>/<version>,
// or /api/<version> for the core group.
func RootPath(group, version string) string {
	if group == "" {
		return path.Join("/api", version)
	}
	return path.Join("/apis", group, version)
}

// NewWebService returns a WebService rooted at RootPath(group, version)
// that consumes JSON, YAML and Kubernetes protobuf (decoded by the handlers
// for kinds with generated protobuf methods, a 415 for the others) and
// produces JSON and YAML.
func NewWebService(group, version string) *restful.WebService {
	ws := new(restful.WebService)
	ws.Path(RootPath(group, version)).
		Consumes(MediaTypeJSON, MediaTypeYAML, endpoints.MediaTypeProtobuf).
		Produces(MediaTypeJSON, MediaTypeYAML).
		ApiVersion(GroupVersion{Group: group, Version: version}.String())
	return ws
}

func (gv GroupVersion) validate() error {
	if gv.Version == "" {
		return fmt.Errorf("add group-version %q: empty version", gv.String())
	}
	if gv.WebService == nil {
		return fmt.Errorf("add group-version %q: nil WebService", gv.String())
	}
	if want := RootPath(gv.Group, gv.Version); gv.WebService.RootPath() != want {
		return fmt.Errorf("add group-version %q: WebService root path is %q, want %q", gv.String(), gv.WebService.RootPath(), want)
	}
	for i, r := range gv.Resources {
		if r == nil {
			return fmt.Errorf("add group-version %q: resource %d is nil", gv.String(), i)
		}
		if r.Group != gv.Group || r.Version != gv.Version {
			return fmt.Errorf("add group-version %q: resource %q is in %s/%s", gv.String(), r.Plural, r.Group, r.Version)
		}
	}
	return nil
}

// Server is one apiserver replica. Build it with New, register generated
// group-versions with AddGroupVersion, then call Run.
type Server struct {
	cfg Config
	log *slog.Logger

	// discovery serves /api and /apis; Run tells it the advertised address.
	discovery *discovery.Handler
	// oidc serves ServiceAccount issuer discovery when the server issues
	// tokens under an https issuer; Run tells it the advertised address.
	oidc *serviceaccount.Discovery

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
	// eventStore is core/v1 events, where the garbage collector reports.
	eventStore builtinkinds.Store[*corev1.Event, *corev1.EventList]
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
	// steps are the start-up steps of Run (startsteps.go), fixed before
	// it serves; /readyz reports each.
	steps []*startStep
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

// eventTTL gives core events and events.k8s.io events their time to live.
// The store asks with its own resource (storage.Backend TTL), the stored
// one: events.k8s.io events stored as core events (the generated install)
// are core events here, written through either group; the events.k8s.io
// entry covers a server that stores them on their own.
func eventTTL(ttl time.Duration) func(schema.GroupResource) time.Duration {
	return func(gr schema.GroupResource) time.Duration {
		if ttl <= 0 || !builtinkinds.Expires(gr) {
			return 0
		}
		return ttl
	}
}

// GarbageCollector returns the running garbage collector, nil in
// aggregated mode, with garbage collection off, or before Run.
func (s *Server) GarbageCollector() *garbagecollector.GarbageCollector {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gc
}
