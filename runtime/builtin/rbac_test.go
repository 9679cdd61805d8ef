package builtin

import (
	"context"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
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

// TestRBACValidation: kube's RBAC checks beyond k8s.io/api's markers, with
// kube-apiserver v1.37's messages (compared in e2e's TestCRDParityWithKube):
// rules, role references and subjects, and roleRef fixed on update.
func TestRBACValidation(t *testing.T) {
	got := func(errs field.ErrorList) []string {
		var out []string
		for _, e := range errs {
			out = append(out, e.Error())
		}
		return out
	}
	role := &rbacv1.Role{Rules: []rbacv1.PolicyRule{
		{Verbs: []string{}, Resources: []string{"pods"}},
		{Verbs: []string{"get"}, NonResourceURLs: []string{"/x"}, APIGroups: []string{""}},
		{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}},
	}}
	want := []string{
		"rules[0].apiGroups: Required value: resource rules must supply at least one api group",
		`rules[1].nonResourceURLs: Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs`,
		`rules[1].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs`,
		"rules[0].verbs: Required value",
	}
	if g := got(ValidateRole(role)); !slices.Equal(g, want) {
		t.Errorf("role:\n got %q\nwant %q", g, want)
	}
	cr := &rbacv1.ClusterRole{Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/x"}}}}
	if errs := ValidateClusterRole(cr); errs != nil {
		t.Errorf("cluster role with a non-resource URL: %v", errs)
	}
	rb := &rbacv1.RoleBinding{
		RoleRef: rbacv1.RoleRef{APIGroup: "x", Kind: "Pod", Name: "r"},
		Subjects: []rbacv1.Subject{
			{Kind: rbacv1.ServiceAccountKind, Name: "Bad_Name", APIGroup: "x"},
			{Kind: rbacv1.UserKind, Name: "u", APIGroup: "other"},
			{Kind: "Bogus", Name: "b"},
		},
	}
	want = []string{
		`roleRef.apiGroup: Unsupported value: "x": supported values: "rbac.authorization.k8s.io"`,
		`roleRef.kind: Unsupported value: "Pod": supported values: "Role", "ClusterRole"`,
		`subjects[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		`subjects[0].apiGroup: Unsupported value: "x": supported values: ""`,
		`subjects[1].apiGroup: Unsupported value: "other": supported values: "rbac.authorization.k8s.io"`,
		`subjects[2].kind: Unsupported value: "Bogus": supported values: "ServiceAccount", "User", "Group"`,
	}
	if g := got(ValidateRoleBinding(rb)); !slices.Equal(g, want) {
		t.Errorf("role binding:\n got %q\nwant %q", g, want)
	}
	crb := &rbacv1.ClusterRoleBinding{
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "r"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "sa"}},
	}
	want = []string{
		`roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"`,
		"subjects[0].namespace: Required value",
	}
	if g := got(ValidateClusterRoleBinding(crb)); !slices.Equal(g, want) {
		t.Errorf("cluster role binding:\n got %q\nwant %q", g, want)
	}
	old := &rbacv1.RoleBinding{RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "a"}}
	changed := old.DeepCopy()
	changed.RoleRef.Name = "b"
	admit := RoleBindingHooks().Admit
	err := admit(context.Background(), changed, old)
	if err == nil || err.Error() != `RoleBinding.rbac.authorization.k8s.io "" is invalid: roleRef: Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"Role","Name":"b"}: field is immutable` {
		t.Errorf("roleRef change: %v", err)
	}
	if err := admit(context.Background(), old.DeepCopy(), old); err != nil {
		t.Errorf("same roleRef: %v", err)
	}
	if err := admit(context.Background(), changed, nil); err != nil {
		t.Errorf("create: %v", err)
	}
}
