package delegate

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/authn"
)

// Keys of the extension-apiserver-authentication ConfigMap, which
// kube-apiserver writes from its own flags.
const (
	keyClientCA        = "client-ca-file"
	keyRequestHeaderCA = "requestheader-client-ca-file"
	keyAllowedNames    = "requestheader-allowed-names"
	keyUsernameHeaders = "requestheader-username-headers"
	keyUIDHeaders      = "requestheader-uid-headers"
	keyGroupHeaders    = "requestheader-group-headers"
	keyExtraPrefixes   = "requestheader-extra-headers-prefix"
)

// Trust is the front proxy and client CA the cluster publishes in
// kube-system/extension-apiserver-authentication, kept current.
type Trust struct {
	front     atomic.Pointer[authn.RequestHeader]
	clientCAs atomic.Pointer[x509.CertPool]
	synced    chan struct{}
	log       func(msg string, args ...any)
}

// FrontProxy is the front proxy's trust the ConfigMap last held; nil
// before it is read or when it names no request-header CA.
func (t *Trust) FrontProxy() *authn.RequestHeader { return t.front.Load() }

// ClientCAs is the cluster's client CA the ConfigMap last held, nil if none.
func (t *Trust) ClientCAs() *x509.CertPool { return t.clientCAs.Load() }

// Synced is closed once the ConfigMap has been read (or found missing).
func (t *Trust) Synced() <-chan struct{} { return t.synced }

// WatchTrust reads kube-system/extension-apiserver-authentication and
// follows its changes until ctx is done (wg tracks the watch).
func (c *Cluster) WatchTrust(ctx context.Context, wg *sync.WaitGroup) *Trust {
	t := &Trust{synced: make(chan struct{}), log: c.log.Warn}
	w := newWatched(c, "/api/v1/namespaces/"+AuthenticationConfigMapNS+"/configmaps",
		url.Values{"fieldSelector": {"metadata.name=" + AuthenticationConfigMap}},
		func(cm *corev1.ConfigMap) string { return cm.Name })
	w.changed = func(objs map[string]*corev1.ConfigMap) {
		cm, ok := objs[AuthenticationConfigMap]
		if !ok {
			t.front.Store(nil)
			t.clientCAs.Store(nil)
			return
		}
		t.update(cm)
	}
	run(ctx, wg, w.run)
	run(ctx, wg, func(ctx context.Context) {
		select {
		case <-w.synced:
			close(t.synced)
		case <-ctx.Done():
		}
	})
	return t
}

func (t *Trust) update(cm *corev1.ConfigMap) {
	front, clientCAs, err := ParseTrust(cm.Data)
	if err != nil {
		// Keep what was read before rather than trust nothing.
		t.log("read the front proxy's trust", "configmap", AuthenticationConfigMapNS+"/"+AuthenticationConfigMap, "err", err)
		return
	}
	t.front.Store(front)
	t.clientCAs.Store(clientCAs)
}

// ParseTrust reads the ConfigMap's data: the front proxy (nil without a
// request-header CA) and the client CA (nil without one).
func ParseTrust(data map[string]string) (*authn.RequestHeader, *x509.CertPool, error) {
	var clientCAs *x509.CertPool
	if pem := data[keyClientCA]; pem != "" {
		clientCAs = x509.NewCertPool()
		if !clientCAs.AppendCertsFromPEM([]byte(pem)) {
			return nil, nil, fmt.Errorf("%s: no PEM certificates", keyClientCA)
		}
	}
	pem := data[keyRequestHeaderCA]
	if pem == "" {
		return nil, clientCAs, nil
	}
	rh := &authn.RequestHeader{CAs: x509.NewCertPool()}
	if !rh.CAs.AppendCertsFromPEM([]byte(pem)) {
		return nil, nil, fmt.Errorf("%s: no PEM certificates", keyRequestHeaderCA)
	}
	for key, dst := range map[string]*[]string{
		keyAllowedNames:    &rh.AllowedNames,
		keyUsernameHeaders: &rh.UsernameHeaders,
		keyUIDHeaders:      &rh.UIDHeaders,
		keyGroupHeaders:    &rh.GroupHeaders,
		keyExtraPrefixes:   &rh.ExtraHeaderPrefixes,
	} {
		if v := data[key]; v != "" {
			if err := json.Unmarshal([]byte(v), dst); err != nil {
				return nil, nil, fmt.Errorf("%s: want a JSON list of strings: %w", key, err)
			}
		}
	}
	return rh, clientCAs, nil
}

// TokenReviews checks bearer tokens with the cluster's TokenReview (kube's
// webhook token authenticator in delegated mode).
type TokenReviews struct {
	c         *Cluster
	audiences []string
	ttl       time.Duration
	cache     *ttlCache[*tokenAnswer]
}

type tokenAnswer struct {
	user *auth.User
	err  string
}

// TokenReviews returns the authenticator; answers (yes and no) are
// remembered for ttl. audiences, when set, are asked for and one of them
// must be granted.
func (c *Cluster) TokenReviews(audiences []string, ttl time.Duration) *TokenReviews {
	return &TokenReviews{c: c, audiences: audiences, ttl: ttl, cache: newTTLCache[*tokenAnswer](10000)}
}

// AuthenticateToken implements authn.TokenAuthenticator: a token the
// cluster does not authenticate is refused, with its reason.
func (t *TokenReviews) AuthenticateToken(ctx context.Context, token string) (*auth.User, bool, error) {
	sum := sha256.Sum256([]byte(token))
	key := string(sum[:])
	a, ok := t.cache.get(key)
	if !ok {
		tr := &authenticationv1.TokenReview{
			TypeMeta: metav1.TypeMeta{APIVersion: "authentication.k8s.io/v1", Kind: "TokenReview"},
			Spec:     authenticationv1.TokenReviewSpec{Token: token, Audiences: t.audiences},
		}
		if err := t.c.do(ctx, http.MethodPost, "/apis/authentication.k8s.io/v1/tokenreviews", nil, tr, tr); err != nil {
			return nil, false, fmt.Errorf("token review: %w", err)
		}
		a = &tokenAnswer{}
		switch st := tr.Status; {
		case !st.Authenticated:
			a.err = st.Error
			if a.err == "" {
				a.err = "token not authenticated"
			}
		case len(t.audiences) > 0 && !slices.ContainsFunc(st.Audiences, func(x string) bool { return slices.Contains(t.audiences, x) }):
			a.err = fmt.Sprintf("token audiences %q are not %q", st.Audiences, t.audiences)
		default:
			a.user = &auth.User{Name: st.User.Username, UID: st.User.UID, Groups: st.User.Groups}
			for k, v := range st.User.Extra {
				if a.user.Extra == nil {
					a.user.Extra = map[string][]string{}
				}
				a.user.Extra[k] = v
			}
		}
		t.cache.put(key, a, t.ttl)
	}
	if a.user == nil {
		return nil, false, errors.New(a.err)
	}
	u := *a.user
	u.Groups = slices.Clone(a.user.Groups)
	return &u, true, nil
}
