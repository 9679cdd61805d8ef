package server

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeforge/kubeforge/runtime/storage"
)

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
	for _, o := range s.collections {
		if o.Info().GroupResource() == gr {
			return fmt.Errorf("add collection %s: already added", gr)
		}
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
