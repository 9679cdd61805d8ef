package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Size is how big a gadget is.
// +kubebuilder:validation:Enum=small;medium;large
type Size string

// Audit is who last touched an object; it is embedded inline.
type Audit struct {
	// Editor is the last person to edit the spec.
	// +optional
	Editor string `json:"editor,omitempty"`
}

// GadgetSpec is what the owner of a gadget asks for.
// +kubebuilder:validation:XValidation:rule="self.size != 'large' || self.replicas >= 2",message="large gadgets need at least 2 replicas"
type GadgetSpec struct {
	Audit `json:",inline"`

	// Kind of the gadget | with a pipe in its doc.
	// +kubebuilder:default=medium
	// +optional
	Kind Size `json:"kind,omitempty"`

	// Size of the gadget.
	// +kubebuilder:validation:Enum=small;medium;large
	// +kubebuilder:default=medium
	// +optional
	Size string `json:"size,omitempty"`

	// Replicas is how many copies of the gadget run.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:default=1
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// Owner is who to call when the gadget breaks.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +required
	Owner string `json:"owner"`

	// Tags label the gadget for humans.
	// +listType=set
	// +kubebuilder:validation:MaxItems=8
	// +optional
	Tags []string `json:"tags,omitempty"`

	// Parts the gadget is built from, keyed by name.
	// +listType=map
	// +listMapKey=name
	// +optional
	Parts []Part `json:"parts,omitempty"`

	// Settings are free-form key/value pairs.
	// +optional
	Settings map[string]string `json:"settings,omitempty"`

	// Window is when the gadget may be serviced.
	// +optional
	Window *MaintenanceWindow `json:"window,omitempty"`
}

// Part is one component of a gadget.
type Part struct {
	// Name identifies the part within the gadget.
	// +kubebuilder:validation:Pattern=`^[a-z][a-z0-9-]*$`
	// +required
	Name string `json:"name"`

	// Count of this part.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=1
	// +optional
	Count int32 `json:"count,omitempty"`
}

// MaintenanceWindow is a recurring time slot.
type MaintenanceWindow struct {
	// Start of the first window.
	Start metav1.Time `json:"start"`

	// Duration of each window.
	// +kubebuilder:default="1h0m0s"
	// +optional
	Duration metav1.Duration `json:"duration,omitempty"`
}

// GadgetStatus is what the system observed about a gadget.
type GadgetStatus struct {
	// Phase is a one-word summary.
	// +optional
	Phase string `json:"phase,omitempty"`

	// ObservedGeneration is the spec generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions in the usual Kubernetes form.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Gadget is a namespaced thing with a status subresource.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=gd,categories=all
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Size",type=string,JSONPath=`.spec.size`
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GadgetSpec   `json:"spec,omitempty"`
	Status GadgetStatus `json:"status,omitempty"`
}

// GadgetList is a list of Gadgets. It is written out here; Zone's list is not,
// and the generator is expected to supply it.
// +kubebuilder:object:root=true
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}

// ZoneSpec describes a failure domain.
type ZoneSpec struct {
	// Region the zone belongs to.
	// +kubebuilder:validation:MinLength=1
	// +required
	Region string `json:"region"`

	// Capacity in abstract units.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=10
	// +optional
	Capacity int64 `json:"capacity,omitempty"`
}

// Zone is a cluster-scoped resource without a status subresource.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=zn
type Zone struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ZoneSpec `json:"spec,omitempty"`
}
