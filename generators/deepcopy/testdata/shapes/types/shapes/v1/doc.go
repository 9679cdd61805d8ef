// Package v1 exercises every field shape the deepcopy generator handles.
//
// +groupName=shapes.example.dev
package v1
