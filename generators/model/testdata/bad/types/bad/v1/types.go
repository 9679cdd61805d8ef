package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Item is a list item.
type Item struct {
	// +optional
	Name string `json:"name,omitempty"`
	// +required
	ID string `json:"id"`
}

// ThingSpec has one bad marker per field.
type ThingSpec struct {
	// +kubebuilder:validation:Minimun=1
	// +optional
	A int32 `json:"a,omitempty"`

	// +kubebuilder:validation:MaxLength=ten
	// +optional
	B string `json:"b,omitempty"`

	// +kubebuilder:subresource:status
	// +optional
	C string `json:"c,omitempty"`

	// +listMapKey=id
	// +optional
	D []Item `json:"d,omitempty"`

	// +kubebuilder:default=abc
	// +optional
	E int32 `json:"e,omitempty"`

	// +listType=map
	// +listMapKey=name
	// +optional
	F []Item `json:"f,omitempty"`

	// +optinal
	G string `json:"g"`

	// +listType=map
	// +listMapKey=idd
	// +optional
	H []Item `json:"h,omitempty"`

	// +patchStrategy=merge
	// +optional
	I []Item `json:"i,omitempty"`

	// +patchStrategy=merge
	// +patchMergeKey=ide
	// +optional
	J []Item `json:"j,omitempty"`

	// +patchMergeKey=x
	// +optional
	K string `json:"k,omitempty" patchStrategy:"merge"`

	// +kubebuilder:validation:Format=emial
	// +optional
	L string `json:"l,omitempty"`

	// +kubebuilder:validation:MultipleOf=0
	// +optional
	M int32 `json:"m,omitempty"`
}

// Thing has bad type markers.
// +kubebuilder:object:root=true
// +kubebuilder:printcolumn:name="X",type=string,JSONPath=`.spec.nope`
// +kubebuilder:resource:scope=Clster
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.g,statuspath=.metadata.x
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ThingSpec `json:"spec"`
	More Narrow    `json:"more,omitempty"`
}

// Keyed is a list item keyed by a list.
type Keyed struct {
	// +required
	Tags []string `json:"tags"`
}

// Other has a list map whose key is not a scalar.
type Other struct {
	// +listType=map
	// +listMapKey=tags
	// +optional
	N []Keyed `json:"n,omitempty"`
}

// Narrow has defaults that are JSON of the right shape but do not fit the
// Go type: the model converts them and reports where.
type Narrow struct {
	// +default=300
	// +optional
	O int8 `json:"o,omitempty"`

	// +default=[1,2,3]
	// +optional
	P *[2]int32 `json:"p,omitempty"`

	q string

	R string

	S uint64 `json:"s,omitempty"`
	T any    `json:"t,omitempty"`
}

// Widget's short name is Thing's plural.
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=things
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready"`
// +kubebuilder:printcolumn:name="First",type=string,JSONPath=`.spec.items[0].name`
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// WidgetList is a list of widgets.
// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// Hours is an alias of a named type: its markers would be lost.
// +kubebuilder:validation:MinProperties=1
type Hours = Narrow

// Loose is an alias of an anonymous struct.
type Loose = struct{ A string }
