// Package types serves every built-in kind that has kube-apiserver's
// selectable fields in generators/builtinfields, and two that have none
// (ConfigMap and Lease get kube-apiserver's default field label
// conversion): the input of builtinfields_test.go, whose golden output is
// under testdata/golden.
//
// +kubeforge:external:package=k8s.io/api/core/v1,kind=Namespace,scope=Cluster,shortName=ns
// +kubeforge:external:package=k8s.io/api/core/v1,kind=ConfigMap,shortName=cm
// +kubeforge:external:package=k8s.io/api/core/v1,kind=Secret
// +kubeforge:external:package=k8s.io/api/core/v1,kind=Event,shortName=ev
// +kubeforge:external:package=k8s.io/api/core/v1,kind=Service,shortName=svc
// +kubeforge:external:package=k8s.io/api/coordination/v1,kind=Lease
// +kubeforge:external:package=k8s.io/api/events/v1,kind=Event,shortName=ev
package types
