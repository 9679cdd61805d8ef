package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ThingSpec has rules.
// +kubebuilder:validation:XValidation:rule="self.size != 'large' || self.count >= 2",message="large things need two"
// +kubebuilder:validation:XValidation:rule="self.nope > 1"
type ThingSpec struct {
	// +optional
	Size string `json:"size,omitempty"`
	// +optional
	Count int32 `json:"count,omitempty"`
	// +kubebuilder:validation:XValidation:rule="self.size() >"
	// +optional
	Name string `json:"name,omitempty"`
	// +kubebuilder:validation:XValidation:rule="self == 'x'",messageExpression="1 + 2"
	// +optional
	Code string `json:"code,omitempty"`
	// +kubebuilder:validation:XValidation:rule="self.all(a, self.all(b, a + b != ''))"
	// +optional
	Tags []string `json:"tags,omitempty"`
	// +kubebuilder:validation:items:XValidation:rule="self.nope == 1"
	// +kubebuilder:validation:MaxItems=4
	// +optional
	Parts []Part `json:"parts,omitempty"`
	// string() of an integer is estimated at an unbounded length.
	// +kubebuilder:validation:XValidation:rule="self > 0",messageExpression="'weight ' + string(self)"
	// +optional
	Weight int32 `json:"weight,omitempty"`
	// A cheap rule, but under a list without MaxItems: it may run for
	// every item a request can hold.
	// +kubebuilder:validation:items:XValidation:rule="self.startsWith('n')"
	// +optional
	Notes []string `json:"notes,omitempty"`
	// The same rule under a bounded list passes.
	// +kubebuilder:validation:items:XValidation:rule="self.startsWith('m')"
	// +kubebuilder:validation:items:MaxLength=64
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Memos []string `json:"memos,omitempty"`
}

// Part is an item.
type Part struct {
	// +optional
	Name string `json:"name,omitempty"`
}

// Thing is a kind with rules.
// +kubebuilder:object:root=true
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ThingSpec `json:"spec,omitempty"`
}
