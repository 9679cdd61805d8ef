// Package webhook calls admission webhooks as kube-apiserver's
// MutatingAdmissionWebhook and ValidatingAdmissionWebhook plug-ins do:
// AdmissionReview v1 over TLS verified with the configuration's caBundle,
// rules and matchPolicy, namespace and object selectors, matchConditions,
// timeouts, failurePolicy, sideEffects against dry-run, JSONPatch
// responses and reinvocation, warnings and audit annotations, kube's
// messages and metrics. Configurations come from memory (Source, kept by
// informers), compiled again only when they change.
package webhook

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforge/kubeforge/runtime/admission"
	"github.com/kubeforge/kubeforge/runtime/admission/match"
)

// Source lists the current configurations (shared objects: not modified).
type Source interface {
	MutatingWebhookConfigurations() []*admissionregistrationv1.MutatingWebhookConfiguration
	ValidatingWebhookConfigurations() []*admissionregistrationv1.ValidatingWebhookConfiguration
}

// Plugin is both webhook plug-ins: Mutate calls the mutating webhooks,
// Validate the validating ones.
type Plugin struct {
	env     *match.Env
	src     Source
	metrics *Metrics
	clients clients

	// dirty is set when a configuration changed; the next request
	// compiles them again.
	dirty     atomic.Bool
	compiled  atomic.Pointer[compiled]
	compileMu sync.Mutex
}

type compiled struct {
	mutating, validating []*hook
}

// New returns the plug-in; call Changed whenever a configuration changes.
func New(env *match.Env, src Source, m *Metrics) *Plugin {
	p := &Plugin{env: env, src: src, metrics: m}
	p.dirty.Store(true)
	return p
}

// Changed marks the configurations as changed (an informer's onChange).
func (p *Plugin) Changed() { p.dirty.Store(true) }

// hooks returns the compiled configurations, compiling them first when
// they changed.
func (p *Plugin) hooks() *compiled {
	if !p.dirty.Load() {
		if c := p.compiled.Load(); c != nil {
			return c
		}
	}
	p.compileMu.Lock()
	defer p.compileMu.Unlock()
	if p.dirty.Swap(false) || p.compiled.Load() == nil {
		p.compiled.Store(compile(p.src))
	}
	return p.compiled.Load()
}

// compile turns the configurations into hooks in kube's order:
// configurations sorted by name, webhooks in their order.
func compile(src Source) *compiled {
	c := &compiled{}
	ms := src.MutatingWebhookConfigurations()
	sort.Slice(ms, func(i, j int) bool { return ms[i].Name < ms[j].Name })
	for _, cfg := range ms {
		for i := range cfg.Webhooks {
			w := &cfg.Webhooks[i]
			h := newHook(w.Name, w.ClientConfig, w.TimeoutSeconds, w.FailurePolicy, w.SideEffects, w.MatchPolicy, w.Rules, w.NamespaceSelector, w.ObjectSelector, w.MatchConditions)
			h.reinvoke = w.ReinvocationPolicy != nil && *w.ReinvocationPolicy == admissionregistrationv1.IfNeededReinvocationPolicy
			h.config, h.index = cfg.Name, len(c.mutating)
			c.mutating = append(c.mutating, h)
		}
	}
	vs := src.ValidatingWebhookConfigurations()
	sort.Slice(vs, func(i, j int) bool { return vs[i].Name < vs[j].Name })
	for _, cfg := range vs {
		for i := range cfg.Webhooks {
			w := &cfg.Webhooks[i]
			c.validating = append(c.validating, newHook(w.Name, w.ClientConfig, w.TimeoutSeconds, w.FailurePolicy, w.SideEffects, w.MatchPolicy, w.Rules, w.NamespaceSelector, w.ObjectSelector, w.MatchConditions))
		}
	}
	return c
}

func newHook(name string, cc admissionregistrationv1.WebhookClientConfig, timeout *int32, fp *admissionregistrationv1.FailurePolicyType,
	se *admissionregistrationv1.SideEffectClass, mp *admissionregistrationv1.MatchPolicyType, rules []admissionregistrationv1.RuleWithOperations,
	nsSel, objSel *metav1.LabelSelector, conds []admissionregistrationv1.MatchCondition) *hook {
	h := &hook{
		name:              name,
		clientConfig:      cc,
		timeout:           10 * time.Second,
		failurePolicy:     admissionregistrationv1.Fail,
		sideEffects:       admissionregistrationv1.SideEffectClassUnknown,
		matchPolicy:       mp,
		rules:             rules,
		namespaceSelector: nsSel,
		objectSelector:    objSel,
	}
	if timeout != nil {
		h.timeout = time.Duration(*timeout) * time.Second
	}
	if fp != nil {
		h.failurePolicy = *fp
	}
	if se != nil {
		h.sideEffects = *se
	}
	h.conditions = newConditions(name, conds, h.failurePolicy)
	return h
}

// invocation is one webhook that applies to a write, with the write as
// the webhook sees it.
type invocation struct {
	h *hook
	m match.Matched
}

// matches decides whether h applies to the write: rules, selectors, then
// match conditions (whose failure follows failurePolicy).
func (p *Plugin) matches(ctx context.Context, h *hook, a *admission.Attributes) (*invocation, error) {
	m, ok := p.env.Rules(a, h.rules, nil, h.matchPolicy)
	if !ok {
		return nil, nil
	}
	ok, err := p.env.Selectors(a, h.namespaceSelector, h.objectSelector)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("webhook %q: %w", h.name, err))
	}
	if !ok {
		return nil, nil
	}
	inv := &invocation{h: h, m: m}
	if h.conditions != nil {
		va, err := p.env.Versioned(a, m)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		ok, err := h.conditions.match(ctx, a, va, m)
		if err != nil || !ok {
			return nil, err
		}
	}
	return inv, nil
}

// dryRunRefused is kube's answer to a dry run reaching a webhook that may
// have side effects.
func dryRunRefused(name string) error {
	return apierrors.NewBadRequest(fmt.Sprintf("admission webhook %q does not support dry run", name))
}

func noSideEffects(se admissionregistrationv1.SideEffectClass) bool {
	return se == admissionregistrationv1.SideEffectClassNone || se == admissionregistrationv1.SideEffectClassNoneOnDryRun
}

// failure applies failurePolicy to a call that failed: nil when it is
// ignored, kube's 500 otherwise.
func (p *Plugin) failure(h *hook, typ string, a *admission.Attributes, err error) error {
	var ce *callError
	if !errors.As(err, &ce) {
		return err
	}
	if h.failurePolicy == admissionregistrationv1.Ignore {
		p.metrics.failOpen(h.name, typ)
		return nil
	}
	p.metrics.rejected(h.name, typ, a, "calling_webhook_error", 0)
	return apierrors.NewInternalError(err)
}
