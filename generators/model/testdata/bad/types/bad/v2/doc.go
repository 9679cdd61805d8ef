// Package v2 is a second version of Thing; neither version is marked as the
// storage version.
//
// +groupName=bad.example.dev
package v2
