package v1

import "k8s.io/apimachinery/pkg/util/validation/field"

// Validate_Widget is called with the root path (nil) after the marker checks.
func Validate_Widget(obj *Widget, fldPath *field.Path) field.ErrorList {
	if obj.Spec.Owner == "nobody" {
		return field.ErrorList{field.Forbidden(fldPath.Child("spec", "owner"), "nobody may not own a widget")}
	}
	return nil
}

// Validate_Part is called for every Part, at its own path.
func Validate_Part(obj *Part, fldPath *field.Path) field.ErrorList {
	if obj.Name == "forbidden" {
		return field.ErrorList{field.Forbidden(fldPath.Child("name"), "reserved")}
	}
	return nil
}
