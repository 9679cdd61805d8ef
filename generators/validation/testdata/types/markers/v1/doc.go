// Package v1 exercises every validation marker the validation generator
// supports; its generated code is compiled and run by the table tests.
//
// +groupName=markers.kubeforge.dev
package v1
