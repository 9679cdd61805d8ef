// Package resource holds what generated code tells the runtime about one
// served resource: its description (Info, the resource table) and its typed
// behaviour (Strategy). It has no dependency on etcd or HTTP so that the
// register generator's output stays light for client-go users.
package resource

import (
	"context"
	"fmt"
	"slices"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeforge/kubeforge/runtime/jsonencode"
	"github.com/kubeforge/kubeforge/runtime/presence"
)

// Scale is what the scale subresource reads from an object: the
// autoscaling/v1 Scale's spec.replicas, status.replicas and status.selector.
type Scale struct {
	SpecReplicas   int32
	StatusReplicas int32
	Selector       string
}

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
	// Subresources served: "status", and "scale" (an autoscaling/v1 Scale,
	// Strategy.GetScale and SetReplicas).
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
	// SelectableFields are the labels field selectors may use besides
	// metadata.name and, for a namespaced kind, metadata.namespace, sorted:
	// the +kubebuilder:selectablefield paths of this version without their
	// leading dot ("spec.carrier"), or kube-apiserver's labels of a built-in
	// kind ("involvedObject.name", "status.phase"; generators/builtinfields).
	// Strategy.SelectableFields returns their values. Labels are per version:
	// a converted version selects on its own fields.
	SelectableFields []string
	// DefaultFieldLabelConversion gives the kind kube-apiserver's default
	// field label conversion, which built-in kinds without one of their own
	// have (Lease, ConfigMap): metadata.name and metadata.namespace whatever
	// the scope, any other label rejected with "\"<label>\" is not a known
	// field selector: ...". Otherwise (custom resources, built-in kinds with
	// their own conversion) other labels get "field label not supported".
	DefaultFieldLabelConversion bool
	// Verbs, when set, replace the verbs discovery lists for the resource
	// (create-only reviews); nil means every verb of a stored resource.
	Verbs []string
	// PathSegmentNames: names need only be valid URL path segments (no "/",
	// "%", "." or ".."), not DNS subdomains, as kube-apiserver names RBAC
	// objects (system:discovery).
	PathSegmentNames bool
	// UnconditionalUpdate: a PUT without metadata.resourceVersion updates
	// the current object, as kube-apiserver's strategies of most built-in
	// kinds allow (AllowUnconditionalUpdate: ConfigMap, Secret, RBAC, ...);
	// without it such a PUT is a 422, as for custom resources
	// (generators/builtinstrategy).
	UnconditionalUpdate bool
	// CreateOnUpdate: a PUT of a missing object creates it (201), as
	// kube-apiserver's strategies of a few built-in kinds allow
	// (AllowCreateOnUpdate: Lease, Event, RBAC); without it such a PUT is a
	// 404.
	CreateOnUpdate bool
	// UntrackedGeneration: metadata.generation is not the server's to set:
	// a create keeps the request's, an update the current object's, as
	// kube-apiserver does for built-in kinds whose strategy does not
	// track it (ConfigMap, Secret, Namespace, Lease, RBAC, Event). Without
	// it a create sets 1 and a change outside metadata and status bumps
	// it, as for custom resources.
	UntrackedGeneration bool
	// StorageVersion is the version objects of this kind are stored in.
	StorageVersion string
	// StorageVersionHash is what discovery lists for the resource: kube's
	// hash of the group, version and kind objects are stored as, which
	// the storage version migrator compares; empty for a resource that
	// stores nothing (reviews).
	StorageVersionHash string
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

// FieldLabels returns every label field selectors may use on the resource,
// sorted: metadata.name, metadata.namespace (namespaced kinds, or with
// DefaultFieldLabelConversion) and SelectableFields.
func (i *Info) FieldLabels() []string {
	out := []string{"metadata.name"}
	if i.Namespaced || i.DefaultFieldLabelConversion {
		out = append(out, "metadata.namespace")
	}
	if !i.DefaultFieldLabelConversion {
		out = append(out, i.SelectableFields...)
	}
	sort.Strings(out)
	return out
}

// CheckFieldLabel returns nil when field selectors may use label on the
// resource, otherwise kube-apiserver's error for it, which the handlers
// answer with 400 Bad Request: "field label not supported: <label>" (the
// message of custom resources and of built-in kinds with their own field
// label conversion) or, with DefaultFieldLabelConversion, "\"<label>\" is
// not a known field selector: only \"metadata.name\", \"metadata.namespace\"".
func (i *Info) CheckFieldLabel(label string) error {
	switch {
	case label == "metadata.name":
		return nil
	case label == "metadata.namespace" && (i.Namespaced || i.DefaultFieldLabelConversion):
		return nil
	case i.DefaultFieldLabelConversion:
		return fmt.Errorf("%q is not a known field selector: only %q, %q", label, "metadata.name", "metadata.namespace")
	case slices.Contains(i.SelectableFields, label):
		return nil
	}
	return fmt.Errorf("field label not supported: %s", label)
}

// HasScale reports whether the scale subresource is served.
func (i *Info) HasScale() bool {
	for _, s := range i.Subresources {
		if s == "scale" {
			return true
		}
	}
	return false
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

	// Default applies +default markers and SetDefaults_<Type> hooks; in is
	// the JSON obj was decoded from (a zero it sets in a field without
	// omitempty is kept), presence.Marshaled for an object that comes
	// from Go, or the zero Node to default every zero.
	Default func(obj T, in presence.Node)
	// Validate returns the generated and hand-written validation errors,
	// including metadata (name, labels, annotations, finalizers). in is
	// the JSON obj was decoded from, as for Default: a required field
	// without omitempty that it sets to "" or 0 is not missing.
	Validate func(obj T, in presence.Node) field.ErrorList
	// ValidateHooks returns only the hand-written Validate_ hooks' errors:
	// what the storage version checks on an object written through another
	// served version, which that version's own Validate checked.
	ValidateHooks func(obj T) field.ErrorList
	// ValidateUpdate, when set, validates an update in Validate's place:
	// for kinds whose kube validation differs between create and update
	// (an events.k8s.io/v1 Event's fields become immutable, and the
	// create-only rules no longer apply).
	ValidateUpdate func(obj, old T) field.ErrorList
	// GetScale reads the scale subresource's values and SetReplicas writes
	// the desired replicas (nil without +kubebuilder:subresource:scale).
	GetScale    func(obj T) Scale
	SetReplicas func(obj T, replicas int32)
	// ScaleSpecPath is the JSON path of the replicas SetReplicas writes
	// ("spec", "replicas"): the field a /scale write owns in managedFields.
	ScaleSpecPath []string
	// Rules runs the kind's CEL rules (+kubebuilder:validation:XValidation)
	// on obj; old is the current object on an update, nil on a create, so
	// transition rules run only on updates. Nil when the kind has none.
	Rules func(ctx context.Context, obj, old T) field.ErrorList
	// Ratchet: an update is not refused for values it leaves unchanged
	// (CRD validation ratcheting, kube-apiserver's default since 1.30).
	// Set for the user's kinds; built-in kinds keep kube-apiserver's own
	// validation, which does not ratchet.
	Ratchet bool
	// FinalizerWarnings: a write that adds a finalizer named without a
	// "/" (not one of kube's standard ones) gets kube-apiserver's warning
	// for custom resources ("prefer a domain-qualified finalizer name").
	// Set for the user's kinds; built-in kinds refuse such names or take
	// them silently, as their kube-apiserver validation does.
	FinalizerWarnings bool

	// CustomResource, set for the user's kinds, writes their objects as
	// kube-apiserver writes custom resources (no null where the schema
	// does not allow one, no empty status before a write to /status):
	// storage.NewStore and endpoints.NewHandler register it with
	// jsonencode. Built-in kinds are written as their Go types are.
	CustomResource *jsonencode.CustomResource

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

	// SelectableFields returns the object's field set for field selectors
	// (kube-apiserver's ToSelectableFields): metadata.name, metadata.namespace
	// for a namespaced kind, and every label of Info.SelectableFields with its
	// value as a string ("" when the field is absent: a nil pointer on the
	// path, or an omitempty zero value). Nil when Info.SelectableFields is
	// empty: the runtime then matches metadata.name and metadata.namespace.
	SelectableFields func(obj T) fields.Set
}
