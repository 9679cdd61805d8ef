package builtin

import (
	"context"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeforge/kubeforge/runtime/storage"
)

// RoleBindingHooks default rbac/v1 RoleBindings as kube-apiserver's
// defaulting does (its SetDefaults_RoleBinding and SetDefaults_Subject,
// which k8s.io/api does not carry): manifests that omit roleRef.apiGroup
// or a subject's apiGroup are accepted. Their Admit refuses an update
// that changes roleRef (422); the RBAC authorizer chains its admission
// after it.
func RoleBindingHooks() storage.Hooks[*rbacv1.RoleBinding] {
	return storage.Hooks[*rbacv1.RoleBinding]{
		PrepareForCreate: DefaultRoleBinding,
		PrepareForUpdate: func(_ context.Context, b, _ *rbacv1.RoleBinding, _ string) { DefaultRoleBinding(b) },
		Admit: func(_ context.Context, b, cur *rbacv1.RoleBinding) error {
			if cur == nil {
				return nil
			}
			return invalidBinding("RoleBinding", b.Name, roleRefImmutable(b.RoleRef, cur.RoleRef))
		},
	}
}

// ClusterRoleBindingHooks are RoleBindingHooks for ClusterRoleBindings.
func ClusterRoleBindingHooks() storage.Hooks[*rbacv1.ClusterRoleBinding] {
	return storage.Hooks[*rbacv1.ClusterRoleBinding]{
		PrepareForCreate: DefaultClusterRoleBinding,
		PrepareForUpdate: func(_ context.Context, b, _ *rbacv1.ClusterRoleBinding, _ string) { DefaultClusterRoleBinding(b) },
		Admit: func(_ context.Context, b, cur *rbacv1.ClusterRoleBinding) error {
			if cur == nil {
				return nil
			}
			return invalidBinding("ClusterRoleBinding", b.Name, roleRefImmutable(b.RoleRef, cur.RoleRef))
		},
	}
}

// invalidBinding is the 422 of fe; nil without one.
func invalidBinding(kind, name string, fe *field.Error) error {
	if fe == nil {
		return nil
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: rbacv1.GroupName, Kind: kind}, name, field.ErrorList{fe})
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

// The RBAC checks of kube's pkg/apis/rbac/validation that the markers of
// k8s.io/api/rbac/v1 do not carry (those already refuse a nil verbs list,
// an empty roleRef kind or name, a subject without kind or name). They run
// as every RBAC write's validation, with the RBAC authorizer on or off.

// ValidateRole is kube's ValidateRole beyond the markers.
func ValidateRole(r *rbacv1.Role) field.ErrorList {
	return append(KubeFinalizerNames(r), policyRules(r.Rules, true)...)
}

// ValidateClusterRole is kube's ValidateClusterRole beyond the markers:
// its rules, and aggregation selectors that parse.
func ValidateClusterRole(r *rbacv1.ClusterRole) field.ErrorList {
	errs := append(KubeFinalizerNames(r), policyRules(r.Rules, false)...)
	if r.AggregationRule != nil {
		for i, s := range r.AggregationRule.ClusterRoleSelectors {
			if _, err := metav1.LabelSelectorAsSelector(&s); err != nil {
				errs = append(errs, field.Invalid(field.NewPath("aggregationRule", "clusterRoleSelectors").Index(i), s, err.Error()))
			}
		}
	}
	return errs
}

// ValidateRoleBinding is kube's ValidateRoleBinding beyond the markers.
func ValidateRoleBinding(b *rbacv1.RoleBinding) field.ErrorList {
	return append(KubeFinalizerNames(b), binding(b.RoleRef, b.Subjects, true)...)
}

// ValidateClusterRoleBinding is kube's ValidateClusterRoleBinding beyond
// the markers: a ClusterRoleBinding binds only ClusterRoles, and its
// ServiceAccount subjects name their namespace.
func ValidateClusterRoleBinding(b *rbacv1.ClusterRoleBinding) field.ErrorList {
	return append(KubeFinalizerNames(b), binding(b.RoleRef, b.Subjects, false)...)
}

// policyRules is kube's ValidatePolicyRule over a role's rules. An empty
// verbs list comes last, as kube's declarative check of it follows its
// hand-written ones (a nil list is the marker's).
func policyRules(rules []rbacv1.PolicyRule, namespaced bool) field.ErrorList {
	var errs, verbs field.ErrorList
	for i, r := range rules {
		p := field.NewPath("rules").Index(i)
		if r.Verbs != nil && len(r.Verbs) == 0 {
			verbs = append(verbs, field.Required(p.Child("verbs"), ""))
		}
		if len(r.NonResourceURLs) > 0 {
			if namespaced {
				errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), r.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
			}
			if len(r.APIGroups) > 0 || len(r.Resources) > 0 || len(r.ResourceNames) > 0 {
				errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), r.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
			}
			continue
		}
		if len(r.APIGroups) == 0 {
			errs = append(errs, field.Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
		}
		if len(r.Resources) == 0 {
			errs = append(errs, field.Required(p.Child("resources"), "resource rules must supply at least one resource"))
		}
	}
	return append(errs, verbs...)
}

// binding is kube's check of a binding's role reference and subjects.
func binding(ref rbacv1.RoleRef, subjects []rbacv1.Subject, namespaced bool) field.ErrorList {
	var errs field.ErrorList
	rp := field.NewPath("roleRef")
	if ref.APIGroup != rbacv1.GroupName {
		errs = append(errs, field.NotSupported(rp.Child("apiGroup"), ref.APIGroup, []string{rbacv1.GroupName}))
	}
	kinds := []string{"ClusterRole"}
	if namespaced {
		kinds = []string{"Role", "ClusterRole"}
	}
	if ref.Kind != "" && !slices.Contains(kinds, ref.Kind) {
		errs = append(errs, field.NotSupported(rp.Child("kind"), ref.Kind, kinds))
	}
	if ref.Name != "" {
		for _, msg := range path.IsValidPathSegmentName(ref.Name) {
			errs = append(errs, field.Invalid(rp.Child("name"), ref.Name, msg))
		}
	}
	for i, s := range subjects {
		p := field.NewPath("subjects").Index(i)
		switch s.Kind {
		case "":
			// The marker's Required.
		case rbacv1.ServiceAccountKind:
			if s.Name != "" {
				for _, msg := range apivalidation.ValidateServiceAccountName(s.Name, false) {
					errs = append(errs, field.Invalid(p.Child("name"), s.Name, msg))
				}
			}
			if s.APIGroup != "" {
				errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{""}))
			}
			if !namespaced && s.Namespace == "" {
				errs = append(errs, field.Required(p.Child("namespace"), ""))
			}
		case rbacv1.UserKind, rbacv1.GroupKind:
			if s.APIGroup != rbacv1.GroupName {
				errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{rbacv1.GroupName}))
			}
		default:
			errs = append(errs, field.NotSupported(p.Child("kind"), s.Kind, []string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind}))
		}
	}
	return errs
}

// roleRefImmutable is kube's ValidateRoleBindingUpdate's refusal of a new
// roleRef, whose value kube prints from its internal type (no JSON tags).
func roleRefImmutable(ref, old rbacv1.RoleRef) *field.Error {
	if ref == old {
		return nil
	}
	shown := struct{ APIGroup, Kind, Name string }{ref.APIGroup, ref.Kind, ref.Name}
	return field.Invalid(field.NewPath("roleRef"), shown, "field is immutable")
}
