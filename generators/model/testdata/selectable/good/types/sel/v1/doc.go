// Package v1 has kinds with valid +kubebuilder:selectablefield markers.
//
// +groupName=sel.example.dev
package v1
