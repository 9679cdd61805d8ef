// Package types holds the API types kubeforge serves: one package per
// group-version in types/<group>/<version>/.
//
// The kinds below are built-in Kubernetes kinds served from k8s.io/api
// packages, which kubeforge does not own: one +kubeforge:external line per
// kind (see README.md, "Serving built-in Kubernetes types"). Storage,
// routes, OpenAPI, defaults and validation are generated for them in
// generated/<short>/<version>; deepcopy and scheme registration are the
// packages' own.
//
// +kubeforge:external:package=k8s.io/api/core/v1,kind=Namespace,scope=Cluster,shortName=ns
// +kubeforge:external:package=k8s.io/api/core/v1,kind=Event,shortName=ev
// +kubeforge:external:package=k8s.io/api/coordination/v1,kind=Lease
// +kubeforge:external:package=k8s.io/api/events/v1,kind=Event,shortName=ev,storedAs=k8s.io/api/core/v1
// +kubeforge:external:package=k8s.io/api/core/v1,kind=ServiceAccount,shortName=sa
// +kubeforge:external:package=k8s.io/api/core/v1,kind=Secret
// +kubeforge:external:package=k8s.io/api/core/v1,kind=ConfigMap,shortName=cm
// +kubeforge:external:package=k8s.io/api/rbac/v1,kind=Role
// +kubeforge:external:package=k8s.io/api/rbac/v1,kind=RoleBinding
// +kubeforge:external:package=k8s.io/api/rbac/v1,kind=ClusterRole,scope=Cluster
// +kubeforge:external:package=k8s.io/api/rbac/v1,kind=ClusterRoleBinding,scope=Cluster
// +kubeforge:external:package=k8s.io/api/admissionregistration/v1,kind=ValidatingAdmissionPolicy,scope=Cluster
// +kubeforge:external:package=k8s.io/api/admissionregistration/v1,kind=ValidatingAdmissionPolicyBinding,scope=Cluster
// +kubeforge:external:package=k8s.io/api/admissionregistration/v1,kind=ValidatingWebhookConfiguration,scope=Cluster
// +kubeforge:external:package=k8s.io/api/admissionregistration/v1,kind=MutatingWebhookConfiguration,scope=Cluster
package types
