package builtin

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

// TestBindingDefaults: kube's rbac/v1 defaulting of bindings, on create and
// on update: roleRef.apiGroup, and the apiGroup of User and Group
// subjects; ServiceAccount subjects and set values are left as they are.
func TestBindingDefaults(t *testing.T) {
	subjects := func() []rbacv1.Subject {
		return []rbacv1.Subject{
			{Kind: rbacv1.UserKind, Name: "alice"},
			{Kind: rbacv1.GroupKind, Name: "devs"},
			{Kind: rbacv1.ServiceAccountKind, Name: "bot", Namespace: "ns"},
			{Kind: rbacv1.UserKind, Name: "x", APIGroup: "other.example"},
		}
	}
	want := []string{rbacv1.GroupName, rbacv1.GroupName, "", "other.example"}
	check := func(what string, ref rbacv1.RoleRef, got []rbacv1.Subject) {
		t.Helper()
		if ref.APIGroup != rbacv1.GroupName {
			t.Errorf("%s: roleRef.apiGroup %q", what, ref.APIGroup)
		}
		for i, s := range got {
			if s.APIGroup != want[i] {
				t.Errorf("%s: subjects[%d] (%s) apiGroup %q, want %q", what, i, s.Kind, s.APIGroup, want[i])
			}
		}
	}
	rb := &rbacv1.RoleBinding{RoleRef: rbacv1.RoleRef{Kind: "Role", Name: "r"}, Subjects: subjects()}
	RoleBindingHooks().PrepareForCreate(rb)
	check("RoleBinding create", rb.RoleRef, rb.Subjects)
	rb = &rbacv1.RoleBinding{RoleRef: rbacv1.RoleRef{Kind: "Role", Name: "r"}, Subjects: subjects()}
	RoleBindingHooks().PrepareForUpdate(context.Background(), rb, rb.DeepCopy(), "")
	check("RoleBinding update", rb.RoleRef, rb.Subjects)
	crb := &rbacv1.ClusterRoleBinding{RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"}, Subjects: subjects()}
	ClusterRoleBindingHooks().PrepareForCreate(crb)
	check("ClusterRoleBinding create", crb.RoleRef, crb.Subjects)
	crb = &rbacv1.ClusterRoleBinding{RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"}, Subjects: subjects()}
	ClusterRoleBindingHooks().PrepareForUpdate(context.Background(), crb, crb.DeepCopy(), "")
	check("ClusterRoleBinding update", crb.RoleRef, crb.Subjects)
}
