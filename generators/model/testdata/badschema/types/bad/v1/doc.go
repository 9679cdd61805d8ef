// Package v1 collects one of each bad schema marker of controller-tools
// v0.23.0 (items:, oneOf, +k8s:immutable, title, example, externalDocs,
// metadata); the loader must report all of them together, sorted by
// position.
//
// +groupName=bad.example.dev
package v1
