package policy

import (
	"context"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforge/kubeforge/runtime/admission"
	"github.com/kubeforge/kubeforge/runtime/admission/match"
)

// source is a fixed set of policies and bindings (what the informers
// hold).
type source struct {
	policies []*admissionregistrationv1.ValidatingAdmissionPolicy
	bindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
}

func (s *source) ValidatingAdmissionPolicies() []*admissionregistrationv1.ValidatingAdmissionPolicy {
	return s.policies
}

func (s *source) ValidatingAdmissionPolicyBindings() []*admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	return s.bindings
}

func configMapPolicy(actions ...admissionregistrationv1.ValidationAction) *source {
	return &source{
		policies: []*admissionregistrationv1.ValidatingAdmissionPolicy{{
			ObjectMeta: metav1.ObjectMeta{Name: "p"},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{"CREATE"},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
					}}}},
				Validations: []admissionregistrationv1.Validation{{Expression: "!('forbidden' in object.data)", MessageExpression: "'key forbidden in ' + object.metadata.name"}},
			},
		}},
		bindings: []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{{
			ObjectMeta: metav1.ObjectMeta{Name: "b"},
			Spec:       admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "p", ValidationActions: actions},
		}},
	}
}

func create(data map[string]string) *admission.Attributes {
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "default"}, Data: data}
	return &admission.Attributes{Operation: admission.Create, Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespace: "default", Name: "cm", Object: cm}
}

type recorder struct{ warnings, annotations []string }

func (r *recorder) Warn(text string)           { r.warnings = append(r.warnings, text) }
func (r *recorder) Annotate(key, value string) { r.annotations = append(r.annotations, key+"="+value) }

// TestDenyWarnAudit: Deny refuses with kube's message and a 422, Warn and
// Audit let the write through with a warning and kube's audit annotation.
func TestDenyWarnAudit(t *testing.T) {
	p := New(&match.Env{}, configMapPolicy(admissionregistrationv1.Deny), nil, nil)
	err := p.Validate(context.Background(), create(map[string]string{"forbidden": "x"}))
	want := `configmaps "cm" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: key forbidden in cm`
	if !apierrors.IsInvalid(err) || err.Error() != want {
		t.Errorf("got %v, want an Invalid %q", err, want)
	}
	if err := p.Validate(context.Background(), create(map[string]string{"ok": "x"})); err != nil {
		t.Errorf("an allowed write: %v", err)
	}
	p = New(&match.Env{}, configMapPolicy(admissionregistrationv1.Warn, admissionregistrationv1.Audit), nil, nil)
	rec := &recorder{}
	if err := p.Validate(admission.WithRecorder(context.Background(), rec), create(map[string]string{"forbidden": "x"})); err != nil {
		t.Fatalf("Warn and Audit refused the write: %v", err)
	}
	if len(rec.warnings) != 1 || rec.warnings[0] != "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': key forbidden in cm" {
		t.Errorf("warnings %q", rec.warnings)
	}
	if len(rec.annotations) != 1 || !strings.HasPrefix(rec.annotations[0], `validation.policy.admission.k8s.io/validation_failure=[{"message":"key forbidden in cm","policy":"p","binding":"b","expressionIndex":0,"validationActions":["Warn","Audit"]}]`) {
		t.Errorf("annotations %q", rec.annotations)
	}
}

// BenchmarkValidate is the CPU a create pays for one matching policy.
func BenchmarkValidate(b *testing.B) {
	p := New(&match.Env{}, configMapPolicy(admissionregistrationv1.Deny), nil, nil)
	ctx := context.Background()
	for b.Loop() {
		if err := p.Validate(ctx, create(map[string]string{"a": "b"})); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFailurePolicy: an expression that fails at runtime (a missing key)
// refuses the write under failurePolicy Fail, with the error, and is
// skipped under Ignore.
func TestFailurePolicy(t *testing.T) {
	src := configMapPolicy(admissionregistrationv1.Deny)
	src.policies[0].Spec.Validations = []admissionregistrationv1.Validation{{Expression: "object.data.missing == 'x'"}}
	fail := admissionregistrationv1.Fail
	src.policies[0].Spec.FailurePolicy = &fail
	err := New(&match.Env{}, src, nil, nil).Validate(context.Background(), create(map[string]string{"a": "b"}))
	if err == nil || !strings.Contains(err.Error(), "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'object.data.missing == 'x'' resulted in error: no such key: missing") {
		t.Errorf("failurePolicy Fail: got %v", err)
	}
	ignore := admissionregistrationv1.Ignore
	src.policies[0].Spec.FailurePolicy = &ignore
	if err := New(&match.Env{}, src, nil, nil).Validate(context.Background(), create(map[string]string{"a": "b"})); err != nil {
		t.Errorf("failurePolicy Ignore: %v", err)
	}
}
