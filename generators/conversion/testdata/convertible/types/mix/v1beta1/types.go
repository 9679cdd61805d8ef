// Package v1beta1 converts Widget field by field: the same kind mixes
// Convertible (v1alpha1) and generated (here) spokes.
// +groupName=mix.example.dev
// +kubebuilder:object:generate=true
package v1beta1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:object:root=true

// Widget in v1beta1.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec `json:"spec,omitempty"`
}

// WidgetSpec lacks the color.
type WidgetSpec struct {
	Size string `json:"size,omitempty"`
}
