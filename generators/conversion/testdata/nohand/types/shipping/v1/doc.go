// Package v1 is the shipping API, version v1: the storage version.
//
// A Shipment moves parcels from an origin to a destination. Its status
// subresource is written by the carrier's controller.
//
// +groupName=shipping.kubeforge.dev
// +kubebuilder:object:generate=true
package v1
