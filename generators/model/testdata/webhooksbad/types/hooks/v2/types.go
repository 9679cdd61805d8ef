// Package v2 is served too.
// +groupName=hooks.example.dev
package v2

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:object:root=true

// Thing in v2.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ThingSpec `json:"spec,omitempty"`
}

// ThingSpec is the same in both versions.
type ThingSpec struct {
	Size string `json:"size,omitempty"`
}
