// Package resource holds what generated code tells the runtime about one
// served resource: its description (Info, the resource table) and its typed
// behaviour (Strategy). It has no dependency on etcd or HTTP so that the
// register generator's output stays light for client-go users.
package resource

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Info is one row of the generated resource table.
type Info struct {
	Group      string
	Version    string
	Kind       string
	ListKind   string
	Plural     string
	Singular   string
	Namespaced bool
	ShortNames []string
	Categories []string
	// Subresources served, e.g. "status".
	Subresources []string
	// PrinterColumns from +kubebuilder:printcolumn; empty means the default
	// Name and Created At columns.
	PrinterColumns []PrinterColumn
	// PrinterColumnsWithName says PrinterColumns (and Strategy.PrinterCells)
	// are the whole table, the name column included where the kind prints
	// it: built-in kinds print as kube-apiserver prints them (an Event's
	// Name is a wide column at the end). Otherwise the runtime puts Name
	// first, as kube-apiserver does for custom resources.
	PrinterColumnsWithName bool
	// StorageVersion is the version objects of this kind are stored in.
	StorageVersion string
	// ServedVersions lists every served version of the kind, preferred first.
	ServedVersions []string
}

// PrinterColumn is a Table column for kubectl get.
type PrinterColumn struct {
	Name        string
	Type        string // integer, number, string, boolean, date
	Format      string
	Description string
	JSONPath    string
	Priority    int32
}

// GroupVersionKind of the resource.
func (i *Info) GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: i.Group, Version: i.Version, Kind: i.Kind}
}

// GroupVersionResource of the resource.
func (i *Info) GroupVersionResource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: i.Group, Version: i.Version, Resource: i.Plural}
}

// GroupResource is "<plural>.<group>", as used in Status messages.
func (i *Info) GroupResource() schema.GroupResource {
	return schema.GroupResource{Group: i.Group, Resource: i.Plural}
}

// HasStatus reports whether the status subresource is served.
func (i *Info) HasStatus() bool {
	for _, s := range i.Subresources {
		if s == "status" {
			return true
		}
	}
	return false
}

// Object is what every kind's pointer type implements: *v1.Gadget.
type Object interface {
	runtime.Object
	metav1.Object
}

// ListObject is what every list's pointer type implements: *v1.GadgetList.
type ListObject interface {
	runtime.Object
	metav1.ListInterface
}

// Strategy is the typed behaviour of one resource, generated per kind in
// generated/<group>/<version>/zz_generated.storage.go. Every func is set by
// the generator; the runtime never reflects over the object.
type Strategy[T Object, L ListObject] struct {
	Info *Info

	// New returns an empty object; NewList an empty list.
	New     func() T
	NewList func() L
	// SetItems stores items into the list (copying values), GetItems reads them.
	SetItems func(list L, items []T)
	GetItems func(list L) []T

	// Default applies +default markers and SetDefaults_<Type> hooks.
	Default func(obj T)
	// Validate returns the generated and hand-written validation errors,
	// including metadata (name, labels, annotations, finalizers).
	Validate func(obj T) field.ErrorList

	// ResetStatus zeroes the status (nil when the kind has no status subresource).
	ResetStatus func(obj T)
	// CopyStatus copies src's status into dst (nil without a status subresource).
	CopyStatus func(dst, src T)
	// SpecChanged reports whether anything outside metadata (and outside
	// status when the status subresource exists) differs: generation +1.
	SpecChanged func(oldObj, newObj T) bool

	// PrinterCells returns the cells of Info.PrinterColumns in order, with
	// typed field access generated from each JSONPath (or, for built-in
	// kinds, kube-apiserver's cells, the name among them). Nil when the kind
	// has no printer columns (the runtime then prints Name and Created At).
	PrinterCells func(obj T) []any
}
