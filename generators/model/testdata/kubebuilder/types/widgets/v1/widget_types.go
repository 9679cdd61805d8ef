package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Color is a paint color.
// +kubebuilder:validation:Enum=red;green;blue
type Color string

//+kubebuilder:validation:MinLength=2
//+kubebuilder:default=xy

// Label is a short label; its marker block is one blank line above its doc.
type Label string

// PortNumber is an alias, as Gateway API declares its port type; its
// markers apply where it is used, as controller-gen applies them.
// +kubebuilder:validation:Maximum=65535
type PortNumber = int32

// WidgetSpec is what the user asks for.
type WidgetSpec struct {
	// +optional
	Port PortNumber `json:"port,omitempty"`

	//+kubebuilder:validation:Minimum=1
	//+kubebuilder:default=3
	//+optional
	Size int32 `json:"size,omitempty"`

	// Color of the widget.
	// +kubebuilder:default=red
	// +optional
	Color Color `json:"color,omitempty"` // +required is a trailing comment and ignored

	// +kubebuilder:validation:MaxLength=8

	// Label of the widget; the marker above is in the detached block.
	Label Label `json:"label"`

	// Policy is plain text. +1 for comments with plus signs.
	// +some-tool:foo=bar
	// +genclient
	// +k8s:deepcopy-gen=true
	// +optional
	Policy string `json:"policy,omitempty"`
}

// WidgetStatus is what the system observed.
type WidgetStatus struct {
	// +optional
	Ready bool `json:"ready,omitempty"`

	// +optional
	Notes []string `json:"notes,omitempty"`
}

//+kubebuilder:object:root=true
//+kubebuilder:subresource:status
//+kubebuilder:resource:shortName=wd
//+kubebuilder:printcolumn:name="Size",type=integer,JSONPath=`.spec.size`
//+kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`

// Widget is a kubebuilder-style kind whose markers are one blank line above
// its doc comment.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WidgetSpec `json:"spec,omitempty"`
	// A default on a struct Go cannot compare (a list inside).
	// +kubebuilder:default={notes: {"waiting"}}
	Status WidgetStatus `json:"status,omitempty"`
}

//+kubebuilder:object:root=true

// WidgetList contains a list of Widget.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// Policy has a plural that is not policys.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
type Policy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}
