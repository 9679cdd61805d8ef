// Package v2 converts by controller-runtime's methods, but its hub has no Hub().
// +groupName=conv.example.dev
package v2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/conversion"
)

// +kubebuilder:object:root=true

// Thing in v2.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ThingSpec `json:"spec,omitempty"`
}

// ThingSpec is v2's spec.
type ThingSpec struct {
	Sizes []string `json:"sizes,omitempty"`
}

func (*Thing) ConvertTo(dst conversion.Hub) error   { return nil }
func (*Thing) ConvertFrom(src conversion.Hub) error { return nil }
