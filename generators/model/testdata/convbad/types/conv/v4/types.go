// Package v4 has ConvertTo without ConvertFrom, and a Hub() taking an argument.
// +groupName=conv.example.dev
package v4

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/conversion"
)

// +kubebuilder:object:root=true

// Thing in v4.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ThingSpec `json:"spec,omitempty"`
}

// ThingSpec is v4's spec.
type ThingSpec struct {
	Size string `json:"size,omitempty"`
}

func (*Thing) ConvertTo(dst conversion.Hub) error { return nil }

// +kubebuilder:object:root=true

// Other in v4.
type Other struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

func (Other) Hub(x int) {}
