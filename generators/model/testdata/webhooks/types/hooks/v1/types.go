// Package v1 is the storage version of the hooks group.
// +groupName=hooks.example.dev
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:object:root=true
// +kubebuilder:storageversion

// Thing is stored in v1.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ThingSpec `json:"spec,omitempty"`
}

// ThingSpec is the same in both versions.
type ThingSpec struct {
	Size string `json:"size,omitempty"`
}
