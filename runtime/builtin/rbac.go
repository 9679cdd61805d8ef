package builtin

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubeforge/kubeforge/runtime/storage"
)

// RoleBindingHooks default rbac/v1 RoleBindings as kube-apiserver's
// defaulting does (its SetDefaults_RoleBinding and SetDefaults_Subject,
// which k8s.io/api does not carry): manifests that omit roleRef.apiGroup
// or a subject's apiGroup are accepted. The RBAC authorizer adds its
// admission to these hooks.
func RoleBindingHooks() storage.Hooks[*rbacv1.RoleBinding] {
	return storage.Hooks[*rbacv1.RoleBinding]{
		PrepareForCreate: DefaultRoleBinding,
		PrepareForUpdate: func(_ context.Context, b, _ *rbacv1.RoleBinding, _ string) { DefaultRoleBinding(b) },
	}
}

// ClusterRoleBindingHooks are RoleBindingHooks for ClusterRoleBindings.
func ClusterRoleBindingHooks() storage.Hooks[*rbacv1.ClusterRoleBinding] {
	return storage.Hooks[*rbacv1.ClusterRoleBinding]{
		PrepareForCreate: DefaultClusterRoleBinding,
		PrepareForUpdate: func(_ context.Context, b, _ *rbacv1.ClusterRoleBinding, _ string) { DefaultClusterRoleBinding(b) },
	}
}

// DefaultRoleBinding applies kube's rbac/v1 defaults to b.
func DefaultRoleBinding(b *rbacv1.RoleBinding) {
	defaultRoleRef(&b.RoleRef)
	defaultSubjects(b.Subjects)
}

// DefaultClusterRoleBinding applies kube's rbac/v1 defaults to b.
func DefaultClusterRoleBinding(b *rbacv1.ClusterRoleBinding) {
	defaultRoleRef(&b.RoleRef)
	defaultSubjects(b.Subjects)
}

// defaultRoleRef: a role is always in the RBAC group.
func defaultRoleRef(r *rbacv1.RoleRef) {
	if r.APIGroup == "" {
		r.APIGroup = rbacv1.GroupName
	}
}

// defaultSubjects: users and groups are in the RBAC group, ServiceAccounts
// in the core group (empty); other kinds are left to validation.
func defaultSubjects(subjects []rbacv1.Subject) {
	for i := range subjects {
		s := &subjects[i]
		if s.APIGroup == "" && (s.Kind == rbacv1.UserKind || s.Kind == rbacv1.GroupKind) {
			s.APIGroup = rbacv1.GroupName
		}
	}
}
