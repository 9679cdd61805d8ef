package v1

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate_Shipment is a hand-written validation hook: the generated
// validation calls it after the marker checks.
func Validate_Shipment(obj *Shipment, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if obj.Spec.Insured && obj.Spec.DeclaredValueCents == nil {
		errs = append(errs, field.Required(fldPath.Child("spec", "declaredValueCents"), "must be set when insured is true"))
	}
	return errs
}

// SetDefaults_Address is a hand-written defaulting hook: the generated
// defaulter calls it for every Address after the +default markers.
func SetDefaults_Address(obj *Address) {
	if obj.Country == "GB" && obj.PostalCode != "" {
		// Royal Mail codes are upper case; accept lower case on input.
		obj.PostalCode = upper(obj.PostalCode)
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
