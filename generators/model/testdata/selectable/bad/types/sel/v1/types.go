package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Item is a list item.
type Item struct {
	// +required
	Name string `json:"name"`
}

// WidgetSpec has fields that cannot be selected on.
type WidgetSpec struct {
	// +optional
	Name string `json:"name,omitempty"`
	// +optional
	Items []Item `json:"items,omitempty"`
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// +optional
	Since *metav1.Time `json:"since,omitempty"`
	// +optional
	Ratio float64 `json:"ratio,omitempty"`
	// +optional
	Weight resource.Quantity `json:"weight,omitempty"`
	// +optional
	Inner Item `json:"inner,omitempty"`
}

// Widget has one bad selectable field of each kind.
// +kubebuilder:object:root=true
// +kubebuilder:selectablefield:JSONPath=`.spec.nme`
// +kubebuilder:selectablefield:JSONPath=`.spec.inner`
// +kubebuilder:selectablefield:JSONPath=`.spec.items`
// +kubebuilder:selectablefield:JSONPath=`.spec.items[0].name`
// +kubebuilder:selectablefield:JSONPath=`.spec.items.name`
// +kubebuilder:selectablefield:JSONPath=`.spec.labels`
// +kubebuilder:selectablefield:JSONPath=`.spec.since`
// +kubebuilder:selectablefield:JSONPath=`.spec.ratio`
// +kubebuilder:selectablefield:JSONPath=`.spec.weight`
// +kubebuilder:selectablefield:JSONPath=`.metadata.name`
// +kubebuilder:selectablefield:JSONPath=`.kind`
// +kubebuilder:selectablefield:JSONPath=`spec.name`
// +kubebuilder:selectablefield:JSONPath=`.spec.name`
// +kubebuilder:selectablefield:JSONPath=`.spec.name`
// +kubebuilder:selectablefield:path=`.spec.name`
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WidgetSpec `json:"spec,omitempty"`
}

// ManySpec has nine selectable fields.
type ManySpec struct {
	A string `json:"a"`
	B string `json:"b"`
	C string `json:"c"`
	D string `json:"d"`
	E string `json:"e"`
	F string `json:"f"`
	G string `json:"g"`
	H string `json:"h"`
	I string `json:"i"`
}

// Many selects on one field too many.
// +kubebuilder:object:root=true
// +kubebuilder:selectablefield:JSONPath=`.spec.a`
// +kubebuilder:selectablefield:JSONPath=`.spec.b`
// +kubebuilder:selectablefield:JSONPath=`.spec.c`
// +kubebuilder:selectablefield:JSONPath=`.spec.d`
// +kubebuilder:selectablefield:JSONPath=`.spec.e`
// +kubebuilder:selectablefield:JSONPath=`.spec.f`
// +kubebuilder:selectablefield:JSONPath=`.spec.g`
// +kubebuilder:selectablefield:JSONPath=`.spec.h`
// +kubebuilder:selectablefield:JSONPath=`.spec.i`
type Many struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ManySpec `json:"spec,omitempty"`
}

// NotAKind is no kind.
// +kubebuilder:selectablefield:JSONPath=`.a`
type NotAKind struct {
	A string `json:"a"`
}
