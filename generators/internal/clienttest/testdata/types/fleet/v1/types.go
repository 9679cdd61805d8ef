package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Fuel is what a truck runs on.
// +kubebuilder:validation:Enum=Diesel;Electric
type Fuel string

// Owner is shared by every truck: embedded inline in the spec.
type Owner struct {
	// Company owning the truck.
	// +optional
	Company string `json:"company,omitempty"`
}

// Axle is one axle of a truck.
type Axle struct {
	// Position from the front, 1-based.
	// +required
	Position int32 `json:"position"`

	// Load the axle carries.
	// +optional
	Load *resource.Quantity `json:"load,omitempty"`
}

// TruckSpec is the desired truck.
type TruckSpec struct {
	Owner `json:",inline"`

	// Fuel of the truck.
	// +optional
	Fuel Fuel `json:"fuel,omitempty"`

	// Axles by position.
	// +listType=map
	// +listMapKey=position
	// +optional
	Axles []Axle `json:"axles,omitempty"`

	// Depots the truck may visit.
	// +listType=set
	// +optional
	Depots []string `json:"depots,omitempty"`

	// Notes by topic.
	// +optional
	Notes map[string]string `json:"notes,omitempty"`

	// Replicas of the truck, for the scale subresource.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
}

// TruckStatus is the observed truck.
type TruckStatus struct {
	// Replicas running.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`

	// Conditions in the usual form.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Truck moves freight.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas
// +kubebuilder:storageversion
type Truck struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TruckSpec   `json:"spec,omitempty"`
	Status TruckStatus `json:"status,omitempty"`
}

// DepotSpec describes a depot.
type DepotSpec struct {
	// City of the depot.
	// +required
	City string `json:"city"`
}

// Depot is a cluster-scoped place without a status subresource.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
type Depot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec DepotSpec `json:"spec,omitempty"`
}
