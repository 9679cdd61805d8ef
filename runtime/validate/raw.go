package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// RawObject checks a runtime.RawExtension field of a custom resource as
// kube-apiserver checks it in the CRD controller-gen writes, where it is
// an object: any other JSON is a TypeInvalid (`spec.extra in body must be
// of type object: "integer"`), null or nothing is absent. An embedded
// resource (+kubebuilder:validation:EmbeddedResource) must also name its
// apiVersion and kind.
func RawObject(fldPath *field.Path, raw []byte, embedded bool) field.ErrorList {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	if raw[0] != '{' {
		got := rawType(raw)
		return field.ErrorList{field.TypeInvalid(fldPath, got, fmt.Sprintf("%s in body must be of type object: %q", fldPath.String(), got))}
	}
	if !embedded {
		return nil
	}
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	_ = json.Unmarshal(raw, &tm) // a value of another type is as good as missing
	var errs field.ErrorList
	if tm.APIVersion == "" {
		errs = append(errs, field.Required(fldPath.Child("apiVersion"), ""))
	}
	if tm.Kind == "" {
		errs = append(errs, field.Required(fldPath.Child("kind"), ""))
	}
	return errs
}

// rawType names the JSON type of raw, a value that is not an object, as
// the schema check does (an integral number is an integer).
func rawType(raw []byte) string {
	switch raw[0] {
	case '"':
		return "string"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err == nil && f == math.Trunc(f) {
		return "integer"
	}
	return "number"
}
