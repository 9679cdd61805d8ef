// Package v1 carries the schema markers of controller-tools v0.23.0 that
// shape OpenAPI and the CEL rules: items:, oneOf, +k8s:immutable, title,
// example and externalDocs.
// +groupName=gates.example.dev
package v1
