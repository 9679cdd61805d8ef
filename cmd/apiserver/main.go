// Command apiserver serves the generated API groups on embedded (or
// external) etcd.
//
//	go run ./cmd/apiserver                       # data in ./.data/apiserver, https on port 6443
//	go run ./cmd/apiserver --port 0 --data-dir /tmp/kf
//	go run ./cmd/apiserver --mode aggregated --kubeconfig ~/.kube/config   # behind kube-apiserver
//	go run ./cmd/apiserver certs --dir deploy/certs --service S --namespace N
//
// It serves HTTPS with a CA and certificates it generates in <data-dir>/pki,
// authenticates every request and authorizes it with RBAC. Once ready it
// writes <data-dir>/admin.kubeconfig (the CA and an admin client
// certificate in system:masters). SIGINT or SIGTERM shut it down gracefully
// (exit status 0).
package main

import (
	"context"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/kubeforge/kubeforge/runtime/authn"
	"github.com/kubeforge/kubeforge/runtime/server"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "certs" {
		return runCerts(args[1:], stderr)
	}
	fs := flag.NewFlagSet("apiserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data-dir", ".data/apiserver", "directory for the embedded etcd data and admin.kubeconfig")
	bind := fs.String("bind-address", server.DefaultBindAddress, "IP address to listen on")
	port := fs.Int("secure-port", server.DefaultPort, "HTTPS port to listen on (0 picks a free port)")
	fs.IntVar(port, "port", server.DefaultPort, "alias of --secure-port")
	plainHTTP := fs.Bool("insecure-plain-http-no-auth", false, "DANGEROUS, local debugging only: serve plain HTTP with no TLS, no authentication and no authorization; every request is an administrator")
	tlsCert := fs.String("tls-cert-file", "", "serving certificate (PEM); default: one signed by the generated CA in <data-dir>/pki")
	tlsKey := fs.String("tls-private-key-file", "", "key of --tls-cert-file")
	var tlsSANs stringList
	fs.Var(&tlsSANs, "tls-san", "extra DNS name or IP address of the generated serving certificate (repeatable, or comma-separated)")
	clientCA := fs.String("client-ca-file", "", "CA bundle verifying client certificates (CN is the user, O the groups), besides the generated CA")
	tokenFile := fs.String("token-auth-file", "", "static bearer tokens, kube's CSV format: token,user,uid[,\"group1,group2\"]")
	anonymous := fs.Bool("anonymous-auth", true, "serve requests without credentials as system:anonymous (group system:unauthenticated), allowed only what RBAC grants them; false answers them 401")
	saIssuer := fs.String("service-account-issuer", "", "iss claim of ServiceAccount tokens (default https://kubernetes.default.svc.cluster.local)")
	saSigningKey := fs.String("service-account-signing-key-file", "", "PEM private key (RSA or ECDSA P-256) signing ServiceAccount tokens; default <data-dir>/pki/sa.key, generated")
	var saKeys, audiences stringList
	fs.Var(&saKeys, "service-account-key-file", "PEM keys ServiceAccount tokens are also verified with (repeatable)")
	fs.Var(&audiences, "api-audiences", "audiences a ServiceAccount token must name one of (default: the issuer)")
	advertise := fs.String("advertise-address", "", "the IP address clients are told to reach the server at (/api serverAddressByClientCIDRs); default: --bind-address, or the host's default interface address when that is 0.0.0.0 or ::")
	authzMode := fs.String("authorization-mode", server.AuthorizationRBAC, "RBAC or AlwaysAllow")
	etcdServers := fs.String("etcd-servers", "", "comma-separated etcd endpoints; when set, no embedded etcd is started")
	etcdPrefix := fs.String("etcd-prefix", server.DefaultEtcdPrefix, "etcd key prefix")
	etcdCA := fs.String("etcd-cafile", "", "CA bundle verifying the --etcd-servers (https endpoints)")
	etcdCert := fs.String("etcd-certfile", "", "client certificate the server authenticates to --etcd-servers with")
	etcdKey := fs.String("etcd-keyfile", "", "key of --etcd-certfile")
	etcdMaxRequest := fs.Int("etcd-max-request-bytes", 1536*1024, "the largest request etcd accepts (etcd's --max-request-bytes): the embedded etcd uses it, and larger writes are refused with 413; set it to an external cluster's value")
	etcdQuota := fs.Int64("etcd-quota-backend-bytes", 2<<30, "the embedded etcd's database quota (etcd's --quota-backend-bytes), lowered at start to fit the free disk space: past it writes get 507 and reads go on")
	encryptionConfig := fs.String("encryption-provider-config", "", "kube's EncryptionConfiguration file: encrypt the resources it lists at rest (aesgcm, aescbc, secretbox, identity)")
	maxReadOnly := fs.Int("max-requests-inflight", server.DefaultMaxReadOnlyInFlight, "the most read-only requests served at once (watches are not counted); more get 429")
	maxMutating := fs.Int("max-mutating-requests-inflight", server.DefaultMaxMutatingInFlight, "the most mutating requests served at once; more get 429")
	requestTimeout := fs.Duration("request-timeout", server.DefaultRequestTimeout, "the longest a request but a watch may take (504 after), and the longest a request body may take to arrive (408 after)")
	minRequestTimeout := fs.Duration("min-request-timeout", server.DefaultMinRequestTimeout, "a watch without timeoutSeconds lasts a random time between this and twice this")
	auditPath := fs.String("audit-log-path", "", "write the audit log (audit.k8s.io/v1 Events as JSON lines) to this file; \"-\" is standard output; off when empty")
	auditPolicy := fs.String("audit-policy-file", "", "audit policy (kube's audit.k8s.io/v1 Policy); default: every request at Metadata level")
	auditMaxSize := fs.Int("audit-log-maxsize", 100, "rotate the audit log when it reaches this many megabytes")
	auditMaxBackup := fs.Int("audit-log-maxbackup", 10, "rotated audit logs to keep (0: all; kube-apiserver's default is all, here 10 bound the disk a flood of requests can fill)")
	auditMaxAge := fs.Int("audit-log-maxage", 0, "days to keep rotated audit logs (0: no limit)")
	verbose := fs.Bool("v", false, "log every request (debug level)")
	memLimit := fs.Int64("memory-limit-mib", defaultMemoryLimitMiB, "soft Go memory limit in MiB (runtime/debug.SetMemoryLimit), raised to 1.5 times the live heap when that is larger (a large watch cache): the GC works harder as the heap nears it, which keeps large lists from inflating RSS; 0 disables it; the GOMEMLIMIT environment variable, when set, wins")
	watchCache := fs.Bool("watch-cache", true, "serve watches, and lists and gets whose resourceVersion allows it, from an in-memory copy of each resource fed by one etcd watch; false reads etcd every time")
	enableGC := fs.Bool("enable-garbage-collector", true, "garbage collection through ownerReferences: deletes honour propagationPolicy (orphan and foregroundDeletion finalizers) and, in standalone mode, the server's garbage collector deletes dependents whose owners are gone (in aggregated mode the main cluster's kube-controller-manager does)")
	gcWorkers := fs.Int("concurrent-gc-syncs", 10, "garbage collector workers deleting dependents at once")
	watchCacheEvents := fs.Int("watch-cache-events", storage.DefaultWatchCacheEvents, "the most recent events per resource a watch can resume from without etcd")
	watchCacheBytes := fs.Int("watch-cache-bytes", storage.DefaultWatchCacheBytes, "the most stored bytes of recent events kept per resource for resuming watches")
	eventTTL := fs.Duration("event-ttl", server.DefaultEventTTL, "how long events (core and events.k8s.io) are kept; each write attaches them to an etcd lease")
	mode := fs.String("mode", "standalone", "standalone: the server authenticates and authorizes itself and serves namespaces; aggregated: it runs behind kube-apiserver as an APIService, which authenticates (front-proxy headers, TokenReview), authorizes (SubjectAccessReview) and owns namespaces")
	kubeconfig := fs.String("kubeconfig", "", "aggregated mode: kubeconfig of the main cluster (empty: the in-cluster ServiceAccount)")
	rhCA := fs.String("requestheader-client-ca-file", "", "CA bundle verifying the front proxy's client certificate, whose request headers then name the user; in aggregated mode default: the main cluster's extension-apiserver-authentication ConfigMap")
	var rhNames, rhUser, rhUID, rhGroup, rhExtra stringList
	fs.Var(&rhNames, "requestheader-allowed-names", "common names the front proxy's certificate may have (empty: any the CA signed)")
	fs.Var(&rhUser, "requestheader-username-headers", "headers holding the user name (default X-Remote-User)")
	fs.Var(&rhUID, "requestheader-uid-headers", "headers holding the user's UID (none by default; X-Remote-Uid is usual)")
	fs.Var(&rhGroup, "requestheader-group-headers", "headers holding the user's groups (default X-Remote-Group)")
	fs.Var(&rhExtra, "requestheader-extra-headers-prefix", "prefixes of the headers holding the user's extra values (default X-Remote-Extra-)")
	tokenTTL := fs.Duration("authentication-token-webhook-cache-ttl", 10*time.Second, "aggregated mode: how long a TokenReview answer is remembered")
	allowedTTL := fs.Duration("authorization-webhook-cache-authorized-ttl", 10*time.Second, "aggregated mode: how long an allowed SubjectAccessReview answer is remembered")
	deniedTTL := fs.Duration("authorization-webhook-cache-unauthorized-ttl", 10*time.Second, "aggregated mode: how long a denied SubjectAccessReview answer is remembered")
	profiling := fs.String("profiling-address", "", "serve net/http/pprof on this address (for example 127.0.0.1:6060); off when empty; loopback only unless --profiling-allow-remote")
	profilingRemote := fs.Bool("profiling-allow-remote", false, "allow --profiling-address on a non-loopback address: pprof has no authentication, and its profiles show request contents")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if *memLimit < 0 {
		fmt.Fprintf(stderr, "apiserver: --memory-limit-mib must not be negative\n")
		return 2
	}
	followHeap := *memLimit > 0 && os.Getenv("GOMEMLIMIT") == ""
	if followHeap {
		debug.SetMemoryLimit(*memLimit << 20)
	}
	if *profiling != "" {
		if err := checkProfilingAddress(*profiling, *profilingRemote); err != nil {
			fmt.Fprintf(stderr, "apiserver: %v\n", err)
			return 2
		}
		stopProfiling, err := serveProfiling(*profiling, log)
		if err != nil {
			fmt.Fprintf(stderr, "apiserver: %v\n", err)
			return 1
		}
		defer stopProfiling()
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if followHeap {
		go followLiveHeap(ctx, *memLimit<<20)
	}

	cfg := server.Config{
		BindAddress:      *bind,
		AdvertiseAddress: *advertise,
		Port:             *port,
		DataDir:          *dataDir,
		EtcdPrefix:       *etcdPrefix,

		EtcdCAFile:               *etcdCA,
		EtcdCertFile:             *etcdCert,
		EtcdKeyFile:              *etcdKey,
		EncryptionProviderConfig: *encryptionConfig,
		EtcdMaxRequestBytes:      *etcdMaxRequest,
		EtcdQuotaBackendBytes:    *etcdQuota,

		AuditLogPath:       *auditPath,
		AuditPolicyFile:    *auditPolicy,
		AuditLogMaxSizeMB:  *auditMaxSize,
		AuditLogMaxBackups: *auditMaxBackup,
		AuditLogMaxAgeDays: *auditMaxAge,

		EventTTL: *eventTTL,

		NoWatchCache:            !*watchCache,
		NoGarbageCollector:      !*enableGC,
		GarbageCollectorWorkers: *gcWorkers,
		WatchCacheEvents:        *watchCacheEvents,
		WatchCacheBytes:         *watchCacheBytes,

		MaxReadOnlyInFlight: *maxReadOnly,
		MaxMutatingInFlight: *maxMutating,
		RequestTimeout:      *requestTimeout,
		MinRequestTimeout:   *minRequestTimeout,
		Logger:              log,

		PlainHTTP:            *plainHTTP,
		TLSCertFile:          *tlsCert,
		TLSKeyFile:           *tlsKey,
		TLSSANs:              tlsSANs,
		ClientCAFile:         *clientCA,
		TokenAuthFile:        *tokenFile,
		DisableAnonymousAuth: !*anonymous,
		AuthorizationMode:    *authzMode,

		ServiceAccountIssuer:         *saIssuer,
		ServiceAccountSigningKeyFile: *saSigningKey,
		ServiceAccountKeyFiles:       saKeys,
		APIAudiences:                 audiences,
	}
	switch *mode {
	case "standalone":
		if *kubeconfig != "" {
			fmt.Fprintf(stderr, "apiserver: --kubeconfig is for --mode=aggregated\n")
			return 2
		}
	case "aggregated":
		cfg.Aggregated = true
		cfg.Kubeconfig = *kubeconfig
		if *plainHTTP {
			fmt.Fprintf(stderr, "apiserver: --mode=aggregated needs TLS: drop --insecure-plain-http-no-auth\n")
			return 2
		}
	default:
		fmt.Fprintf(stderr, "apiserver: --mode %q: want standalone or aggregated\n", *mode)
		return 2
	}
	if *tokenTTL < 0 || *allowedTTL < 0 || *deniedTTL < 0 {
		fmt.Fprintf(stderr, "apiserver: the webhook cache TTLs must not be negative\n")
		return 2
	}
	// 0 means no caching to the user, the default to Config.
	cfg.TokenCacheTTL, cfg.AllowedCacheTTL, cfg.DeniedCacheTTL = orNoCache(*tokenTTL), orNoCache(*allowedTTL), orNoCache(*deniedTTL)
	if *rhCA != "" {
		rh, err := requestHeader(*rhCA, rhNames, rhUser, rhUID, rhGroup, rhExtra)
		if err != nil {
			fmt.Fprintf(stderr, "apiserver: %v\n", err)
			return 2
		}
		cfg.RequestHeader = rh
	} else if len(rhNames)+len(rhUser)+len(rhUID)+len(rhGroup)+len(rhExtra) > 0 {
		fmt.Fprintf(stderr, "apiserver: the --requestheader-* flags need --requestheader-client-ca-file\n")
		return 2
	}
	if *eventTTL <= 0 {
		fmt.Fprintf(stderr, "apiserver: --event-ttl must be positive\n")
		return 2
	}
	if *maxReadOnly <= 0 || *maxMutating <= 0 || *requestTimeout <= 0 || *minRequestTimeout <= 0 {
		fmt.Fprintf(stderr, "apiserver: --max-requests-inflight, --max-mutating-requests-inflight, --request-timeout and --min-request-timeout must be positive\n")
		return 2
	}
	if ip := net.ParseIP(*advertise); *advertise != "" && (ip == nil || ip.IsUnspecified()) {
		fmt.Fprintf(stderr, "apiserver: --advertise-address %q is not a specific IP address\n", *advertise)
		return 2
	}
	if *auditPath == "" && *auditPolicy != "" {
		fmt.Fprintf(stderr, "apiserver: --audit-policy-file needs --audit-log-path\n")
		return 2
	}
	if *auditMaxSize <= 0 || *auditMaxBackup < 0 || *auditMaxAge < 0 {
		fmt.Fprintf(stderr, "apiserver: --audit-log-maxsize must be positive, --audit-log-maxbackup and --audit-log-maxage not negative\n")
		return 2
	}
	if *etcdServers == "" && (*etcdCA != "" || *etcdCert != "" || *etcdKey != "") {
		fmt.Fprintf(stderr, "apiserver: --etcd-cafile, --etcd-certfile and --etcd-keyfile need --etcd-servers (the embedded etcd has its own certificates in <data-dir>/pki/etcd)\n")
		return 2
	}
	if *etcdServers != "" {
		for _, e := range strings.Split(*etcdServers, ",") {
			if e = strings.TrimSpace(e); e != "" {
				cfg.EtcdServers = append(cfg.EtcdServers, e)
			}
		}
	}
	s, err := server.New(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "apiserver: %v\n", err)
		return 1
	}
	if err := install(s); err != nil {
		fmt.Fprintf(stderr, "apiserver: install API groups: %v\n", err)
		if cerr := s.Close(); cerr != nil {
			fmt.Fprintf(stderr, "apiserver: %v\n", cerr)
		}
		return 1
	}
	if err := s.Run(ctx); err != nil {
		fmt.Fprintf(stderr, "apiserver: %v\n", err)
		return 1
	}
	return 0
}

// orNoCache maps a TTL flag of 0 (no caching) to the smallest duration
// Config takes as "remember nothing"; Config's 0 is the default.
func orNoCache(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// requestHeader is the front proxy of the --requestheader-* flags.
func requestHeader(caFile string, names, user, uid, group, extra []string) (*authn.RequestHeader, error) {
	data, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("--requestheader-client-ca-file: %w", err)
	}
	rh := &authn.RequestHeader{
		CAs:                 x509.NewCertPool(),
		AllowedNames:        names,
		UsernameHeaders:     orDefault(user, authn.DefaultUsernameHeaders),
		UIDHeaders:          uid,
		GroupHeaders:        orDefault(group, authn.DefaultGroupHeaders),
		ExtraHeaderPrefixes: orDefault(extra, authn.DefaultExtraHeaderPrefixes),
	}
	if !rh.CAs.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("--requestheader-client-ca-file %s: no PEM certificates", caFile)
	}
	return rh, nil
}

func orDefault(v, def []string) []string {
	if len(v) == 0 {
		return def
	}
	return v
}

// stringList is a repeatable, comma-separated string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}
