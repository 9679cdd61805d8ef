// Package v1beta1 is the older fleet test API.
//
// +groupName=fleet.example.dev
package v1beta1
