// Package v1 carries the schema markers of controller-tools v0.23.0 a
// kubebuilder project may write: items:, oneOf, +k8s:immutable, title,
// example, externalDocs, metadata and the X spellings.
// +groupName=gates.example.dev
package v1
