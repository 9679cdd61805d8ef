package model

import (
	"fmt"
	"sort"
	"strings"
)

// MaxSelectableFields is how many +kubebuilder:selectablefield markers a
// kind may carry in one version (kube-apiserver's limit for a CRD version's
// selectableFields).
const MaxSelectableFields = 8

// SelectableField is one +kubebuilder:selectablefield of a kind: a field
// that list and watch can select on with field selectors.
type SelectableField struct {
	// JSONPath as written in the marker (".spec.carrier").
	JSONPath string
	// Label is the field selector label: JSONPath without its leading dot
	// ("spec.carrier").
	Label string
	// Path is the chain of Go fields from the kind to the selected field,
	// outermost first, with the inline embedded fields the JSON path skips
	// (so that generated code can check every pointer on the way).
	Path []*Field
	Pos  Position
}

// Field returns the selected field (the last of Path).
func (s SelectableField) Field() *Field { return s.Path[len(s.Path)-1] }

// selectableFields reads the +kubebuilder:selectablefield markers of kind
// k. The rules are kube-apiserver's for CRD selectableFields: the path
// resolves to a field, not under metadata, not through a list or a map (no
// [index]), of JSON type string, boolean or integer; no duplicates; at most
// MaxSelectableFields. Unlike CRDs, date-time strings (metav1.Time) are not
// accepted.
func (l *loader) selectableFields(k *Kind) {
	t := k.Type
	seen := map[string]bool{}
	for _, mv := range t.Markers["kubebuilder:selectablefield"] {
		m, _ := mv.Value.(map[string]any)
		jp, _ := m["JSONPath"].(string)
		path, msg := resolveSelectable(t, jp)
		if msg != "" {
			l.errorf(mv.Pos, "kind %s: selectablefield JSONPath %s: %s", t.Name, jp, msg)
			continue
		}
		label := strings.TrimPrefix(jp, ".")
		if seen[label] {
			l.errorf(mv.Pos, "kind %s: selectablefield JSONPath %s: duplicate: the kind already selects on %s", t.Name, jp, label)
			continue
		}
		seen[label] = true
		if len(k.SelectableFields) == MaxSelectableFields {
			l.errorf(mv.Pos, "kind %s: selectablefield JSONPath %s: too many selectable fields: at most %d per kind and version", t.Name, jp, MaxSelectableFields)
			continue
		}
		k.SelectableFields = append(k.SelectableFields, SelectableField{JSONPath: jp, Label: label, Path: path, Pos: mv.Pos})
	}
	sort.SliceStable(k.SelectableFields, func(i, j int) bool { return k.SelectableFields[i].Label < k.SelectableFields[j].Label })
}

// resolveSelectable resolves a selectable field's JSONPath against t. It
// returns the Go field chain (inline embedded fields included), or a
// message saying what is wrong.
func resolveSelectable(t *Type, jp string) ([]*Field, string) {
	if !strings.HasPrefix(jp, ".") || len(jp) < 2 {
		return nil, "must start with . and name a field (.spec.carrier)"
	}
	if strings.ContainsAny(jp, "[]") {
		return nil, "array notation is not allowed: a selectable field cannot be inside a list"
	}
	segs := strings.Split(jp[1:], ".")
	switch segs[0] {
	case "metadata":
		return nil, "must not point to fields in metadata (metadata.name and metadata.namespace are always selectable)"
	case "apiVersion", "kind":
		return nil, "must not point to " + segs[0]
	}
	path, end, msg := walkJSONPath(t, jp, false)
	if msg != "" {
		return nil, msg
	}
	if !selectableType(end) {
		return nil, "must point to a field of type string, boolean or integer (a pointer to one, or a named type of one); " + strings.Join(jsonNames(path), ".") + " is " + describeShape(end)
	}
	return path, ""
}

// findJSONChain finds the field with JSON name name among fields, descending
// into inline fields, and returns the inline fields on the way followed by
// the field; nil when there is none.
func findJSONChain(fields []*Field, name string) []*Field {
	for _, f := range fields {
		if f.Inline {
			if got := findJSONChain(structFields(f.Type), name); got != nil {
				return append([]*Field{f}, got...)
			}
			continue
		}
		if f.JSONName == name {
			return []*Field{f}
		}
	}
	return nil
}

func jsonNames(path []*Field) []string {
	var out []string
	for _, f := range path {
		if !f.Inline {
			out = append(out, f.JSONName)
		}
	}
	return out
}

// selectableType reports whether r is a string, boolean or integer in
// JSON: a Go string, bool or integer, a named type of one, or a pointer to
// either. metav1.Time, Duration, Quantity and IntOrString are not.
func selectableType(r *TypeRef) bool {
	r = deref(r)
	if r == nil || (r.Kind == NamedRef && r.External != nil && (r.External.Known != "" || r.External.Struct)) {
		return false
	}
	switch jsonShape(r) {
	case "string", "boolean", "integer":
		return r.Kind != SliceRef && r.Kind != ArrayRef // []byte is a base64 string
	}
	return false
}

// scalarType reports whether r is a string, boolean, integer or number
// in JSON (a Go scalar, a named type of one, or a pointer to either): what
// a list map key must be, as kube-apiserver requires of
// x-kubernetes-list-map-keys.
func scalarType(r *TypeRef) bool {
	if selectableType(r) {
		return true
	}
	d := deref(r)
	return d != nil && d.Kind != SliceRef && d.Kind != ArrayRef && jsonShape(r) == "number" &&
		(d.Kind != NamedRef || d.External == nil)
}

// describeShape names what a field is in an error message.
func describeShape(r *TypeRef) string {
	d := deref(r)
	if d != nil && d.Kind == NamedRef && d.External != nil && d.External.Known != "" {
		return "a " + d.External.Known
	}
	switch s := jsonShape(r); s {
	case "array":
		return "a list"
	case "object":
		if d != nil && d.Kind == MapRef {
			return "a map"
		}
		return "an object"
	case "integer":
		return "an integer"
	case "any", "int-or-string":
		return "an " + s + " value"
	default:
		return "a " + s
	}
}

// CheckGoPath follows a dotted Go field path ("Status.Phase",
// "InvolvedObject.Name") through fields, pointers and named structs (of
// this model or external ones). Generators that read fields of built-in
// kinds by name check their paths with it, so that a k8s.io/api change
// fails generation naming the field rather than the build of its output.
func CheckGoPath(fields []*Field, path string) error {
	segs := strings.Split(path, ".")
	for i, name := range segs {
		var f *Field
		for _, c := range fields {
			if c.Name == name {
				f = c
				break
			}
		}
		if f == nil {
			return fmt.Errorf("no field %s", strings.Join(segs[:i+1], "."))
		}
		if i == len(segs)-1 {
			return nil
		}
		t := deref(f.Type)
		switch {
		case t != nil && t.Local != nil:
			fields = t.Local.Fields
		case t != nil && t.External != nil && t.External.Fields != nil:
			fields = t.External.Fields
		default:
			return fmt.Errorf("field %s is not a struct with known fields", strings.Join(segs[:i+1], "."))
		}
	}
	return nil
}
