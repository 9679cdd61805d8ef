package v1

// Scalar is not a list or a struct.
// +kubebuilder:validation:ExactlyOneOf=a;b
// +kubebuilder:validation:items:MaxLength=3
type Scalar string

// Either has oneOf markers that cannot be written.
// +kubebuilder:validation:ExactlyOneOf=a;b.c;zz
// +kubebuilder:validation:AtMostOneOf=a;a
// +kubebuilder:validation:AtLeastOneOf=a;req;bare
type Either struct {
	// +optional
	A *string `json:"a,omitempty"`
	// +required
	Req  string `json:"req"`
	Bare string `json:"bare"`
}

// Lists has items: markers that do not fit.
// +kubebuilder:metadata:annotations=nokey,labels="=x"
// +kubebuilder:externalDocs:url=docs/relative
type Lists struct {
	// +kubebuilder:validation:items:MaxLength=3
	// +optional
	NotAList string `json:"notAList,omitempty"`

	// +kubebuilder:validation:items:MaxLength=3
	// +kubebuilder:validation:items:Minimum=1.5
	// +kubebuilder:validation:items:MaxItems=2
	// +optional
	Numbers []int32 `json:"numbers,omitempty"`

	// +kubebuilder:validation:items:Format=emial
	// +kubebuilder:validation:items:Pattern=`[a-`
	// +kubebuilder:validation:items:MultipleOf=-1
	// +optional
	Strings []string `json:"strings,omitempty"`

	// +kubebuilder:validation:items:MinProperties=1
	// +optional
	Blob []byte `json:"blob,omitempty"`

	// +k8s:immutable
	Item `json:",inline"`

	// +kubebuilder:example=abc
	// +optional
	Count int32 `json:"count,omitempty"`

	// +kubebuilder:example={1,x}
	// +kubebuilder:title=42
	// +optional
	Counts []int32 `json:"counts,omitempty"`
}

// Item is embedded inline.
type Item struct {
	// +optional
	Name string `json:"name,omitempty"`
}
