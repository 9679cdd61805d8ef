// Package rbac is the RBAC authorizer: Roles, ClusterRoles, RoleBindings
// and ClusterRoleBindings (rbac.authorization.k8s.io/v1, served by the
// generated stores) held in memory by informers, so that no request reads
// etcd to be authorized, and evaluated as kube-apiserver's RBAC authorizer
// evaluates them. It also keeps aggregated ClusterRoles current, refuses
// privilege escalation through roles and bindings, and reconciles the
// bootstrap policy at start.
//
// Rule coverage (the escalation check) and bootstrap reconciliation use
// k8s.io/component-helpers/auth/rbac, the same code kube-apiserver runs.
package rbac

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/informer"
	"github.com/kubeforge/kubeforge/runtime/resource"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// Store is what the authorizer needs of one RBAC kind's store.
type Store[T resource.Object, L resource.ListObject] interface {
	storage.Interface[T, L]
	storage.HookSetter[T]
}

// Stores are the four RBAC stores.
type Stores struct {
	Roles               Store[*rbacv1.Role, *rbacv1.RoleList]
	ClusterRoles        Store[*rbacv1.ClusterRole, *rbacv1.ClusterRoleList]
	RoleBindings        Store[*rbacv1.RoleBinding, *rbacv1.RoleBindingList]
	ClusterRoleBindings Store[*rbacv1.ClusterRoleBinding, *rbacv1.ClusterRoleBindingList]
}

// Authorizer authorizes requests with RBAC.
type Authorizer struct {
	stores Stores
	log    *slog.Logger

	roles               *informer.Cache[*rbacv1.Role, *rbacv1.RoleList]
	clusterRoles        *informer.Cache[*rbacv1.ClusterRole, *rbacv1.ClusterRoleList]
	roleBindings        *informer.Cache[*rbacv1.RoleBinding, *rbacv1.RoleBindingList]
	clusterRoleBindings *informer.Cache[*rbacv1.ClusterRoleBinding, *rbacv1.ClusterRoleBindingList]

	// index is rebuilt after every change; requests read a snapshot.
	mu    sync.RWMutex
	index *index
	dirty chan struct{}
	// aggregate is poked when a ClusterRole changes.
	aggregate chan struct{}
}

// index is one consistent view of the RBAC objects.
type index struct {
	roles               map[string]*rbacv1.Role        // namespace/name
	clusterRoles        map[string]*rbacv1.ClusterRole // name
	roleBindings        map[string][]*rbacv1.RoleBinding
	clusterRoleBindings []*rbacv1.ClusterRoleBinding
	// decisions remembers Authorize's answers against this index; a
	// change to any RBAC object makes a new index, and so a new cache.
	decisions decisionCache
}

// New returns the authorizer over stores and sets their storage hooks
// (validation and escalation checks). Call Run before serving.
func New(stores Stores, log *slog.Logger) *Authorizer {
	if log == nil {
		log = slog.Default()
	}
	a := &Authorizer{stores: stores, log: log, index: &index{}, dirty: make(chan struct{}, 1), aggregate: make(chan struct{}, 1)}
	poke := func(ch chan struct{}) func() {
		return func() {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
	a.roles = informer.New(stores.Roles, poke(a.dirty), log)
	a.clusterRoles = informer.New(stores.ClusterRoles, func() { poke(a.dirty)(); poke(a.aggregate)() }, log)
	a.roleBindings = informer.New(stores.RoleBindings, poke(a.dirty), log)
	a.clusterRoleBindings = informer.New(stores.ClusterRoleBindings, poke(a.dirty), log)
	a.setHooks()
	return a
}

// Start runs the informers and the aggregation controller until ctx ends
// and waits for the first lists; the authorizer is then current.
func (a *Authorizer) Start(ctx context.Context, wg *sync.WaitGroup) error {
	run := func(f func(context.Context)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(ctx)
		}()
	}
	run(a.roles.Run)
	run(a.clusterRoles.Run)
	run(a.roleBindings.Run)
	run(a.clusterRoleBindings.Run)
	for _, synced := range []<-chan struct{}{a.roles.Synced(), a.clusterRoles.Synced(), a.roleBindings.Synced(), a.clusterRoleBindings.Synced()} {
		select {
		case <-synced:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	a.rebuild()
	run(a.rebuildLoop)
	run(a.aggregateLoop)
	return nil
}

func (a *Authorizer) rebuildLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.dirty:
			a.rebuild()
		}
	}
}

// Sync rebuilds the index from the informers now (tests and writes that
// must be visible to the next request).
func (a *Authorizer) rebuild() {
	ix := &index{
		roles:        map[string]*rbacv1.Role{},
		clusterRoles: map[string]*rbacv1.ClusterRole{},
		roleBindings: map[string][]*rbacv1.RoleBinding{},
	}
	for _, r := range a.roles.List() {
		ix.roles[r.Namespace+"/"+r.Name] = r
	}
	for _, r := range a.clusterRoles.List() {
		ix.clusterRoles[r.Name] = r
	}
	for _, b := range a.roleBindings.List() {
		ix.roleBindings[b.Namespace] = append(ix.roleBindings[b.Namespace], b)
	}
	ix.clusterRoleBindings = a.clusterRoleBindings.List()
	// Stable order: the first allowing binding is the one a reason names.
	sort.Slice(ix.clusterRoleBindings, func(i, j int) bool { return ix.clusterRoleBindings[i].Name < ix.clusterRoleBindings[j].Name })
	for _, bs := range ix.roleBindings {
		sort.Slice(bs, func(i, j int) bool { return bs[i].Name < bs[j].Name })
	}
	a.mu.Lock()
	a.index = ix
	a.mu.Unlock()
}

func (a *Authorizer) snapshot() *index {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.index
}

// Authorize implements auth.Authorizer: allowed when a rule of a role bound
// to the user (cluster-wide, or in the request's namespace) allows the
// request; otherwise no opinion (a denial, as the last authorizer). The
// reason is kube's: the binding that allowed it ("RBAC: allowed by
// ClusterRoleBinding \"x\" of ClusterRole \"edit\" to User \"alice\""), or
// on a denial the roles bound to the user that do not exist.
func (a *Authorizer) Authorize(_ context.Context, attrs auth.Attributes) (auth.Decision, string, error) {
	if attrs.User == nil {
		return auth.DecisionNoOpinion, "", nil
	}
	ix := a.snapshot()
	k := keyOf(attrs)
	if d, ok := ix.decisions.get(k, attrs.User); ok {
		return d.decision, d.reason, nil
	}
	d, reason, byName := ix.authorize(attrs)
	if !byName {
		ix.decisions.put(k, attrs.User, d, reason)
	}
	return d, reason, nil
}

// authorize evaluates attrs against the index; byName reports that a rule
// limited to resource names took part, so the answer holds for attrs'
// object name only.
func (ix *index) authorize(attrs auth.Attributes) (d auth.Decision, reason string, byName bool) {
	var allowedBy *ruleSource
	var missing []error
	ix.visitRules(attrs.User, attrs.Namespace, func(src *ruleSource, r *rbacv1.PolicyRule) bool {
		if !ruleAllowsButNames(attrs, r) {
			return true
		}
		if attrs.IsResourceRequest && len(r.ResourceNames) > 0 {
			byName = true
			if !slices.Contains(r.ResourceNames, attrs.Name) {
				return true
			}
		}
		allowedBy = src
		return false
	}, func(err error) { missing = append(missing, err) })
	if allowedBy != nil {
		return auth.DecisionAllow, "RBAC: allowed by " + allowedBy.String(), byName
	}
	if len(missing) > 0 {
		return auth.DecisionNoOpinion, fmt.Sprintf("RBAC: %v", utilerrors.NewAggregate(missing)), byName
	}
	return auth.DecisionNoOpinion, "", byName
}

// RulesFor returns the rules that apply to user in namespace (cluster-wide
// ones included; namespace "" gives those only).
func (a *Authorizer) RulesFor(user *auth.User, namespace string) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	a.snapshot().visitRules(user, namespace, func(_ *ruleSource, r *rbacv1.PolicyRule) bool {
		out = append(out, *r)
		return true
	}, nil)
	return out
}

// ruleSource is the binding a rule was granted through and the subject of
// it that matched the user, named as kube names it in reasons.
type ruleSource struct {
	clusterBinding *rbacv1.ClusterRoleBinding
	binding        *rbacv1.RoleBinding
	subject        *rbacv1.Subject
}

func (s *ruleSource) String() string {
	if s.clusterBinding != nil {
		b := s.clusterBinding
		return fmt.Sprintf("ClusterRoleBinding %q of %s %q to %s", b.Name, b.RoleRef.Kind, b.RoleRef.Name, describeSubject(s.subject, ""))
	}
	b := s.binding
	return fmt.Sprintf("RoleBinding %q of %s %q to %s", b.Name+"/"+b.Namespace, b.RoleRef.Kind, b.RoleRef.Name, describeSubject(s.subject, b.Namespace))
}

// describeSubject is `Kind "name"`, a ServiceAccount's name with its
// namespace (`ServiceAccount "sa/ns"`), as in kube's reasons.
func describeSubject(s *rbacv1.Subject, bindingNamespace string) string {
	if s.Kind == rbacv1.ServiceAccountKind {
		ns := s.Namespace
		if ns == "" {
			ns = bindingNamespace
		}
		return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+ns)
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name)
}

// visitRules calls visit for every rule granted to user in namespace, with
// the binding that grants it, until visit returns false, cluster role
// bindings first; missing, when set, is told of each bound role that does
// not exist.
func (ix *index) visitRules(user *auth.User, namespace string, visit func(*ruleSource, *rbacv1.PolicyRule) bool, missing func(error)) {
	for _, b := range ix.clusterRoleBindings {
		subject := subjectFor(user, b.Subjects, "")
		if subject == nil {
			continue
		}
		if !ix.visitRoleRef(b.RoleRef, "", &ruleSource{clusterBinding: b, subject: subject}, visit, missing) {
			return
		}
	}
	if namespace == "" {
		return
	}
	for _, b := range ix.roleBindings[namespace] {
		subject := subjectFor(user, b.Subjects, namespace)
		if subject == nil {
			continue
		}
		if !ix.visitRoleRef(b.RoleRef, namespace, &ruleSource{binding: b, subject: subject}, visit, missing) {
			return
		}
	}
}

func (ix *index) visitRoleRef(ref rbacv1.RoleRef, namespace string, src *ruleSource, visit func(*ruleSource, *rbacv1.PolicyRule) bool, missing func(error)) bool {
	rules, found := ix.roleRefRulesFound(ref, namespace)
	if !found && missing != nil {
		missing(roleNotFound(ref))
	}
	for i := range rules {
		if !visit(src, &rules[i]) {
			return false
		}
	}
	return true
}

// roleNotFound is kube's error for a binding's missing role.
func roleNotFound(ref rbacv1.RoleRef) error {
	switch ref.Kind {
	case "ClusterRole":
		return apierrors.NewNotFound(rbacv1.Resource("clusterrole"), ref.Name)
	case "Role":
		return apierrors.NewNotFound(rbacv1.Resource("role"), ref.Name)
	}
	return fmt.Errorf("unsupported role reference kind: %q", ref.Kind)
}

// roleRefRules are the rules of the role a binding refers to (none when it
// does not exist).
func (ix *index) roleRefRules(ref rbacv1.RoleRef, namespace string) []rbacv1.PolicyRule {
	rules, _ := ix.roleRefRulesFound(ref, namespace)
	return rules
}

func (ix *index) roleRefRulesFound(ref rbacv1.RoleRef, namespace string) ([]rbacv1.PolicyRule, bool) {
	switch ref.Kind {
	case "ClusterRole":
		if r, ok := ix.clusterRoles[ref.Name]; ok {
			return r.Rules, true
		}
	case "Role":
		if namespace == "" {
			return nil, false
		}
		if r, ok := ix.roles[namespace+"/"+ref.Name]; ok {
			return r.Rules, true
		}
	}
	return nil, false
}

// appliesTo reports whether one of subjects is user; a ServiceAccount
// subject without a namespace is in the binding's namespace.
func appliesTo(user *auth.User, subjects []rbacv1.Subject, namespace string) bool {
	return subjectFor(user, subjects, namespace) != nil
}

// subjectFor is the first of subjects that is user, nil when none is.
func subjectFor(user *auth.User, subjects []rbacv1.Subject, namespace string) *rbacv1.Subject {
	for i := range subjects {
		s := &subjects[i]
		switch s.Kind {
		case rbacv1.UserKind:
			if user.Name == s.Name {
				return s
			}
		case rbacv1.GroupKind:
			if user.InGroup(s.Name) {
				return s
			}
		case rbacv1.ServiceAccountKind:
			ns := namespace
			if s.Namespace != "" {
				ns = s.Namespace
			}
			if ns != "" && user.Name == auth.ServiceAccountUsernamePrefix+ns+":"+s.Name {
				return s
			}
		}
	}
	return nil
}

// RuleAllows reports whether rule allows the request, as kube's
// rbac.RuleAllows: verbs, API groups, resources ("*", "<resource>",
// "<resource>/<subresource>", "*/<subresource>") and resource names for
// resource requests; verbs and non-resource URLs (a trailing "*" matches a
// prefix) otherwise.
func RuleAllows(a auth.Attributes, rule *rbacv1.PolicyRule) bool {
	if !ruleAllowsButNames(a, rule) {
		return false
	}
	return !a.IsResourceRequest || len(rule.ResourceNames) == 0 || slices.Contains(rule.ResourceNames, a.Name)
}

// ruleAllowsButNames is RuleAllows without the resource names check.
func ruleAllowsButNames(a auth.Attributes, rule *rbacv1.PolicyRule) bool {
	if !has(rule.Verbs, a.Verb) {
		return false
	}
	if !a.IsResourceRequest {
		for _, u := range rule.NonResourceURLs {
			if u == rbacv1.NonResourceAll || u == a.Path ||
				(strings.HasSuffix(u, "*") && strings.HasPrefix(a.Path, strings.TrimRight(u, "*"))) {
				return true
			}
		}
		return false
	}
	if !has(rule.APIGroups, a.APIGroup) {
		return false
	}
	for _, r := range rule.Resources {
		if r == rbacv1.ResourceAll || resourceMatches(r, a.Resource, a.Subresource) ||
			(a.Subresource != "" && len(r) == len(a.Subresource)+2 && strings.HasPrefix(r, "*/") && strings.HasSuffix(r, a.Subresource)) {
			return true
		}
	}
	return false
}

// resourceMatches reports whether r is "<resource>" or
// "<resource>/<subresource>" (without building the latter).
func resourceMatches(r, resource, sub string) bool {
	if sub == "" {
		return r == resource
	}
	return len(r) == len(resource)+1+len(sub) && strings.HasPrefix(r, resource) && r[len(resource)] == '/' && strings.HasSuffix(r, sub)
}

// has: the list holds "*" or v.
func has(list []string, v string) bool {
	for _, x := range list {
		if x == "*" || x == v {
			return true
		}
	}
	return false
}
