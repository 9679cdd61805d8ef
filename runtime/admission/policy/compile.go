// Package policy enforces ValidatingAdmissionPolicies as kube-apiserver's
// ValidatingAdmissionPolicy plug-in does: each binding of a policy that
// matches a write (the policy's matchConstraints and the binding's
// matchResources) evaluates the policy's matchConditions, variables and
// validations, with params from any served kind, and applies the
// binding's validationActions (Deny, Warn, Audit) and the policy's
// failurePolicy. Expressions are compiled and evaluated by Kubernetes'
// admission CEL library; policies are compiled again only when they
// change.
package policy

import (
	"fmt"

	celgo "github.com/google/cel-go/cel"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/kubeforge/kubeforge/runtime/admission/celeval"
)

// Expression accessors of the policy's fields (the CEL library compiles
// anything with an expression and return types).
type (
	validationExpr struct{ expr string }
	messageExpr    struct{ expr string }
	auditExpr      struct{ expr string }
	variableExpr   struct{ name, expr string }
)

func (e *validationExpr) GetExpression() string      { return e.expr }
func (e *validationExpr) ReturnTypes() []*celgo.Type { return []*celgo.Type{celgo.BoolType} }
func (e *messageExpr) GetExpression() string         { return e.expr }
func (e *messageExpr) ReturnTypes() []*celgo.Type    { return []*celgo.Type{celgo.StringType} }
func (e *auditExpr) GetExpression() string           { return e.expr }
func (e *auditExpr) ReturnTypes() []*celgo.Type {
	return []*celgo.Type{celgo.StringType, celgo.NullType}
}
func (e *variableExpr) GetExpression() string { return e.expr }
func (e *variableExpr) GetName() string       { return e.name }
func (e *variableExpr) ReturnTypes() []*celgo.Type {
	return []*celgo.Type{celgo.AnyType, celgo.DynType}
}
func reasonOrInvalid(r *metav1.StatusReason) metav1.StatusReason {
	if r == nil || *r == "" {
		return metav1.StatusReasonInvalid
	}
	return *r
}

// compiled is one policy ready to evaluate.
type compiled struct {
	p           *admissionregistrationv1.ValidatingAdmissionPolicy
	failure     admissionregistrationv1.FailurePolicyType
	validations plugincel.ConditionEvaluator
	messages    plugincel.ConditionEvaluator // one per validation; "" when none
	audits      plugincel.ConditionEvaluator
	conditions  matchconditions.Matcher // nil without matchConditions
}

// Errors compiles each expression of a policy spec and returns the
// compiler's message for those that do not compile, with the field of
// each (spec.validations[0].expression): what validation refuses a policy
// for, as kube-apiserver refuses it.
func Errors(spec *admissionregistrationv1.ValidatingAdmissionPolicySpec) field.ErrorList {
	cc, err := celeval.NewCompiler()
	if err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("spec"), err)}
	}
	var errs field.ErrorList
	opts := plugincel.OptionalVariableDeclarations{HasParams: spec.ParamKind != nil, HasAuthorizer: true}
	check := func(path *field.Path, expr string, e plugincel.ExpressionAccessor) {
		ev := cc.CompileCondition([]plugincel.ExpressionAccessor{e}, opts, environment.StoredExpressions)
		for _, err := range ev.CompilationErrors() {
			errs = append(errs, field.Invalid(path, expr, err.Error()))
		}
	}
	for i, v := range spec.Variables {
		r := cc.CompileAndStoreVariable(&variableExpr{name: v.Name, expr: v.Expression}, opts, environment.StoredExpressions)
		if r.Error != nil {
			errs = append(errs, field.Invalid(field.NewPath("spec", "variables").Index(i).Child("expression"), v.Expression, r.Error.Error()))
		}
	}
	for i, v := range spec.Validations {
		path := field.NewPath("spec", "validations").Index(i)
		check(path.Child("expression"), v.Expression, &validationExpr{expr: v.Expression})
		if v.MessageExpression != "" {
			check(path.Child("messageExpression"), v.MessageExpression, &messageExpr{expr: v.MessageExpression})
		}
	}
	for i, a := range spec.AuditAnnotations {
		check(field.NewPath("spec", "auditAnnotations").Index(i).Child("valueExpression"), a.ValueExpression, &auditExpr{expr: a.ValueExpression})
	}
	for i := range spec.MatchConditions {
		mc := matchconditions.MatchCondition(spec.MatchConditions[i])
		check(field.NewPath("spec", "matchConditions").Index(i).Child("expression"), mc.Expression, &mc)
	}
	return errs
}

// compile compiles a policy: variables first (the other expressions may
// use them), then validations, messageExpressions, auditAnnotations and
// matchConditions.
func compile(p *admissionregistrationv1.ValidatingAdmissionPolicy) (*compiled, error) {
	cc, err := celeval.NewCompiler()
	if err != nil {
		return nil, fmt.Errorf("policy %q: cel environment: %w", p.Name, err)
	}
	opts := plugincel.OptionalVariableDeclarations{HasParams: p.Spec.ParamKind != nil, HasAuthorizer: true}
	vars := make([]plugincel.NamedExpressionAccessor, len(p.Spec.Variables))
	for i, v := range p.Spec.Variables {
		vars[i] = &variableExpr{name: v.Name, expr: v.Expression}
	}
	cc.CompileAndStoreVariables(vars, opts, environment.StoredExpressions)
	vals := make([]plugincel.ExpressionAccessor, len(p.Spec.Validations))
	msgs := make([]plugincel.ExpressionAccessor, len(p.Spec.Validations))
	for i, v := range p.Spec.Validations {
		vals[i] = &validationExpr{expr: v.Expression}
		msg := v.MessageExpression
		if msg == "" {
			msg = `""`
		}
		msgs[i] = &messageExpr{expr: msg}
	}
	audits := make([]plugincel.ExpressionAccessor, len(p.Spec.AuditAnnotations))
	for i, a := range p.Spec.AuditAnnotations {
		audits[i] = &auditExpr{expr: a.ValueExpression}
	}
	c := &compiled{
		p:           p,
		failure:     admissionregistrationv1.Fail,
		validations: cc.CompileCondition(vals, opts, environment.StoredExpressions),
		messages:    cc.CompileCondition(msgs, opts, environment.StoredExpressions),
		audits:      cc.CompileCondition(audits, opts, environment.StoredExpressions),
	}
	if p.Spec.FailurePolicy != nil {
		c.failure = *p.Spec.FailurePolicy
	}
	if len(p.Spec.MatchConditions) > 0 {
		conds := make([]plugincel.ExpressionAccessor, len(p.Spec.MatchConditions))
		for i := range p.Spec.MatchConditions {
			mc := matchconditions.MatchCondition(p.Spec.MatchConditions[i])
			conds[i] = &mc
		}
		ev := cc.CompileCondition(conds, opts, environment.StoredExpressions)
		c.conditions = matchconditions.NewMatcher(ev, &c.failure, "policy", "validate", p.Name)
	}
	return c, nil
}
