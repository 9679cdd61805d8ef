package rbac

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/request"
)

// TestDecisionsFollowIndex: remembered answers are the index's own: a new
// index (what every RBAC change builds) answers from its objects at once,
// an answer that a resource-names rule took part in is not reused for
// another name, and a user of the same name with other groups is asked
// anew.
func TestDecisionsFollowIndex(t *testing.T) {
	rules := []rbacv1.PolicyRule{
		{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}},
		{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"one"}},
	}
	bound := func(subjects ...rbacv1.Subject) *index {
		return &index{
			clusterRoles: map[string]*rbacv1.ClusterRole{"reader": {ObjectMeta: metav1.ObjectMeta{Name: "reader"}, Rules: rules}},
			clusterRoleBindings: []*rbacv1.ClusterRoleBinding{{ObjectMeta: metav1.ObjectMeta{Name: "readers"},
				RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "reader"}, Subjects: subjects}},
		}
	}
	a := &Authorizer{index: bound(rbacv1.Subject{Kind: rbacv1.UserKind, Name: "alice"}, rbacv1.Subject{Kind: rbacv1.GroupKind, Name: "team"})}
	alice := &auth.User{Name: "alice", Groups: []string{auth.AllAuthenticated}}
	attrs := func(u *auth.User, resource, name string) auth.Attributes {
		return auth.Attributes{User: u, Info: request.Info{IsResourceRequest: true, Verb: "get", APIVersion: "v1", Namespace: "a", Resource: resource, Name: name}}
	}
	check := func(what string, at auth.Attributes, want bool) {
		t.Helper()
		for i := range 2 { // the second answer may come from the cache
			d, _, err := a.Authorize(context.Background(), at)
			if err != nil || (d == auth.DecisionAllow) != want {
				t.Errorf("%s (ask %d): decision %v, err %v; want allowed=%v", what, i+1, d, err, want)
			}
		}
	}
	check("alice gets a configmap", attrs(alice, "configmaps", "x"), true)
	check("alice gets another configmap", attrs(alice, "configmaps", "y"), true)
	if n := len(a.index.decisions.m); n != 1 {
		t.Errorf("%d answers remembered, want 1 (the object name is not part of the key)", n)
	}
	check("alice gets the secret she is allowed", attrs(alice, "secrets", "one"), true)
	check("alice gets another secret", attrs(alice, "secrets", "two"), false)
	check("alice gets the secret she is allowed, again", attrs(alice, "secrets", "one"), true)
	check("bob, not bound", attrs(&auth.User{Name: "bob"}, "configmaps", "x"), false)
	check("bob, now in team", attrs(&auth.User{Name: "bob", Groups: []string{"team"}}, "configmaps", "x"), true)
	check("bob, out of team again", attrs(&auth.User{Name: "bob", Groups: []string{"other"}}, "configmaps", "x"), false)

	// The binding loses alice: the rebuilt index denies at once.
	a.index = bound(rbacv1.Subject{Kind: rbacv1.GroupKind, Name: "team"})
	check("alice once unbound", attrs(alice, "configmaps", "x"), false)
	a.index = bound(rbacv1.Subject{Kind: rbacv1.UserKind, Name: "alice"})
	check("alice bound again", attrs(alice, "configmaps", "x"), true)
}
