// Package v1 is the infra API: the places shipments move between.
//
// +groupName=infra.kubeforge.dev
package v1
