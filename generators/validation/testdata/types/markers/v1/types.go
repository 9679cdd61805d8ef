package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Endpoint is a port and whether it is secure.
type Endpoint struct {
	Port   int32 `json:"port"`
	Secure bool  `json:"secure"`
}

// Size is an enum on a named type.
// +kubebuilder:validation:Enum=small;medium;large
type Size string

// Ports is a list type whose items are bounded by items: markers on the
// type.
// +kubebuilder:validation:items:Minimum=1
// +kubebuilder:validation:items:Maximum=65535
type Ports []int32

// Part is an item of a listType=map list keyed by name.
type Part struct {
	// +kubebuilder:validation:Pattern=`^[a-z][a-z0-9-]*$`
	// +kubebuilder:validation:MaxLength=10
	// +required
	Name string `json:"name"`

	// +kubebuilder:validation:Minimum=1
	// +optional
	Count int32 `json:"count,omitempty"`
}

// Port is keyed by two fields.
type Port struct {
	// +required
	Name string `json:"name"`
	// +required
	Port int32 `json:"port"`
}

// Hours are opening hours, a map value.
type Hours struct {
	// +kubebuilder:validation:Pattern=`^([01][0-9]|2[0-3]):[0-5][0-9]$`
	// +required
	Open string `json:"open"`
}

// Limits are counted by MinProperties and MaxProperties.
type Limits struct {
	// +optional
	CPU string `json:"cpu,omitempty"`
	// +optional
	Memory *int64 `json:"memory,omitempty"`

	Disk `json:",inline"`
}

// Disk is inline in Limits: its fields are Limits' properties.
type Disk struct {
	// +optional
	Disk []string `json:"disk,omitempty"`
}

// Contact is embedded inline in the spec.
type Contact struct {
	// +kubebuilder:validation:Format=email
	// +optional
	Email string `json:"email,omitempty"`
}

// WidgetSpec covers every marker.
type WidgetSpec struct {
	// +optional
	Size Size `json:"size,omitempty"`

	// Endpoints have required numbers and booleans, no defaults: missing
	// only when the request's JSON lacks the key.
	// +optional
	Endpoints []Endpoint `json:"endpoints,omitempty"`

	// Extra is any object.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Extra *runtime.RawExtension `json:"extra,omitempty"`

	// Template is a whole object, apiVersion and kind required.
	// +kubebuilder:validation:EmbeddedResource
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Template *runtime.RawExtension `json:"template,omitempty"`

	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:ExclusiveMinimum=true
	// +kubebuilder:validation:Maximum=1
	// +kubebuilder:validation:ExclusiveMaximum=true
	// +optional
	Ratio float64 `json:"ratio,omitempty"`

	// +kubebuilder:validation:MultipleOf=5
	// +optional
	Interval int64 `json:"interval,omitempty"`

	// +kubebuilder:validation:MinLength=2
	// +kubebuilder:validation:MaxLength=5
	// +optional
	Code string `json:"code,omitempty"`

	// +kubebuilder:validation:Enum=1;2;3
	// +optional
	Level int32 `json:"level,omitempty"`

	// +required
	Owner string `json:"owner"`

	// +required
	Weight resource.Quantity `json:"weight"`

	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=3
	// +listType=map
	// +listMapKey=name
	// +optional
	Parts []Part `json:"parts,omitempty"`

	// +listType=map
	// +listMapKey=name
	// +listMapKey=port
	// +optional
	Ports []Port `json:"ports,omitempty"`

	// +listType=set
	// +optional
	Tags []string `json:"tags,omitempty"`

	// +kubebuilder:validation:UniqueItems=true
	// +optional
	Numbers []int32 `json:"numbers,omitempty"`

	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=2
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// +optional
	OpeningHours map[string]Hours `json:"openingHours,omitempty"`

	// +optional
	Sizes []Size `json:"sizes,omitempty"`

	// +optional
	Backup *Part `json:"backup,omitempty"`

	// Limits has one or two properties: counted as written, omitempty
	// fields only when set.
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=2
	// +optional
	Limits *Limits `json:"limits,omitempty"`

	// +optional
	Start *metav1.Time `json:"start,omitempty"`

	Contact `json:",inline"`

	Formats Formats `json:"formats,omitempty"`

	// Gates carries items: markers on a list field.
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:items:MinLength=2
	// +kubebuilder:validation:items:MaxLength=5
	// +kubebuilder:validation:items:Pattern=`^[a-z]+$`
	// +optional
	Gates []string `json:"gates,omitempty"`

	// ListenPorts takes the items: markers of its list type, and one more.
	// +kubebuilder:validation:items:MultipleOf=2
	// +optional
	ListenPorts Ports `json:"listenPorts,omitempty"`

	// Grades are an enum per item, behind a pointer.
	// +kubebuilder:validation:items:Enum=1;2;3
	// +optional
	Grades *[]int32 `json:"grades,omitempty"`

	// Weights are positive numbers.
	// +kubebuilder:validation:items:Minimum=0
	// +kubebuilder:validation:items:ExclusiveMinimum=true
	// +optional
	Weights []float64 `json:"weights,omitempty"`

	// Emails are checked as emails, one by one.
	// +kubebuilder:validation:items:Format=email
	// +optional
	Emails []string `json:"emails,omitempty"`

	// Matrix rows have at most two cells.
	// +kubebuilder:validation:items:MaxItems=2
	// +kubebuilder:validation:items:MinItems=1
	// +optional
	Matrix [][]int32 `json:"matrix,omitempty"`

	// Settings have at most one key each.
	// +kubebuilder:validation:items:MaxProperties=1
	// +optional
	Settings []map[string]string `json:"settings,omitempty"`
}

// Formats has one field per supported string format.
type Formats struct {
	// +kubebuilder:validation:Format=uri
	// +optional
	URI string `json:"uri,omitempty"`
	// +kubebuilder:validation:Format=url
	// +optional
	URL string `json:"url,omitempty"`
	// +kubebuilder:validation:Format=uuid
	// +optional
	UUID string `json:"uuid,omitempty"`
	// +kubebuilder:validation:Format=date-time
	// +optional
	DateTime string `json:"dateTime,omitempty"`
	// +kubebuilder:validation:Format=date
	// +optional
	Date string `json:"date,omitempty"`
	// +kubebuilder:validation:Format=hostname
	// +optional
	Hostname string `json:"hostname,omitempty"`
	// +kubebuilder:validation:Format=ipv4
	// +optional
	IPv4 string `json:"ipv4,omitempty"`
	// +kubebuilder:validation:Format=ipv6
	// +optional
	IPv6 string `json:"ipv6,omitempty"`
	// +kubebuilder:validation:Format=cidr
	// +optional
	CIDR string `json:"cidr,omitempty"`
	// +kubebuilder:validation:Format=byte
	// +optional
	Byte string `json:"byte,omitempty"`
	// +kubebuilder:validation:Format=duration
	// +optional
	Duration string `json:"duration,omitempty"`
}

// Widget is namespaced.
// +kubebuilder:object:root=true
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WidgetSpec `json:"spec,omitempty"`
}

// WidgetList is a list of Widgets.
// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// Gizmo is cluster-scoped.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
type Gizmo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// GizmoList is a list of Gizmos.
// +kubebuilder:object:root=true
type GizmoList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gizmo `json:"items"`
}
