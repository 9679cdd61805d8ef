// Package builtinkinds declares, in one table keyed by group and resource,
// what the runtime adds to built-in Kubernetes kinds beyond their generated
// code: the storage hooks of a stored kind (package runtime/builtin, the
// admission registration kinds' defaults and validation), the stores the
// server's machinery runs over (the namespace lifecycle, ServiceAccount
// tokens, RBAC, admission configuration), the subresources served beside
// the generated ones (a ServiceAccount's token) and the resources that are
// computed rather than stored (the authentication and authorization
// reviews), whose routes are described as the generated route tables
// describe theirs.
package builtinkinds

import (
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforge/kubeforge/runtime/admission/registration"
	"github.com/kubeforge/kubeforge/runtime/builtin"
	"github.com/kubeforge/kubeforge/runtime/rbac"
	"github.com/kubeforge/kubeforge/runtime/resource"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// Kind is one row of the table: what the runtime adds to one built-in
// resource.
type Kind struct {
	// attach checks that a stored kind's collection is its typed store, sets
	// its storage hooks and keeps it where the server wants it; nil for a
	// computed resource.
	attach func(c storage.Collection, to Stores) error
	// Subresources are served beside the generated ones.
	Subresources []Subresource
	// Computed describes a resource that is computed, not stored: its
	// discovery row and its one create route.
	Computed *Computed
	// Expires: objects are written with the --event-ttl lease and vanish
	// with it (events, core and events.k8s.io).
	Expires bool
}

// Store is a typed store with storage hooks (a *storage.Store).
type Store[T resource.Object, L resource.ListObject] interface {
	storage.Interface[T, L]
	storage.HookSetter[T]
}

// Stores are where Attach keeps the stores the server's machinery runs
// over; each points at the server's own field.
type Stores struct {
	// Namespaces turns on the namespace lifecycle.
	Namespaces *Store[*corev1.Namespace, *corev1.NamespaceList]
	// ServiceAccounts are what tokens are issued for and checked against.
	ServiceAccounts *Store[*corev1.ServiceAccount, *corev1.ServiceAccountList]
	// RBAC are the RBAC authorizer's stores.
	RBAC *rbac.Stores
	// Admission are the admission configuration stores (policies,
	// bindings, webhook configurations).
	Admission *registration.Stores
	// Events are where the garbage collector reports what it cannot do.
	Events *Store[*corev1.Event, *corev1.EventList]
}

// kinds is the table.
var kinds = map[schema.GroupResource]Kind{
	core("namespaces"): stored(nil, func(to Stores, st Store[*corev1.Namespace, *corev1.NamespaceList]) { *to.Namespaces = st }),
	core("serviceaccounts"): stored(nil, func(to Stores, st Store[*corev1.ServiceAccount, *corev1.ServiceAccountList]) {
		*to.ServiceAccounts = st
	}).with(serviceAccountToken),
	core("events"): stored(nil, func(to Stores, st Store[*corev1.Event, *corev1.EventList]) { *to.Events = st }).expiring(),
	// events.k8s.io events are stored as core events by the generated
	// install; the row covers a server that stores them on their own.
	{Group: eventsv1.GroupName, Resource: "events"}: {Expires: true},
	core("secrets"):    stored[*corev1.Secret, *corev1.SecretList](builtin.SecretHooks, nil),
	core("configmaps"): stored[*corev1.ConfigMap, *corev1.ConfigMapList](builtin.ConfigMapHooks, nil),

	// kube's rbac/v1 defaulting on bindings; with RBAC authorization the
	// authorizer replaces these hooks with its own, which keep it.
	rbacGR("roles"):        stored(nil, func(to Stores, st Store[*rbacv1.Role, *rbacv1.RoleList]) { to.RBAC.Roles = st }),
	rbacGR("clusterroles"): stored(nil, func(to Stores, st Store[*rbacv1.ClusterRole, *rbacv1.ClusterRoleList]) { to.RBAC.ClusterRoles = st }),
	rbacGR("rolebindings"): stored(builtin.RoleBindingHooks, func(to Stores, st Store[*rbacv1.RoleBinding, *rbacv1.RoleBindingList]) {
		to.RBAC.RoleBindings = st
	}),
	rbacGR("clusterrolebindings"): stored(builtin.ClusterRoleBindingHooks, func(to Stores, st Store[*rbacv1.ClusterRoleBinding, *rbacv1.ClusterRoleBindingList]) {
		to.RBAC.ClusterRoleBindings = st
	}),

	admissionGR("validatingadmissionpolicies"): stored(registration.PolicyHooks, func(to Stores, st Store[*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyList]) {
		to.Admission.Policies = st
	}),
	admissionGR("validatingadmissionpolicybindings"): stored(registration.BindingHooks, func(to Stores, st Store[*admissionregistrationv1.ValidatingAdmissionPolicyBinding, *admissionregistrationv1.ValidatingAdmissionPolicyBindingList]) {
		to.Admission.Bindings = st
	}),
	admissionGR("validatingwebhookconfigurations"): stored(registration.ValidatingWebhookHooks, func(to Stores, st Store[*admissionregistrationv1.ValidatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfigurationList]) {
		to.Admission.Validating = st
	}),
	admissionGR("mutatingwebhookconfigurations"): stored(registration.MutatingWebhookHooks, func(to Stores, st Store[*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.MutatingWebhookConfigurationList]) {
		to.Admission.Mutating = st
	}),

	// The reviews: computed, never stored, create only.
	{Group: authenticationv1.GroupName, Resource: "selfsubjectreviews"}:       review(authenticationv1.GroupName, "SelfSubjectReview", false, Handlers.SelfSubjectReview),
	{Group: authenticationv1.GroupName, Resource: "tokenreviews"}:             review(authenticationv1.GroupName, "TokenReview", false, Handlers.TokenReview),
	{Group: authorizationv1.GroupName, Resource: "localsubjectaccessreviews"}: review(authorizationv1.GroupName, "LocalSubjectAccessReview", true, Handlers.LocalSubjectAccessReview),
	{Group: authorizationv1.GroupName, Resource: "selfsubjectaccessreviews"}:  review(authorizationv1.GroupName, "SelfSubjectAccessReview", false, Handlers.SelfSubjectAccessReview),
	{Group: authorizationv1.GroupName, Resource: "selfsubjectrulesreviews"}:   review(authorizationv1.GroupName, "SelfSubjectRulesReview", false, Handlers.SelfSubjectRulesReview),
	{Group: authorizationv1.GroupName, Resource: "subjectaccessreviews"}:      review(authorizationv1.GroupName, "SubjectAccessReview", false, Handlers.SubjectAccessReview),
}

func core(resource string) schema.GroupResource { return schema.GroupResource{Resource: resource} }

func rbacGR(resource string) schema.GroupResource {
	return schema.GroupResource{Group: rbacv1.GroupName, Resource: resource}
}

func admissionGR(resource string) schema.GroupResource {
	return schema.GroupResource{Group: admissionregistrationv1.GroupName, Resource: resource}
}

// stored is the row of a stored kind: its store gets hooks (when not nil)
// and is handed to keep (when not nil).
func stored[T resource.Object, L resource.ListObject](hooks func() storage.Hooks[T], keep func(Stores, Store[T, L])) Kind {
	return Kind{attach: func(c storage.Collection, to Stores) error {
		st, ok := c.(Store[T, L])
		if !ok {
			var obj T
			var list L
			return fmt.Errorf("%T is not a storage.Interface[%T, %T] with storage hooks", c, obj, list)
		}
		if hooks != nil {
			st.SetHooks(hooks())
		}
		if keep != nil {
			keep(to, st)
		}
		return nil
	}}
}

// expiring marks a row's objects as written with the event TTL.
func (k Kind) expiring() Kind {
	k.Expires = true
	return k
}

// with adds subresources served beside the generated ones to a row.
func (k Kind) with(subs ...Subresource) Kind {
	k.Subresources = append(k.Subresources, subs...)
	return k
}

// Lookup returns the row of a built-in resource, false when the runtime
// adds nothing to it.
func Lookup(gr schema.GroupResource) (Kind, bool) {
	k, ok := kinds[gr]
	return k, ok
}

// Expires reports whether objects of gr are written with the event TTL.
func Expires(gr schema.GroupResource) bool { return kinds[gr].Expires }

// Attach does what the table says for the store of a stored kind: checks
// its type, sets its storage hooks and keeps it in to. A resource the
// table does not name is left alone.
func Attach(c storage.Collection, to Stores) error {
	k, ok := kinds[c.Info().GroupResource()]
	if !ok || k.attach == nil {
		return nil
	}
	return k.attach(c, to)
}
