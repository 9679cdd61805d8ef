// Package v1 is a corpus of fields of Kubernetes' own types.
// +groupName=corpus.kubeforge.dev
package v1
