// Package v1 is the hub of the convbad group; it forgets Hub().
// +groupName=conv.example.dev
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

// ThingSpec is v1's spec.
type ThingSpec struct {
	Size string `json:"size,omitempty"`
}
