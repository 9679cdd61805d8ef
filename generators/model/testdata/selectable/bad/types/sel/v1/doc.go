// Package v1 has kinds with bad +kubebuilder:selectablefield markers; the
// loader must report each with its position.
//
// +groupName=sel.example.dev
package v1
