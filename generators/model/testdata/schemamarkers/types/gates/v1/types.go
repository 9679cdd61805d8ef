package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Ports is a list type with items: markers of its own.
// +kubebuilder:validation:items:Minimum=1
// +kubebuilder:validation:items:Maximum=65535
// +kubebuilder:title="Port list"
type Ports []int32

// HTTP is one of the protocols.
type HTTP struct {
	// +optional
	Path string `json:"path,omitempty"`
}

// Protocol is exactly one of http, https or grpc, at most one of
// grpc or socket, and at least one of the last two when set.
// +kubebuilder:validation:ExactlyOneOf=http;https;grpc
// +kubebuilder:validation:AtMostOneOf={grpc,socket}
// +kubebuilder:validation:AtLeastOneOf=http;socket
// +kubebuilder:validation:XValidation:rule="!has(self.socket) || size(self.socket) > 0",message="socket must not be empty"
type Protocol struct {
	// +optional
	HTTP *HTTP `json:"http,omitempty"`
	// +optional
	HTTPS *HTTP `json:"https,omitempty"`
	// +optional
	GRPC *HTTP `json:"grpc,omitempty"`
	// +optional
	Socket string `json:"socket,omitempty"`
}

// GateSpec uses the field markers.
// +kubebuilder:externalDocs:url=https://example.com/gates,description="Gate guide"
type GateSpec struct {
	// Names of the gate.
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=16
	// +kubebuilder:validation:items:Pattern=`^[a-z]+$`
	// +kubebuilder:validation:items:XValidation:rule="self != 'admin'",message="admin is reserved"
	// +kubebuilder:title=Gate names
	// +kubebuilder:example={north,south}
	// +optional
	Names []string `json:"names,omitempty"`

	// Ports with one more items: marker than the type's.
	// +kubebuilder:validation:items:MultipleOf=2
	// +optional
	Ports Ports `json:"ports,omitempty"`

	// Objects are whole Kubernetes objects.
	// +kubebuilder:validation:items:XEmbeddedResource
	// +kubebuilder:validation:items:XPreserveUnknownFields
	// +optional
	Objects []runtime.RawExtension `json:"objects,omitempty"`

	// Serial never changes once set.
	// +k8s:immutable
	// +kubebuilder:example="SN-1"
	// +optional
	Serial string `json:"serial,omitempty"`

	// Owner is required and immutable.
	// +k8s:immutable
	// +required
	Owner string `json:"owner"`

	// Raw keeps unknown fields (controller-tools' older spelling).
	// +kubebuilder:validation:XPreserveUnknownFields
	// +kubebuilder:validation:XEmbeddedResource
	// +optional
	Raw *runtime.RawExtension `json:"raw,omitempty"`

	// Limits default with a controller-tools map literal.
	// +kubebuilder:default={cpu: "1", memory: "1Gi"}
	// +kubebuilder:example={cpu: "100m"}
	// +kubebuilder:externalDocs:url=/docs/limits
	// +optional
	Limits map[string]string `json:"limits,omitempty"`

	// Levels default with a controller-tools list literal.
	// +kubebuilder:default={1,2}
	// +optional
	Levels []int32 `json:"levels,omitempty"`

	// Protocol is a oneOf struct.
	// +optional
	Protocol *Protocol `json:"protocol,omitempty"`

	// MaxItems is a declarative validation tag with a comment.
	// +k8s:maxItems=4 # bounded for CEL
	// +k8s:optional
	Tags []string `json:"tags,omitempty"`

	// Keeper must be named: +k8s:required gives it minLength 1.
	// +k8s:required
	Keeper string `json:"keeper"`

	// Code keeps its own bound.
	// +k8s:required
	// +k8s:minLength=3
	Code *string `json:"code,omitempty"`

	// Lanes need one.
	// +k8s:required
	Lanes []string `json:"lanes"`

	// Owners need one.
	// +k8s:required
	Owners map[string]string `json:"owners"`

	// Seal is bytes: a string in JSON, left alone.
	// +k8s:required
	Seal []byte `json:"seal"`

	// Guard must set a property.
	// +k8s:required
	Guard *Protocol `json:"guard"`
}

// Gate is a kind.
// +kubebuilder:object:root=true
// +kubebuilder:metadata:annotations="api-approved.kubernetes.io=unapproved";"other=x",labels=team=gates
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
