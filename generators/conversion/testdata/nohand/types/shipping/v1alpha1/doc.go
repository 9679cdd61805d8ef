// Package v1alpha1 is the first, older version of the shipping API. It is
// still served; objects are stored as v1.
//
// +groupName=shipping.kubeforge.dev
// +kubebuilder:object:generate=true
package v1alpha1
