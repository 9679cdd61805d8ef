package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Mode is a named string type.
type Mode string

// Engine is reached through a pointer.
type Engine struct {
	// +optional
	Fuel string `json:"fuel,omitempty"`
}

// Common is embedded inline.
type Common struct {
	// +optional
	Owner string `json:"owner,omitempty"`
}

// GadgetSpec has one field of every selectable shape.
type GadgetSpec struct {
	// +optional
	Mode Mode `json:"mode,omitempty"`
	// +optional
	Count int32 `json:"count,omitempty"`
	// +optional
	Size *int64 `json:"size,omitempty"`
	// +optional
	Enabled bool `json:"enabled,omitempty"`
	// +optional
	Engine *Engine `json:"engine,omitempty"`
	// +optional
	Ref types.UID `json:"ref,omitempty"`

	Common `json:",inline"`
}

// Gadget selects on eight fields, the most a kind may.
// +kubebuilder:object:root=true
// +kubebuilder:selectablefield:JSONPath=`.spec.mode`
// +kubebuilder:selectablefield:JSONPath=`.spec.count`
// +kubebuilder:selectablefield:JSONPath=`.spec.size`
// +kubebuilder:selectablefield:JSONPath=`.spec.enabled`
// +kubebuilder:selectablefield:JSONPath=`.spec.engine.fuel`
// +kubebuilder:selectablefield:JSONPath=`.spec.ref`
// +kubebuilder:selectablefield:JSONPath=`.spec.owner`
// +kubebuilder:selectablefield:JSONPath=.top
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GadgetSpec `json:"spec,omitempty"`
	// +optional
	Top string `json:"top,omitempty"`
}
