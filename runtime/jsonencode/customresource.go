package jsonencode

import "reflect"

// CustomResource is how the values of a kind's Go type are written when
// they stand for a custom resource. kube-apiserver stores a custom
// resource as the JSON it was sent, after pruning: a member that is null
// where the schema does not allow null is dropped
// (PruneNonNullableNullsWithoutDefaults), and a create drops the status
// when the status subresource exists. A Go type writes null for every nil
// pointer, slice or map and zero metav1.Time without omitempty, and a
// struct with omitempty even when it is empty ("status":{"parents":null}
// for a new HTTPRoute, "weight":"0" for a zero Quantity). Written as a
// custom resource, those members are left out: a null unless the field
// is +nullable, a struct with omitempty that is written as {} or whose
// value is zero (a Quantity parsed from "0" is not), and the status of a
// kind with the status subresource written as {}. The bytes stored and
// returned then read as kube's for an object sent without those members
// (kubectl's), and decode to the same values as encoding/json's, except
// for a map's keys whose values were null, pruned as kube prunes them.
// Everything reached from the kind's type is written this way (lists of
// it, watch events of it), except the contents of interface values (JSON
// kept as it came, as kube keeps it under
// x-kubernetes-preserve-unknown-fields).
type CustomResource struct {
	// Type is the kind's struct type (v1.Shipment).
	Type reflect.Type
	// StatusSubresource: the kind has the status subresource, so a status
	// written as {} is left out, as kube-apiserver's object has no status
	// until a write to /status sets one.
	StatusSubresource bool
	// Nullable are the struct fields declared +nullable, whose null is
	// written, as the schema allows it.
	Nullable []Field
}

// Field names a struct field by its struct type and Go name.
type Field struct {
	Struct reflect.Type
	Name   string
}

var (
	// customResources holds the registered kinds by type, nullable their
	// +nullable fields; both are read and written under planMu.
	customResources = map[reflect.Type]*CustomResource{}
	nullable        = map[Field]bool{}
)

// RegisterCustomResource makes values of cr.Type, and everything reached
// from them, be written as a custom resource. Registering a kind again
// with the same description does nothing; with another, the latest is
// kept. A Nullable entry that names no field of its struct never
// matches. Plans built before are dropped, so a kind registered after
// its values were first written is written as a custom resource from
// then on.
func RegisterCustomResource(cr CustomResource) {
	planMu.Lock()
	defer planMu.Unlock()
	if old, ok := customResources[cr.Type]; ok && reflect.DeepEqual(*old, cr) {
		return
	}
	cp := cr
	cp.Nullable = append([]Field(nil), cr.Nullable...)
	customResources[cr.Type] = &cp
	nullable = map[Field]bool{}
	for _, k := range customResources {
		for _, f := range k.Nullable {
			nullable[f] = true
		}
	}
	plans.Clear()
	byType[0].Clear()
	byType[1].Clear()
}

// declaredField returns the struct type that declares the field at index
// (a path through embedded structs, as reflect's FieldByIndex takes it)
// and the field's Go name.
func declaredField(t reflect.Type, index []int) Field {
	for i, x := range index {
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if i == len(index)-1 {
			return Field{Struct: t, Name: t.Field(x).Name}
		}
		t = t.Field(x).Type
	}
	return Field{}
}

// IsCustomResource reports whether t, a struct type, is registered as a
// custom resource's.
func IsCustomResource(t reflect.Type) bool {
	planMu.Lock()
	defer planMu.Unlock()
	return customResources[t] != nil
}

// KeepsNull reports whether the field of struct type t at index (as
// reflect's FieldByIndex takes it) is declared +nullable by a registered
// custom resource, so that its null is written.
func KeepsNull(t reflect.Type, index []int) bool {
	f := declaredField(t, index)
	planMu.Lock()
	defer planMu.Unlock()
	return nullable[f]
}
