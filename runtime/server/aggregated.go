package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kubeforge/kubeforge/runtime/delegate"
	"github.com/kubeforge/kubeforge/runtime/endpoints"
	"github.com/kubeforge/kubeforge/runtime/namespaces"
)

// Aggregated mode (Config.Aggregated, --mode=aggregated): the server runs
// behind kube-apiserver, registered with an APIService per group-version,
// and the main cluster owns identity, policy and namespaces:
//
//   - authentication: the front proxy's headers (the aggregator's), trusted
//     as the cluster's extension-apiserver-authentication ConfigMap says,
//     client certificates of the cluster's client CA, and bearer tokens
//     checked with TokenReview;
//   - authorization: SubjectAccessReview to the cluster (system:masters and
//     the health paths are allowed without asking);
//   - namespaces: the cluster's; creates need the namespace to exist there
//     and not be terminating. The cluster's namespace controller empties a
//     deleted namespace through discovery (deletecollection on each
//     resource).
//
// The server then serves only the user's own groups: the built-in
// Kubernetes groups it would serve standalone (core, RBAC, coordination,
// events, authentication and authorization reviews) are the cluster's.

// kubeGroups are the groups without a dot that Kubernetes serves; every
// group ending in .k8s.io or .kubernetes.io is also Kubernetes'.
var kubeGroups = []string{"", "apps", "autoscaling", "batch", "extensions", "policy"}

// builtinGroup reports whether group is one of Kubernetes' own, which an
// aggregated server must leave to the cluster it runs behind.
func builtinGroup(group string) bool {
	return slices.Contains(kubeGroups, group) || strings.HasSuffix(group, ".k8s.io") || strings.HasSuffix(group, ".kubernetes.io")
}

// skipped reports whether the server leaves group to the main cluster.
func (s *Server) skipped(group string) bool {
	return s.cfg.Aggregated && builtinGroup(group)
}

// delegation is what aggregated mode holds of the main cluster.
type delegation struct {
	cluster    *delegate.Cluster
	trust      *delegate.Trust
	namespaces *delegate.Namespaces
	stop       context.CancelFunc
	wg         sync.WaitGroup
}

// setupDelegation connects to the main cluster, starts the watches of its
// trust and namespaces, and delegates authentication and authorization.
func (s *Server) setupDelegation(sec *security) error {
	c, err := delegate.Connect(s.cfg.Kubeconfig, s.log)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &delegation{cluster: c, stop: cancel}
	d.trust = c.WatchTrust(ctx, &d.wg)
	d.namespaces = c.WatchNamespaces(ctx, &d.wg)
	s.delegation = d

	// The --requestheader-* flags, when given, were set by setupSecurity
	// and win over the ConfigMap.
	if sec.authn.FrontProxy == nil {
		sec.authn.FrontProxy = d.trust.FrontProxy
	}
	sec.authn.MoreClientCAs = d.trust.ClientCAs
	sec.authn.Tokens = append(sec.authn.Tokens, c.TokenReviews(s.cfg.APIAudiences, s.cfg.TokenCacheTTL))
	sec.authorizer = privileged(c.Reviews(s.cfg.AllowedCacheTTL, s.cfg.DeniedCacheTTL))
	return nil
}

// waitForDelegation waits until the trust and namespaces have been read
// once, for at most timeout: past it the server starts anyway (requests
// through the aggregator fail until the trust arrives) and says why.
func (s *Server) waitForDelegation(ctx context.Context, timeout time.Duration) error {
	d := s.delegation
	if d == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	select {
	case <-d.trust.Synced():
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			s.log.Warn("the main cluster's extension-apiserver-authentication ConfigMap is not read yet; front-proxy requests fail until it is",
				"cluster", d.cluster.Host(), "configmap", delegate.AuthenticationConfigMapNS+"/"+delegate.AuthenticationConfigMap)
			return nil
		}
		return ctx.Err()
	}
	if d.trust.FrontProxy() == nil && s.cfg.RequestHeader == nil {
		s.log.Warn("the main cluster publishes no request-header CA: requests through its aggregator cannot be authenticated", "cluster", d.cluster.Host())
	}
	select {
	case <-d.namespaces.Synced():
		return nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			s.log.Warn("the main cluster's namespaces are not listed yet; creates look them up one by one", "cluster", d.cluster.Host())
			return nil
		}
		return ctx.Err()
	}
}

// admitNamespace is the namespace lifecycle over the main cluster's
// namespaces.
func (d *delegation) admitNamespace(ctx context.Context, a endpoints.Attributes) error {
	return namespaces.Admit(ctx, a, d.namespaces.Get)
}

// close stops the watches.
func (d *delegation) close() {
	if d == nil {
		return
	}
	d.stop()
	d.wg.Wait()
}

// delegationCheck is the readiness check of aggregated mode: the main
// cluster's trust has been read.
func (s *Server) delegationCheck(context.Context) error {
	d := s.delegation
	select {
	case <-d.trust.Synced():
	default:
		return fmt.Errorf("the main cluster's %s/%s ConfigMap is not read yet", delegate.AuthenticationConfigMapNS, delegate.AuthenticationConfigMap)
	}
	if d.trust.FrontProxy() == nil && s.cfg.RequestHeader == nil {
		return errors.New("no front proxy is trusted: the main cluster publishes no request-header CA")
	}
	return nil
}
