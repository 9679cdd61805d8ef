package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Priority is how urgently a shipment moves.
// +kubebuilder:validation:Enum=Low;Normal;Urgent
type Priority string

const (
	PriorityLow    Priority = "Low"
	PriorityNormal Priority = "Normal"
	PriorityUrgent Priority = "Urgent"
)

// Phase summarises where a shipment is.
// +kubebuilder:validation:Enum=Pending;InTransit;Delivered;Lost
type Phase string

const (
	PhasePending   Phase = "Pending"
	PhaseInTransit Phase = "InTransit"
	PhaseDelivered Phase = "Delivered"
	PhaseLost      Phase = "Lost"
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

	// PostalCode in the country's format.
	// +kubebuilder:validation:Pattern=`^[A-Z0-9 -]{3,10}$`
	// +optional
	PostalCode string `json:"postalCode,omitempty"`

	// Country as an ISO 3166-1 alpha-2 code.
	// +kubebuilder:validation:MinLength=2
	// +kubebuilder:validation:MaxLength=2
	// +kubebuilder:default="DE"
	// +optional
	Country string `json:"country,omitempty"`
}

// Parcel is one item of a shipment.
type Parcel struct {
	// Name identifies the parcel within the shipment.
	// +kubebuilder:validation:Pattern=`^[a-z][a-z0-9-]*$`
	// +kubebuilder:validation:MaxLength=63
	// +required
	Name string `json:"name"`

	// Weight of the parcel in grams, for example 2500 or 2.5k. It is
	// optional because v1alpha1 clients cannot set it: a field added in a
	// newer version must not be required.
	// +optional
	Weight resource.Quantity `json:"weight,omitempty"`

	// Count of identical parcels.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +kubebuilder:default=1
	// +optional
	Count int32 `json:"count,omitempty"`

	// Fragile parcels are handled with care.
	// +optional
	Fragile bool `json:"fragile,omitempty"`
}

// Tracking is shared by every shipment: embedded inline in the spec.
type Tracking struct {
	// Notify is where tracking updates go.
	// +kubebuilder:validation:Format=email
	// +optional
	Notify string `json:"notify,omitempty"`

	// IntervalMinutes between tracking updates.
	// +kubebuilder:validation:Minimum=5
	// +kubebuilder:validation:MultipleOf=5
	// +kubebuilder:default=15
	// +optional
	IntervalMinutes int32 `json:"intervalMinutes,omitempty"`
}

// ShipmentSpec is what the sender asks for.
type ShipmentSpec struct {
	// Priority of the shipment.
	// +kubebuilder:default=Normal
	// +optional
	Priority Priority `json:"priority,omitempty"`

	// Origin is where the parcels are picked up.
	// +required
	Origin Address `json:"origin"`

	// Destination is where the parcels go.
	// +required
	Destination Address `json:"destination"`

	// Parcels in the shipment, keyed by name.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=50
	// +required
	Parcels []Parcel `json:"parcels"`

	// Tags label the shipment for humans.
	// +listType=set
	// +kubebuilder:validation:MaxItems=10
	// +optional
	Tags []string `json:"tags,omitempty"`

	// Carrier picks a carrier by name; empty lets the system choose.
	// +optional
	Carrier *string `json:"carrier,omitempty"`

	// Insured shipments are covered up to DeclaredValueCents.
	// +optional
	Insured bool `json:"insured,omitempty"`

	// DeclaredValueCents is the value of the contents.
	// +kubebuilder:validation:Minimum=0
	// +optional
	DeclaredValueCents *int64 `json:"declaredValueCents,omitempty"`

	// HandlingTime is how long the carrier may take to pick up.
	// +kubebuilder:default="24h0m0s"
	// +optional
	HandlingTime metav1.Duration `json:"handlingTime,omitempty"`

	// PickupAfter delays the pickup.
	// +optional
	PickupAfter *metav1.Time `json:"pickupAfter,omitempty"`

	// Instructions are free-form notes for the driver, by topic.
	// +kubebuilder:validation:MaxProperties=16
	// +optional
	Instructions map[string]string `json:"instructions,omitempty"`

	// DelayTolerance is an absolute number of hours or a percentage of the
	// planned transit time.
	// +kubebuilder:default="10%"
	// +optional
	DelayTolerance intstr.IntOrString `json:"delayTolerance,omitempty"`

	Tracking `json:",inline"`
}

// ShipmentStatus is what the carrier observed.
type ShipmentStatus struct {
	// Phase is a one-word summary.
	// +optional
	Phase Phase `json:"phase,omitempty"`

	// ObservedGeneration is the spec generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// DeliveredAt is set once the shipment is delivered.
	// +optional
	DeliveredAt *metav1.Time `json:"deliveredAt,omitempty"`

	// Attempts at delivery so far.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Attempts int32 `json:"attempts,omitempty"`

	// Conditions in the usual Kubernetes form.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Shipment moves parcels from an origin to a destination.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=shp,categories=all;logistics
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Priority",type=string,JSONPath=`.spec.priority`
// +kubebuilder:printcolumn:name="Destination",type=string,JSONPath=`.spec.destination.city`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Carrier",type=string,JSONPath=`.spec.carrier`,priority=1
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:selectablefield:JSONPath=`.spec.carrier`
// +kubebuilder:selectablefield:JSONPath=`.spec.origin.city`
// +kubebuilder:selectablefield:JSONPath=`.status.phase`
type Shipment struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ShipmentSpec   `json:"spec,omitempty"`
	Status ShipmentStatus `json:"status,omitempty"`
}

// ShipmentList is a list of Shipments.
// +kubebuilder:object:root=true
type ShipmentList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Shipment `json:"items"`
}
