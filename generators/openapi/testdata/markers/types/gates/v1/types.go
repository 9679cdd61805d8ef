package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Ports is a list type whose items are bounded.
// +kubebuilder:validation:items:Minimum=1
// +kubebuilder:validation:items:Maximum=65535
// +kubebuilder:title="Port list"
type Ports []int32

// Endpoint is a host.
type Endpoint struct {
	// +kubebuilder:validation:MaxLength=64
	// +required
	Host string `json:"host"`
}

// Exactly has exactly one protocol.
// +kubebuilder:validation:ExactlyOneOf=http;grpc
type Exactly struct {
	// +optional
	HTTP *Endpoint `json:"http,omitempty"`
	// +optional
	GRPC *Endpoint `json:"grpc,omitempty"`
}

// AtMost has at most one of a and b.
// +kubebuilder:validation:AtMostOneOf=a;b
type AtMost struct {
	// +optional
	A string `json:"a,omitempty"`
	// +optional
	B *int32 `json:"b,omitempty"`
}

// AtLeast has at least one of a and b.
// +kubebuilder:validation:AtLeastOneOf={a,b}
type AtLeast struct {
	// +optional
	A string `json:"a,omitempty"`
	// +optional
	B []string `json:"b,omitempty"`
}

// GateSpec is what a gate is.
// +kubebuilder:title=Gate
// +kubebuilder:externalDocs:url=https://example.com/gates,description="Gate guide"
type GateSpec struct {
	// Names of the gate.
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=16
	// +kubebuilder:validation:items:XValidation:rule="self != 'admin'",message="admin is reserved"
	// +kubebuilder:title=Gate names
	// +kubebuilder:example={north,south}
	// +optional
	Names []string `json:"names,omitempty"`

	// Endpoints are hosts under example.com.
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:items:XValidation:rule="self.host.endsWith('.example.com')",message="hosts are under example.com"
	// +optional
	Endpoints []Endpoint `json:"endpoints,omitempty"`

	// Ports take the bounds of their list type, and one more.
	// +kubebuilder:validation:items:MultipleOf=2
	// +optional
	Ports Ports `json:"ports,omitempty"`

	// Objects are whole Kubernetes objects.
	// +kubebuilder:validation:MaxItems=2
	// +kubebuilder:validation:items:XEmbeddedResource
	// +kubebuilder:validation:items:XPreserveUnknownFields
	// +optional
	Objects []runtime.RawExtension `json:"objects,omitempty"`

	// Serial never changes once set.
	// +k8s:immutable
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:example="SN-1"
	// +kubebuilder:externalDocs:url=/docs/serials
	// +optional
	Serial string `json:"serial,omitempty"`

	// Owner is required and never changes.
	// +k8s:immutable
	// +kubebuilder:validation:MaxLength=32
	// +required
	Owner string `json:"owner"`

	// +optional
	Exactly *Exactly `json:"exactly,omitempty"`
	// +optional
	AtMost *AtMost `json:"atMost,omitempty"`
	// +optional
	AtLeast *AtLeast `json:"atLeast,omitempty"`

	// Backends carry the rule of the struct they embed.
	// +optional
	Backends []Backend `json:"backends,omitempty"`
}

// Gate is a kind.
// +kubebuilder:object:root=true
type Gate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GateSpec `json:"spec,omitempty"`
}

// GateList is a list of gates.
// +kubebuilder:object:root=true
type GateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gate `json:"items"`
}

// Target is what a Backend embeds.
// +kubebuilder:validation:XValidation:rule="self.kind != 'Service' || has(self.port)",message="a Service needs a port"
type Target struct {
	Kind string `json:"kind"`
	// +optional
	Port *int32 `json:"port,omitempty"`
}

// Backend embeds Target inline, as Gateway API's BackendRef embeds
// BackendObjectReference: Target's rule holds for a Backend.
// +kubebuilder:validation:XValidation:rule="!has(self.weight) || self.weight >= 0",message="weight is not negative"
type Backend struct {
	Target `json:",inline"`
	// +optional
	Weight *int32 `json:"weight,omitempty"`
}
