package rbac

import (
	"context"
	"reflect"
	"sort"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// controllerUser writes aggregated rules and the bootstrap policy.
var controllerUser = &auth.User{Name: "system:kubeforge:rbac-controller", Groups: []string{auth.SystemPrivilegedGroup, auth.AllAuthenticated}}

// aggregateLoop keeps every ClusterRole with an aggregationRule holding
// the rules of the ClusterRoles its selectors match, as kube's
// clusterrole-aggregation controller does. Every replica runs it; the
// writes are idempotent.
func (a *Authorizer) aggregateLoop(ctx context.Context) {
	a.aggregateAll(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.aggregate:
			a.aggregateAll(ctx)
		}
	}
}

func (a *Authorizer) aggregateAll(ctx context.Context) {
	roles := a.clusterRoles.List()
	sort.Slice(roles, func(i, j int) bool { return roles[i].Name < roles[j].Name })
	for _, cr := range roles {
		if cr.AggregationRule == nil {
			continue
		}
		want := aggregatedRules(cr, roles)
		if reflect.DeepEqual(want, cr.Rules) || (len(want) == 0 && len(cr.Rules) == 0) {
			continue
		}
		wctx := auth.WithUser(ctx, controllerUser)
		_, err := a.stores.ClusterRoles.GuaranteedUpdate(wctx, "", cr.Name, "", func(cur *rbacv1.ClusterRole) (*rbacv1.ClusterRole, error) {
			cur.Rules = aggregatedRules(cur, a.clusterRoles.List())
			return cur, nil
		}, storage.UpdateOptions{})
		if err != nil && ctx.Err() == nil {
			a.log.Warn("aggregate cluster role rules", "clusterrole", cr.Name, "err", err)
		}
	}
}

// aggregatedRules is the union, in name order, of the rules of every other
// ClusterRole matched by cr's selectors.
func aggregatedRules(cr *rbacv1.ClusterRole, all []*rbacv1.ClusterRole) []rbacv1.PolicyRule {
	sorted := append([]*rbacv1.ClusterRole(nil), all...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	var out []rbacv1.PolicyRule
	for _, sel := range cr.AggregationRule.ClusterRoleSelectors {
		s, err := metav1.LabelSelectorAsSelector(&sel)
		if err != nil {
			continue
		}
		for _, other := range sorted {
			if other.Name == cr.Name || !s.Matches(labels.Set(other.Labels)) {
				continue
			}
			for _, r := range other.Rules {
				if !containsRule(out, r) {
					out = append(out, r)
				}
			}
		}
	}
	return out
}

func containsRule(rules []rbacv1.PolicyRule, r rbacv1.PolicyRule) bool {
	for _, x := range rules {
		if reflect.DeepEqual(x, r) {
			return true
		}
	}
	return false
}
