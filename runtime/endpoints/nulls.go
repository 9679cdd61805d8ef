package endpoints

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"github.com/kubeforge/kubeforge/runtime/presence"
)

// kube-apiserver prunes a null that a custom resource's schema does not
// allow (no nullable) from an object's members before defaulting, a map's
// included (additionalProperties), and refuses one in a list, which is no
// value of the items' type: `spec.zones[0] in body must be of type
// string: "null"`. Go's decoder instead leaves a zero value in both places
// (an entry "" in the map, an item "" in the list). schemaNulls makes a
// decoded object of your kinds what kube would hold: it deletes the map
// entries a null made and returns a cause per null list item. Members of a
// struct need nothing: a null leaves the field unset, which is absent.

// schemaNulls walks data beside obj (a pointer to the decoded kind) when
// data holds a null; nothing to do costs one bytes.Contains. Only the
// top-level members the write keeps are walked (keep): metadata never,
// which kube decodes as a typed ObjectMeta (a null label value is ""),
// nor a part the write drops (a create's status when the kind has a
// status subresource).
func schemaNulls(obj any, data []byte, keep func(member string) bool) field.ErrorList {
	if !bytes.Contains(data, []byte("null")) || !nullsOutsideMetadata(data) {
		return nil
	}
	var v map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &v); err != nil || v == nil {
		return nil
	}
	rv := reflect.ValueOf(obj)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil
	}
	var errs field.ErrorList
	nullsInStruct(rv, v, nil, &errs, func(member string) bool { return member != "metadata" && keep(member) })
	return errs
}

// nullsOutsideMetadata reports whether data holds a null outside its
// top-level metadata, in one pass that allocates nothing: Go clients send
// "creationTimestamp": null in every new object's metadata, which needs
// no walk. Deeper nesting than the scan tracks counts as a null.
func nullsOutsideMetadata(data []byte) bool {
	var stack [64]byte // '{' or '[' per open container
	depth, metaDepth := 0, 0
	expectKey, keyIsMeta := false, false
	for i := 0; i < len(data); {
		switch c := data[i]; c {
		case '"':
			end := presence.SkipString(data, i)
			if expectKey && depth == 1 {
				keyIsMeta = string(data[i:min(end, len(data))]) == `"metadata"`
			}
			i = end
			continue
		case '{', '[':
			if depth == len(stack) {
				return true
			}
			stack[depth] = c
			depth++
			if depth == 2 && keyIsMeta {
				metaDepth = 2
			}
			expectKey = c == '{'
		case '}', ']':
			if depth > 0 {
				depth--
			}
			if depth < metaDepth {
				metaDepth = 0
			}
			expectKey = false
		case ',':
			expectKey = depth > 0 && stack[depth-1] == '{'
		case ':':
			expectKey = false
		case 'n':
			if metaDepth == 0 {
				return true
			}
		}
		i++
	}
	return false
}

// nullScope is what a write through sub ("" or "status") keeps of a kind
// with or without a status subresource.
func nullScope(hasStatus bool, sub string) func(string) bool {
	return func(member string) bool {
		switch {
		case !hasStatus:
			return true
		case sub == "status":
			return member == "status"
		default:
			return member != "status"
		}
	}
}

// walkNulls prunes and reports the nulls of the JSON value v held by rv.
func walkNulls(rv reflect.Value, v any, path *field.Path, errs *field.ErrorList) {
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return
		}
		rv = rv.Elem()
	}
	if decodesItself(rv.Type()) {
		return
	}
	switch rv.Kind() {
	case reflect.Struct:
		if m, ok := v.(map[string]any); ok {
			nullsInStruct(rv, m, path, errs, nil)
		}
	case reflect.Slice:
		items, ok := v.([]any)
		if !ok || rv.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i, item := range items {
			if item == nil {
				if t := schemaType(rv.Type().Elem()); t != "" {
					p := path.Index(i)
					*errs = append(*errs, field.TypeInvalid(p, "null", fmt.Sprintf("%s in body must be of type %s: %q", p, t, "null")))
				}
				continue
			}
			if i < rv.Len() && hasNull(item) {
				walkNulls(rv.Index(i), item, path.Index(i), errs)
			}
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok || rv.IsNil() || rv.Type().Key().Kind() != reflect.String {
			return
		}
		for k, val := range m {
			key := reflect.ValueOf(k).Convert(rv.Type().Key())
			if val == nil {
				rv.SetMapIndex(key, reflect.Value{}) // pruned, as kube does
				continue
			}
			if elem := rv.MapIndex(key); elem.IsValid() && hasNull(val) {
				// Map values are not addressable: walk a copy, store it.
				cp := reflect.New(elem.Type()).Elem()
				cp.Set(elem)
				walkNulls(cp, val, path.Key(k), errs)
				rv.SetMapIndex(key, cp)
			}
		}
	}
}

// nullsInStruct walks the members of m that rv's fields take, inline and
// embedded structs' included, as walkStruct does for types; those keep
// allows when it is set.
func nullsInStruct(rv reflect.Value, m map[string]any, path *field.Path, errs *field.ErrorList, keep func(string) bool) {
	t := rv.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" || !f.IsExported() && !f.Anonymous {
			continue
		}
		fv := rv.Field(i)
		if name == "" && (f.Anonymous || strings.Contains(","+opts+",", ",inline,")) {
			for fv.Kind() == reflect.Pointer && !fv.IsNil() {
				fv = fv.Elem()
			}
			if fv.Kind() == reflect.Struct {
				nullsInStruct(fv, m, path, errs, keep)
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		if keep != nil && !keep(name) {
			continue
		}
		if v, ok := m[name]; ok && v != nil && hasNull(v) {
			walkNulls(fv, v, path.Child(name), errs)
		}
	}
}

// hasNull reports whether the JSON value v holds a null.
func hasNull(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case []any:
		for _, e := range v {
			if hasNull(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range v {
			if hasNull(e) {
				return true
			}
		}
	}
	return false
}

// decodesItself: types with JSON decoding of their own (times, quantities,
// int-or-strings, raw extensions) hold what their decoder made of a null.
func decodesItself(t reflect.Type) bool {
	return knownType(t) || reflect.PointerTo(t).Implements(unmarshalerType) || t.Implements(unmarshalerType)
}

// knownType: the apimachinery types whose schema controller-gen writes
// by name.
func knownType(t reflect.Type) bool {
	switch t {
	case timeType, microTimeType, durationType, quantityType, intOrStringType, rawExtType, fieldsV1Type:
		return true
	}
	return false
}

// schemaType is the type controller-gen's schema gives a Go type, as
// kube's message names it; "" for types whose schema takes a null or has
// no single type (int-or-string, preserved fields).
func schemaType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if !knownType(t) && (reflect.PointerTo(t).Implements(unmarshalerType) || t.Implements(unmarshalerType)) {
		return "" // its schema is its own
	}
	switch t {
	case timeType, microTimeType, durationType:
		return "string"
	case quantityType, intOrStringType, rawExtType:
		return ""
	case fieldsV1Type:
		return "object"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string"
		}
		return "array"
	}
	return ""
}
