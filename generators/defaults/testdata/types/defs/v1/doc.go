// Package v1 exercises the defaults generator; its generated code is
// compiled and run by the table tests.
//
// +groupName=defs.kubeforge.dev
package v1
