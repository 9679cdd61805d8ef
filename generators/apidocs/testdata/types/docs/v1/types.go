package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Size is how big a lamp is.
// +kubebuilder:validation:Enum=small;medium;large
type Size string

// Audit is who last touched an object; it is embedded inline.
type Audit struct {
	// Editor is the last person to edit the spec.
	// +optional
	Editor string `json:"editor,omitempty"`
}

// LampSpec is what the owner of a lamp asks for.
// +kubebuilder:validation:XValidation:rule="self.size != 'large' || self.watts >= 60",message="large lamps need at least 60 watts"
type LampSpec struct {
	Audit `json:",inline"`

	// Size of the lamp | with a pipe in its doc.
	// +kubebuilder:default=medium
	// +optional
	Size Size `json:"size,omitempty"`

	// Watts is the power the lamp draws.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:default=40
	// +optional
	Watts *int32 `json:"watts,omitempty"`

	// Owner is who to call when the lamp breaks.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +required
	Owner string `json:"owner"`

	// Bulbs the lamp holds, keyed by name.
	// +listType=map
	// +listMapKey=name
	// +optional
	Bulbs []Bulb `json:"bulbs,omitempty"`

	// Settings are free-form key/value pairs.
	// +optional
	Settings map[string]string `json:"settings,omitempty"`

	// Since is when the lamp was installed.
	// +optional
	Since *metav1.Time `json:"since,omitempty"`
}

// Bulb is one bulb of a lamp.
type Bulb struct {
	// Name identifies the bulb.
	// +kubebuilder:validation:Pattern=`^[a-z][a-z0-9-]*$`
	// +required
	Name string `json:"name"`
}

// LampStatus is what the system observed about a lamp.
type LampStatus struct {
	// Lit is whether the lamp is on.
	// +optional
	Lit bool `json:"lit,omitempty"`
}

// Lamp is a namespaced thing with a status subresource.
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=lp,categories=all
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Size",type=string,JSONPath=`.spec.size`
type Lamp struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   LampSpec   `json:"spec,omitempty"`
	Status LampStatus `json:"status,omitempty"`
}

// Room is a cluster-scoped resource.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
type Room struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}
