// Package v1 is the fleet test API: the storage version.
//
// +groupName=fleet.example.dev
package v1
