package server

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeforge/kubeforge/runtime/admission/registration"
	"github.com/kubeforge/kubeforge/runtime/builtinkinds"
	"github.com/kubeforge/kubeforge/runtime/rbac"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// ServiceAccountStore is the storage of core/v1 ServiceAccounts: tokens
// are issued for them and checked against them.
type ServiceAccountStore = builtinkinds.Store[*corev1.ServiceAccount, *corev1.ServiceAccountList]

// NamespaceStore is the storage of core/v1 namespaces the namespace
// lifecycle needs: the typed interface plus storage hooks (*storage.Store
// implements both).
type NamespaceStore = builtinkinds.Store[*corev1.Namespace, *corev1.NamespaceList]

// rbacStores are the four RBAC stores, kept by AddCollection.
type rbacStores rbac.Stores

func (r *rbacStores) complete() bool {
	return r.Roles != nil && r.ClusterRoles != nil && r.RoleBindings != nil && r.ClusterRoleBindings != nil
}

// builtinStores points the table of built-in kinds at the fields the
// server's machinery reads.
func (s *Server) builtinStores() builtinkinds.Stores {
	return builtinkinds.Stores{
		Namespaces:      &s.namespaceStore,
		ServiceAccounts: &s.serviceAccounts,
		RBAC:            (*rbac.Stores)(&s.rbacStores),
		Admission:       (*registration.Stores)(&s.admissionStores),
		Events:          &s.eventStore,
	}
}

// AddCollection registers the hub store of one resource (generated.Install
// calls it for every hub store). Namespaced collections are emptied when
// their namespace is deleted. A built-in kind gets what package
// runtime/builtinkinds declares for it: its storage hooks, and the server
// keeps its store when it runs machinery over it (the core/v1 namespaces
// store turns on the namespace lifecycle). Such a store must be the kind's
// typed store with storage hooks (a *storage.Store). Call it before Run; a
// resource may be added once.
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
	if err := builtinkinds.Attach(c, s.builtinStores()); err != nil {
		return fmt.Errorf("add collection %s: %w", gr, err)
	}
	s.collections = append(s.collections, c)
	return nil
}
