package policy

import (
	"fmt"
	"sort"
	"strings"
	"time"

	celgo "github.com/google/cel-go/cel"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"

	"github.com/kubeforge/kubeforge/runtime/admission/celeval"
)

// maxTypesToCheck bounds the kinds one policy is checked against, as
// kube's type checker does.
const maxTypesToCheck = 10

// TypeChecker checks a policy's validation and message expressions
// against the schemas of the kinds its matchConstraints name explicitly
// (no wildcards), as kube's ValidatingAdmissionPolicy status controller
// does: what does not type-check is a warning in status.typeChecking, not
// an error (the policy still runs, on dynamic types).
type TypeChecker struct {
	// Kind resolves a resource to its kind, if served.
	Kind func(gvr schema.GroupVersionResource) (schema.GroupVersionKind, bool)
	// Schema returns the structural schema of a kind, if known.
	Schema func(gvk schema.GroupVersionKind) (*structuralschema.Structural, bool)
}

// Check returns the expression warnings of p (nil when everything checks).
func (c *TypeChecker) Check(p *admissionregistrationv1.ValidatingAdmissionPolicy) []admissionregistrationv1.ExpressionWarning {
	gvks := c.kinds(p)
	var params *apiservercel.DeclType
	if pk := p.Spec.ParamKind; pk != nil {
		if gv, err := schema.ParseGroupVersion(pk.APIVersion); err == nil {
			params = c.declType(gv.WithKind(pk.Kind))
		}
	}
	var warnings []admissionregistrationv1.ExpressionWarning
	check := func(path *field.Path, expr string) {
		var msgs []string
		for _, gvk := range gvks {
			obj := c.declType(gvk)
			if obj == nil {
				continue
			}
			if err := compileTyped(p, obj, params, expr); err != nil {
				msgs = append(msgs, fmt.Sprintf("%v: %s\n", gvk, err))
			}
		}
		if len(msgs) > 0 {
			warnings = append(warnings, admissionregistrationv1.ExpressionWarning{FieldRef: path.String(), Warning: strings.Join(msgs, "\n")})
		}
	}
	for i, v := range p.Spec.Validations {
		path := field.NewPath("spec", "validations").Index(i)
		check(path.Child("expression"), v.Expression)
		if v.MessageExpression != "" {
			check(path.Child("messageExpression"), v.MessageExpression)
		}
	}
	return warnings
}

// kinds are the kinds named by rules without wildcards, sorted, at most
// maxTypesToCheck.
func (c *TypeChecker) kinds(p *admissionregistrationv1.ValidatingAdmissionPolicy) []schema.GroupVersionKind {
	mc := p.Spec.MatchConstraints
	if mc == nil || c.Kind == nil {
		return nil
	}
	seen := map[schema.GroupVersionKind]bool{}
	for _, r := range mc.ResourceRules {
		for _, g := range r.APIGroups {
			for _, v := range r.APIVersions {
				for _, res := range r.Resources {
					if g == "*" || v == "*" || strings.Contains(res, "*") || strings.Contains(res, "/") {
						continue
					}
					if gvk, ok := c.Kind(schema.GroupVersionResource{Group: g, Version: v, Resource: res}); ok {
						seen[gvk] = true
					}
				}
			}
		}
	}
	out := make([]schema.GroupVersionKind, 0, len(seen))
	for gvk := range seen {
		out = append(out, gvk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	if len(out) > maxTypesToCheck {
		out = out[:maxTypesToCheck]
	}
	return out
}

func (c *TypeChecker) declType(gvk schema.GroupVersionKind) *apiservercel.DeclType {
	if c.Schema == nil {
		return nil
	}
	s, ok := c.Schema(gvk)
	if !ok {
		return nil
	}
	dt := model.SchemaDeclType(s, true)
	if dt == nil {
		return nil
	}
	// A name of its own per check: CEL types are registered by name.
	return dt.MaybeAssignTypeName(fmt.Sprintf("%s%d", gvk.Kind, time.Now().UnixNano()))
}

// compileTyped compiles expr with object and oldObject of type obj and
// params of type params (dynamic when nil), the policy's variables
// declared, and returns the compiler's issues.
func compileTyped(p *admissionregistrationv1.ValidatingAdmissionPolicy, obj, params *apiservercel.DeclType, expr string) error {
	typed := func(dt *apiservercel.DeclType) *celgo.Type {
		if dt == nil {
			return celgo.DynType
		}
		return dt.CelType()
	}
	req, ns := plugincel.BuildRequestType(), plugincel.BuildNamespaceType()
	decls := []*apiservercel.DeclType{req, ns, obj}
	opts := []celgo.EnvOption{
		celgo.Variable(plugincel.ObjectVarName, typed(obj)),
		celgo.Variable(plugincel.OldObjectVarName, typed(obj)),
		celgo.Variable(plugincel.RequestVarName, req.CelType()),
		celgo.Variable(plugincel.NamespaceVarName, ns.CelType()),
		celgo.Variable("authorizer", library.AuthorizerType),
	}
	hasParams := p.Spec.ParamKind != nil
	if hasParams {
		opts = append(opts, celgo.Variable(plugincel.ParamsVarName, typed(params)))
		if params != nil {
			decls = append(decls, params)
		}
	}
	envSet, err := celeval.EnvSet().Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0), EnvOptions: opts, DeclTypes: decls,
	})
	if err != nil {
		return fmt.Errorf("type checking error: %w", err)
	}
	cc, err := plugincel.NewCompositedCompilerForTypeChecking(envSet)
	if err != nil {
		return fmt.Errorf("type checking error: %w", err)
	}
	cc.Compiler = &checkingCompiler{cc: cc}
	declOpts := plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}
	vars := make([]plugincel.NamedExpressionAccessor, len(p.Spec.Variables))
	for i, v := range p.Spec.Variables {
		vars[i] = &variableExpr{name: v.Name, expr: v.Expression}
	}
	cc.CompileAndStoreVariables(vars, declOpts, environment.StoredExpressions)
	r := cc.CompileCELExpression(&variableExpr{expr: expr}, declOpts, environment.StoredExpressions)
	if r.Error != nil {
		return r.Error
	}
	return nil
}

// checkingCompiler compiles in the typed environment without asking for
// a result type or a program: only the type checker's issues matter.
type checkingCompiler struct{ cc *plugincel.CompositedCompiler }

func (c *checkingCompiler) CompileCELExpression(e plugincel.ExpressionAccessor, _ plugincel.OptionalVariableDeclarations, mode environment.Type) plugincel.CompilationResult {
	env, err := c.cc.Env(mode)
	if err != nil {
		return plugincel.CompilationResult{ExpressionAccessor: e, Error: &apiservercel.Error{Type: apiservercel.ErrorTypeInternal, Detail: err.Error()}}
	}
	ast, issues := env.Compile(e.GetExpression())
	if issues != nil && issues.Err() != nil {
		return plugincel.CompilationResult{ExpressionAccessor: e, Error: &apiservercel.Error{Type: apiservercel.ErrorTypeInvalid, Detail: issues.String()}}
	}
	return plugincel.CompilationResult{ExpressionAccessor: e, OutputType: ast.OutputType()}
}
