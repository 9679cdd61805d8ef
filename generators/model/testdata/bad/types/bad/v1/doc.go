// Package v1 collects one of each bad marker; the loader must report all of
// them together, sorted by position.
//
// +groupName=bad.example.dev
package v1
