package v1beta1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// LampSpec is the older spec.
type LampSpec struct {
	// Owner is who to call.
	// +required
	Owner string `json:"owner"`
}

// Lamp is the older lamp.
// +kubebuilder:object:root=true
type Lamp struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec LampSpec `json:"spec,omitempty"`
}
