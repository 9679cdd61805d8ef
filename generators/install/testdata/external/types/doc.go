// Package types serves two built-in kinds and owns none: the golden tree of
// the external-package path (generators/install/external_test.go).
//
// +kubeforge:external:package=k8s.io/api/core/v1,kind=ConfigMap,shortName=cm
// +kubeforge:external:package=k8s.io/api/coordination/v1,kind=Lease
package types
