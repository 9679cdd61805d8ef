package rbac

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/auth/rbac/validation"

	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/resource"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// Labels and annotations of the bootstrap policy, as kube-apiserver sets
// them.
const (
	bootstrapLabel      = "kubernetes.io/bootstrapping"
	bootstrapValue      = "rbac-defaults"
	autoUpdate          = "rbac.authorization.kubernetes.io/autoupdate"
	aggregateToAdmin    = "rbac.authorization.k8s.io/aggregate-to-admin"
	aggregateToEdit     = "rbac.authorization.k8s.io/aggregate-to-edit"
	aggregateToView     = "rbac.authorization.k8s.io/aggregate-to-view"
	authenticationGroup = "authentication.k8s.io"
	authorizationGroup  = "authorization.k8s.io"
)

var (
	readVerbs  = []string{"get", "list", "watch"}
	writeVerbs = []string{"create", "delete", "deletecollection", "patch", "update"}
	allVerbs   = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
)

func bootstrapMeta(name string, extra map[string]string) metav1.ObjectMeta {
	l := map[string]string{bootstrapLabel: bootstrapValue}
	maps.Copy(l, extra)
	return metav1.ObjectMeta{Name: name, Labels: l, Annotations: map[string]string{autoUpdate: "true"}}
}

func aggregation(label string) *rbacv1.AggregationRule {
	return &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{label: "true"}}}}
}

// BootstrapClusterRoles are kube-apiserver's default ClusterRoles that this
// server has a use for, with the aggregate-to-admin/edit/view roles
// covering every served resource (served lists the resource tables).
func BootstrapClusterRoles(served []*resource.Info) []*rbacv1.ClusterRole {
	view, edit, admin := aggregateRules(served)
	return []*rbacv1.ClusterRole{
		{ObjectMeta: bootstrapMeta("cluster-admin", nil), Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}},
			{NonResourceURLs: []string{"*"}, Verbs: []string{"*"}},
		}},
		{ObjectMeta: bootstrapMeta("admin", nil), AggregationRule: aggregation(aggregateToAdmin)},
		{ObjectMeta: bootstrapMeta("edit", map[string]string{aggregateToAdmin: "true"}), AggregationRule: aggregation(aggregateToEdit)},
		{ObjectMeta: bootstrapMeta("view", map[string]string{aggregateToEdit: "true"}), AggregationRule: aggregation(aggregateToView)},
		{ObjectMeta: bootstrapMeta("system:aggregate-to-admin", map[string]string{aggregateToAdmin: "true"}), Rules: admin},
		{ObjectMeta: bootstrapMeta("system:aggregate-to-edit", map[string]string{aggregateToEdit: "true"}), Rules: edit},
		{ObjectMeta: bootstrapMeta("system:aggregate-to-view", map[string]string{aggregateToView: "true"}), Rules: view},
		{ObjectMeta: bootstrapMeta("system:discovery", nil), Rules: []rbacv1.PolicyRule{{
			NonResourceURLs: []string{"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/"},
			Verbs:           []string{"get"},
		}}},
		{ObjectMeta: bootstrapMeta("system:basic-user", nil), Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{authorizationGroup}, Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}, Verbs: []string{"create"}},
			{APIGroups: []string{authenticationGroup}, Resources: []string{"selfsubjectreviews"}, Verbs: []string{"create"}},
		}},
		{ObjectMeta: bootstrapMeta("system:public-info-viewer", nil), Rules: []rbacv1.PolicyRule{{
			NonResourceURLs: []string{"/healthz", "/livez", "/readyz", "/version", "/version/"},
			Verbs:           []string{"get"},
		}}},
		{ObjectMeta: bootstrapMeta("system:service-account-issuer-discovery", nil), Rules: []rbacv1.PolicyRule{{
			NonResourceURLs: []string{"/.well-known/openid-configuration", "/.well-known/openid-configuration/", "/openid/v1/jwks", "/openid/v1/jwks/"},
			Verbs:           []string{"get"},
		}}},
	}
}

// BootstrapClusterRoleBindings are kube-apiserver's default bindings of
// those roles.
func BootstrapClusterRoleBindings() []*rbacv1.ClusterRoleBinding {
	group := func(name string) rbacv1.Subject {
		return rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: GroupName, Name: name}
	}
	bind := func(role string, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
		return &rbacv1.ClusterRoleBinding{
			ObjectMeta: bootstrapMeta(role, nil),
			RoleRef:    rbacv1.RoleRef{APIGroup: GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   subjects,
		}
	}
	return []*rbacv1.ClusterRoleBinding{
		bind("cluster-admin", group(auth.SystemPrivilegedGroup)),
		bind("system:discovery", group(auth.AllAuthenticated)),
		bind("system:basic-user", group(auth.AllAuthenticated)),
		bind("system:public-info-viewer", group(auth.AllAuthenticated), group(auth.AllUnauthenticated)),
		bind("system:service-account-issuer-discovery", group(auth.ServiceAccountGroup)),
	}
}

// aggregateRules give view read access to every served resource but
// Secrets and the RBAC kinds, with their status and scale; edit every write
// besides, Secrets included, ServiceAccount tokens and impersonating
// ServiceAccounts; admin the namespaced RBAC kinds and local access
// reviews, as kube's aggregate-to-* roles do for built-in kinds.
func aggregateRules(served []*resource.Info) (view, edit, admin []rbacv1.PolicyRule) {
	type resources struct{ read, write []string }
	byGroup := map[string]*resources{}
	for _, info := range served {
		if info.Group == GroupName {
			continue
		}
		rs := byGroup[info.Group]
		if rs == nil {
			rs = &resources{}
			byGroup[info.Group] = rs
		}
		subs := []string{info.Plural}
		for _, s := range info.Subresources {
			if s == "status" || s == "scale" {
				subs = append(subs, info.Plural+"/"+s)
			}
		}
		if info.Group == "" && info.Plural == "namespaces" {
			rs.read = append(rs.read, subs...)
			continue
		}
		if !(info.Group == "" && info.Plural == "secrets") {
			rs.read = append(rs.read, subs...)
		}
		for _, s := range subs {
			if s != info.Plural+"/status" {
				rs.write = append(rs.write, s)
			}
		}
		if info.Group == "" && info.Plural == "secrets" {
			rs.write = append(rs.write, info.Plural)
		}
	}
	groups := slices.Sorted(maps.Keys(byGroup))
	for _, g := range groups {
		rs := byGroup[g]
		sort.Strings(rs.read)
		rs.read = slices.Compact(rs.read)
		sort.Strings(rs.write)
		rs.write = slices.Compact(rs.write)
		if len(rs.read) > 0 {
			view = append(view, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: rs.read, Verbs: readVerbs})
		}
		if len(rs.write) > 0 {
			edit = append(edit, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: rs.write, Verbs: writeVerbs})
		}
		if g == "" && slices.Contains(rs.write, "secrets") {
			edit = append(edit, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: readVerbs})
		}
		if g == "" && slices.Contains(rs.write, "serviceaccounts") {
			edit = append(edit,
				rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"serviceaccounts/token"}, Verbs: []string{"create"}},
				rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"serviceaccounts"}, Verbs: []string{"impersonate"}})
		}
	}
	admin = []rbacv1.PolicyRule{
		{APIGroups: []string{GroupName}, Resources: []string{"rolebindings", "roles"}, Verbs: allVerbs},
		{APIGroups: []string{authorizationGroup}, Resources: []string{"localsubjectaccessreviews"}, Verbs: []string{"create"}},
	}
	return view, edit, admin
}

// Reconcile writes the bootstrap policy: missing roles and bindings are
// created; existing ones not annotated autoupdate=false get the rules,
// aggregation selectors, labels and subjects they lack (nothing is
// removed), as kube-apiserver reconciles its defaults at start.
func (a *Authorizer) Reconcile(ctx context.Context, served []*resource.Info) error {
	ctx = auth.WithUser(ctx, controllerUser)
	for _, want := range BootstrapClusterRoles(served) {
		if err := reconcileObject(ctx, a.stores.ClusterRoles, want, func(cur *rbacv1.ClusterRole) bool {
			changed := mergeMeta(&cur.ObjectMeta, want.ObjectMeta)
			if want.AggregationRule != nil {
				if cur.AggregationRule == nil {
					cur.AggregationRule = &rbacv1.AggregationRule{}
				}
				for _, s := range want.AggregationRule.ClusterRoleSelectors {
					if !slices.ContainsFunc(cur.AggregationRule.ClusterRoleSelectors, func(x metav1.LabelSelector) bool { return reflect.DeepEqual(x, s) }) {
						cur.AggregationRule.ClusterRoleSelectors = append(cur.AggregationRule.ClusterRoleSelectors, s)
						changed = true
					}
				}
				return changed
			}
			if ok, missing := validation.Covers(cur.Rules, want.Rules); !ok {
				cur.Rules = append(cur.Rules, missing...)
				changed = true
			}
			return changed
		}); err != nil {
			return fmt.Errorf("reconcile clusterrole %s: %w", want.Name, err)
		}
	}
	for _, want := range BootstrapClusterRoleBindings() {
		if err := reconcileObject(ctx, a.stores.ClusterRoleBindings, want, func(cur *rbacv1.ClusterRoleBinding) bool {
			changed := mergeMeta(&cur.ObjectMeta, want.ObjectMeta)
			for _, s := range want.Subjects {
				if !slices.Contains(cur.Subjects, s) {
					cur.Subjects = append(cur.Subjects, s)
					changed = true
				}
			}
			return changed
		}); err != nil {
			return fmt.Errorf("reconcile clusterrolebinding %s: %w", want.Name, err)
		}
	}
	return nil
}

// reconcileObject creates want, or lets merge bring the existing object up
// to it unless it opted out with autoupdate=false.
func reconcileObject[T resource.Object, L resource.ListObject](ctx context.Context, st storage.Interface[T, L], want T, merge func(cur T) bool) error {
	for attempt := 0; attempt < 3; attempt++ {
		cur, err := st.Get(ctx, "", want.GetName(), storage.GetOptions{})
		if apierrors.IsNotFound(err) {
			_, err = st.Create(ctx, want.DeepCopyObject().(T), storage.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				continue
			}
			return err
		}
		if err != nil {
			return err
		}
		if cur.GetAnnotations()[autoUpdate] == "false" {
			return nil
		}
		if !merge(cur.DeepCopyObject().(T)) {
			return nil
		}
		_, err = st.GuaranteedUpdate(ctx, "", want.GetName(), "", func(c T) (T, error) {
			merge(c)
			return c, nil
		}, storage.UpdateOptions{})
		return err
	}
	return fmt.Errorf("created and deleted concurrently")
}

// mergeMeta adds want's labels and annotations that cur lacks.
func mergeMeta(cur *metav1.ObjectMeta, want metav1.ObjectMeta) bool {
	changed := false
	for k, v := range want.Labels {
		if cur.Labels[k] != v {
			if cur.Labels == nil {
				cur.Labels = map[string]string{}
			}
			cur.Labels[k] = v
			changed = true
		}
	}
	for k, v := range want.Annotations {
		if _, ok := cur.Annotations[k]; !ok {
			if cur.Annotations == nil {
				cur.Annotations = map[string]string{}
			}
			cur.Annotations[k] = v
			changed = true
		}
	}
	return changed
}
