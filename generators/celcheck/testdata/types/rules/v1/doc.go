// Package v1 has rules that cannot be enforced.
// +groupName=rules.example.dev
package v1
