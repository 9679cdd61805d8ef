// Package v1beta1 is an older fleet version: served later through
// conversion, so the storage and routes generators skip it for now.
//
// +groupName=fleet.example.dev
// +kubebuilder:object:generate=true
package v1beta1
