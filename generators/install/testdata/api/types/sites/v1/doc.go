// Package v1 is a second group, to order Install calls.
//
// +groupName=sites.example.dev
// +kubebuilder:object:generate=true
package v1
