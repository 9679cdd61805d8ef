package v1beta1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// TruckSpec is the desired truck.
type TruckSpec struct {
	// Depots the truck may visit.
	// +optional
	Depots []string `json:"depots,omitempty"`
}

// Truck moves freight.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Truck struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TruckSpec   `json:"spec,omitempty"`
	Status TruckStatus `json:"status,omitempty"`
}

// TruckStatus is the observed truck.
type TruckStatus struct {
	// Moving is true on the road.
	// +optional
	Moving bool `json:"moving,omitempty"`
}
