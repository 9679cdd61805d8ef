package options

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubeforge/kubeforge/runtime/pki"
	"github.com/kubeforge/kubeforge/runtime/server"
)

func parse(t *testing.T, args ...string) *Options {
	t.Helper()
	o := New()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	return o
}

func TestDefaultsValidateAndApply(t *testing.T) {
	o := parse(t)
	if errs := o.Validate(); len(errs) > 0 {
		t.Fatalf("defaults: %v", errs)
	}
	var cfg server.Config
	if err := o.ApplyTo(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.DataDir != ".data/apiserver" || cfg.Port != server.DefaultPort || cfg.BindAddress != server.DefaultBindAddress ||
		cfg.Aggregated || cfg.NoWatchCache || cfg.NoGarbageCollector || cfg.EtcdServers != nil || cfg.RequestHeader != nil ||
		cfg.AuthorizationMode != server.AuthorizationRBAC || cfg.AuditLogMaxBackups != 10 || cfg.EtcdMaxRequestBytes != 1536*1024 {
		t.Fatalf("defaults applied: %+v", cfg)
	}
	if cfg.TokenCacheTTL != 10*time.Second || cfg.AllowedCacheTTL != 10*time.Second || cfg.DeniedCacheTTL != 10*time.Second {
		t.Fatalf("webhook cache TTLs %v %v %v, want 10 s", cfg.TokenCacheTTL, cfg.AllowedCacheTTL, cfg.DeniedCacheTTL)
	}
}

func TestApply(t *testing.T) {
	o := parse(t, "--port", "0", "--etcd-servers", " https://a:2379, ,https://b:2379", "--etcd-cafile", "ca.crt",
		"--watch-cache=false", "--enable-garbage-collector=false", "--anonymous-auth=false",
		"--mode", "aggregated", "--kubeconfig", "k.conf", "--authentication-token-webhook-cache-ttl", "0",
		"--tls-san", "a.example,b.example", "--tls-san", "10.0.0.1", "--v")
	if errs := o.Validate(); len(errs) > 0 {
		t.Fatal(errs)
	}
	var cfg server.Config
	if err := o.ApplyTo(&cfg); err != nil {
		t.Fatal(err)
	}
	if strings.Join(cfg.EtcdServers, " ") != "https://a:2379 https://b:2379" || cfg.EtcdCAFile != "ca.crt" {
		t.Errorf("etcd servers %q, CA %q", cfg.EtcdServers, cfg.EtcdCAFile)
	}
	if !cfg.NoWatchCache || !cfg.NoGarbageCollector || !cfg.DisableAnonymousAuth || !cfg.Aggregated || cfg.Kubeconfig != "k.conf" {
		t.Errorf("switches not applied: %+v", cfg)
	}
	if cfg.TokenCacheTTL >= 0 {
		t.Errorf("a TTL flag of 0 must reach Config as no caching (negative), got %v", cfg.TokenCacheTTL)
	}
	if strings.Join(cfg.TLSSANs, " ") != "a.example b.example 10.0.0.1" {
		t.Errorf("tls SANs %q", cfg.TLSSANs)
	}
	if o.Process.LogLevel().String() != "DEBUG" {
		t.Errorf("-v: log level %v", o.Process.LogLevel())
	}
}

func TestValidateRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--mode", "sidecar"}, `--mode "sidecar": want standalone or aggregated`},
		{[]string{"--kubeconfig", "k"}, "--kubeconfig is for --mode=aggregated"},
		{[]string{"--mode", "aggregated", "--insecure-plain-http-no-auth"}, "--mode=aggregated needs TLS"},
		{[]string{"--authentication-token-webhook-cache-ttl", "-1s"}, "must not be negative"},
		{[]string{"--authorization-webhook-cache-unauthorized-ttl", "-1s"}, "must not be negative"},
		{[]string{"--requestheader-username-headers", "X-User"}, "need --requestheader-client-ca-file"},
		{[]string{"--event-ttl", "0s"}, "--event-ttl must be positive"},
		{[]string{"--max-requests-inflight", "0"}, "must be positive"},
		{[]string{"--min-request-timeout", "-1s"}, "must be positive"},
		{[]string{"--advertise-address", "0.0.0.0"}, "not a specific IP address"},
		{[]string{"--advertise-address", "host.example"}, "not a specific IP address"},
		{[]string{"--audit-policy-file", "p.yaml"}, "--audit-policy-file needs --audit-log-path"},
		{[]string{"--audit-log-path", "-", "--audit-log-maxsize", "0"}, "--audit-log-maxsize must be positive"},
		{[]string{"--etcd-certfile", "c.crt"}, "need --etcd-servers"},
		{[]string{"--memory-limit-mib", "-1"}, "--memory-limit-mib must not be negative"},
		{[]string{"--profiling-address", "0.0.0.0:6060"}, "not a loopback address"},
	} {
		errs := parse(t, tc.args...).Validate()
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want) {
			t.Errorf("%q: errors %v, want one containing %q", tc.args, errs, tc.want)
		}
	}
}

func TestProfilingAddressLoopbackOnly(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		remote bool
		ok     bool
	}{
		{"127.0.0.1:6060", false, true},
		{"[::1]:6060", false, true},
		{"localhost:6060", false, true},
		{"0.0.0.0:6060", false, false},
		{":6060", false, false},
		{"10.1.2.3:6060", false, false},
		{"0.0.0.0:6060", true, true},
		{"nonsense", false, false},
	} {
		errs := (&Process{ProfilingAddress: tc.addr, ProfilingAllowRemote: tc.remote}).Validate()
		if (len(errs) == 0) != tc.ok {
			t.Errorf("profiling address %q, remote %v: %v, want ok=%v", tc.addr, tc.remote, errs, tc.ok)
		}
	}
}

// TestRequestHeader: the front proxy's CA is read when applied, and the
// header names default to kube's.
func TestRequestHeader(t *testing.T) {
	dir := t.TempDir()
	if _, err := pki.EnsureCA(dir); err != nil {
		t.Fatal(err)
	}
	o := parse(t, "--requestheader-client-ca-file", filepath.Join(dir, "ca.crt"), "--requestheader-allowed-names", "front-proxy")
	var cfg server.Config
	if err := o.ApplyTo(&cfg); err != nil {
		t.Fatal(err)
	}
	rh := cfg.RequestHeader
	if rh == nil || strings.Join(rh.AllowedNames, ",") != "front-proxy" || strings.Join(rh.UsernameHeaders, ",") != "X-Remote-User" || len(rh.UIDHeaders) != 0 {
		t.Fatalf("request header %+v", rh)
	}
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{notPEM, filepath.Join(dir, "missing.crt")} {
		if err := parse(t, "--requestheader-client-ca-file", file).ApplyTo(&cfg); err == nil || !strings.Contains(err.Error(), "--requestheader-client-ca-file") {
			t.Errorf("CA file %s: %v, want an error naming the flag", file, err)
		}
	}
}
