package v2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Thing is in v1 and v2.
// +kubebuilder:object:root=true
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}
