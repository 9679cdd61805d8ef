package builtinstrategy

import (
	"testing"

	"github.com/kubeforge/kubeforge/generators/model"
)

func TestFor(t *testing.T) {
	kind := func(pkg, name string, external bool) *model.Kind {
		return &model.Kind{Name: name, Version: &model.Version{Package: pkg, External: external}}
	}
	for _, c := range []struct {
		k    *model.Kind
		want Strategy
	}{
		{kind("k8s.io/api/core/v1", "ConfigMap", true), Strategy{UnconditionalUpdate: true, UntrackedGeneration: true, Validate: "KubeFinalizerNames"}},
		{kind("k8s.io/api/core/v1", "Event", true), Strategy{UnconditionalUpdate: true, CreateOnUpdate: true, UntrackedGeneration: true, Validate: "ValidateCoreEvent", ValidateOwnVersionOnly: true}},
		{kind("k8s.io/api/events/v1", "Event", true), Strategy{UnconditionalUpdate: true, CreateOnUpdate: true, UntrackedGeneration: true, Validate: "ValidateEventsEvent", ValidateOwnVersionOnly: true, ValidateUpdate: "ValidateEventsEventUpdate"}},
		{kind("k8s.io/api/rbac/v1", "ClusterRoleBinding", true), Strategy{UnconditionalUpdate: true, CreateOnUpdate: true, UntrackedGeneration: true, Validate: "ValidateClusterRoleBinding"}},
		{kind("k8s.io/api/coordination/v1", "Lease", true), Strategy{CreateOnUpdate: true, UntrackedGeneration: true, Validate: "ValidateLease"}},
		{kind("k8s.io/api/core/v1", "Pod", true), Strategy{UnconditionalUpdate: true}},
		{kind("k8s.io/api/apps/v1", "Deployment", true), Strategy{UnconditionalUpdate: true}},
		{kind("k8s.io/api/admissionregistration/v1", "ValidatingWebhookConfiguration", true), Strategy{}},
		{kind("k8s.io/api/admissionregistration/v1beta1", "MutatingAdmissionPolicy", true), Strategy{}},
		{kind("k8s.io/api/policy/v1", "PodDisruptionBudget", true), Strategy{}},
		// Custom resources, external or not, answer no to both.
		{kind("example.dev/api/v1", "Widget", true), Strategy{}},
		{kind("k8s.io/api/core/v1", "ConfigMap", false), Strategy{}},
		{kind("k8s.io/api", "Odd", true), Strategy{}},
	} {
		if got := For(c.k); got != c.want {
			t.Errorf("For(%s %s external=%v) = %+v, want %+v", c.k.Version.Package, c.k.Name, c.k.Version.External, got, c.want)
		}
	}
}
