// Package v1 is the hub of the mix group: Widget is marked with
// controller-runtime's Hub(), Gizmo converts field by field.
// +groupName=mix.example.dev
// +kubebuilder:object:generate=true
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:object:root=true
// +kubebuilder:storageversion

// Widget is stored in v1.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec `json:"spec,omitempty"`
}

// WidgetSpec holds the size as one string.
type WidgetSpec struct {
	Size  string `json:"size,omitempty"`
	Color string `json:"color,omitempty"`
}

// Hub marks v1 as the conversion hub of Widget.
func (*Widget) Hub() {}

// +kubebuilder:object:root=true
// +kubebuilder:storageversion

// Gizmo is stored in v1.
type Gizmo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              GizmoSpec `json:"spec,omitempty"`
}

// GizmoSpec is the same in every version.
type GizmoSpec struct {
	Count int32 `json:"count,omitempty"`
}
