package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Color is a named basic type.
type Color string

// Count is a named integer.
type Count int32

// Names is a named slice of builtins.
type Names []string

// Labels is a named map of builtins.
type Labels map[string]string

// Matrix is a named slice of slices.
type Matrix [][]int32

// Parts is a named slice of structs with references.
type Parts []Part

// PartsByName is a named map of structs with references.
type PartsByName map[string]Part

// PartRefs is a named map of pointers.
type PartRefs map[string]*Part

// Grid is a named array without references.
type Grid [3][3]int32

// Slots is a named array with references.
type Slots [2]*int32

// Point is a struct without references: copied by assignment.
type Point struct {
	X int32 `json:"x"`
	Y int32 `json:"y"`
	// +optional
	Color Color `json:"color,omitempty"`
}

// Arrays holds Go arrays, which deepcopy copies; no kind serves them (the
// model refuses an array a kind serves: Kubernetes' converters have none).
type Arrays struct {
	// +optional
	Pad [4]byte `json:"pad,omitempty"`
	// +optional
	Fixed [3]int32 `json:"fixed,omitempty"`
	// +optional
	Grid Grid `json:"grid,omitempty"`
	// +optional
	Slots Slots `json:"slots,omitempty"`
	// +optional
	PartArray [2]Part `json:"partArray,omitempty"`
}

// Part is a struct with a reference.
type Part struct {
	Name string `json:"name"`
	// +optional
	Count *int32 `json:"count,omitempty"`
}

// Common is embedded inline in WidgetSpec.
type Common struct {
	// +optional
	Note string `json:"note,omitempty"`
	// +optional
	Ref *string `json:"ref,omitempty"`
}

// Plain is embedded inline in WidgetSpec and has no references.
type Plain struct {
	// +optional
	Level int64 `json:"level,omitempty"`
}

// Custom has hand-written DeepCopyInto and DeepCopy (custom.go): the
// generator must not write them again, but must call them.
type Custom struct {
	// +optional
	Data []byte `json:"data,omitempty"`
}

// WidgetSpec has one field of every shape.
type WidgetSpec struct {
	// Builtins.
	Name string `json:"name"`
	// +optional
	Enabled bool `json:"enabled,omitempty"`
	// +optional
	Ratio float64 `json:"ratio,omitempty"`
	// +optional
	Color Color `json:"color,omitempty"`
	// +optional
	Count Count `json:"count,omitempty"`

	// Pointers.
	// +optional
	Size *int64 `json:"size,omitempty"`
	// +optional
	Label *string `json:"label,omitempty"`
	// +optional
	Shade *Color `json:"shade,omitempty"`
	// +optional
	Origin *Point `json:"origin,omitempty"`
	// +optional
	Main *Part `json:"main,omitempty"`
	// +optional
	Deep **int32 `json:"deep,omitempty"`
	// +optional
	NamesRef *Names `json:"namesRef,omitempty"`

	// Slices.
	// +optional
	Raw []byte `json:"raw,omitempty"`
	// +optional
	Tags []string `json:"tags,omitempty"`
	// +optional
	Colors []Color `json:"colors,omitempty"`
	// +optional
	Points []Point `json:"points,omitempty"`
	// +optional
	Parts []Part `json:"parts,omitempty"`
	// +optional
	PartPtrs []*Part `json:"partPtrs,omitempty"`
	// +optional
	Nested [][]string `json:"nested,omitempty"`
	// +optional
	SliceOfMaps []map[string]string `json:"sliceOfMaps,omitempty"`

	// Named slices and maps.
	// +optional
	Names Names `json:"names,omitempty"`
	// +optional
	Labels Labels `json:"labels,omitempty"`
	// +optional
	Matrix Matrix `json:"matrix,omitempty"`
	// +optional
	NamedParts Parts `json:"namedParts,omitempty"`
	// +optional
	PartsByName PartsByName `json:"partsByName,omitempty"`
	// +optional
	PartRefs PartRefs `json:"partRefs,omitempty"`

	// Maps.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
	// +optional
	PointsByName map[string]Point `json:"pointsByName,omitempty"`
	// +optional
	PartMap map[string]Part `json:"partMap,omitempty"`
	// +optional
	PartPtrMap map[string]*Part `json:"partPtrMap,omitempty"`
	// +optional
	ListMap map[string][]string `json:"listMap,omitempty"`
	// +optional
	MapOfMaps map[string]map[string]int32 `json:"mapOfMaps,omitempty"`
	// +optional
	IntPtrMap map[string]*int32 `json:"intPtrMap,omitempty"`
	// +optional
	ByColor map[Color]Names `json:"byColor,omitempty"`

	// Hand-written deep copy.
	// +optional
	Custom Custom `json:"custom,omitempty"`
	// +optional
	CustomPtr *Custom `json:"customPtr,omitempty"`
	// +optional
	Customs []Custom `json:"customs,omitempty"`

	// External types.
	// +optional
	Start metav1.Time `json:"start,omitempty"`
	// +optional
	End *metav1.Time `json:"end,omitempty"`
	// +optional
	Every metav1.Duration `json:"every,omitempty"`
	// +optional
	Amount resource.Quantity `json:"amount,omitempty"`
	// +optional
	Limits map[string]resource.Quantity `json:"limits,omitempty"`
	// +optional
	Tolerance intstr.IntOrString `json:"tolerance,omitempty"`
	// +optional
	MaxSkew *intstr.IntOrString `json:"maxSkew,omitempty"`
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// +optional
	Extension runtime.RawExtension `json:"extension,omitempty"`

	// Interfaces: only runtime.Object is supported.
	// +optional
	Payload runtime.Object `json:"payload,omitempty"`

	// Embedded structs.
	Common `json:",inline"`
	Plain  `json:",inline"`
}

// WidgetStatus is the observed state.
type WidgetStatus struct {
	// +optional
	Phase string `json:"phase,omitempty"`
	// +optional
	ObservedAt *metav1.Time `json:"observedAt,omitempty"`
}

// Widget is a kind with a hand-written list.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec,omitempty"`
	Status WidgetStatus `json:"status,omitempty"`
}

// WidgetList is written by hand.
// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// Gizmo is a cluster-scoped kind whose list the lists generator writes.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
type Gizmo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Parts []Part `json:"parts,omitempty"`
}

// Gadget is a kind with a hand-written DeepCopyObject (custom.go).
// +kubebuilder:object:root=true
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Size int32 `json:"size,omitempty"`
}

// GadgetList is written by hand.
// +kubebuilder:object:root=true
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}
