package v1

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Host is a DNS name.
// +kubebuilder:validation:MaxLength=253
type Host string

// WorkloadSpec uses Kubernetes' structs as fields.
// +kubebuilder:validation:XValidation:rule="!has(self.replicas) || !has(self.maxSurge) || self.replicas > 0",message="a surge needs replicas"
// +kubebuilder:validation:XValidation:rule="!has(self.owner) || self.owner.size() <= 20",messageExpression="'owner ' + self.owner + ' is too long'"
type WorkloadSpec struct {
	// Owner of the workload; it never changes once set.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="owner is immutable"
	// +optional
	Owner string `json:"owner,omitempty"`
	// Hosts the workload answers, each a lower-case name.
	// +kubebuilder:validation:XValidation:rule="self.all(h, h == h.lowerAscii())",message="hosts are lower case",reason=FieldValueForbidden
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Hosts []Host `json:"hosts,omitempty"`
	// +optional
	Template corev1.PodTemplateSpec `json:"template,omitempty"`
	// +optional
	Pod *corev1.PodSpec `json:"pod,omitempty"`
	// +optional
	Deployment *appsv1.DeploymentSpec `json:"deployment,omitempty"`
	// +optional
	Job *batchv1.JobTemplateSpec `json:"job,omitempty"`
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	// +optional
	Volumes []corev1.Volume `json:"volumes,omitempty"`
	// +optional
	Ingress *networkingv1.IngressSpec `json:"ingress,omitempty"`
	// +optional
	Ref *corev1.ObjectReference `json:"ref,omitempty"`
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	// +optional
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`
	// +optional
	Memory *resource.Quantity `json:"memory,omitempty"`
	// Replicas is how many copies run (the scale subresource's spec).
	// +kubebuilder:validation:Maximum=50
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
}

// WorkloadStatus is what the controller observed.
type WorkloadStatus struct {
	// Replicas observed.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// Selector of the replicas, as a string.
	// +optional
	Selector string `json:"selector,omitempty"`
}

// Workload is a kind built on k8s.io/api types.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
type Workload struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WorkloadSpec   `json:"spec,omitempty"`
	Status WorkloadStatus `json:"status,omitempty"`
}
