package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/kubeforge/kubeforge/runtime/garbagecollector"
	"github.com/kubeforge/kubeforge/runtime/namespaces"
	"github.com/kubeforge/kubeforge/runtime/rbac"
	"github.com/kubeforge/kubeforge/runtime/resource"
)

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
// returns nil after a clean shutdown. Once listening it runs the start-up
// steps (startsteps.go) in order; when all are done it writes
// DataDir/admin.kubeconfig and logs one "ready" line.
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
		for _, gv := range groups {
			if gv.Group == "" && gv.Version == "v1" {
				addNamespaceFinalize(gv.WebService, s.lifecycle)
			}
		}
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
	// The steps are fixed before serving: /readyz lists them from the start.
	s.steps = s.startSteps()
	st := newStarter(groups)
	defer st.stop()
	sv, err := s.listen(ctx, handler)
	if err != nil {
		return fmt.Errorf("run apiserver: %w", err)
	}
	// On any return the listener closes first, then the workers stop
	// (st.stop), then etcd (Close).
	defer sv.close()
	st.serveErr = sv.serveErr
	for _, step := range s.steps {
		if err := step.start(ctx, st); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("run apiserver: %w", err)
		}
		step.done.Store(true)
	}
	url := hostURL(sv.scheme, s.cfg.BindAddress, sv.port)
	if err := writeKubeconfig(s.KubeconfigPath(), url, s.sec); err != nil {
		return fmt.Errorf("run apiserver: %w", err)
	}
	s.mu.Lock()
	s.url = url
	s.mu.Unlock()
	close(s.ready)
	s.log.Info(fmt.Sprintf("kubeforge apiserver ready: export KUBECONFIG=%s; kubectl api-resources", s.KubeconfigPath()), "url", url)

	select {
	case <-ctx.Done():
	case err := <-sv.serveErr:
		return fmt.Errorf("run apiserver: serve: %w", err)
	}
	s.log.Info("kubeforge apiserver shutting down")
	// Readyz fails and watches end from here.
	s.stopOnce.Do(func() { close(s.stopCh) })
	sv.shutdown(s.cfg.ShutdownTimeout, s.log)
	return nil
}

// serving is the HTTP server Run listens with.
type serving struct {
	srv      *http.Server
	serveErr chan error
	port     int
	scheme   string
	// cancelBase ends the requests still running when the drain gives up.
	cancelBase context.CancelFunc
}

// listen listens on the bind address, tells discovery the advertised
// address and serves handler (HTTPS and HTTP/2 unless PlainHTTP).
func (s *Server) listen(ctx context.Context, handler http.Handler) (*serving, error) {
	addr := net.JoinHostPort(s.cfg.BindAddress, strconv.Itoa(s.cfg.Port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	external := net.JoinHostPort(s.advertiseAddress(), strconv.Itoa(port))
	if err := s.discovery.SetServerAddress(external); err != nil {
		_ = ln.Close()
		return nil, err
	}
	if s.oidc != nil && s.cfg.ServiceAccountJWKSURI == "" {
		if err := s.oidc.SetExternalAddress(external); err != nil {
			_ = ln.Close()
			return nil, err
		}
	}
	baseCtx, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	sv := &serving{port: port, scheme: "http", serveErr: make(chan error, 1), cancelBase: cancelBase}
	sv.srv = &http.Server{
		Handler:           handler,
		BaseContext:       func(net.Listener) context.Context { return baseCtx },
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       90 * time.Second,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	if s.sec == nil {
		go func() { sv.serveErr <- sv.srv.Serve(ln) }()
		return sv, nil
	}
	sv.scheme = "https"
	sv.srv.TLSConfig = s.tlsConfig()
	if err := serveHTTP2(sv.srv, s.isFrontProxy); err != nil {
		_ = ln.Close()
		cancelBase()
		return nil, err
	}
	go func() { sv.serveErr <- sv.srv.ServeTLS(ln, "", "") }()
	return sv, nil
}

// close stops listening and ends the requests still running; after
// shutdown it changes nothing.
func (sv *serving) close() {
	sv.cancelBase()
	_ = sv.srv.Close()
}

// shutdown stops listening and drains the requests in flight for up to
// timeout, then ends those left.
func (sv *serving) shutdown(timeout time.Duration, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := sv.srv.Shutdown(ctx); err != nil {
		log.Warn("in-flight requests did not finish in time; closing connections", "timeout", timeout, "err", err)
		sv.cancelBase()
		_ = sv.srv.Close()
	}
	<-sv.serveErr
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
	if s.eventStore != nil {
		events = s.eventStore
	}
	gc := garbagecollector.New(collections, garbagecollector.Options{
		Logger: s.log, Workers: s.cfg.GarbageCollectorWorkers, Registerer: s.metrics.Registry(), Events: events,
	})
	s.mu.Lock()
	s.gc = gc
	s.mu.Unlock()
	return gc
}
