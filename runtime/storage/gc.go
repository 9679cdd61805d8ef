package storage

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

// The store's half of garbage collection, as k8s.io/apiserver's registry
// Store does it with EnableGarbageCollection: a delete with
// propagationPolicy Orphan (or orphanDependents: true) adds the "orphan"
// finalizer, Foreground adds "foregroundDeletion", and the object is then
// only marked for deletion (deletionTimestamp) until a garbage collector
// has done its part and removed the finalizer; Background deletes now.

// GCPolicy is a kind's default garbage collection policy (kube's
// rest.GarbageCollectionPolicy).
type GCPolicy string

const (
	// GCDeleteDependents: dependents are deleted in the background unless
	// the delete says otherwise (custom resources and most kinds).
	GCDeleteDependents GCPolicy = "DeleteDependents"
	// GCOrphanDependents: dependents are orphaned unless the delete says
	// otherwise (core/v1 ReplicationControllers).
	GCOrphanDependents GCPolicy = "OrphanDependents"
	// GCUnsupported: deletes never add (and remove any) garbage collection
	// finalizers (core Events).
	GCUnsupported GCPolicy = "Unsupported"
)

// DefaultGCPolicy is the default policy of a resource as kube-apiserver's
// registry strategies give it: Unsupported for core/v1 events (and
// events.k8s.io events, stored as core events), OrphanDependents for
// core/v1 replicationcontrollers, DeleteDependents otherwise (custom
// resources and the apps workloads of every version kube 1.37 serves).
func DefaultGCPolicy(info *resource.Info) GCPolicy {
	switch {
	case info.Group == "" && info.Plural == "events", info.Group == "events.k8s.io" && info.Plural == "events":
		return GCUnsupported
	case info.Group == "" && info.Plural == "replicationcontrollers":
		return GCOrphanDependents
	}
	return GCDeleteDependents
}

// validateDeleteOptions is the DeleteOptions check kube's rest.BeforeDelete
// makes (metav1 validation): both orphanDependents and propagationPolicy,
// or an unknown policy, is a 422 on kind DeleteOptions.
func validateDeleteOptions(opts DeleteOptions) error {
	o := metav1.DeleteOptions{PropagationPolicy: opts.PropagationPolicy, OrphanDependents: opts.OrphanDependents} //nolint:staticcheck // the deprecated field is part of the API
	if errs := metav1validation.ValidateDeleteOptions(&o); len(errs) > 0 {
		return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "DeleteOptions"}, "", errs)
	}
	return nil
}

// shouldOrphanDependents is kube's shouldOrphanDependents: the options,
// then the object's finalizers, then the kind's default decide.
func shouldOrphanDependents(policy GCPolicy, finalizers []string, opts DeleteOptions) bool {
	if policy == GCUnsupported {
		return false
	}
	if opts.OrphanDependents != nil {
		return *opts.OrphanDependents
	}
	if opts.PropagationPolicy != nil {
		switch *opts.PropagationPolicy {
		case metav1.DeletePropagationOrphan:
			return true
		case metav1.DeletePropagationBackground, metav1.DeletePropagationForeground:
			return false
		}
	}
	for _, f := range finalizers {
		switch f {
		case metav1.FinalizerOrphanDependents:
			return true
		case metav1.FinalizerDeleteDependents:
			return false
		}
	}
	return policy == GCOrphanDependents
}

// shouldDeleteDependentsInForeground is kube's
// shouldDeleteDependentsInForeground. Note that orphanDependents: false
// means background here (not foreground), as in kube's generic store.
func shouldDeleteDependentsInForeground(policy GCPolicy, finalizers []string, opts DeleteOptions) bool {
	if policy == GCUnsupported {
		return false
	}
	if opts.OrphanDependents != nil {
		return false
	}
	if opts.PropagationPolicy != nil {
		switch *opts.PropagationPolicy {
		case metav1.DeletePropagationForeground:
			return true
		case metav1.DeletePropagationBackground, metav1.DeletePropagationOrphan:
			return false
		}
	}
	for _, f := range finalizers {
		switch f {
		case metav1.FinalizerDeleteDependents:
			return true
		case metav1.FinalizerOrphanDependents:
			return false
		}
	}
	return false
}

// deletionFinalizers is kube's deletionFinalizersForGarbageCollection:
// the object's finalizers with "orphan" and "foregroundDeletion" set as
// the options, its finalizers and the kind's default policy say, and
// whether that differs (as a set) from what the object has. With garbage
// collection off nothing changes.
func (st *Store[T, L]) deletionFinalizers(obj T, opts DeleteOptions) (bool, []string) {
	cur := obj.GetFinalizers()
	if st.b.opts.NoGarbageCollection {
		return false, cur
	}
	policy := DefaultGCPolicy(st.s.Info)
	orphan := shouldOrphanDependents(policy, cur, opts)
	foreground := shouldDeleteDependentsInForeground(policy, cur, opts)
	return gcFinalizers(cur, orphan, foreground)
}

// namespaceDeletionFinalizers is kube's namespace registry rule for the
// first delete of a namespace: an explicit option decides each
// finalizer (orphanDependents: false means foreground there), otherwise
// the namespace keeps what it has.
func namespaceDeletionFinalizers(cur []string, opts DeleteOptions) (bool, []string) {
	orphan := slices.Contains(cur, metav1.FinalizerOrphanDependents)
	foreground := slices.Contains(cur, metav1.FinalizerDeleteDependents)
	switch {
	case opts.OrphanDependents != nil:
		orphan, foreground = *opts.OrphanDependents, !*opts.OrphanDependents
	case opts.PropagationPolicy != nil:
		orphan = *opts.PropagationPolicy == metav1.DeletePropagationOrphan
		foreground = *opts.PropagationPolicy == metav1.DeletePropagationForeground
	}
	return gcFinalizers(cur, orphan, foreground)
}

// gcFinalizers removes both garbage collection finalizers from cur and
// adds back those wanted, reporting whether the set changed.
func gcFinalizers(cur []string, orphan, foreground bool) (bool, []string) {
	if !orphan && !foreground && !slices.Contains(cur, metav1.FinalizerOrphanDependents) && !slices.Contains(cur, metav1.FinalizerDeleteDependents) {
		return false, cur // the common delete: nothing to change, nothing to build
	}
	out := []string{}
	for _, f := range cur {
		if f == metav1.FinalizerOrphanDependents || f == metav1.FinalizerDeleteDependents {
			continue
		}
		out = append(out, f)
	}
	if orphan {
		out = append(out, metav1.FinalizerOrphanDependents)
	}
	if foreground {
		out = append(out, metav1.FinalizerDeleteDependents)
	}
	if sets.New(cur...).Equal(sets.New(out...)) {
		return false, cur
	}
	return true, out
}

// isNamespaces reports whether the store holds core/v1 namespaces, whose
// first delete follows the namespace registry's rules.
func (st *Store[T, L]) isNamespaces() bool {
	return st.s.Info.Group == "" && st.s.Info.Plural == "namespaces"
}
