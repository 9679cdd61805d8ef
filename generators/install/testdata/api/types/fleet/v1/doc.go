// Package v1 is the fleet API, the storage version of Truck.
//
// +groupName=fleet.example.dev
// +kubebuilder:object:generate=true
package v1
