package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Mode is a named string.
type Mode string

// Item is a slice element and a map value.
type Item struct {
	// Name of the item.
	// +optional
	Name string `json:"name,omitempty"`

	// Count defaults to 1.
	// +kubebuilder:default=1
	// +optional
	Count int32 `json:"count,omitempty"`
}

// Window is reached through a pointer with an object default.
type Window struct {
	// Length defaults to 90 minutes.
	// +kubebuilder:default="1h30m"
	// +optional
	Length metav1.Duration `json:"length,omitempty"`

	// Days of the window.
	// +optional
	Days []string `json:"days,omitempty"`
}

// Shared is embedded inline.
type Shared struct {
	// Region defaults to eu.
	// +kubebuilder:default=eu
	// +optional
	Region string `json:"region,omitempty"`

	// Zone is asked in the embedding struct's JSON.
	// +kubebuilder:default=a
	// +optional
	Zone string `json:"zone"`
}

// Kept has fields without omitempty, whose explicit zeros a request's
// JSON keeps over their defaults.
type Kept struct {
	// Name is a string.
	// +kubebuilder:default=anon
	// +optional
	Name string `json:"name"`

	// On is a bool.
	// +kubebuilder:default=true
	// +optional
	On bool `json:"on"`

	// Size is an int.
	// +kubebuilder:default=3
	// +optional
	Size int32 `json:"size"`

	// Wait is a duration.
	// +kubebuilder:default="1m"
	// +optional
	Wait metav1.Duration `json:"wait"`

	// Budget is a quantity.
	// +kubebuilder:default="1"
	// +optional
	Budget resource.Quantity `json:"budget"`

	// Spare is an int-or-string.
	// +kubebuilder:default=2
	// +optional
	Spare intstr.IntOrString `json:"spare"`

	// Labels is a map: nil is null in JSON, so it needs no question.
	// +kubebuilder:default={"a":"b"}
	// +optional
	Labels map[string]string `json:"labels"`

	// Item is a struct with a whole-object default.
	// +kubebuilder:default={"name":"x"}
	// +optional
	Item Item `json:"item"`
}

// ThingSpec covers every kind of default.
type ThingSpec struct {
	// Mode defaults to fast.
	// +kubebuilder:default=fast
	// +optional
	Mode Mode `json:"mode,omitempty"`

	// Small is an int16.
	// +kubebuilder:default=-3
	// +optional
	Small int16 `json:"small,omitempty"`

	// Big is an int64.
	// +kubebuilder:default=9000000000
	// +optional
	Big int64 `json:"big,omitempty"`

	// Ratio is a float.
	// +kubebuilder:default=0.5
	// +optional
	Ratio float64 `json:"ratio,omitempty"`

	// Enabled is a bool.
	// +kubebuilder:default=true
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// Replicas is a pointer that gets allocated.
	// +kubebuilder:default=2
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// Paused is a pointer to false.
	// +kubebuilder:default=false
	// +optional
	Paused *bool `json:"paused,omitempty"`

	// Timeout is a duration.
	// +kubebuilder:default="30s"
	// +optional
	Timeout metav1.Duration `json:"timeout,omitempty"`

	// Memory is a quantity.
	// +kubebuilder:default="512Mi"
	// +optional
	Memory resource.Quantity `json:"memory,omitempty"`

	// Surge is an int-or-string with a string default.
	// +kubebuilder:default="25%"
	// +optional
	Surge intstr.IntOrString `json:"surge,omitempty"`

	// Unavailable is an int-or-string with an integer default.
	// +kubebuilder:default=1
	// +optional
	Unavailable intstr.IntOrString `json:"unavailable,omitempty"`

	// Tags is an array default.
	// +kubebuilder:default=["a","b"]
	// +optional
	Tags []string `json:"tags,omitempty"`

	// Limits is a map default.
	// +kubebuilder:default={"cpu":"1"}
	// +optional
	Limits map[string]string `json:"limits,omitempty"`

	// Items get their own defaults.
	// +optional
	Items []Item `json:"items,omitempty"`

	// ByName map values get their own defaults.
	// +optional
	ByName map[string]Item `json:"byName,omitempty"`

	// Pointers in a map are defaulted in place.
	// +optional
	Refs map[string]*Item `json:"refs,omitempty"`

	// Window is allocated from an object default, then defaulted itself.
	// +kubebuilder:default={"days":["sat"]}
	// +optional
	Window *Window `json:"window,omitempty"`

	// Main is a struct with a default for the whole object.
	// +kubebuilder:default={"name":"main"}
	// +optional
	Main Item `json:"main,omitempty"`

	// Extension is raw JSON.
	// +optional
	Extension *runtime.RawExtension `json:"extension,omitempty"`

	Shared `json:",inline"`

	// Kept is a struct of fields without omitempty.
	// +optional
	Kept Kept `json:"kept"`

	// KeptList items are asked one by one.
	// +optional
	KeptList []Kept `json:"keptList,omitempty"`

	// KeptGrid nests lists.
	// +optional
	KeptGrid [][]Kept `json:"keptGrid,omitempty"`

	// KeptByMode has named keys.
	// +optional
	KeptByMode map[Mode]Kept `json:"keptByMode,omitempty"`

	// KeptRef is a pointer.
	// +optional
	KeptRef *Kept `json:"keptRef,omitempty"`
}

// Thing is the kind.
// +kubebuilder:object:root=true
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec of the thing.
	// +optional
	Spec ThingSpec `json:"spec,omitempty"`
}

// ThingList is a list of Things.
// +kubebuilder:object:root=true
type ThingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Thing `json:"items"`
}

// DeepCopyObject is hand-written for the test (the deepcopy generator is not
// run on testdata): a shallow copy is enough to register defaulters.
func (in *Thing) DeepCopyObject() runtime.Object { out := *in; return &out }

// DeepCopyObject is hand-written for the test.
func (in *ThingList) DeepCopyObject() runtime.Object { out := *in; return &out }
