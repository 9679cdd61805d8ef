package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DockKind is what a loading dock handles.
// +kubebuilder:validation:Enum=Truck;Rail;Ship
type DockKind string

// Dock is one loading dock.
type Dock struct {
	// ID of the dock, unique within the warehouse.
	// +kubebuilder:validation:Minimum=1
	// +required
	ID int32 `json:"id"`

	// Kind of traffic the dock handles.
	// +kubebuilder:default=Truck
	// +optional
	Kind DockKind `json:"kind,omitempty"`

	// Covered docks keep rain out.
	// +optional
	Covered *bool `json:"covered,omitempty"`

	// Doors of the dock; 0 closes it. Without omitempty, an explicit 0 is
	// kept over the default, as in a custom resource.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +optional
	Doors int32 `json:"doors"`
}

// Hours are opening hours for a weekday.
type Hours struct {
	// Open is the local opening time, HH:MM.
	// +kubebuilder:validation:Pattern=`^([01][0-9]|2[0-3]):[0-5][0-9]$`
	// +required
	Open string `json:"open"`

	// Close is the local closing time, HH:MM.
	// +kubebuilder:validation:Pattern=`^([01][0-9]|2[0-3]):[0-5][0-9]$`
	// +required
	Close string `json:"close"`

	// Staffed days have people on site; false means automated only.
	// +kubebuilder:default=true
	// +optional
	Staffed bool `json:"staffed"`
}

// WarehouseSpec describes a warehouse.
type WarehouseSpec struct {
	// Region the warehouse belongs to.
	// +kubebuilder:validation:MinLength=1
	// +required
	Region string `json:"region"`

	// DisplayName for humans; defaults to the object's name.
	// +optional
	DisplayName string `json:"displayName,omitempty"`

	// Capacity is the storage volume, for example 1200m3 written as 1200.
	// +optional
	Capacity *resource.Quantity `json:"capacity,omitempty"`

	// Docks of the warehouse, keyed by id.
	// +listType=map
	// +listMapKey=id
	// +optional
	Docks []Dock `json:"docks,omitempty"`

	// OpeningHours by weekday (mon, tue, ...).
	// +optional
	OpeningHours map[string]Hours `json:"openingHours,omitempty"`

	// Robots working the floor; 0 stops them all. Without omitempty, an
	// explicit 0 is kept over the default.
	// +kubebuilder:default=2
	// +kubebuilder:validation:Minimum=0
	// +optional
	Robots int32 `json:"robots"`

	// Bonded warehouses may hold goods before customs clearance.
	// +kubebuilder:default=false
	// +optional
	Bonded *bool `json:"bonded,omitempty"`

	// Zones are the named areas inside the warehouse.
	// +listType=set
	// +kubebuilder:validation:UniqueItems=true
	// +optional
	Zones []string `json:"zones,omitempty"`

	// Gates are the names of the loading gates, short and in lower case.
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=8
	// +kubebuilder:validation:items:Pattern=`^[a-z][a-z0-9-]*$`
	// +kubebuilder:example={north,south-1}
	// +optional
	Gates []string `json:"gates,omitempty"`
}

// Warehouse is a cluster-scoped place where shipments start and end. Its list
// type is not written here: the generator writes WarehouseList.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=wh,categories=logistics
// +kubebuilder:printcolumn:name="Region",type=string,JSONPath=`.spec.region`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Warehouse struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WarehouseSpec `json:"spec,omitempty"`
}
