// Package types serves core/v1 Event and events.k8s.io/v1 Event from one
// store, as kube-apiserver does.
//
// +kubeforge:external:package=k8s.io/api/core/v1,kind=Event
// +kubeforge:external:package=k8s.io/api/events/v1,kind=Event,storedAs=k8s.io/api/core/v1
package types
