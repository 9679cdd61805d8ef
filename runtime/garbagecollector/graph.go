package garbagecollector

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// objectRef is the identity of a node: an owner reference's coordinates
// plus a namespace (kube's objectReference). For an observed object the
// namespace is its own; for a virtual node, the namespace of the
// dependent that first referred to it.
type objectRef struct {
	APIVersion string
	Kind       string
	Name       string
	UID        types.UID
	Namespace  string
}

func (r objectRef) groupKind() schema.GroupKind {
	gv, _ := schema.ParseGroupVersion(r.APIVersion)
	return schema.GroupKind{Group: gv.Group, Kind: r.Kind}
}

func (r objectRef) String() string {
	ns := r.Namespace
	if ns != "" {
		ns += "/"
	}
	return r.APIVersion + "/" + r.Kind + ", " + ns + r.Name + ", uid " + string(r.UID)
}

// node is one object of the graph, or a virtual one: an owner some
// dependent refers to that no watch has shown yet. Every field is guarded
// by GarbageCollector.mu.
type node struct {
	identity objectRef
	// owners are the object's ownerReferences as last observed.
	owners []metav1.OwnerReference
	// dependents are the nodes whose owners name this node's uid.
	dependents map[*node]struct{}
	// virtual: not observed through a watch yet.
	virtual bool
	// beingDeleted: deletionTimestamp set. deletingDependents: and the
	// foregroundDeletion finalizer. orphaning: and the orphan finalizer.
	beingDeleted       bool
	deletingDependents bool
	orphaning          bool
	// rev is the revision the object was last observed at.
	rev int64
}

// snapshot is what a worker reads of a node outside the graph's lock.
type snapshot struct {
	identity           objectRef
	virtual            bool
	beingDeleted       bool
	deletingDependents bool
	rev                int64
	dependents         []depSnapshot
}

// depSnapshot is one dependent as the graph knows it.
type depSnapshot struct {
	identity           objectRef
	deletingDependents bool
	// blocking: its reference to the owner has blockOwnerDeletion: true.
	blocking bool
}

func (n *node) snapshot() *snapshot {
	s := &snapshot{identity: n.identity, virtual: n.virtual, beingDeleted: n.beingDeleted, deletingDependents: n.deletingDependents, rev: n.rev}
	s.dependents = make([]depSnapshot, 0, len(n.dependents))
	for d := range n.dependents {
		ds := depSnapshot{identity: d.identity, deletingDependents: d.deletingDependents}
		for _, o := range d.owners {
			if o.UID == n.identity.UID && o.BlockOwnerDeletion != nil && *o.BlockOwnerDeletion {
				ds.blocking = true
			}
		}
		s.dependents = append(s.dependents, ds)
	}
	return s
}

// blockingDependents are the dependents whose reference to the owner
// blocks its deletion (kube's node.blockingDependents).
func (s *snapshot) blockingDependents() []depSnapshot {
	var out []depSnapshot
	for _, d := range s.dependents {
		if d.blocking {
			out = append(out, d)
		}
	}
	return out
}

func identityOf(apiVersion, kind string, obj metav1.Object) objectRef {
	return objectRef{APIVersion: apiVersion, Kind: kind, Name: obj.GetName(), UID: obj.GetUID(), Namespace: obj.GetNamespace()}
}

func refIdentity(ref metav1.OwnerReference, namespace string) objectRef {
	return objectRef{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, UID: ref.UID, Namespace: namespace}
}

func beingDeleted(obj metav1.Object) bool { return obj.GetDeletionTimestamp() != nil }

func hasFinalizer(obj metav1.Object, f string) bool { return slices.Contains(obj.GetFinalizers(), f) }

// referencesDiffs is kube's: owner references added, removed, and those
// whose blockOwnerDeletion changed (old and new), by uid.
func referencesDiffs(old, cur []metav1.OwnerReference) (added, removed []metav1.OwnerReference, changed [][2]metav1.OwnerReference) {
	oldByUID := map[types.UID]metav1.OwnerReference{}
	for _, r := range old {
		oldByUID[r.UID] = r
	}
	for _, r := range cur {
		o, ok := oldByUID[r.UID]
		if !ok {
			added = append(added, r)
			continue
		}
		if blocks(o) != blocks(r) {
			changed = append(changed, [2]metav1.OwnerReference{o, r})
		}
		delete(oldByUID, r.UID)
	}
	for _, r := range old {
		if _, ok := oldByUID[r.UID]; ok {
			removed = append(removed, r)
		}
	}
	return added, removed, changed
}

func blocks(r metav1.OwnerReference) bool {
	return r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion
}
