package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kubeforge/kubeforge/runtime/admission"
	"github.com/kubeforge/kubeforge/runtime/admission/match"
	"github.com/kubeforge/kubeforge/runtime/jsonencode"
)

// maxResponseBytes bounds a webhook's answer (kube reads at most 3 MiB
// plus the AdmissionReview around it).
const maxResponseBytes = 3*1024*1024 + 64*1024

// callError is kube's ErrCallingWebhook: the webhook could not be asked,
// or answered something unusable. failurePolicy decides what it means.
type callError struct {
	name string
	err  error
}

func (e *callError) Error() string {
	return fmt.Sprintf("failed calling webhook %q: %v", e.name, e.err)
}
func (e *callError) Unwrap() error { return e.err }

// clients caches one HTTP client per CA bundle (connections are reused
// across calls).
type clients struct {
	mu sync.Mutex
	m  map[string]*http.Client
}

func (c *clients) get(caBundle []byte) (*http.Client, error) {
	key := string(caBundle)
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl, ok := c.m[key]; ok {
		return cl, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(caBundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caBundle) {
			return nil, errors.New("caBundle holds no PEM certificate")
		}
		cfg.RootCAs = pool
	}
	cl := &http.Client{Transport: &http.Transport{
		TLSClientConfig:     cfg,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
	}}
	if c.m == nil {
		c.m = map[string]*http.Client{}
	}
	c.m[key] = cl
	return cl, nil
}

// endpoint is the URL a webhook is called at. A service reference is
// reached by its cluster DNS name (https://<name>.<namespace>.svc:<port>):
// it resolves when the server runs inside a cluster (aggregated mode);
// standalone there are no Services, so use url.
func endpoint(cc admissionregistrationv1.WebhookClientConfig) (string, error) {
	if cc.URL != nil {
		return *cc.URL, nil
	}
	if cc.Service == nil {
		return "", errors.New("clientConfig has neither url nor service")
	}
	port := int32(443)
	if cc.Service.Port != nil {
		port = *cc.Service.Port
	}
	u := url.URL{Scheme: "https", Host: net.JoinHostPort(cc.Service.Name+"."+cc.Service.Namespace+".svc", strconv.Itoa(int(port)))}
	if cc.Service.Path != nil {
		u.Path = *cc.Service.Path
	}
	return u.String(), nil
}

// hook is one webhook of a configuration, mutating or validating.
type hook struct {
	name              string
	clientConfig      admissionregistrationv1.WebhookClientConfig
	timeout           time.Duration
	failurePolicy     admissionregistrationv1.FailurePolicyType
	sideEffects       admissionregistrationv1.SideEffectClass
	matchPolicy       *admissionregistrationv1.MatchPolicyType
	rules             []admissionregistrationv1.RuleWithOperations
	namespaceSelector *metav1.LabelSelector
	objectSelector    *metav1.LabelSelector
	conditions        *conditions
	reinvoke          bool
	// config and index (among all mutating webhooks) name a mutation in
	// kube's audit annotation.
	config string
	index  int
}

// review builds the AdmissionReview v1 request of a write matched as m
// (va: the attributes converted to m's kind; a: as requested).
func review(a, va *admission.Attributes, m match.Matched) (*admissionv1.AdmissionReview, error) {
	req := &admissionv1.AdmissionRequest{
		UID:                uuid.NewUUID(),
		Kind:               metav1.GroupVersionKind{Group: m.Kind.Group, Version: m.Kind.Version, Kind: m.Kind.Kind},
		Resource:           metav1.GroupVersionResource{Group: m.Resource.Group, Version: m.Resource.Version, Resource: m.Resource.Resource},
		SubResource:        a.Subresource,
		RequestKind:        &metav1.GroupVersionKind{Group: a.Kind.Group, Version: a.Kind.Version, Kind: a.Kind.Kind},
		RequestResource:    &metav1.GroupVersionResource{Group: a.Resource.Group, Version: a.Resource.Version, Resource: a.Resource.Resource},
		RequestSubResource: a.Subresource,
		Name:               a.Name,
		Namespace:          a.Namespace,
		Operation:          admissionv1.Operation(a.Operation),
		DryRun:             &a.DryRun,
	}
	if a.User != nil {
		req.UserInfo = authenticationv1.UserInfo{Username: a.User.Name, UID: a.User.UID, Groups: a.User.Groups}
		if len(a.User.Extra) > 0 {
			req.UserInfo.Extra = map[string]authenticationv1.ExtraValue{}
			for k, v := range a.User.Extra {
				req.UserInfo.Extra[k] = v
			}
		}
	}
	var err error
	if req.Object, err = raw(va.Object); err != nil {
		return nil, fmt.Errorf("encode the object: %w", err)
	}
	if req.OldObject, err = raw(va.OldObject); err != nil {
		return nil, fmt.Errorf("encode the old object: %w", err)
	}
	if req.Options, err = raw(a.Options); err != nil {
		return nil, fmt.Errorf("encode the options: %w", err)
	}
	return &admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request:  req,
	}, nil
}

func raw(o runtime.Object) (runtime.RawExtension, error) {
	if o == nil {
		return runtime.RawExtension{}, nil
	}
	b, err := jsonencode.Marshal(o) // a user's kind as a custom resource
	return runtime.RawExtension{Raw: b}, err
}

// call posts the review to the webhook and returns its response, checked
// as kube checks it (kind, uid).
func (p *Plugin) call(ctx context.Context, h *hook, rv *admissionv1.AdmissionReview) (*admissionv1.AdmissionResponse, error) {
	u, err := endpoint(h.clientConfig)
	if err != nil {
		return nil, &callError{h.name, err}
	}
	cl, err := p.clients.get(h.clientConfig.CABundle)
	if err != nil {
		return nil, &callError{h.name, err}
	}
	body, err := json.Marshal(rv)
	if err != nil {
		return nil, &callError{h.name, err}
	}
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, &callError{h.name, err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	q := req.URL.Query()
	q.Set("timeout", strconv.Itoa(int(h.timeout/time.Second))+"s")
	req.URL.RawQuery = q.Encode()
	resp, err := cl.Do(req)
	if err != nil {
		return nil, &callError{h.name, fmt.Errorf("failed to call webhook: %w", err)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return nil, &callError{h.name, fmt.Errorf("failed to read the webhook's response: %w", err)}
	}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return nil, &callError{h.name, fmt.Errorf("received invalid webhook response: the server responded with %d: %s", resp.StatusCode, bytes.TrimSpace(data))}
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, &callError{h.name, fmt.Errorf("received invalid webhook response: %w", err)}
	}
	if out.Kind != "AdmissionReview" || out.APIVersion != "admission.k8s.io/v1" {
		return nil, &callError{h.name, fmt.Errorf("received invalid webhook response: expected admission.k8s.io/v1, Kind=AdmissionReview, got %s, Kind=%s", out.APIVersion, out.Kind)}
	}
	if out.Response == nil {
		return nil, &callError{h.name, errors.New("webhook response was absent")}
	}
	if out.Response.UID != rv.Request.UID {
		return nil, &callError{h.name, fmt.Errorf("expected response.uid=%q, got %q", rv.Request.UID, out.Response.UID)}
	}
	return out.Response, nil
}
