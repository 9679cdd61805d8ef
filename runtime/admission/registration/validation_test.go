package registration

import (
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

func urlOf(u string) *string { return &u }

// TestValidateWebhooks: kube's refusals of a webhook configuration.
func TestValidateWebhooks(t *testing.T) {
	none := admissionregistrationv1.SideEffectClassNone
	some := admissionregistrationv1.SideEffectClassSome
	good := func() admissionregistrationv1.ValidatingWebhookConfiguration {
		return admissionregistrationv1.ValidatingWebhookConfiguration{Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "a.example.dev",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: urlOf("https://h.example.dev/x")},
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{"CREATE"},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
			}},
		}}}
	}
	c := good()
	defaultValidatingWebhooks(&c)
	if errs := validateWebhooks(webhooksOf(&c)); len(errs) > 0 {
		t.Fatalf("a valid configuration is refused: %v", errs)
	}
	for _, tc := range []struct {
		change func(w *admissionregistrationv1.ValidatingWebhook)
		want   string
	}{
		{func(w *admissionregistrationv1.ValidatingWebhook) { w.Name = "short.dev" }, "webhooks[0].name: Invalid value: \"short.dev\": should be a domain with at least three segments separated by dots"},
		{func(w *admissionregistrationv1.ValidatingWebhook) { w.ClientConfig.URL = urlOf("http://h/x") }, "'https' is the only allowed URL scheme"},
		{func(w *admissionregistrationv1.ValidatingWebhook) { w.ClientConfig.URL = nil }, "exactly one of url or service is required"},
		{func(w *admissionregistrationv1.ValidatingWebhook) { w.SideEffects = &some }, `webhooks[0].sideEffects: Unsupported value: "Some"`},
		{func(w *admissionregistrationv1.ValidatingWebhook) { w.TimeoutSeconds = new(int32(31)) }, "the timeout value must be between 1 and 30 seconds"},
		{func(w *admissionregistrationv1.ValidatingWebhook) { w.AdmissionReviewVersions = []string{"v2"} }, "must include at least one of v1, v1beta1"},
		{func(w *admissionregistrationv1.ValidatingWebhook) { w.Rules[0].Resources = []string{"*", "pods"} }, "if '*' is present"},
		{func(w *admissionregistrationv1.ValidatingWebhook) {
			w.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "c", Expression: "object.x +"}}
		}, `webhooks[0].matchConditions[0].expression: Invalid value: "object.x +": compilation failed: ERROR: <input>:1:11: Syntax error`},
	} {
		c := good()
		tc.change(&c.Webhooks[0])
		errs := validateWebhooks(webhooksOf(&c))
		if !strings.Contains(errs.ToAggregate().Error(), tc.want) {
			t.Errorf("want %q, got %v", tc.want, errs)
		}
	}
}

// TestValidatePolicy: expressions that do not compile are refused with
// the compiler's message and their field; a binding may not both Deny
// and Warn.
func TestValidatePolicy(t *testing.T) {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
		MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
			RuleWithOperations: admissionregistrationv1.RuleWithOperations{
				Operations: []admissionregistrationv1.OperationType{"CREATE"},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
			}}}},
		Validations: []admissionregistrationv1.Validation{{Expression: "size(object.data) < 3"}, {Expression: "params.x == 1", MessageExpression: "1"}},
	}}
	got := ValidatePolicy(p).ToAggregate().Error()
	for _, want := range []string{
		`spec.validations[1].expression: Invalid value: "params.x == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params'`,
		`spec.validations[1].messageExpression: Invalid value: "1": must evaluate to string but got int`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q in %s", want, got)
		}
	}
	if strings.Contains(got, "validations[0]") {
		t.Errorf("a valid expression is refused: %s", got)
	}
	b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
		PolicyName: "p", ValidationActions: []admissionregistrationv1.ValidationAction{"Deny", "Warn"}}}
	if got := ValidateBinding(b).ToAggregate(); got == nil || !strings.Contains(got.Error(), "must not contain both Deny and Warn") {
		t.Errorf("Deny and Warn together: got %v", got)
	}
}
