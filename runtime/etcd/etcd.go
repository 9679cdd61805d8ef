// Package etcd starts an embedded etcd server and builds clients for
// external etcd clusters.
package etcd

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/logutil"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/kubeforge/kubeforge/runtime/pki"
)

const (
	// DefaultStartTimeout bounds how long StartEmbedded waits for etcd to
	// become ready.
	DefaultStartTimeout = 60 * time.Second
	// DefaultQuotaBackendBytes is etcd's own default quota (2 GiB).
	DefaultQuotaBackendBytes = 2 << 30
	// DefaultDialTimeout is the client dial timeout.
	DefaultDialTimeout = 10 * time.Second
	// DefaultKeepAliveTime and DefaultKeepAliveTimeout are the client's
	// gRPC keepalive settings (those of kube-apiserver).
	DefaultKeepAliveTime    = 30 * time.Second
	DefaultKeepAliveTimeout = 10 * time.Second
)

type options struct {
	pkiDir           string
	socket           string
	maxRequestBytes  int
	logLevel         string
	startTimeout     time.Duration
	quota            int64
	unsafeNoFsync    bool
	progressInterval time.Duration
}

// Option tunes StartEmbedded.
type Option func(*options)

// WithLogLevel sets etcd's zap log level (debug, info, warn, error); the
// default is "error".
func WithLogLevel(level string) Option { return func(o *options) { o.logLevel = level } }

// WithStartTimeout bounds the wait for readiness (default 60 s).
func WithStartTimeout(d time.Duration) Option { return func(o *options) { o.startTimeout = d } }

// WithQuotaBackendBytes sets the backend quota (default 2 GiB).
func WithQuotaBackendBytes(n int64) Option { return func(o *options) { o.quota = n } }

// WithUnsafeNoFsync disables fsync: for tests and benchmarks only, since a
// crash may lose acknowledged writes.
func WithUnsafeNoFsync() Option { return func(o *options) { o.unsafeNoFsync = true } }

// WithWatchProgressNotifyInterval sets how often etcd sends progress
// notifications to watchers that asked for them (default 5 s).
func WithWatchProgressNotifyInterval(d time.Duration) Option {
	return func(o *options) { o.progressInterval = d }
}

// WithTLS serves clients and the peer port over TLS with client
// certificate authentication, with a CA and certificates kept in pkiDir
// (created on first start, reused after): only holders of a certificate
// that CA signed, the server's own client first, reach the data. Without
// it etcd speaks plain HTTP on loopback, for tests and benchmarks.
func WithTLS(pkiDir string) Option { return func(o *options) { o.pkiDir = pkiDir } }

// WithMaxRequestBytes sets etcd's --max-request-bytes (default 1.5 MiB,
// etcd's own); the apiserver refuses larger writes with 413 before
// sending them (storage.BackendOptions.MaxRequestBytes).
func WithMaxRequestBytes(n int) Option { return func(o *options) { o.maxRequestBytes = n } }

// WithClientSocket serves clients on a unix socket at path (mode 0600)
// instead of a loopback port: only the server's user reaches it, the same
// boundary as the data directory, without TLS's cost on every request.
// The peer port stays on loopback (with TLS under WithTLS). A path too
// long for a socket address falls back to the loopback port.
func WithClientSocket(path string) Option { return func(o *options) { o.socket = path } }

// maxSocketPath is the longest unix socket path Linux accepts (108 bytes
// with the terminating NUL).
const maxSocketPath = 107

// TLSFiles are the PEM files of a TLS client of etcd (kube-apiserver's
// --etcd-cafile, --etcd-certfile and --etcd-keyfile).
type TLSFiles struct {
	CAFile, CertFile, KeyFile string
}

// Config returns the client TLS configuration, nil when f is empty.
func (f TLSFiles) Config() (*tls.Config, error) {
	if f == (TLSFiles{}) {
		return nil, nil
	}
	if (f.CertFile == "") != (f.KeyFile == "") {
		return nil, errors.New("etcd client certificate and key must be given together")
	}
	info := transport.TLSInfo{CertFile: f.CertFile, KeyFile: f.KeyFile, TrustedCAFile: f.CAFile}
	c, err := info.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("load etcd client TLS files: %w", err)
	}
	return c, nil
}

// Embedded is a running single-member etcd on loopback.
type Embedded struct {
	etcd      *embed.Etcd
	client    *clientv3.Client
	endpoints []string
	clientTLS TLSFiles
	closing   *atomic.Bool
	closed    atomic.Bool
}

// StartEmbedded starts etcd with its data in dataDir, listening on free
// loopback ports, and waits until it serves requests.
func StartEmbedded(ctx context.Context, dataDir string, opts ...Option) (*Embedded, error) {
	o := options{logLevel: "error", startTimeout: DefaultStartTimeout, quota: DefaultQuotaBackendBytes, progressInterval: 5 * time.Second}
	for _, opt := range opts {
		opt(&o)
	}
	if o.socket != "" {
		abs, err := filepath.Abs(o.socket)
		if err != nil {
			return nil, fmt.Errorf("start embedded etcd: socket path: %w", err)
		}
		o.socket = abs
	}
	var lastErr error
	// Free ports are found by binding and releasing them; another process
	// may grab one in between, so retry a few times.
	for attempt := 0; attempt < 3; attempt++ {
		e, err := startOnce(ctx, dataDir, o)
		if err == nil {
			return e, nil
		}
		lastErr = err
		if ctx.Err() != nil || !isAddrInUse(err) {
			break
		}
	}
	return nil, fmt.Errorf("start embedded etcd in %s: %w", dataDir, lastErr)
}

func isAddrInUse(err error) bool {
	return err != nil && strings.Contains(err.Error(), "address already in use")
}

func freeLoopbackURL(scheme string) (url.URL, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return url.URL{}, fmt.Errorf("find free loopback port: %w", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return url.URL{}, fmt.Errorf("release loopback port %s: %w", addr, err)
	}
	return url.URL{Scheme: scheme, Host: addr}, nil
}

func startOnce(ctx context.Context, dataDir string, o options) (*Embedded, error) {
	scheme := "http"
	var clientTLS TLSFiles
	cfg := embed.NewConfig()
	if o.pkiDir != "" {
		scheme = "https"
		server, client, err := ensurePKI(o.pkiDir)
		if err != nil {
			return nil, err
		}
		info := transport.TLSInfo{CertFile: server.CertFile, KeyFile: server.KeyFile, TrustedCAFile: server.CAFile, ClientCertAuth: true}
		cfg.PeerTLSInfo = info
		if !useSocket(o.socket) {
			clientTLS = client
			cfg.ClientTLSInfo = info
		}
	}
	var clientURL url.URL
	if useSocket(o.socket) {
		// A socket left by a killed process would fail the listen; one
		// that answers belongs to a server running on this data dir.
		if c, err := net.DialTimeout("unix", o.socket, time.Second); err == nil {
			c.Close()
			return nil, fmt.Errorf("etcd socket %s is in use: another server runs on this data dir", o.socket)
		}
		if err := os.Remove(o.socket); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("remove stale etcd socket: %w", err)
		}
		clientURL = url.URL{Scheme: "unix", Path: o.socket}
	} else {
		var err error
		if clientURL, err = freeLoopbackURL(scheme); err != nil {
			return nil, err
		}
	}
	peerURL, err := freeLoopbackURL(scheme)
	if err != nil {
		return nil, err
	}
	cfg.Name = "kubeforge"
	cfg.Dir = dataDir
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = []url.URL{peerURL}
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.Logger = "zap"
	cfg.LogLevel = o.logLevel
	cfg.LogOutputs = []string{"stderr"}
	closing := new(atomic.Bool)
	lg, err := newLogger(o.logLevel, closing)
	if err != nil {
		return nil, fmt.Errorf("build etcd logger: %w", err)
	}
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(lg)
	// The raft log is kept in memory, in this process, until a snapshot
	// compacts it: etcd's defaults (a snapshot every 10,000 writes, 5,000
	// entries kept) hold thousands of whole objects. A single member has
	// no follower to catch up, and its snapshot is small (the data is in
	// the backend), so snapshot often and keep few entries.
	cfg.SnapshotCount = 1000
	cfg.SnapshotCatchUpEntries = 100
	cfg.QuotaBackendBytes = o.quota
	if o.maxRequestBytes > 0 {
		cfg.MaxRequestBytes = uint(o.maxRequestBytes)
	}
	cfg.UnsafeNoFsync = o.unsafeNoFsync
	cfg.WatchProgressNotifyInterval = o.progressInterval
	// The apiserver compacts on its own schedule (Backend.RunCompactor).
	cfg.AutoCompactionRetention = "0"
	cfg.EnableGRPCGateway = false
	cfg.Metrics = "basic"

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, err
	}
	timer := time.NewTimer(o.startTimeout)
	defer timer.Stop()
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		closing.Store(true)
		e.Close()
		if err == nil {
			err = errors.New("etcd stopped during start-up")
		}
		return nil, err
	case <-timer.C:
		e.Close()
		return nil, fmt.Errorf("etcd not ready after %s", o.startTimeout)
	case <-ctx.Done():
		e.Close()
		return nil, ctx.Err()
	}
	if clientURL.Scheme == "unix" {
		if err := os.Chmod(clientURL.Path, 0o600); err != nil {
			e.Close()
			return nil, fmt.Errorf("restrict etcd socket: %w", err)
		}
	}
	endpoints := []string{clientURL.String()}
	client, err := NewClient(endpoints, clientTLS)
	if err != nil {
		e.Close()
		return nil, err
	}
	return &Embedded{etcd: e, client: client, endpoints: endpoints, clientTLS: clientTLS, closing: closing}, nil
}

// Client returns a client connected to the embedded server; Close closes it.
func (e *Embedded) Client() *clientv3.Client { return e.client }

// Endpoints returns the client URLs.
func (e *Embedded) Endpoints() []string { return append([]string(nil), e.endpoints...) }

// ClientTLS returns the files another client (a second apiserver replica,
// a benchmark) connects with; empty without WithTLS.
func (e *Embedded) ClientTLS() TLSFiles { return e.clientTLS }

// Close closes the client and stops the server, waiting for it to finish;
// later calls do nothing.
func (e *Embedded) Close() error {
	if !e.closed.CompareAndSwap(false, true) {
		return nil // closed already
	}
	var errs []error
	if e.client != nil {
		if err := e.client.Close(); err != nil && !errors.Is(err, context.Canceled) {
			errs = append(errs, fmt.Errorf("close etcd client: %w", err))
		}
	}
	e.closing.Store(true)
	e.etcd.Close()
	select {
	case <-e.etcd.Server.StopNotify():
	case <-time.After(30 * time.Second):
		errs = append(errs, errors.New("stop embedded etcd: timed out"))
	}
	return errors.Join(errs...)
}

// NewClient connects to an external etcd cluster (--etcd-servers), over
// TLS when files names any (https endpoints).
func NewClient(endpoints []string, files TLSFiles) (*clientv3.Client, error) {
	if len(endpoints) == 0 {
		return nil, errors.New("create etcd client: no endpoints")
	}
	tlsConfig, err := files.Config()
	if err != nil {
		return nil, fmt.Errorf("create etcd client: %w", err)
	}
	c, err := clientv3.New(clientv3.Config{
		TLS: tlsConfig,
		// gRPC's default reconnect backoff grows to two minutes: after an
		// outage the first request would wait for it. Retry within a
		// second or two instead, as etcd comes back.
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
			MinConnectTimeout: 2 * time.Second,
		})},
		Endpoints:            endpoints,
		DialTimeout:          DefaultDialTimeout,
		DialKeepAliveTime:    DefaultKeepAliveTime,
		DialKeepAliveTimeout: DefaultKeepAliveTimeout,
		PermitWithoutStream:  true,
		// Above any etcd request limit the apiserver would send (it checks
		// its writes against --etcd-max-request-bytes itself).
		MaxCallSendMsgSize: 64 * 1024 * 1024,
		MaxCallRecvMsgSize: 0,
	})
	if err != nil {
		return nil, fmt.Errorf("create etcd client for %s: %w", strings.Join(endpoints, ","), err)
	}
	return c, nil
}

// newLogger is etcd's own default zap logger (JSON on stderr at level),
// except that once closing is set it drops the "serving failed" errors
// every listener reports when a clean Close shuts it: they carry stack
// traces and alarm users on each normal shutdown.
func newLogger(level string, closing *atomic.Bool) (*zap.Logger, error) {
	zc := logutil.DefaultZapLoggerConfig
	zc.OutputPaths = []string{"stderr"}
	zc.ErrorOutputPaths = []string{"stderr"}
	zc.Level = zap.NewAtomicLevelAt(logutil.ConvertToZapLevel(level))
	return zc.Build(zap.WrapCore(func(c zapcore.Core) zapcore.Core {
		return quietOnClose{Core: c, closing: closing}
	}))
}

// servingFailed is the message of etcd's errHandler for a listener that
// stopped serving.
const servingFailed = "setting up serving from embedded etcd failed."

type quietOnClose struct {
	zapcore.Core
	closing *atomic.Bool
}

func (q quietOnClose) With(fields []zapcore.Field) zapcore.Core {
	return quietOnClose{Core: q.Core.With(fields), closing: q.closing}
}

func (q quietOnClose) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if e.Message == servingFailed && q.closing.Load() {
		return ce
	}
	return q.Core.Check(e, ce)
}

// ensurePKI keeps etcd's own CA in dir, separate from the apiserver's so
// that no apiserver client certificate reaches etcd, with the member's
// serving and peer certificate and the apiserver's client certificate.
func ensurePKI(dir string) (server, client TLSFiles, err error) {
	ca, err := pki.EnsureCA(dir)
	if err != nil {
		return server, client, fmt.Errorf("etcd CA: %w", err)
	}
	if _, err := pki.Peer(dir, "server", ca, []string{"127.0.0.1", "localhost"}); err != nil {
		return server, client, fmt.Errorf("etcd serving certificate: %w", err)
	}
	if _, err := pki.Client(dir, "apiserver-etcd-client", ca, "kubeforge-apiserver-etcd-client", nil); err != nil {
		return server, client, fmt.Errorf("etcd client certificate: %w", err)
	}
	caFile := filepath.Join(dir, "ca.crt")
	server = TLSFiles{CAFile: caFile, CertFile: filepath.Join(dir, "server.crt"), KeyFile: filepath.Join(dir, "server.key")}
	client = TLSFiles{CAFile: caFile, CertFile: filepath.Join(dir, "apiserver-etcd-client.crt"), KeyFile: filepath.Join(dir, "apiserver-etcd-client.key")}
	return server, client, nil
}

func useSocket(path string) bool { return path != "" && len(path) <= maxSocketPath }
