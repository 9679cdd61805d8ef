// Package delegate is what an aggregated API server asks of the cluster it
// runs behind (kube-apiserver's delegation, as sample-apiserver and every
// aggregated server built on k8s.io/apiserver do it):
//
//   - the front proxy's trust (the request-header CA, allowed names and
//     header names) and the cluster's client CA, from the ConfigMap
//     kube-system/extension-apiserver-authentication, kept current by a
//     watch;
//   - bearer tokens, checked with TokenReview, answers cached for a short
//     time;
//   - authorization, asked with SubjectAccessReview, allowed and denied
//     answers cached for a short time each, so the cluster's RBAC decides;
//   - namespaces: the cluster's, watched, so that creates in a namespace
//     that does not exist there are 404 and in one being deleted 403.
//
// It talks to the cluster with client-go (kubeconfig and in-cluster
// credentials, reflectors that relist and back off), as kube's own
// delegating authenticator and authorizer do.
package delegate

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Defaults, kube's for delegated authentication and authorization
// (--authentication-token-webhook-cache-ttl,
// --authorization-webhook-cache-authorized-ttl and -unauthorized-ttl).
const (
	DefaultTokenCacheTTL      = 10 * time.Second
	DefaultAllowedCacheTTL    = 10 * time.Second
	DefaultDeniedCacheTTL     = 10 * time.Second
	DefaultRequestTimeout     = 10 * time.Second
	AuthenticationConfigMap   = "extension-apiserver-authentication"
	AuthenticationConfigMapNS = "kube-system"
)

const userAgent = "kubeforge-apiserver"

// Cluster is the main cluster an aggregated server delegates to.
type Cluster struct {
	base    *url.URL
	http    *http.Client
	timeout time.Duration
	log     *slog.Logger
}

// Connect builds the client for the cluster of kubeconfig; an empty path
// is the in-cluster configuration (the pod's ServiceAccount).
func Connect(kubeconfig string, log *slog.Logger) (*Cluster, error) {
	var cfg *rest.Config
	var err error
	if kubeconfig == "" {
		cfg, err = rest.InClusterConfig()
	} else {
		cfg, err = clientcmd.BuildConfigFromFlags("", kubeconfig)
	}
	if err != nil {
		return nil, fmt.Errorf("connect to the main cluster: %w", err)
	}
	cfg = rest.CopyConfig(cfg)
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = DefaultRequestTimeout
	}
	// Watches last minutes: each request gets its own deadline instead.
	cfg.Timeout = 0
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to the main cluster: %w", err)
	}
	base, err := url.Parse(cfg.Host)
	if err != nil || base.Host == "" {
		if base, err = url.Parse("https://" + cfg.Host); err != nil {
			return nil, fmt.Errorf("connect to the main cluster: server %q: %w", cfg.Host, err)
		}
	}
	return &Cluster{base: base, http: hc, timeout: timeout, log: log}, nil
}

// Host is the main cluster's URL.
func (c *Cluster) Host() string { return c.base.String() }

// ttlCache remembers answers for a time; at max entries it forgets the
// expired ones, and all of them if none has expired, so memory stays
// bounded whatever callers send.
type ttlCache[V any] struct {
	mu  sync.Mutex
	m   map[string]ttlEntry[V]
	max int
}

type ttlEntry[V any] struct {
	v       V
	expires time.Time
}

func newTTLCache[V any](max int) *ttlCache[V] {
	return &ttlCache[V]{m: map[string]ttlEntry[V]{}, max: max}
}

func (c *ttlCache[V]) get(k string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok || time.Now().After(e.expires) {
		var zero V
		return zero, false
	}
	return e.v, true
}

func (c *ttlCache[V]) put(k string, v V, ttl time.Duration) {
	if ttl <= 0 {
		return
	}
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		for k, e := range c.m {
			if now.After(e.expires) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= c.max {
			clear(c.m)
		}
	}
	c.m[k] = ttlEntry[V]{v: v, expires: now.Add(ttl)}
}

// run starts fn in a goroutine tracked by wg.
func run(ctx context.Context, wg *sync.WaitGroup, fn func(context.Context)) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		fn(ctx)
	}()
}
