package match

import (
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforge/kubeforge/runtime/admission"
)

func TestResourceMatches(t *testing.T) {
	for _, tc := range []struct {
		rules    []string
		res, sub string
		want     bool
	}{
		{[]string{"*"}, "pods", "", true},
		{[]string{"*"}, "pods", "status", false},
		{[]string{"*/*"}, "pods", "status", true},
		{[]string{"pods"}, "pods", "", true},
		{[]string{"pods"}, "pods", "status", false},
		{[]string{"pods/status"}, "pods", "status", true},
		{[]string{"pods/status"}, "pods", "", false},
		{[]string{"pods/*"}, "pods", "scale", true},
		{[]string{"*/scale"}, "gadgets", "scale", true},
		{[]string{"*/scale"}, "gadgets", "status", false},
		{[]string{"deployments"}, "pods", "", false},
	} {
		if got := resourceMatches(tc.rules, tc.res, tc.sub); got != tc.want {
			t.Errorf("resourceMatches(%v, %q, %q) = %v, want %v", tc.rules, tc.res, tc.sub, got, tc.want)
		}
	}
}

var (
	v1GVR      = schema.GroupVersionResource{Group: "g", Version: "v1", Resource: "things"}
	v1alphaGVR = schema.GroupVersionResource{Group: "g", Version: "v1alpha1", Resource: "things"}
	env        = &Env{Versions: func(gr schema.GroupResource) []Version {
		return []Version{
			{Resource: v1GVR, Kind: v1GVR.GroupVersion().WithKind("Thing"), Namespaced: true},
			{Resource: v1alphaGVR, Kind: v1alphaGVR.GroupVersion().WithKind("Thing"), Namespaced: true},
		}
	}, Namespace: func(name string) (*corev1.Namespace, bool) {
		if name != "team" {
			return nil, false
		}
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"env": "prod"}}}, true
	}}
)

func rule(versions ...string) []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"g"}, APIVersions: versions, Resources: []string{"things"}},
	}}
}

// TestRulesMatchPolicy: a write through v1alpha1 matches a v1-only rule
// as v1 under Equivalent, not under Exact; an operation the rule does not
// list never matches.
func TestRulesMatchPolicy(t *testing.T) {
	a := &admission.Attributes{Operation: admission.Create, Resource: v1alphaGVR, Kind: v1alphaGVR.GroupVersion().WithKind("Thing"), Namespace: "team"}
	m, ok := env.Rules(a, rule("v1"), nil, nil)
	if !ok || m.Resource != v1GVR || m.Kind.Version != "v1" {
		t.Errorf("Equivalent: got %v %v, want a match as v1", m, ok)
	}
	exact := admissionregistrationv1.Exact
	if _, ok := env.Rules(a, rule("v1"), nil, &exact); ok {
		t.Error("Exact matched another version")
	}
	if m, ok := env.Rules(a, rule("*"), nil, nil); !ok || m.Resource != v1alphaGVR {
		t.Errorf("a rule for every version: got %v %v, want the request's own", m, ok)
	}
	if _, ok := env.Rules(a, rule("*"), rule("*"), nil); ok {
		t.Error("an excluded resource matched")
	}
	del := *a
	del.Operation = admission.Delete
	if _, ok := env.Rules(&del, rule("*"), nil, nil); ok {
		t.Error("DELETE matched a CREATE rule")
	}
}

func TestSelectors(t *testing.T) {
	obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"tier": "web"}}}
	prod := &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	web := &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "web"}}
	db := &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "db"}}
	for _, tc := range []struct {
		ns        string
		nsSel, os *metav1.LabelSelector
		want      bool
	}{
		{"team", prod, web, true},
		{"team", prod, db, false},
		{"other", prod, nil, false}, // unknown namespace
		{"other", nil, web, true},
		{"team", &metav1.LabelSelector{MatchLabels: map[string]string{"env": "dev"}}, nil, false},
	} {
		a := &admission.Attributes{Namespace: tc.ns, Object: obj, Resource: v1GVR}
		got, err := env.Selectors(a, tc.nsSel, tc.os)
		if err != nil || got != tc.want {
			t.Errorf("ns %s: got %v %v, want %v", tc.ns, got, err, tc.want)
		}
	}
}
