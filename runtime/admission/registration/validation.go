// Package registration is what kube-apiserver's admissionregistration
// registry does beyond the generated schema checks for
// ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding,
// ValidatingWebhookConfiguration and MutatingWebhookConfiguration: kube's
// defaults and validation (webhook names, rules, client configs, CEL that
// compiles, with the compiler's message), as storage hooks; and Configs,
// the in-memory copies of the four kinds the admission plug-ins read.
package registration

import (
	"fmt"
	"net/url"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeforge/kubeforge/runtime/admission/policy"
)

// webhook is what validating and mutating webhooks share.
type webhook struct {
	name              string
	clientConfig      admissionregistrationv1.WebhookClientConfig
	rules             []admissionregistrationv1.RuleWithOperations
	timeoutSeconds    *int32
	sideEffects       *admissionregistrationv1.SideEffectClass
	versions          []string
	namespaceSelector *metav1.LabelSelector
	objectSelector    *metav1.LabelSelector
	matchConditions   []admissionregistrationv1.MatchCondition
}

// validateWebhooks is kube's ValidateValidatingWebhookConfiguration and
// ValidateMutatingWebhookConfiguration, for the webhook-level rules the
// schema does not express.
func validateWebhooks(hooks []webhook) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for i, h := range hooks {
		p := field.NewPath("webhooks").Index(i)
		if h.name != "" {
			for _, msg := range validation.IsDNS1123Subdomain(h.name) {
				errs = append(errs, field.Invalid(p.Child("name"), h.name, msg))
			}
			if len(strings.Split(h.name, ".")) < 3 {
				errs = append(errs, field.Invalid(p.Child("name"), h.name, "should be a domain with at least three segments separated by dots"))
			}
			if names.Has(h.name) {
				errs = append(errs, field.Duplicate(p.Child("name"), h.name))
			}
			names.Insert(h.name)
		}
		for j, r := range h.rules {
			errs = append(errs, validateRule(&r, p.Child("rules").Index(j), true)...)
		}
		if h.sideEffects != nil && *h.sideEffects != admissionregistrationv1.SideEffectClassNone && *h.sideEffects != admissionregistrationv1.SideEffectClassNoneOnDryRun {
			errs = append(errs, field.NotSupported(p.Child("sideEffects"), *h.sideEffects, []string{"None", "NoneOnDryRun"}))
		}
		if h.timeoutSeconds != nil && (*h.timeoutSeconds < 1 || *h.timeoutSeconds > 30) {
			errs = append(errs, field.Invalid(p.Child("timeoutSeconds"), *h.timeoutSeconds, "the timeout value must be between 1 and 30 seconds"))
		}
		errs = append(errs, validateReviewVersions(h.versions, p.Child("admissionReviewVersions"))...)
		errs = append(errs, validateClientConfig(h.clientConfig, p.Child("clientConfig"))...)
		errs = append(errs, validateSelector(h.namespaceSelector, p.Child("namespaceSelector"))...)
		errs = append(errs, validateSelector(h.objectSelector, p.Child("objectSelector"))...)
		errs = append(errs, validateMatchConditions(h.matchConditions, p.Child("matchConditions"))...)
	}
	return errs
}

func validateReviewVersions(vs []string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := sets.New[string]()
	ok := false
	for i, v := range vs {
		for _, msg := range validation.IsDNS1035Label(v) {
			errs = append(errs, field.Invalid(p.Index(i), v, msg))
		}
		if seen.Has(v) {
			errs = append(errs, field.Duplicate(p.Index(i), v))
		}
		seen.Insert(v)
		ok = ok || v == "v1" || v == "v1beta1"
	}
	if len(vs) > 0 && !ok {
		errs = append(errs, field.Invalid(p, vs, "must include at least one of v1, v1beta1"))
	}
	return errs
}

// validateRule is kube's rule validation: non-empty operations, groups,
// versions and resources, "*" alone, and resources with subresources
// well formed.
func validateRule(r *admissionregistrationv1.RuleWithOperations, p *field.Path, needOps bool) field.ErrorList {
	var errs field.ErrorList
	if needOps && len(r.Operations) == 0 {
		errs = append(errs, field.Required(p.Child("operations"), ""))
	}
	if len(r.Operations) > 1 && hasWildcard(opsStrings(r.Operations)) {
		errs = append(errs, field.Invalid(p.Child("operations"), r.Operations, "if '*' is present, must not specify other operations"))
	}
	for name, list := range map[string][]string{"apiGroups": r.APIGroups, "apiVersions": r.APIVersions} {
		if len(list) == 0 {
			errs = append(errs, field.Required(p.Child(name), ""))
		}
		if len(list) > 1 && hasWildcard(list) {
			errs = append(errs, field.Invalid(p.Child(name), list, "if '*' is present, must not specify other "+map[string]string{"apiGroups": "API groups", "apiVersions": "API versions"}[name]))
		}
	}
	for i, v := range r.APIVersions {
		if v == "" {
			errs = append(errs, field.Required(p.Child("apiVersions").Index(i), ""))
		}
	}
	if len(r.Resources) == 0 {
		errs = append(errs, field.Required(p.Child("resources"), ""))
	}
	for i, res := range r.Resources {
		if res == "" {
			errs = append(errs, field.Required(p.Child("resources").Index(i), ""))
			continue
		}
		if strings.Count(res, "/") > 1 || strings.HasPrefix(res, "/") || strings.HasSuffix(res, "/") {
			errs = append(errs, field.Invalid(p.Child("resources").Index(i), res, "must be a resource or resource/subresource"))
		}
	}
	if len(r.Resources) > 1 && hasWildcard(r.Resources) {
		errs = append(errs, field.Invalid(p.Child("resources"), r.Resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}

func opsStrings(ops []admissionregistrationv1.OperationType) []string {
	out := make([]string, len(ops))
	for i, o := range ops {
		out[i] = string(o)
	}
	return out
}

func hasWildcard(list []string) bool {
	for _, s := range list {
		if s == "*" {
			return true
		}
	}
	return false
}

// validateClientConfig: exactly one of url and service; an https url
// without user, query or fragment; a service with name, namespace, a
// valid port and a path starting with "/".
func validateClientConfig(cc admissionregistrationv1.WebhookClientConfig, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case cc.URL == nil && cc.Service == nil:
		errs = append(errs, field.Required(p, "exactly one of url or service is required"))
	case cc.URL != nil && cc.Service != nil:
		errs = append(errs, field.Required(p, "exactly one of url or service is required"))
	case cc.URL != nil:
		u, err := url.Parse(*cc.URL)
		switch {
		case err != nil:
			errs = append(errs, field.Invalid(p.Child("url"), *cc.URL, fmt.Sprintf("url must be a valid URL: %v", err)))
		case u.Scheme != "https":
			errs = append(errs, field.Invalid(p.Child("url"), u.Scheme, "'https' is the only allowed URL scheme"))
		case u.Host == "":
			errs = append(errs, field.Invalid(p.Child("url"), u.Host, "host must be specified"))
		case u.User != nil:
			errs = append(errs, field.Invalid(p.Child("url"), u.User.String(), "user information is not permitted in the URL"))
		case u.Fragment != "" || u.RawFragment != "":
			errs = append(errs, field.Invalid(p.Child("url"), u.Fragment, "fragments are not permitted in the URL"))
		case u.RawQuery != "":
			errs = append(errs, field.Invalid(p.Child("url"), u.RawQuery, "query parameters are not permitted in the URL"))
		}
	default:
		s := cc.Service
		if s.Port != nil && (*s.Port < 1 || *s.Port > 65535) {
			errs = append(errs, field.Invalid(p.Child("service", "port"), *s.Port, "port is not valid: must be between 1 and 65535, inclusive"))
		}
		if s.Path != nil && !strings.HasPrefix(*s.Path, "/") {
			errs = append(errs, field.Invalid(p.Child("service", "path"), *s.Path, "must start with a '/'"))
		}
	}
	return errs
}

func validateSelector(sel *metav1.LabelSelector, p *field.Path) field.ErrorList {
	if sel == nil {
		return nil
	}
	return metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, p)
}

// validateMatchConditions: unique qualified names, at most 64, and CEL
// that compiles.
func validateMatchConditions(conds []admissionregistrationv1.MatchCondition, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(conds) > 64 {
		errs = append(errs, field.TooMany(p, len(conds), 64))
	}
	names := sets.New[string]()
	for i, c := range conds {
		if c.Name != "" {
			for _, msg := range validation.IsQualifiedName(c.Name) {
				errs = append(errs, field.Invalid(p.Index(i).Child("name"), c.Name, msg))
			}
			if names.Has(c.Name) {
				errs = append(errs, field.Duplicate(p.Index(i).Child("name"), c.Name))
			}
			names.Insert(c.Name)
		}
	}
	if len(conds) > 0 {
		spec := &admissionregistrationv1.ValidatingAdmissionPolicySpec{MatchConditions: conds}
		for _, e := range policy.Errors(spec) {
			e.Field = strings.Replace(e.Field, "spec.matchConditions", p.String(), 1)
			errs = append(errs, e)
		}
	}
	return errs
}

// ValidatePolicy is kube's ValidateValidatingAdmissionPolicy beyond the
// schema: matchConstraints with resourceRules, something to check, valid
// rules, selectors and reasons, unique variable names, and expressions
// that compile.
func ValidatePolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	s := &p.Spec
	mc := s.MatchConstraints
	if mc == nil {
		errs = append(errs, field.Required(spec.Child("matchConstraints"), ""))
	} else {
		if len(mc.ResourceRules) == 0 {
			errs = append(errs, field.Required(spec.Child("matchConstraints", "resourceRules"), ""))
		}
		errs = append(errs, validateMatchResources(mc, spec.Child("matchConstraints"))...)
	}
	if len(s.Validations) == 0 && len(s.AuditAnnotations) == 0 {
		errs = append(errs, field.Required(spec.Child("validations"), "validations or auditAnnotations must contain at least one item"))
	}
	if s.ParamKind != nil {
		if s.ParamKind.APIVersion == "" {
			errs = append(errs, field.Required(spec.Child("paramKind", "apiVersion"), ""))
		}
		if s.ParamKind.Kind == "" {
			errs = append(errs, field.Required(spec.Child("paramKind", "kind"), ""))
		}
	}
	for i, v := range s.Validations {
		if v.Reason != nil {
			switch *v.Reason {
			case metav1.StatusReasonUnauthorized, metav1.StatusReasonForbidden, metav1.StatusReasonInvalid, metav1.StatusReasonRequestEntityTooLarge:
			default:
				errs = append(errs, field.NotSupported(spec.Child("validations").Index(i).Child("reason"), *v.Reason, []string{"Unauthorized", "Forbidden", "Invalid", "RequestEntityTooLarge"}))
			}
		}
	}
	vars := sets.New[string]()
	for i, v := range s.Variables {
		if vars.Has(v.Name) {
			errs = append(errs, field.Duplicate(spec.Child("variables").Index(i).Child("name"), v.Name))
		}
		vars.Insert(v.Name)
	}
	keys := sets.New[string]()
	for i, a := range s.AuditAnnotations {
		if keys.Has(a.Key) {
			errs = append(errs, field.Duplicate(spec.Child("auditAnnotations").Index(i).Child("key"), a.Key))
		}
		keys.Insert(a.Key)
	}
	return append(errs, policy.Errors(s)...)
}

func validateMatchResources(mr *admissionregistrationv1.MatchResources, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, r := range mr.ResourceRules {
		errs = append(errs, validateRule(&r.RuleWithOperations, p.Child("resourceRules").Index(i), true)...)
	}
	for i, r := range mr.ExcludeResourceRules {
		errs = append(errs, validateRule(&r.RuleWithOperations, p.Child("excludeResourceRules").Index(i), true)...)
	}
	errs = append(errs, validateSelector(mr.NamespaceSelector, p.Child("namespaceSelector"))...)
	return append(errs, validateSelector(mr.ObjectSelector, p.Child("objectSelector"))...)
}

// ValidateBinding is kube's ValidateValidatingAdmissionPolicyBinding
// beyond the schema.
func ValidateBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	if b.Spec.PolicyName == "" {
		errs = append(errs, field.Required(spec.Child("policyName"), ""))
	}
	if len(b.Spec.ValidationActions) == 0 {
		errs = append(errs, field.Required(spec.Child("validationActions"), ""))
	}
	acts := sets.New[admissionregistrationv1.ValidationAction]()
	for i, a := range b.Spec.ValidationActions {
		p := spec.Child("validationActions").Index(i)
		switch a {
		case admissionregistrationv1.Deny, admissionregistrationv1.Warn, admissionregistrationv1.Audit:
		default:
			errs = append(errs, field.NotSupported(p, a, []string{"Deny", "Warn", "Audit"}))
		}
		if acts.Has(a) {
			errs = append(errs, field.Duplicate(p, a))
		}
		acts.Insert(a)
	}
	if acts.Has(admissionregistrationv1.Deny) && acts.Has(admissionregistrationv1.Warn) {
		errs = append(errs, field.Invalid(spec.Child("validationActions"), b.Spec.ValidationActions, "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	if r := b.Spec.ParamRef; r != nil {
		p := spec.Child("paramRef")
		if r.Name != "" && r.Selector != nil {
			errs = append(errs, field.Forbidden(p.Child("name"), "name and selector are mutually exclusive"))
		}
		if r.Name == "" && r.Selector == nil {
			errs = append(errs, field.Required(p, "one of name or selector must be specified"))
		}
		if r.ParameterNotFoundAction == nil {
			errs = append(errs, field.Required(p.Child("parameterNotFoundAction"), ""))
		}
		errs = append(errs, validateSelector(r.Selector, p.Child("selector"))...)
	}
	if mr := b.Spec.MatchResources; mr != nil {
		errs = append(errs, validateMatchResources(mr, spec.Child("matchResources"))...)
	}
	return errs
}
