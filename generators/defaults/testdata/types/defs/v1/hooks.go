package v1

// Calls records the hook calls, in order, for the tests.
var Calls []string

// SetDefaults_Item runs after the markers of every Item.
func SetDefaults_Item(obj *Item) {
	Calls = append(Calls, "Item:"+obj.Name)
	if obj.Name == "" {
		obj.Name = "unnamed"
	}
}

// SetDefaults_Thing runs after everything inside the Thing.
func SetDefaults_Thing(obj *Thing) {
	Calls = append(Calls, "Thing:"+string(obj.Spec.Mode))
}
