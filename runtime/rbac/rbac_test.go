package rbac

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/request"
)

// TestRuleAllows is kube's rule matching: wildcards, subresources (and
// "*/<subresource>"), resource names, non-resource URL prefixes.
func TestRuleAllows(t *testing.T) {
	res := func(verb, group, resource, sub, name string) auth.Attributes {
		return auth.Attributes{Info: request.Info{IsResourceRequest: true, Verb: verb, APIGroup: group, Resource: resource, Subresource: sub, Name: name, Namespace: "a"}}
	}
	path := func(verb, p string) auth.Attributes { return auth.Attributes{Info: request.Info{Verb: verb, Path: p}} }
	shipments := rbacv1.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{"shipping.kubeforge.dev"}, Resources: []string{"shipments"}}
	for _, c := range []struct {
		name string
		rule rbacv1.PolicyRule
		a    auth.Attributes
		want bool
	}{
		{"exact", shipments, res("list", "shipping.kubeforge.dev", "shipments", "", ""), true},
		{"other verb", shipments, res("delete", "shipping.kubeforge.dev", "shipments", "", "x"), false},
		{"other group", shipments, res("list", "", "shipments", "", ""), false},
		{"subresource needs its own rule", shipments, res("get", "shipping.kubeforge.dev", "shipments", "status", "x"), false},
		{"resource/subresource", rbacv1.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{"*"}, Resources: []string{"shipments/status"}}, res("update", "shipping.kubeforge.dev", "shipments", "status", "x"), true},
		{"*/subresource", rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*/scale"}}, res("patch", "g", "gadgets", "scale", "x"), true},
		{"*/subresource is not the resource", rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*/scale"}}, res("patch", "g", "gadgets", "", "x"), false},
		{"resource names", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"one"}}, res("get", "", "configmaps", "", "one"), true},
		{"resource names refuse others", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"one"}}, res("get", "", "configmaps", "", "two"), false},
		{"resource names refuse lists", rbacv1.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"one"}}, res("list", "", "configmaps", "", ""), false},
		{"url", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}, path("get", "/healthz"), true},
		{"url prefix", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/apis/*"}}, path("get", "/apis/shipping.kubeforge.dev/v1"), true},
		{"url is not a resource rule", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"*"}}, path("get", "/healthz"), false},
		{"resource rule is not a url", rbacv1.PolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}, res("get", "", "pods", "", "x"), false},
	} {
		if got := RuleAllows(c.a, &c.rule); got != c.want {
			t.Errorf("%s: RuleAllows = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestAppliesTo: users by name, groups by membership, ServiceAccounts by
// their user name, in the binding's namespace when the subject has none.
func TestAppliesTo(t *testing.T) {
	sa := &auth.User{Name: "system:serviceaccount:a:robot", Groups: []string{"system:serviceaccounts"}}
	alice := &auth.User{Name: "alice", Groups: []string{"dev"}}
	for _, c := range []struct {
		u    *auth.User
		s    rbacv1.Subject
		ns   string
		want bool
	}{
		{alice, rbacv1.Subject{Kind: "User", Name: "alice"}, "", true},
		{alice, rbacv1.Subject{Kind: "User", Name: "bob"}, "", false},
		{alice, rbacv1.Subject{Kind: "Group", Name: "dev"}, "", true},
		{sa, rbacv1.Subject{Kind: "ServiceAccount", Name: "robot"}, "a", true},
		{sa, rbacv1.Subject{Kind: "ServiceAccount", Name: "robot"}, "b", false},
		{sa, rbacv1.Subject{Kind: "ServiceAccount", Name: "robot", Namespace: "a"}, "", true},
		{sa, rbacv1.Subject{Kind: "ServiceAccount", Name: "robot"}, "", false},
		{sa, rbacv1.Subject{Kind: "User", Name: "robot"}, "a", false},
	} {
		if got := appliesTo(c.u, []rbacv1.Subject{c.s}, c.ns); got != c.want {
			t.Errorf("appliesTo(%s, %+v, %q) = %v, want %v", c.u.Name, c.s, c.ns, got, c.want)
		}
	}
}

// TestAggregatedRules: the union of matching roles' rules, in name order,
// without duplicates, and not the role's own.
func TestAggregatedRules(t *testing.T) {
	r1 := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"a"}}
	r2 := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"b"}}
	agg := &rbacv1.ClusterRole{AggregationRule: aggregation(aggregateToView)}
	agg.Name = "view"
	mk := func(name string, labels map[string]string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
		c := &rbacv1.ClusterRole{Rules: rules}
		c.Name, c.Labels = name, labels
		return c
	}
	all := []*rbacv1.ClusterRole{
		agg,
		mk("z", map[string]string{aggregateToView: "true"}, r1),
		mk("b", map[string]string{aggregateToView: "true"}, r2, r1),
		mk("other", map[string]string{"x": "y"}, rbacv1.PolicyRule{Verbs: []string{"*"}}),
	}
	got := aggregatedRules(agg, all)
	if len(got) != 2 || got[0].Resources[0] != "b" || got[1].Resources[0] != "a" {
		t.Errorf("aggregated rules = %+v", got)
	}
}
