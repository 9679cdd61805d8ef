package webhook

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/kubeforge/kubeforge/runtime/admission"
	"github.com/kubeforge/kubeforge/runtime/admission/celeval"
	"github.com/kubeforge/kubeforge/runtime/admission/match"
)

// conditions are a webhook's matchConditions, compiled with Kubernetes'
// admission CEL library and evaluated by its matcher (which applies
// failurePolicy to evaluation errors).
type conditions struct {
	name    string
	matcher matchconditions.Matcher
	err     error
}

func newConditions(name string, conds []admissionregistrationv1.MatchCondition, fp admissionregistrationv1.FailurePolicyType) *conditions {
	if len(conds) == 0 {
		return nil
	}
	c, err := celeval.NewCompiler()
	if err != nil {
		return &conditions{err: err}
	}
	exprs := make([]plugincel.ExpressionAccessor, len(conds))
	for i := range conds {
		mc := matchconditions.MatchCondition(conds[i])
		exprs[i] = &mc
	}
	eval := c.CompileCondition(exprs, plugincel.OptionalVariableDeclarations{HasAuthorizer: true}, environment.StoredExpressions)
	return &conditions{name: name, matcher: matchconditions.NewMatcher(eval, &fp, "webhook", "admit", name)}
}

// match evaluates the conditions on the write (va: converted to m).
func (c *conditions) match(ctx context.Context, a, va *admission.Attributes, m match.Matched) (bool, error) {
	if c.err != nil {
		return false, apierrors.NewInternalError(c.err)
	}
	vattr, _ := celeval.Input(a, va, m)
	r := c.matcher.Match(ctx, vattr, nil, nil)
	if r.Error != nil {
		// The matcher applied failurePolicy already: this is a Fail.
		return false, apierrors.NewInternalError(&callError{c.name, r.Error})
	}
	return r.Matches, nil
}
