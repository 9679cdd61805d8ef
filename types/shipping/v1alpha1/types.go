package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Address is a postal address.
type Address struct {
	// Street and number.
	// +required
	Street string `json:"street"`

	// City name.
	// +kubebuilder:validation:MinLength=1
	// +required
	City string `json:"city"`

	// Country as an ISO 3166-1 alpha-2 code.
	// +kubebuilder:validation:MinLength=2
	// +kubebuilder:validation:MaxLength=2
	// +optional
	Country string `json:"country,omitempty"`
}

// Parcel is one item of a shipment.
type Parcel struct {
	// Name identifies the parcel within the shipment.
	// +required
	Name string `json:"name"`

	// Count of identical parcels.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=1
	// +optional
	Count int32 `json:"count,omitempty"`
}

// ShipmentSpec is the v1alpha1 spec: no tags, tracking, insurance or tolerance yet.
type ShipmentSpec struct {
	// Urgent shipments move first. v1 replaced this with priority.
	// +optional
	Urgent bool `json:"urgent,omitempty"`

	// From is where the parcels are picked up.
	// +required
	From Address `json:"from"`

	// Destination is where the parcels go.
	// +required
	Destination Address `json:"destination"`

	// Parcels in the shipment, keyed by name.
	// +listType=map
	// +listMapKey=name
	// +optional
	Parcels []Parcel `json:"parcels,omitempty"`
}

// ShipmentStatus is what the carrier observed.
type ShipmentStatus struct {
	// Phase is a one-word summary.
	// +optional
	Phase string `json:"phase,omitempty"`
}

// Shipment moves parcels from an origin to a destination.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=shp,categories=all;logistics
// +kubebuilder:subresource:status
// +kubebuilder:selectablefield:JSONPath=`.spec.from.city`
// +kubebuilder:selectablefield:JSONPath=`.status.phase`
type Shipment struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ShipmentSpec   `json:"spec,omitempty"`
	Status ShipmentStatus `json:"status,omitempty"`
}
