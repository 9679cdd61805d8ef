package rbac

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/request"
)

// TestAuthorizeReason: the reason of a decision (the audit annotation
// authorization.k8s.io/reason, and the tail of a 403) is kube's RBAC
// authorizer's: the binding, role and subject that allowed the request,
// or on a denial the bound roles that do not exist.
func TestAuthorizeReason(t *testing.T) {
	rules := []rbacv1.PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}}
	ix := &index{
		roles:        map[string]*rbacv1.Role{"team/reader": {ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: "team"}, Rules: rules}},
		clusterRoles: map[string]*rbacv1.ClusterRole{"view": {ObjectMeta: metav1.ObjectMeta{Name: "view"}, Rules: rules}},
		roleBindings: map[string][]*rbacv1.RoleBinding{"team": {
			{ObjectMeta: metav1.ObjectMeta{Name: "gone", Namespace: "team"}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "gone"},
				Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "carol"}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "readers", Namespace: "team"}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "reader"},
				Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "bob"}, {Kind: rbacv1.ServiceAccountKind, Name: "bot"}}},
		}},
		clusterRoleBindings: []*rbacv1.ClusterRoleBinding{
			{ObjectMeta: metav1.ObjectMeta{Name: "viewers"}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
				Subjects: []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "viewers"}}},
		},
	}
	a := &Authorizer{index: ix}
	get := func(u *auth.User, verb string) auth.Attributes {
		return auth.Attributes{User: u, Info: request.Info{Verb: verb, IsResourceRequest: true, Resource: "configmaps", Namespace: "team", APIVersion: "v1"}}
	}
	cases := []struct {
		attrs  auth.Attributes
		allow  bool
		reason string
	}{
		{get(&auth.User{Name: "alice", Groups: []string{"viewers"}}, "list"), true,
			`RBAC: allowed by ClusterRoleBinding "viewers" of ClusterRole "view" to Group "viewers"`},
		{get(&auth.User{Name: "bob"}, "get"), true,
			`RBAC: allowed by RoleBinding "readers/team" of Role "reader" to User "bob"`},
		{get(&auth.User{Name: "system:serviceaccount:team:bot"}, "get"), true,
			`RBAC: allowed by RoleBinding "readers/team" of Role "reader" to ServiceAccount "bot/team"`},
		{get(&auth.User{Name: "bob"}, "delete"), false, ""},
		{get(&auth.User{Name: "carol"}, "get"), false,
			`RBAC: role.rbac.authorization.k8s.io "gone" not found`},
	}
	for _, c := range cases {
		d, reason, err := a.Authorize(context.Background(), c.attrs)
		if err != nil || (d == auth.DecisionAllow) != c.allow || reason != c.reason {
			t.Errorf("%s %s: decision %v, reason %q, err %v; want allowed=%v, reason %q", c.attrs.User.Name, c.attrs.Verb, d, reason, err, c.allow, c.reason)
		}
	}
}
