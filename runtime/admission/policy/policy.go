package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/cel-go/common/types"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiadmission "k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"

	"github.com/kubeforge/kubeforge/runtime/admission"
	"github.com/kubeforge/kubeforge/runtime/admission/celeval"
	"github.com/kubeforge/kubeforge/runtime/admission/match"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// Source lists the current policies and bindings (shared objects: not
// modified).
type Source interface {
	ValidatingAdmissionPolicies() []*admissionregistrationv1.ValidatingAdmissionPolicy
	ValidatingAdmissionPolicyBindings() []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
}

// ParamReader returns the cached reader of the store of a kind's group
// and kind (any served version), for params; nil when it is not served.
type ParamReader func(gk schema.GroupKind) storage.CachedReader

// Plugin is the ValidatingAdmissionPolicy plug-in: Validate only.
type Plugin struct {
	env     *match.Env
	src     Source
	params  ParamReader
	metrics *Metrics

	dirty     atomic.Bool
	state     atomic.Pointer[state]
	compileMu sync.Mutex
}

type state struct {
	policies map[string]*compiled
	bindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
}

// New returns the plug-in; call Changed whenever a policy or binding
// changes.
func New(env *match.Env, src Source, params ParamReader, m *Metrics) *Plugin {
	p := &Plugin{env: env, src: src, params: params, metrics: m}
	p.dirty.Store(true)
	return p
}

// Changed marks the policies as changed (an informer's onChange).
func (p *Plugin) Changed() { p.dirty.Store(true) }

// Mutate does nothing: policies only validate.
func (p *Plugin) Mutate(context.Context, *admission.Attributes) error { return nil }

func (p *Plugin) current() *state {
	if !p.dirty.Load() {
		if s := p.state.Load(); s != nil {
			return s
		}
	}
	p.compileMu.Lock()
	defer p.compileMu.Unlock()
	if p.dirty.Swap(false) || p.state.Load() == nil {
		s := &state{policies: map[string]*compiled{}}
		for _, pol := range p.src.ValidatingAdmissionPolicies() {
			if c, err := compile(pol); err == nil {
				s.policies[pol.Name] = c
			}
		}
		s.bindings = p.src.ValidatingAdmissionPolicyBindings()
		sort.Slice(s.bindings, func(i, j int) bool { return s.bindings[i].Name < s.bindings[j].Name })
		p.state.Store(s)
	}
	return p.state.Load()
}

// decision is the outcome of one validation (or failure) of a binding.
type decision struct {
	message string
	reason  metav1.StatusReason
	index   int
	failure bool // an error under failurePolicy Fail, not a false validation
}

// Validate evaluates every binding whose policy matches the write.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	s := p.current()
	if len(s.bindings) == 0 || match.Exempt(a) {
		return nil
	}
	var audits []auditFailure
	for _, b := range s.bindings {
		c := s.policies[b.Spec.PolicyName]
		if c == nil {
			continue
		}
		m, ok, err := p.matches(c.p, b, a)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		if !ok {
			continue
		}
		start := time.Now()
		decisions := p.evaluate(ctx, c, b, a, m)
		err = p.enforce(ctx, c, b, a, decisions, &audits)
		p.metrics.observe(c.p.Name, b.Name, b.Spec.ValidationActions, decisions, time.Since(start))
		if err != nil {
			annotateAudits(ctx, audits)
			return err
		}
	}
	annotateAudits(ctx, audits)
	return nil
}

// matches checks the policy's matchConstraints, then the binding's
// matchResources, and returns the resource the write matched as.
func (p *Plugin) matches(pol *admissionregistrationv1.ValidatingAdmissionPolicy, b *admissionregistrationv1.ValidatingAdmissionPolicyBinding, a *admission.Attributes) (match.Matched, bool, error) {
	mc := pol.Spec.MatchConstraints
	if mc == nil {
		return match.Matched{}, false, nil
	}
	m, ok, err := p.matchResources(mc, a)
	if err != nil || !ok {
		return m, false, err
	}
	if mr := b.Spec.MatchResources; mr != nil {
		if len(mr.ResourceRules) == 0 {
			ok, err := p.env.Selectors(a, mr.NamespaceSelector, mr.ObjectSelector)
			return m, ok && !excluded(p.env, mr, a), err
		}
		if _, ok, err := p.matchResources(mr, a); err != nil || !ok {
			return m, false, err
		}
	}
	return m, true, nil
}

func excluded(env *match.Env, mr *admissionregistrationv1.MatchResources, a *admission.Attributes) bool {
	ex, _ := named(mr.ExcludeResourceRules, a)
	_, hit := env.Rules(a, ex, nil, mr.MatchPolicy)
	return len(ex) > 0 && hit
}

// matchResources is one MatchResources (rules with resourceNames,
// exclusions, selectors, matchPolicy).
func (p *Plugin) matchResources(mr *admissionregistrationv1.MatchResources, a *admission.Attributes) (match.Matched, bool, error) {
	rules, _ := named(mr.ResourceRules, a)
	exclude, _ := named(mr.ExcludeResourceRules, a)
	m, ok := p.env.Rules(a, rules, exclude, mr.MatchPolicy)
	if !ok {
		return m, false, nil
	}
	ok, err := p.env.Selectors(a, mr.NamespaceSelector, mr.ObjectSelector)
	return m, ok, err
}

// named keeps the rules whose resourceNames are empty or name the write's
// object.
func named(rules []admissionregistrationv1.NamedRuleWithOperations, a *admission.Attributes) ([]admissionregistrationv1.RuleWithOperations, bool) {
	var out []admissionregistrationv1.RuleWithOperations
	for _, r := range rules {
		if len(r.ResourceNames) > 0 {
			found := false
			for _, n := range r.ResourceNames {
				found = found || n == a.Name
			}
			if !found {
				continue
			}
		}
		out = append(out, r.RuleWithOperations)
	}
	return out, len(out) > 0
}

// evaluate runs the policy for the binding on the write: once per param
// (once without params), returning the failed validations.
func (p *Plugin) evaluate(ctx context.Context, c *compiled, b *admissionregistrationv1.ValidatingAdmissionPolicyBinding, a *admission.Attributes, m match.Matched) []decision {
	fail := func(err error) []decision {
		if c.failure == admissionregistrationv1.Ignore {
			return nil
		}
		return []decision{{message: err.Error(), reason: metav1.StatusReasonInvalid, failure: true}}
	}
	va, err := p.env.Versioned(a, m)
	if err != nil {
		return fail(err)
	}
	params, err := p.paramsFor(ctx, c, b, a)
	if errors.Is(err, errParamNotFound) {
		return []decision{{message: err.Error(), reason: metav1.StatusReasonInvalid}}
	}
	if err != nil {
		return fail(err)
	}
	var ns *corev1.Namespace
	if a.Namespace != "" && p.env.Namespace != nil {
		if n, ok := p.env.Namespace(a.Namespace); ok {
			ns = plugincel.CreateNamespaceObject(n)
		}
	}
	var out []decision
	for _, param := range params {
		vattr, req := celeval.Input(a, va, m)
		if c.conditions != nil {
			r := c.conditions.Match(ctx, vattr, param, nil)
			if r.Error != nil {
				out = append(out, fail(r.Error)...)
				continue
			}
			if !r.Matches {
				continue
			}
		}
		bindings := plugincel.OptionalVariableBindings{VersionedParams: param}
		results, _, err := c.validations.ForInput(ctx, vattr, req, bindings, ns, celconfig.RuntimeCELCostBudget)
		if err != nil {
			out = append(out, fail(err)...)
			continue
		}
		var messages []plugincel.EvaluationResult
		for i, r := range results {
			switch {
			case r.Error != nil:
				out = append(out, fail(r.Error)...)
			case r.EvalResult != types.True:
				if messages == nil {
					messages, _, _ = c.messages.ForInput(ctx, vattr, req, bindings, ns, celconfig.RuntimeCELCostBudget)
				}
				out = append(out, decision{message: message(c, i, messages), reason: reasonOrInvalid(c.p.Spec.Validations[i].Reason), index: i})
			}
		}
		p.auditAnnotations(ctx, c, vattr, req, bindings, ns)
	}
	return out
}

// message is a failed validation's message: its messageExpression's
// value, else its message, else kube's "failed expression: <expr>".
func message(c *compiled, i int, messages []plugincel.EvaluationResult) string {
	v := c.p.Spec.Validations[i]
	if v.MessageExpression != "" && i < len(messages) && messages[i].Error == nil {
		if s, ok := messages[i].EvalResult.Value().(string); ok && strings.TrimSpace(s) != "" && !strings.Contains(s, "\n") {
			return s
		}
	}
	if v.Message != "" {
		return v.Message
	}
	return "failed expression: " + strings.TrimSpace(v.Expression)
}

// auditAnnotations adds the policy's audit annotations
// (<policy>/<key>) whose value is not null.
func (p *Plugin) auditAnnotations(ctx context.Context, c *compiled, vattr *apiadmission.VersionedAttributes, req *admissionv1.AdmissionRequest, bindings plugincel.OptionalVariableBindings, ns *corev1.Namespace) {
	if len(c.p.Spec.AuditAnnotations) == 0 {
		return
	}
	results, _, err := c.audits.ForInput(ctx, vattr, req, bindings, ns, celconfig.RuntimeCELCostBudget)
	if err != nil {
		return
	}
	for i, r := range results {
		if r.Error != nil || i >= len(c.p.Spec.AuditAnnotations) {
			continue
		}
		if s, ok := r.EvalResult.Value().(string); ok {
			admission.Annotate(ctx, c.p.Name+"/"+c.p.Spec.AuditAnnotations[i].Key, s)
		}
	}
}

// auditFailure is one entry of kube's
// validation.policy.admission.k8s.io/validation_failure annotation.
type auditFailure struct {
	Message           string   `json:"message"`
	Policy            string   `json:"policy"`
	Binding           string   `json:"binding"`
	ExpressionIndex   int      `json:"expressionIndex"`
	ValidationActions []string `json:"validationActions"`
}

func annotateAudits(ctx context.Context, audits []auditFailure) {
	if len(audits) == 0 {
		return
	}
	b, err := json.Marshal(audits)
	if err == nil {
		admission.Annotate(ctx, "validation.policy.admission.k8s.io/validation_failure", string(b))
	}
}

// enforce applies the binding's validationActions to its decisions:
// Deny refuses the write with kube's message, Warn adds a warning, Audit
// an audit annotation.
func (p *Plugin) enforce(ctx context.Context, c *compiled, b *admissionregistrationv1.ValidatingAdmissionPolicyBinding, a *admission.Attributes, decisions []decision, audits *[]auditFailure) error {
	var deny *decision
	for i := range decisions {
		d := &decisions[i]
		for _, act := range b.Spec.ValidationActions {
			switch act {
			case admissionregistrationv1.Deny:
				if deny == nil {
					deny = d
				}
			case admissionregistrationv1.Warn:
				admission.Warn(ctx, fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", c.p.Name, b.Name, d.message))
			case admissionregistrationv1.Audit:
				acts := make([]string, len(b.Spec.ValidationActions))
				for j, x := range b.Spec.ValidationActions {
					acts[j] = string(x)
				}
				*audits = append(*audits, auditFailure{Message: d.message, Policy: c.p.Name, Binding: b.Name, ExpressionIndex: d.index, ValidationActions: acts})
			}
		}
	}
	if deny == nil {
		return nil
	}
	return denied(a, c.p.Name, b.Name, deny)
}

// denied is kube's error for a policy's denial: a Forbidden naming the
// object, with the validation's reason and the code that goes with it.
func denied(a *admission.Attributes, policy, binding string, d *decision) error {
	msg := fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", policy, binding, d.message)
	name := a.Name
	if name == "" && a.Object != nil {
		if o, ok := a.Object.(metav1.Object); ok {
			name = o.GetName()
			if name == "" {
				name = o.GetGenerateName()
			}
		}
	}
	err := apierrors.NewForbidden(a.Resource.GroupResource(), name, errors.New(msg))
	err.ErrStatus.Reason = d.reason
	err.ErrStatus.Code = reasonCode(d.reason)
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{Message: msg})
	return err
}

func reasonCode(r metav1.StatusReason) int32 {
	switch r {
	case metav1.StatusReasonForbidden:
		return 403
	case metav1.StatusReasonUnauthorized:
		return 401
	case metav1.StatusReasonRequestEntityTooLarge:
		return 413
	}
	return 422
}

var errParamNotFound = errors.New("no params found for policy binding with `Deny` parameterNotFoundAction")

// paramsFor reads the binding's params of the policy's paramKind from
// the watch cache of their store: one nil param without paramKind, none
// when none is found and the binding allows that.
func (p *Plugin) paramsFor(ctx context.Context, c *compiled, b *admissionregistrationv1.ValidatingAdmissionPolicyBinding, a *admission.Attributes) ([]runtime.Object, error) {
	pk := c.p.Spec.ParamKind
	if pk == nil {
		return []runtime.Object{nil}, nil
	}
	ref := b.Spec.ParamRef
	if ref == nil {
		return nil, fmt.Errorf("policy %q has paramKind but binding %q has no paramRef", c.p.Name, b.Name)
	}
	gv, err := schema.ParseGroupVersion(pk.APIVersion)
	if err != nil {
		return nil, fmt.Errorf("paramKind of policy %q: %w", c.p.Name, err)
	}
	gvk := gv.WithKind(pk.Kind)
	r := p.params(gvk.GroupKind())
	if r == nil {
		return nil, fmt.Errorf("failed to find resource referenced by paramKind: '%v'", gvk)
	}
	ns := ""
	if r.Info().Namespaced {
		ns = ref.Namespace
		if ns == "" {
			ns = a.Namespace
		}
		if ns == "" {
			return nil, errors.New("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
		}
	}
	var found []runtime.Object
	if ref.Name != "" {
		o, err := r.GetCached(ctx, ns, ref.Name)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return nil, err
		default:
			found = append(found, o)
		}
	} else {
		sel, err := metav1.LabelSelectorAsSelector(ref.Selector)
		if err != nil {
			return nil, fmt.Errorf("paramRef selector of binding %q: %w", b.Name, err)
		}
		objs, err := r.ListCached(ctx, ns, sel)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			found = append(found, o)
		}
	}
	if len(found) == 0 {
		if ref.ParameterNotFoundAction != nil && *ref.ParameterNotFoundAction == admissionregistrationv1.AllowAction {
			return nil, nil
		}
		return nil, errParamNotFound
	}
	for i, o := range found {
		if o.GetObjectKind().GroupVersionKind() != gvk && p.env.Convert != nil {
			if found[i], err = p.env.Convert(o, gvk); err != nil {
				return nil, fmt.Errorf("convert the param to %s: %w", gvk, err)
			}
		}
	}
	return found, nil
}
