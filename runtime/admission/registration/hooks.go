package registration

import (
	"context"
	"log/slog"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeforge/kubeforge/runtime/informer"
	"github.com/kubeforge/kubeforge/runtime/resource"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

func ptr[T any](v T) *T { return &v }

// defaultRules: scope "*".
func defaultRules(rules []admissionregistrationv1.RuleWithOperations) {
	for i := range rules {
		if rules[i].Scope == nil {
			rules[i].Scope = ptr(admissionregistrationv1.AllScopes)
		}
	}
}

func defaultMatchResources(mr *admissionregistrationv1.MatchResources) {
	if mr == nil {
		return
	}
	if mr.MatchPolicy == nil {
		mr.MatchPolicy = ptr(admissionregistrationv1.Equivalent)
	}
	if mr.NamespaceSelector == nil {
		mr.NamespaceSelector = &metav1.LabelSelector{}
	}
	if mr.ObjectSelector == nil {
		mr.ObjectSelector = &metav1.LabelSelector{}
	}
	for i := range mr.ResourceRules {
		if mr.ResourceRules[i].Scope == nil {
			mr.ResourceRules[i].Scope = ptr(admissionregistrationv1.AllScopes)
		}
	}
	for i := range mr.ExcludeResourceRules {
		if mr.ExcludeResourceRules[i].Scope == nil {
			mr.ExcludeResourceRules[i].Scope = ptr(admissionregistrationv1.AllScopes)
		}
	}
}

// defaultWebhook is kube's SetDefaults_ValidatingWebhook and
// SetDefaults_MutatingWebhook (the shared part).
func defaultWebhook(fp **admissionregistrationv1.FailurePolicyType, mp **admissionregistrationv1.MatchPolicyType, ns, obj **metav1.LabelSelector, timeout **int32, rules []admissionregistrationv1.RuleWithOperations) {
	if *fp == nil {
		*fp = ptr(admissionregistrationv1.Fail)
	}
	if *mp == nil {
		*mp = ptr(admissionregistrationv1.Equivalent)
	}
	if *ns == nil {
		*ns = &metav1.LabelSelector{}
	}
	if *obj == nil {
		*obj = &metav1.LabelSelector{}
	}
	if *timeout == nil {
		*timeout = ptr(int32(10))
	}
	defaultRules(rules)
}

func defaultValidatingWebhooks(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		defaultWebhook(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, w.Rules)
	}
}

func defaultMutatingWebhooks(c *admissionregistrationv1.MutatingWebhookConfiguration) {
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		defaultWebhook(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, w.Rules)
		if w.ReinvocationPolicy == nil {
			w.ReinvocationPolicy = ptr(admissionregistrationv1.NeverReinvocationPolicy)
		}
	}
}

func defaultPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
	if p.Spec.FailurePolicy == nil {
		p.Spec.FailurePolicy = ptr(admissionregistrationv1.Fail)
	}
	defaultMatchResources(p.Spec.MatchConstraints)
}

func defaultBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	defaultMatchResources(b.Spec.MatchResources)
}

var group = admissionregistrationv1.GroupName

func invalid(kind, name string, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: group, Kind: kind}, name, errs)
}

func webhooksOf(c *admissionregistrationv1.ValidatingWebhookConfiguration) []webhook {
	out := make([]webhook, len(c.Webhooks))
	for i, w := range c.Webhooks {
		out[i] = webhook{w.Name, w.ClientConfig, w.Rules, w.TimeoutSeconds, w.SideEffects, w.AdmissionReviewVersions, w.NamespaceSelector, w.ObjectSelector, w.MatchConditions}
	}
	return out
}

func mutatingWebhooksOf(c *admissionregistrationv1.MutatingWebhookConfiguration) []webhook {
	out := make([]webhook, len(c.Webhooks))
	for i, w := range c.Webhooks {
		out[i] = webhook{w.Name, w.ClientConfig, w.Rules, w.TimeoutSeconds, w.SideEffects, w.AdmissionReviewVersions, w.NamespaceSelector, w.ObjectSelector, w.MatchConditions}
	}
	return out
}

// ValidatingWebhookHooks are the storage hooks of
// ValidatingWebhookConfigurations: kube's defaults, then its validation.
func ValidatingWebhookHooks() storage.Hooks[*admissionregistrationv1.ValidatingWebhookConfiguration] {
	return defaultedAndValidated("ValidatingWebhookConfiguration", defaultValidatingWebhooks, func(c *admissionregistrationv1.ValidatingWebhookConfiguration) field.ErrorList {
		return validateWebhooks(webhooksOf(c))
	})
}

// MutatingWebhookHooks are the storage hooks of
// MutatingWebhookConfigurations.
func MutatingWebhookHooks() storage.Hooks[*admissionregistrationv1.MutatingWebhookConfiguration] {
	return defaultedAndValidated("MutatingWebhookConfiguration", defaultMutatingWebhooks, func(c *admissionregistrationv1.MutatingWebhookConfiguration) field.ErrorList {
		return validateWebhooks(mutatingWebhooksOf(c))
	})
}

// defaultedAndValidated are the storage hooks of a configuration kind:
// kube's defaults on every write, then its validation as a 422.
func defaultedAndValidated[T resource.Object](kind string, def func(T), validate func(T) field.ErrorList) storage.Hooks[T] {
	return storage.Hooks[T]{
		PrepareForCreate: def,
		PrepareForUpdate: func(_ context.Context, obj, _ T, _ string) { def(obj) },
		Admit: func(_ context.Context, obj, _ T) error {
			return invalid(kind, obj.GetName(), validate(obj))
		},
	}
}

// PolicyHooks are the storage hooks of ValidatingAdmissionPolicies. A
// status write is not validated again (the spec is the stored one).
func PolicyHooks() storage.Hooks[*admissionregistrationv1.ValidatingAdmissionPolicy] {
	type T = *admissionregistrationv1.ValidatingAdmissionPolicy
	return storage.Hooks[T]{
		PrepareForCreate: defaultPolicy,
		PrepareForUpdate: func(_ context.Context, obj, _ T, _ string) { defaultPolicy(obj) },
		Admit: func(_ context.Context, obj, cur T) error {
			if cur != nil && obj.Generation == cur.Generation {
				return nil // status only, or nothing, changed
			}
			return invalid("ValidatingAdmissionPolicy", obj.Name, ValidatePolicy(obj))
		},
	}
}

// BindingHooks are the storage hooks of ValidatingAdmissionPolicyBindings.
func BindingHooks() storage.Hooks[*admissionregistrationv1.ValidatingAdmissionPolicyBinding] {
	return defaultedAndValidated("ValidatingAdmissionPolicyBinding", defaultBinding, ValidateBinding)
}

// Configs holds the four kinds in memory, current through watches: the
// webhook and policy plug-ins' Source.
type Configs struct {
	vaps     *informer.Cache[*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyList]
	bindings *informer.Cache[*admissionregistrationv1.ValidatingAdmissionPolicyBinding, *admissionregistrationv1.ValidatingAdmissionPolicyBindingList]
	vwcs     *informer.Cache[*admissionregistrationv1.ValidatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfigurationList]
	mwcs     *informer.Cache[*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.MutatingWebhookConfigurationList]
}

// Stores are the four stores Configs watches.
type Stores struct {
	Policies   storage.Interface[*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyList]
	Bindings   storage.Interface[*admissionregistrationv1.ValidatingAdmissionPolicyBinding, *admissionregistrationv1.ValidatingAdmissionPolicyBindingList]
	Validating storage.Interface[*admissionregistrationv1.ValidatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfigurationList]
	Mutating   storage.Interface[*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.MutatingWebhookConfigurationList]
}

// NewConfigs returns the in-memory copies of the stores; policiesChanged
// and webhooksChanged are called after every change of a policy or
// binding, and of a webhook configuration.
func NewConfigs(s Stores, policiesChanged, webhooksChanged func(), log *slog.Logger) *Configs {
	return &Configs{
		vaps:     informer.New(s.Policies, policiesChanged, log),
		bindings: informer.New(s.Bindings, policiesChanged, log),
		vwcs:     informer.New(s.Validating, webhooksChanged, log),
		mwcs:     informer.New(s.Mutating, webhooksChanged, log),
	}
}

// Run keeps the copies current until ctx ends.
func (c *Configs) Run(ctx context.Context) {
	go c.vaps.Run(ctx)
	go c.bindings.Run(ctx)
	go c.vwcs.Run(ctx)
	c.mwcs.Run(ctx)
}

// Synced is closed once every kind was listed.
func (c *Configs) Synced(ctx context.Context) bool {
	for _, ch := range []<-chan struct{}{c.vaps.Synced(), c.bindings.Synced(), c.vwcs.Synced(), c.mwcs.Synced()} {
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// ValidatingAdmissionPolicies lists the policies.
func (c *Configs) ValidatingAdmissionPolicies() []*admissionregistrationv1.ValidatingAdmissionPolicy {
	return c.vaps.List()
}

// ValidatingAdmissionPolicyBindings lists the bindings.
func (c *Configs) ValidatingAdmissionPolicyBindings() []*admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	return c.bindings.List()
}

// ValidatingWebhookConfigurations lists the validating configurations.
func (c *Configs) ValidatingWebhookConfigurations() []*admissionregistrationv1.ValidatingWebhookConfiguration {
	return c.vwcs.List()
}

// MutatingWebhookConfigurations lists the mutating configurations.
func (c *Configs) MutatingWebhookConfigurations() []*admissionregistrationv1.MutatingWebhookConfiguration {
	return c.mwcs.List()
}

// PolicyStatus keeps status.observedGeneration and status.typeChecking of
// every ValidatingAdmissionPolicy current, as kube's
// ValidatingAdmissionPolicy status controller does: Run writes the status
// of each policy whose observedGeneration is behind, after every change.
type PolicyStatus struct {
	store   storage.Interface[*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyList]
	configs *Configs
	check   func(*admissionregistrationv1.ValidatingAdmissionPolicy) []admissionregistrationv1.ExpressionWarning
	log     *slog.Logger
	poke    chan struct{}
}

// NewPolicyStatus returns the status writer of the policies in store.
func NewPolicyStatus(store storage.Interface[*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyList],
	configs *Configs, check func(*admissionregistrationv1.ValidatingAdmissionPolicy) []admissionregistrationv1.ExpressionWarning, log *slog.Logger) *PolicyStatus {
	return &PolicyStatus{store: store, configs: configs, check: check, log: log, poke: make(chan struct{}, 1)}
}

// Changed asks Run to look at the policies again.
func (s *PolicyStatus) Changed() {
	select {
	case s.poke <- struct{}{}:
	default:
	}
}

// Run writes statuses until ctx ends.
func (s *PolicyStatus) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.poke:
		}
		for _, p := range s.configs.ValidatingAdmissionPolicies() {
			if p.Status.TypeChecking != nil && p.Status.ObservedGeneration == p.Generation {
				continue
			}
			if err := s.write(ctx, p.Name); err != nil && ctx.Err() == nil && !apierrors.IsNotFound(err) {
				s.log.Warn("write the status of a ValidatingAdmissionPolicy", "name", p.Name, "err", err)
			}
		}
	}
}

func (s *PolicyStatus) write(ctx context.Context, name string) error {
	_, err := s.store.GuaranteedUpdate(ctx, "", name, "status", func(cur *admissionregistrationv1.ValidatingAdmissionPolicy) (*admissionregistrationv1.ValidatingAdmissionPolicy, error) {
		cur.Status.ObservedGeneration = cur.Generation
		cur.Status.TypeChecking = &admissionregistrationv1.TypeChecking{ExpressionWarnings: s.check(cur)}
		return cur, nil
	}, storage.UpdateOptions{})
	return err
}
