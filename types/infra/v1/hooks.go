package v1

// SetDefaults_Warehouse is a hand-written defaulting hook, called after the
// +default markers: the display name falls back to the object's name.
func SetDefaults_Warehouse(obj *Warehouse) {
	if obj.Spec.DisplayName == "" {
		obj.Spec.DisplayName = obj.Name
	}
}
