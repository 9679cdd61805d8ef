package server

import (
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubeforge/kubeforge/runtime/builtin"
	"github.com/kubeforge/kubeforge/runtime/rbac"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// ServiceAccountStore is the storage of core/v1 ServiceAccounts: tokens
// are issued for them and checked against them.
type ServiceAccountStore interface {
	storage.Interface[*corev1.ServiceAccount, *corev1.ServiceAccountList]
	storage.HookSetter[*corev1.ServiceAccount]
}

// rbacStores collects the four RBAC stores as AddCollection sees them.
type rbacStores rbac.Stores

func (r *rbacStores) add(c storage.Collection) error {
	var ok bool
	switch c.Info().Plural {
	case "roles":
		r.Roles, ok = c.(rbac.Store[*rbacv1.Role, *rbacv1.RoleList])
	case "clusterroles":
		r.ClusterRoles, ok = c.(rbac.Store[*rbacv1.ClusterRole, *rbacv1.ClusterRoleList])
	case "rolebindings":
		r.RoleBindings, ok = c.(rbac.Store[*rbacv1.RoleBinding, *rbacv1.RoleBindingList])
	case "clusterrolebindings":
		r.ClusterRoleBindings, ok = c.(rbac.Store[*rbacv1.ClusterRoleBinding, *rbacv1.ClusterRoleBindingList])
	default:
		return nil
	}
	if !ok {
		return fmt.Errorf("%T is not a typed rbac/v1 store with storage hooks", c)
	}
	return nil
}

func (r *rbacStores) complete() bool {
	return r.Roles != nil && r.ClusterRoles != nil && r.RoleBindings != nil && r.ClusterRoleBindings != nil
}

// NamespaceStore is the storage of core/v1 namespaces the namespace
// lifecycle needs: the typed interface plus storage hooks (*storage.Store
// implements both).
type NamespaceStore interface {
	storage.Interface[*corev1.Namespace, *corev1.NamespaceList]
	storage.HookSetter[*corev1.Namespace]
}

// AddCollection registers the hub store of one resource (generated.Install
// calls it for every hub store). Namespaced collections are emptied when
// their namespace is deleted. When c is the store of core/v1 namespaces
// (Info group "", version "v1", plural "namespaces"), the namespace
// lifecycle is enabled: it must then be a storage.Interface of
// *corev1.Namespace with storage hooks (a *storage.Store). Call it before
// Run; a resource may be added once.
func (s *Server) AddCollection(c storage.Collection) error {
	if c == nil || c.Info() == nil {
		return fmt.Errorf("add collection: nil collection or resource info")
	}
	info := c.Info()
	gr := info.GroupResource()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running {
		return fmt.Errorf("add collection %s: server already running", gr)
	}
	if s.skipped(info.Group) {
		return nil
	}
	for _, o := range s.collections {
		if o.Info().GroupResource() == gr {
			return fmt.Errorf("add collection %s: already added", gr)
		}
	}
	if info.Group == rbacv1.GroupName {
		if err := s.rbacStores.add(c); err != nil {
			return fmt.Errorf("add collection %s: %w", gr, err)
		}
	}
	if info.Group == admissionregistrationv1.GroupName {
		if err := s.admissionStores.add(c); err != nil {
			return fmt.Errorf("add collection %s: %w", gr, err)
		}
	}
	if info.Group == "" && info.Version == "v1" && info.Plural == "serviceaccounts" {
		sa, ok := c.(ServiceAccountStore)
		if !ok {
			return fmt.Errorf("add collection %s: %T is not a storage.Interface[*v1.ServiceAccount, *v1.ServiceAccountList]", gr, c)
		}
		s.serviceAccounts = sa
	}
	if hs, ok := c.(storage.HookSetter[*corev1.Secret]); ok && info.Group == "" && info.Plural == "secrets" {
		hs.SetHooks(builtin.SecretHooks())
	}
	if hs, ok := c.(storage.HookSetter[*corev1.ConfigMap]); ok && info.Group == "" && info.Plural == "configmaps" {
		hs.SetHooks(builtin.ConfigMapHooks())
	}
	// kube's rbac/v1 defaulting; with RBAC authorization the authorizer
	// adds its admission to these hooks.
	if hs, ok := c.(storage.HookSetter[*rbacv1.RoleBinding]); ok && info.Group == rbacv1.GroupName && info.Plural == "rolebindings" {
		hs.SetHooks(builtin.RoleBindingHooks())
	}
	if hs, ok := c.(storage.HookSetter[*rbacv1.ClusterRoleBinding]); ok && info.Group == rbacv1.GroupName && info.Plural == "clusterrolebindings" {
		hs.SetHooks(builtin.ClusterRoleBindingHooks())
	}
	if info.Group == "" && info.Version == "v1" && info.Plural == "namespaces" {
		ns, ok := c.(NamespaceStore)
		if !ok {
			return fmt.Errorf("add collection %s: %T is not a storage.Interface[*v1.Namespace, *v1.NamespaceList] with storage hooks", gr, c)
		}
		s.namespaceStore = ns
	}
	s.collections = append(s.collections, c)
	return nil
}
