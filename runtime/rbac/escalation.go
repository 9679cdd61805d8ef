package rbac

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
	// Rules, role references and subjects are validated before this
	// (runtime/builtin's ValidateRole and friends).
	a.stores.Roles.SetHooks(storage.Hooks[*rbacv1.Role]{Admit: func(ctx context.Context, obj, cur *rbacv1.Role) error {
		if cur != nil && reflect.DeepEqual(obj.Rules, cur.Rules) {
			return nil
		}
		return a.confirmRole(ctx, "roles", obj.Namespace, obj.Name, obj.Rules)
	}})
	a.stores.ClusterRoles.SetHooks(storage.Hooks[*rbacv1.ClusterRole]{Admit: func(ctx context.Context, obj, cur *rbacv1.ClusterRole) error {
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
	rbAdmit := rbh.Admit
	rbh.Admit = func(ctx context.Context, obj, cur *rbacv1.RoleBinding) error {
		if err := rbAdmit(ctx, obj, cur); err != nil {
			return err
		}
		b := binding{resource: "rolebindings", namespace: obj.Namespace, name: obj.Name, ref: obj.RoleRef, subjects: obj.Subjects}
		if cur != nil {
			b.cur = &binding{ref: cur.RoleRef, subjects: cur.Subjects}
		}
		return a.admitBinding(ctx, b)
	}
	a.stores.RoleBindings.SetHooks(rbh)
	crbh := builtin.ClusterRoleBindingHooks()
	crbAdmit := crbh.Admit
	crbh.Admit = func(ctx context.Context, obj, cur *rbacv1.ClusterRoleBinding) error {
		if err := crbAdmit(ctx, obj, cur); err != nil {
			return err
		}
		b := binding{resource: "clusterrolebindings", name: obj.Name, ref: obj.RoleRef, subjects: obj.Subjects}
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
	resource, namespace, name string
	ref                       rbacv1.RoleRef
	subjects                  []rbacv1.Subject
	cur                       *binding
}

// admitBinding lets a binding be written only by who holds the role it
// binds (or may escalate or bind it); an update that keeps the subjects
// needs no check. Validation (runtime/builtin) ran before: the role
// reference is valid and unchanged.
func (a *Authorizer) admitBinding(ctx context.Context, b binding) error {
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
