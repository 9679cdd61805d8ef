package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Fuel a truck runs on.
// +kubebuilder:validation:Enum=Diesel;Electric
type Fuel string

// Engine of a truck.
type Engine struct {
	// Fuel of the engine.
	// +kubebuilder:default=Diesel
	// +optional
	Fuel Fuel `json:"fuel,omitempty"`

	// Power of the engine.
	// +optional
	Power *resource.Quantity `json:"power,omitempty"`

	// Tuning of the engine, null until it is tuned.
	// +nullable
	// +optional
	Tuning map[string]string `json:"tuning"`
}

// Ownership is embedded inline in the spec.
type Ownership struct {
	// Owner of the truck.
	// +optional
	Owner string `json:"owner,omitempty"`
}

// TruckSpec is the desired state.
type TruckSpec struct {
	// Plate number.
	// +required
	Plate string `json:"plate"`

	// Engine, when known.
	// +optional
	Engine *Engine `json:"engine,omitempty"`

	// Axles of the truck.
	// +kubebuilder:validation:Minimum=2
	// +kubebuilder:default=2
	// +optional
	Axles int32 `json:"axles,omitempty"`

	// Refrigerated trucks carry cold goods; unset when unknown.
	// +optional
	Refrigerated *bool `json:"refrigerated,omitempty"`

	Ownership `json:",inline"`
}

// TruckStatus is the observed state.
type TruckStatus struct {
	// LastSeen is when the truck last reported.
	// +optional
	LastSeen *metav1.Time `json:"lastSeen,omitempty"`

	// Odometer in kilometres.
	// +optional
	Odometer int64 `json:"odometer,omitempty"`
}

// Truck is a namespaced kind with a status subresource.
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=trk
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Plate",type=string,JSONPath=`.spec.plate`
// +kubebuilder:printcolumn:name="Fuel",type=string,JSONPath=`.spec.engine.fuel`
// +kubebuilder:printcolumn:name="Power",type=string,JSONPath=`.spec.engine.power`,priority=1
// +kubebuilder:printcolumn:name="Owner",type=string,JSONPath=`.spec.owner`,priority=1
// +kubebuilder:printcolumn:name="Last Seen",type=date,JSONPath=`.status.lastSeen`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:selectablefield:JSONPath=`.spec.plate`
// +kubebuilder:selectablefield:JSONPath=`.spec.engine.fuel`
// +kubebuilder:selectablefield:JSONPath=`.spec.axles`
// +kubebuilder:selectablefield:JSONPath=`.spec.refrigerated`
// +kubebuilder:selectablefield:JSONPath=`.spec.owner`
// +kubebuilder:selectablefield:JSONPath=`.status.odometer`
type Truck struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TruckSpec   `json:"spec,omitempty"`
	Status TruckStatus `json:"status,omitempty"`
}

// TruckList is a list of Trucks.
// +kubebuilder:object:root=true
type TruckList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Truck `json:"items"`
}

// Depot is cluster-scoped, has no status subresource (its status counts
// towards generation) and no printer columns; its list is generated.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:selectablefield:JSONPath=`.city`
type Depot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// City of the depot.
	// +required
	City string `json:"city"`

	// Bays by name.
	// +optional
	Bays map[string]int32 `json:"bays,omitempty"`

	// Status is plain data here.
	// +optional
	Status string `json:"status,omitempty"`
}
