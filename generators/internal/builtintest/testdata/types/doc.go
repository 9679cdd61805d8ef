// Package types declares the built-in kinds that have a table in
// generators/builtinprinters (kube-apiserver's columns) or in
// generators/builtinfields (its field selector labels), plus kinds with
// none of one or the other (Service has no table of columns; ConfigMap and
// Lease keep the default field labels). It is the input of both packages'
// tests, whose one golden output is under ../golden.
//
// +kubeforge:external:package=k8s.io/api/core/v1,kind=Namespace,scope=Cluster,shortName=ns
// +kubeforge:external:package=k8s.io/api/core/v1,kind=ConfigMap,shortName=cm
// +kubeforge:external:package=k8s.io/api/core/v1,kind=Secret
// +kubeforge:external:package=k8s.io/api/core/v1,kind=Event,shortName=ev
// +kubeforge:external:package=k8s.io/api/core/v1,kind=Service,shortName=svc
// +kubeforge:external:package=k8s.io/api/coordination/v1,kind=Lease
// +kubeforge:external:package=k8s.io/api/events/v1,kind=Event,shortName=ev
// +kubeforge:external:package=k8s.io/api/core/v1,kind=ServiceAccount,shortName=sa
// +kubeforge:external:package=k8s.io/api/rbac/v1,kind=RoleBinding
// +kubeforge:external:package=k8s.io/api/rbac/v1,kind=ClusterRoleBinding,scope=Cluster
package types
