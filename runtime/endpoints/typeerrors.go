package endpoints

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/kubeforge/kubeforge/runtime/storage"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
)

// kube-apiserver decodes a custom resource's body into an unstructured
// object, which takes any JSON, and then checks it against the schema: a
// value of the wrong type is a 422 Invalid with a cause per field
// ("spec.count in body must be of type integer: \"string\""), not the
// decoder's 400. typeErrors finds those fields for a body that Go's
// decoder refused, by walking the JSON beside the kind's Go type.

var (
	timeType            = reflect.TypeFor[metav1.Time]()
	microTimeType       = reflect.TypeFor[metav1.MicroTime]()
	durationType        = reflect.TypeFor[metav1.Duration]()
	quantityType        = reflect.TypeFor[resource.Quantity]()
	intOrStringType     = reflect.TypeFor[intstr.IntOrString]()
	rawExtType          = reflect.TypeFor[runtime.RawExtension]()
	fieldsV1Type        = reflect.TypeFor[metav1.FieldsV1]()
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// quantityPattern is the pattern controller-gen writes for a
// resource.Quantity field, which kube-apiserver names when a string does
// not match it.
const quantityPattern = `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`

// parsesAs reports whether str is a time the type t (metav1.Time or
// MicroTime) decodes.
func parsesAs(t reflect.Type, str string) bool {
	b, _ := json.Marshal(str)
	if t == microTimeType {
		var mt metav1.MicroTime
		return mt.UnmarshalJSON(b) == nil
	}
	var tm metav1.Time
	return tm.UnmarshalJSON(b) == nil
}

// isValueError reports whether err is a decoder's refusal of a value (a
// JSON type its Go field does not take, or a time or quantity it does not
// parse), not a strict decoding error, which kube-apiserver answers with a
// 400 before any schema check.
func isValueError(err error) bool {
	return err != nil && !strings.Contains(err.Error(), "strict decoding error")
}

// typeErrors returns one error per value of data that the Go type t (a
// kind's struct) cannot hold, with kube-apiserver's schema messages; none
// when data is not JSON or every mismatch is inside a type with its own
// decoding that the walk does not know.
func typeErrors(t reflect.Type, data []byte) (field.ErrorList, []error) {
	var v map[string]any // a body that is no object is the decoder's 400
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &v); err != nil || v == nil {
		return nil, nil
	}
	var w typeWalk
	walkTypes(t, v, nil, &w)
	return w.errs, w.unknown
}

// typeWalk is what a walk found: values of the wrong type, and members no
// field takes (what a strict decode calls unknown fields).
type typeWalk struct {
	errs    field.ErrorList
	unknown []error
}

// jsonType names a decoded JSON value's type as the schema check does.
func jsonType(v any) string {
	switch v := v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64:
		return "integer"
	case float64:
		if v == math.Trunc(v) && math.Abs(v) <= maxIntegralFloat {
			return "integer"
		}
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return "null"
}

func walkTypes(t reflect.Type, v any, path *field.Path, w *typeWalk) {
	if v == nil {
		return // null is no value: Go's decoder leaves the field as it is
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	got := jsonType(v)
	want := func(types ...string) {
		for _, w := range types {
			if w == got || w == "number" && got == "integer" {
				return
			}
		}
		w.errs = append(w.errs, field.TypeInvalid(path, got, fmt.Sprintf("%s in body must be of type %s: %q", path, strings.Join(types, ","), got)))
	}
	switch t {
	case timeType, microTimeType:
		want("string")
		if str, ok := v.(string); ok && !parsesAs(t, str) {
			// The schema's format date-time, checked as kube checks it.
			w.errs = append(w.errs, field.TypeInvalid(path, str, fmt.Sprintf("%s in body must be of type date-time: %q", path, str)))
		}
		return
	case durationType:
		want("string")
		if str, ok := v.(string); ok {
			if _, err := time.ParseDuration(str); err != nil {
				// A CRD's schema takes any string here (kube stores what no
				// Go client could read); your Go type cannot hold it.
				w.errs = append(w.errs, field.Invalid(path, str, fmt.Sprintf("%s in body must be a duration such as \"1h30m\": %v", path, err)))
			}
		}
		return
	case quantityType:
		want("integer", "string")
		if str, ok := v.(string); ok {
			if _, err := resource.ParseQuantity(str); err != nil {
				// The pattern controller-gen writes for a quantity.
				w.errs = append(w.errs, field.Invalid(path, str, fmt.Sprintf("%s in body should match '%s'", path, quantityPattern)))
			}
		}
		return
	case intOrStringType:
		want("integer", "string")
		return
	case rawExtType:
		return
	case fieldsV1Type:
		want("object")
		return
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) || t.Implements(unmarshalerType) {
		return // decodes itself: its JSON types are its own
	}
	if _, ok := v.(string); ok && (reflect.PointerTo(t).Implements(textUnmarshalerType) || t.Implements(textUnmarshalerType)) {
		return // a string it decodes itself, as encoding/json lets it
	}
	switch t.Kind() {
	case reflect.Interface:
	case reflect.String:
		want("string")
	case reflect.Bool:
		want("boolean")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		w.integer(t, v, got, path)
	case reflect.Float32, reflect.Float64:
		want("number")
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			want("string") // []byte is base64: the schema's format byte
			if str, ok := v.(string); ok {
				if _, err := base64.StdEncoding.DecodeString(str); err != nil {
					w.errs = append(w.errs, field.TypeInvalid(path, str, fmt.Sprintf("%s in body must be of type byte: %q", path, str)))
				}
			}
			return
		}
		items, ok := v.([]any)
		if !ok {
			want("array")
			return
		}
		for i, item := range items {
			walkTypes(t.Elem(), item, path.Index(i), w)
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			want("object")
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			// The schema check names a map's value spec.m.key; metadata,
			// typed ObjectMeta, keeps metadata.labels[key].
			if path != nil && path.Root().String() == "metadata" {
				walkTypes(t.Elem(), m[k], path.Key(k), w)
			} else {
				walkTypes(t.Elem(), m[k], path.Child(k), w)
			}
		}
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			want("object")
			return
		}
		seen := map[string]bool{}
		walkStruct(t, m, path, w, seen)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if !seen[k] {
				w.unknown = append(w.unknown, fmt.Errorf("unknown field %q", path.Child(k).String()))
			}
		}
	}
}

// walkStruct walks the members of m that t's fields take, inline and
// embedded structs' fields included, as encoding/json matches them
// (case-sensitively, as kube's decoder does), and marks their names seen.
func walkStruct(t reflect.Type, m map[string]any, path *field.Path, w *typeWalk, seen map[string]bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" && opts == "" || !f.IsExported() && !f.Anonymous {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if name == "" && (f.Anonymous || strings.Contains(","+opts+",", ",inline,")) && ft.Kind() == reflect.Struct {
			walkStruct(ft, m, path, w, seen)
			continue
		}
		if name == "" {
			name = f.Name
		}
		seen[name] = true
		if v, ok := m[name]; ok {
			walkTypes(f.Type, v, path.Child(name), w)
		}
	}
}

// fitsInt reports whether the integral JSON number v fits in the integer
// kind of t.
func fitsInt(t reflect.Type, v any) bool {
	var f float64
	switch v := v.(type) {
	case int64:
		if t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64 {
			return v >= 0 && (t.Bits() == 64 || uint64(v) < 1<<t.Bits())
		}
		return t.Bits() == 64 || v >= -(1<<(t.Bits()-1)) && v < 1<<(t.Bits()-1)
	case float64:
		f = v
	default:
		return true
	}
	if t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64 {
		return f >= 0 && (t.Bits() == 64 || f < float64(uint64(1)<<t.Bits()))
	}
	return t.Bits() == 64 || f >= -float64(int64(1)<<(t.Bits()-1)) && f < float64(int64(1)<<(t.Bits()-1))
}

// integer checks a value for a Go integer field as kube-openapi checks it
// against the schema the field publishes (integer, format int32 or
// int64): a value of another JSON type with no format of its own (a
// boolean, an object, a fraction) fails the format (`must be of type
// int32: "float64"`, `... int32: ""`); an array or a string fails the type
// (`must be of type integer: "string"`); a number beyond the format's range
// is the number check's `Checked value must be of type integer with
// format int32 in spec.x`, as is a fraction. An unsigned field also holds
// no negative number.
func (w *typeWalk) integer(t reflect.Type, v any, got string, path *field.Path) {
	format := "int64"
	switch t.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint8, reflect.Uint16:
		format = "int32"
	}
	outOfRange := func() *field.Error {
		return field.Invalid(nil, "", fmt.Sprintf("Checked value must be of type integer with format %s in %s", format, path))
	}
	switch got {
	case "integer":
		if fitsInt(t, v) {
			return
		}
		if f, _ := asFloat(v); format == "int32" && (f < math.MinInt32 || f > math.MaxInt32) {
			w.errs = append(w.errs, outOfRange())
			return
		}
		// Within the published format, beyond the Go type (int16, a
		// negative unsigned): what the schema lets through, the type
		// cannot hold.
		w.errs = append(w.errs, field.Invalid(path, v, fmt.Sprintf("must fit in %s", t.Kind())))
	case "number":
		w.errs = append(w.errs, field.TypeInvalid(path, "float64", fmt.Sprintf("%s in body must be of type %s: %q", path, format, "float64")), outOfRange())
	case "boolean", "object":
		w.errs = append(w.errs, field.TypeInvalid(path, "", fmt.Sprintf("%s in body must be of type %s: %q", path, format, "")))
	default: // string, array
		w.errs = append(w.errs, field.TypeInvalid(path, got, fmt.Sprintf("%s in body must be of type integer: %q", path, got)))
	}
}

// asFloat is a decoded JSON number as a float64.
func asFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// invalidTypes returns the 422 kube-apiserver answers a custom resource's
// body with when its values have the wrong types or formats, or nil when
// the walk finds none to name (decodeErr then stands); and the body's
// unknown fields, which kube's decoder reports (for Strict, as a 400)
// before the schema check.
//
// rules says the kind has CEL rules: a wrong type blocks them (a bad
// Quantity, the schema's pattern, does not), and kube adds
// storage.RulesNotChecked.
func invalidTypes(gk schema.GroupKind, t reflect.Type, data []byte, decodeErr error, rules bool) (unknown []error, invalid error) {
	if !isValueError(decodeErr) {
		return nil, nil
	}
	errs, unknown := typeErrors(t, data)
	if len(errs) == 0 {
		return nil, nil
	}
	var meta struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(data, &meta) // the name is only for the message
	if rules && storage.BlocksRules(errs) {
		errs = append(errs, storage.RulesNotChecked())
	}
	return unknown, apierrors.NewInvalid(gk, meta.Metadata.Name, errs)
}
