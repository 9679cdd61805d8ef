package rbac

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-helpers/auth/rbac/validation"

	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/builtin"
	"github.com/kubeforge/kubeforge/runtime/request"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// GroupName is the RBAC API group.
const GroupName = rbacv1.GroupName

func groupResource(resource string) schema.GroupResource {
	return schema.GroupResource{Group: GroupName, Resource: resource}
}

// setHooks makes every write of an RBAC object pass kube's RBAC
// validation and its escalation checks.
func (a *Authorizer) setHooks() {
	a.stores.Roles.SetHooks(storage.Hooks[*rbacv1.Role]{Admit: func(ctx context.Context, obj, cur *rbacv1.Role) error {
		if errs := validateRules(obj.Rules, true); len(errs) > 0 {
			return apierrors.NewInvalid(schema.GroupKind{Group: GroupName, Kind: "Role"}, obj.Name, errs)
		}
		if cur != nil && reflect.DeepEqual(obj.Rules, cur.Rules) {
			return nil
		}
		return a.confirmRole(ctx, "roles", obj.Namespace, obj.Name, obj.Rules)
	}})
	a.stores.ClusterRoles.SetHooks(storage.Hooks[*rbacv1.ClusterRole]{Admit: func(ctx context.Context, obj, cur *rbacv1.ClusterRole) error {
		errs := validateRules(obj.Rules, false)
		if obj.AggregationRule != nil {
			for i, s := range obj.AggregationRule.ClusterRoleSelectors {
				if _, err := metav1.LabelSelectorAsSelector(&s); err != nil {
					errs = append(errs, field.Invalid(field.NewPath("aggregationRule", "clusterRoleSelectors").Index(i), s, err.Error()))
				}
			}
		}
		if len(errs) > 0 {
			return apierrors.NewInvalid(schema.GroupKind{Group: GroupName, Kind: "ClusterRole"}, obj.Name, errs)
		}
		if obj.AggregationRule != nil && (cur == nil || !reflect.DeepEqual(obj.AggregationRule, cur.AggregationRule)) {
			// Aggregation can pull in any rule: kube asks for full
			// authority (or escalate) to set it.
			full := []rbacv1.PolicyRule{
				{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
				{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
			}
			if err := a.confirmRole(ctx, "clusterroles", "", obj.Name, full); err != nil {
				return apierrors.NewForbidden(groupResource("clusterroles"), obj.Name, errors.New("must have cluster-admin privileges to use the aggregationRule"))
			}
			return nil
		}
		if cur != nil && reflect.DeepEqual(obj.Rules, cur.Rules) {
			return nil
		}
		// Rules of an aggregated role are written by the aggregation
		// controller, as a privileged user.
		return a.confirmRole(ctx, "clusterroles", "", obj.Name, obj.Rules)
	}})
	// Bindings keep kube's defaulting (builtin) beside their admission.
	rbh := builtin.RoleBindingHooks()
	rbh.Admit = func(ctx context.Context, obj, cur *rbacv1.RoleBinding) error {
		b := binding{kind: "RoleBinding", resource: "rolebindings", namespaced: true, namespace: obj.Namespace, name: obj.Name, ref: obj.RoleRef, subjects: obj.Subjects}
		if cur != nil {
			b.cur = &binding{ref: cur.RoleRef, subjects: cur.Subjects}
		}
		return a.admitBinding(ctx, b)
	}
	a.stores.RoleBindings.SetHooks(rbh)
	crbh := builtin.ClusterRoleBindingHooks()
	crbh.Admit = func(ctx context.Context, obj, cur *rbacv1.ClusterRoleBinding) error {
		b := binding{kind: "ClusterRoleBinding", resource: "clusterrolebindings", name: obj.Name, ref: obj.RoleRef, subjects: obj.Subjects}
		if cur != nil {
			b.cur = &binding{ref: cur.RoleRef, subjects: cur.Subjects}
		}
		return a.admitBinding(ctx, b)
	}
	a.stores.ClusterRoleBindings.SetHooks(crbh)
}

// binding is what admission checks of a RoleBinding or ClusterRoleBinding
// (not namespaced); cur is the stored one on update.
type binding struct {
	kind, resource, namespace, name string
	namespaced                      bool
	ref                             rbacv1.RoleRef
	subjects                        []rbacv1.Subject
	cur                             *binding
}

// admitBinding validates a binding as kube does (roleRef fixed once set)
// and lets it be written only by who holds the role it binds (or may
// escalate or bind it); an update that keeps the subjects needs no check.
func (a *Authorizer) admitBinding(ctx context.Context, b binding) error {
	errs := validateBinding(b.ref, b.subjects, b.namespaced)
	if b.cur != nil && b.ref != b.cur.ref {
		errs = append(errs, field.Invalid(field.NewPath("roleRef"), b.ref, "cannot change roleRef"))
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(schema.GroupKind{Group: GroupName, Kind: b.kind}, b.name, errs)
	}
	if b.cur != nil && reflect.DeepEqual(b.subjects, b.cur.subjects) {
		return nil
	}
	return a.confirmBinding(ctx, b.resource, b.namespace, b.name, b.ref)
}

// privileged: no user in ctx (the server's own writes) or system:masters.
func privilegedUser(ctx context.Context) (*auth.User, bool) {
	u, ok := auth.UserFrom(ctx)
	if !ok {
		return nil, true
	}
	return u, u.InGroup(auth.SystemPrivilegedGroup)
}

// confirmRole allows writing a role with rules when the user may escalate
// on it or already holds every rule (in namespace, cluster-wide ones
// included), as kube's role storage checks.
func (a *Authorizer) confirmRole(ctx context.Context, resource, namespace, name string, rules []rbacv1.PolicyRule) error {
	u, ok := privilegedUser(ctx)
	if ok {
		return nil
	}
	if d, _, _ := a.Authorize(ctx, auth.Attributes{User: u, Info: request.Info{Verb: "escalate", IsResourceRequest: true, APIGroup: GroupName, Resource: resource, Namespace: namespace, Name: name}}); d == auth.DecisionAllow {
		return nil
	}
	return a.confirmNoEscalation(u, resource, namespace, name, rules)
}

// confirmBinding allows writing a binding when the user may bind the role
// it refers to, or already holds every rule of that role, as kube's
// binding storage checks.
func (a *Authorizer) confirmBinding(ctx context.Context, resource, namespace, name string, ref rbacv1.RoleRef) error {
	u, ok := privilegedUser(ctx)
	if ok {
		return nil
	}
	roleResource := "clusterroles"
	if ref.Kind == "Role" {
		roleResource = "roles"
	}
	if d, _, _ := a.Authorize(ctx, auth.Attributes{User: u, Info: request.Info{Verb: "bind", IsResourceRequest: true, APIGroup: GroupName, Resource: roleResource, Namespace: namespace, Name: ref.Name}}); d == auth.DecisionAllow {
		return nil
	}
	ix := a.snapshot()
	exists := false
	switch ref.Kind {
	case "ClusterRole":
		_, exists = ix.clusterRoles[ref.Name]
	case "Role":
		_, exists = ix.roles[namespace+"/"+ref.Name]
	}
	if !exists {
		kind := strings.ToLower(ref.Kind)
		return apierrors.NewForbidden(groupResource(resource), name, fmt.Errorf("%s.%s %q not found", kind, GroupName, ref.Name))
	}
	return a.confirmNoEscalation(u, resource, namespace, name, ix.roleRefRules(ref, namespace))
}

func (a *Authorizer) confirmNoEscalation(u *auth.User, resource, namespace, name string, rules []rbacv1.PolicyRule) error {
	owner := a.RulesFor(u, namespace)
	covered, missing := validation.Covers(owner, rules)
	if covered {
		return nil
	}
	var b strings.Builder
	for _, r := range missing {
		b.WriteString("\n")
		b.WriteString(compactRule(r))
	}
	msg := fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:%s", u.Name, u.Groups, b.String())
	return apierrors.NewForbidden(groupResource(resource), name, errors.New(msg))
}

// compactRule prints a rule as kube's rbacv1helpers.CompactString does.
func compactRule(r rbacv1.PolicyRule) string {
	var parts []string
	add := func(name string, vs []string) {
		if len(vs) == 0 {
			return
		}
		q := make([]string, len(vs))
		for i, v := range vs {
			q[i] = fmt.Sprintf("%q", v)
		}
		parts = append(parts, name+":["+strings.Join(q, " ")+"]")
	}
	add("APIGroups", r.APIGroups)
	add("Resources", r.Resources)
	add("ResourceNames", r.ResourceNames)
	add("NonResourceURLs", r.NonResourceURLs)
	add("Verbs", r.Verbs)
	return "{" + strings.Join(parts, ", ") + "}"
}

// validateRules is kube's ValidatePolicyRule over a role's rules.
func validateRules(rules []rbacv1.PolicyRule, namespaced bool) field.ErrorList {
	var errs field.ErrorList
	for i, r := range rules {
		p := field.NewPath("rules").Index(i)
		if len(r.Verbs) == 0 {
			errs = append(errs, field.Required(p.Child("verbs"), "verbs must contain at least one value"))
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
	return errs
}

// validateBinding is kube's ValidateRoleBinding / ValidateClusterRoleBinding
// over the role reference and subjects.
func validateBinding(ref rbacv1.RoleRef, subjects []rbacv1.Subject, namespaced bool) field.ErrorList {
	var errs field.ErrorList
	rp := field.NewPath("roleRef")
	if ref.APIGroup != GroupName {
		errs = append(errs, field.NotSupported(rp.Child("apiGroup"), ref.APIGroup, []string{GroupName}))
	}
	kinds := []string{"ClusterRole"}
	if namespaced {
		kinds = []string{"Role", "ClusterRole"}
	}
	if ref.Kind != "ClusterRole" && !(namespaced && ref.Kind == "Role") {
		errs = append(errs, field.NotSupported(rp.Child("kind"), ref.Kind, kinds))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(rp.Child("name"), ""))
	}
	for i, s := range subjects {
		p := field.NewPath("subjects").Index(i)
		if s.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		}
		switch s.Kind {
		case rbacv1.ServiceAccountKind:
			if s.APIGroup != "" {
				errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{""}))
			}
			if !namespaced && s.Namespace == "" {
				errs = append(errs, field.Required(p.Child("namespace"), ""))
			}
		case rbacv1.UserKind, rbacv1.GroupKind:
			if s.APIGroup != GroupName {
				errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{GroupName}))
			}
		default:
			errs = append(errs, field.NotSupported(p.Child("kind"), s.Kind, []string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind}))
		}
	}
	return errs
}
