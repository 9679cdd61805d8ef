package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SiteSpec is the desired state.
type SiteSpec struct {
	// Address of the site.
	// +required
	Address string `json:"address"`
}

// Site is a namespaced kind without a status subresource.
// +kubebuilder:object:root=true
// +kubebuilder:printcolumn:name="Address",type=string,JSONPath=`.spec.address`
// +kubebuilder:printcolumn:name="Generation",type=integer,JSONPath=`.metadata.generation`
type Site struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec SiteSpec `json:"spec,omitempty"`
}
