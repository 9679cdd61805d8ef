package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TruckSpec is the desired state.
type TruckSpec struct {
	// Plate number.
	// +required
	Plate string `json:"plate"`
}

// Truck in v1beta1.
// +kubebuilder:object:root=true
// +kubebuilder:selectablefield:JSONPath=`.spec.plate`
type Truck struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec TruckSpec `json:"spec,omitempty"`
}
