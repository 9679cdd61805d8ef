package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/constant"
	"go/types"
	"regexp"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeforge/kubeforge/generators/markers"
	"github.com/kubeforge/kubeforge/runtime/validate"
)

// Marker name prefixes of the validation markers and of their items: form.
const (
	validationPrefix = "kubebuilder:validation:"
	itemsPrefix      = validationPrefix + "items:"
)

// validationFrom reads every validation marker of ms: the value's own
// (+kubebuilder:validation:X) and its items' (+kubebuilder:validation:items:X).
func validationFrom(ms Markers) Validation {
	v := validationWith(ms, validationPrefix)
	items := ItemsValidation{
		Validation:            validationWith(ms, itemsPrefix),
		EmbeddedResource:      ms.Has(itemsPrefix + "XEmbeddedResource"),
		PreserveUnknownFields: ms.Has(itemsPrefix + "XPreserveUnknownFields"),
	}
	if !items.IsZero() || items.EmbeddedResource || items.PreserveUnknownFields {
		v.Items = &items
	}
	return v
}

// validationWith reads the validation markers named prefix+X.
func validationWith(ms Markers, prefix string) Validation {
	var v Validation
	f64 := func(name string) *float64 {
		if x, ok := first(ms, prefix+name).(float64); ok {
			return &x
		}
		return nil
	}
	i64 := func(name string) *int64 {
		if x, ok := first(ms, prefix+name).(int64); ok {
			return &x
		}
		return nil
	}
	b := func(name string) bool {
		x, _ := first(ms, prefix+name).(bool)
		return x
	}
	s := func(name string) string {
		x, _ := first(ms, prefix+name).(string)
		return x
	}
	v.Minimum, v.Maximum, v.MultipleOf = f64("Minimum"), f64("Maximum"), f64("MultipleOf")
	v.ExclusiveMinimum, v.ExclusiveMaximum, v.UniqueItems = b("ExclusiveMinimum"), b("ExclusiveMaximum"), b("UniqueItems")
	v.MinLength, v.MaxLength = i64("MinLength"), i64("MaxLength")
	v.MinItems, v.MaxItems = i64("MinItems"), i64("MaxItems")
	v.MinProperties, v.MaxProperties = i64("MinProperties"), i64("MaxProperties")
	v.Pattern, v.Format = s("Pattern"), s("Format")
	if e, ok := first(ms, prefix+"Enum").([]any); ok {
		v.Enum = e
	}
	for _, mv := range ms[prefix+"XValidation"] {
		if m, ok := mv.Value.(map[string]any); ok {
			x := XValidation{}
			x.Rule, _ = m["rule"].(string)
			x.Message, _ = m["message"].(string)
			x.MessageExpression, _ = m["messageExpression"].(string)
			x.Reason, _ = m["reason"].(string)
			x.FieldPath, _ = m["fieldPath"].(string)
			x.OptionalOldSelf, _ = m["optionalOldSelf"].(bool)
			x.Pos = mv.Pos
			v.XValidations = append(v.XValidations, x)
		}
	}
	return v
}

// MergeValidation returns field validation f with unset attributes taken
// from the named type's validation t (field markers win; an exclusive
// bound flag on either side applies to the bound the field ends up with,
// as controller-gen flattens a named type's schema into the field's).
// The model merges a field with its named type once; the validation
// generator merges the same way through further named types.
func MergeValidation(f, t Validation) Validation {
	if f.Minimum == nil {
		f.Minimum, f.ExclusiveMinimum = t.Minimum, f.ExclusiveMinimum || t.ExclusiveMinimum
	}
	if f.Maximum == nil {
		f.Maximum, f.ExclusiveMaximum = t.Maximum, f.ExclusiveMaximum || t.ExclusiveMaximum
	}
	if f.MultipleOf == nil {
		f.MultipleOf = t.MultipleOf
	}
	if f.MinLength == nil {
		f.MinLength = t.MinLength
	}
	if f.MaxLength == nil {
		f.MaxLength = t.MaxLength
	}
	if f.Pattern == "" {
		f.Pattern = t.Pattern
	}
	if len(f.Enum) == 0 {
		f.Enum = t.Enum
	}
	if f.MinItems == nil {
		f.MinItems = t.MinItems
	}
	if f.MaxItems == nil {
		f.MaxItems = t.MaxItems
	}
	f.UniqueItems = f.UniqueItems || t.UniqueItems
	if f.MinProperties == nil {
		f.MinProperties = t.MinProperties
	}
	if f.MaxProperties == nil {
		f.MaxProperties = t.MaxProperties
	}
	if f.Format == "" {
		f.Format = t.Format
	}
	f.XValidations = append(append([]XValidation(nil), t.XValidations...), f.XValidations...)
	switch {
	case f.Items == nil:
		f.Items = t.Items
	case t.Items != nil:
		items := *f.Items
		items.Validation = MergeValidation(f.Items.Validation, t.Items.Validation)
		items.EmbeddedResource = items.EmbeddedResource || t.Items.EmbeddedResource
		items.PreserveUnknownFields = items.PreserveUnknownFields || t.Items.PreserveUnknownFields
		f.Items = &items
	}
	return f
}

// namedLocal returns the local type behind r (through pointers), or nil.
func namedLocal(r *TypeRef) *Type {
	for r != nil && r.Kind == PointerRef {
		r = r.Elem
	}
	if r != nil && r.Kind == NamedRef {
		return r.Local
	}
	return nil
}

func deref(r *TypeRef) *TypeRef {
	for r != nil && r.Kind == PointerRef {
		r = r.Elem
	}
	return r
}

// k8sRequiredBounds adds what controller-gen adds for +k8s:required where
// no marker set it: a string must not be empty, a list, map or struct must
// have an item or property.
func k8sRequiredBounds(f *Field) {
	one := func() *int64 { v := int64(1); return &v }
	r := f.Type
	for r != nil && r.Kind == PointerRef {
		r = r.Elem
	}
	shape, _ := r.LookThrough()
	if shape == nil {
		return
	}
	switch shape.Kind {
	case BuiltinRef:
		if shape.Name == "string" && f.Validation.MinLength == nil {
			f.Validation.MinLength = one()
		}
	case SliceRef, ArrayRef:
		if shape.Elem != nil && shape.Elem.Kind == BuiltinRef && shape.Elem.Name == "byte" {
			return // a base64 string
		}
		if f.Validation.MinItems == nil {
			f.Validation.MinItems = one()
		}
	case MapRef:
		if f.Validation.MinProperties == nil {
			f.Validation.MinProperties = one()
		}
	case NamedRef:
		if structFields(shape) != nil && f.Validation.MinProperties == nil {
			f.Validation.MinProperties = one()
		}
	}
}

// finishField fills what needs every type to be filled: validation merged
// from the named type, defaults, list semantics.
func (l *loader) finishField(pi *pkgInfo, f *Field) {
	subject := "field " + f.Parent.Name + "." + f.Name
	f.Validation = validationFrom(f.Markers)
	l.checkValidation(&f.Validation, f.Markers, subject)
	l.checkItems(&f.Validation, f.Markers, f.Type, subject)
	l.immutableRule(pi, f, subject)
	f.SchemaDoc = l.schemaDoc(f.Markers, f.Type, subject)
	if lt := namedLocal(f.Type); lt != nil {
		f.Validation = MergeValidation(f.Validation, lt.Validation)
	}
	if f.Markers.Has("k8s:required") {
		k8sRequiredBounds(f)
	}
	f.EmbeddedResource = f.Markers.Has("kubebuilder:validation:EmbeddedResource")
	f.PreserveUnknownFields = f.Markers.Has("kubebuilder:pruning:PreserveUnknownFields")
	f.MapType, _ = first(f.Markers, "mapType").(string)
	f.StructType, _ = first(f.Markers, "structType").(string)

	// Defaults.
	f.Default = l.defaultOf(f.Markers, f.Type, f.Validation, subject)

	// Lists.
	lt := namedLocal(f.Type)
	f.ListType, _ = first(f.Markers, "listType").(string)
	keys := f.Markers["listMapKey"]
	if f.ListType == "" && lt != nil {
		f.ListType, _ = first(lt.Markers, "listType").(string)
		if len(keys) == 0 {
			keys = lt.Markers["listMapKey"]
		}
	}
	for _, k := range keys {
		s, _ := k.Value.(string)
		f.ListMapKeys = append(f.ListMapKeys, s)
	}
	listPos := f.Pos
	if mv := f.Markers["listType"]; len(mv) > 0 {
		listPos = mv[0].Pos
	}
	if f.ListType != "" {
		elem := sliceElem(f.Type)
		if elem == nil {
			l.errorf(listPos, "%s: +listType=%s on a field that is not a list", subject, f.ListType)
			return
		}
		st := structFields(elem)
		switch f.ListType {
		case "set":
			if st != nil {
				l.errorf(listPos, "%s: +listType=set needs scalar items; use +listType=map with +listMapKey for a list of structs", subject)
			}
		case "map":
			if st == nil {
				l.errorf(listPos, "%s: +listType=map needs struct items", subject)
				return
			}
			if len(f.ListMapKeys) == 0 {
				l.errorf(listPos, "%s: +listType=map needs at least one +listMapKey=<json name of an item field>", subject)
			}
			for i, key := range f.ListMapKeys {
				pos := listPos
				if i < len(keys) {
					pos = keys[i].Pos
				}
				kf := findJSON(st, key)
				if kf == nil {
					var names []string
					collectJSONNames(st, &names)
					hint := ""
					if s := markers.Closest(key, names); s != "" {
						hint = fmt.Sprintf(": did you mean %q?", s)
					}
					l.errorf(pos, "%s: +listMapKey=%s is not a JSON field of the list items%s", subject, key, hint)
					continue
				}
				if !kf.Required && kf.Default == nil && !hasDefaultMarker(kf) {
					l.errorf(pos, "%s: +listMapKey=%s names an optional field without a default; map keys must be required or defaulted", subject, key)
				}
				if !scalarType(kf.Type) {
					l.errorf(pos, "%s: +listMapKey=%s must name a string, integer or boolean field, not %s", subject, key, describeShape(kf.Type))
				}
			}
		}
	}
	if len(keys) > 0 && f.ListType != "map" {
		l.errorf(keys[0].Pos, "%s: +listMapKey needs +listType=map (got %q)", subject, f.ListType)
	}
	l.patchStrategy(pi, f, subject)
}

// patchStrategy fills the field's strategic merge patch semantics
// (Field.PatchStrategy). Packages the user does not own keep exactly what
// their struct tags say, as kube-apiserver reads them.
func (l *loader) patchStrategy(pi *pkgInfo, f *Field, subject string) {
	if f.PatchStrategy == "" {
		f.PatchStrategy, _ = first(f.Markers, "patchStrategy").(string)
	}
	if f.PatchMergeKey == "" {
		f.PatchMergeKey, _ = first(f.Markers, "patchMergeKey").(string)
	}
	if pi.v.External {
		return
	}
	explicit := f.PatchStrategy != "" || f.PatchMergeKey != ""
	if f.PatchStrategy == "" {
		switch f.ListType {
		case "map":
			f.PatchStrategy = "merge"
			if f.PatchMergeKey == "" && len(f.ListMapKeys) > 0 {
				f.PatchMergeKey = f.ListMapKeys[0]
			}
		case "set":
			f.PatchStrategy = "merge"
		}
	}
	pos, keyPos := f.Pos, f.Pos
	if mv := f.Markers["patchStrategy"]; len(mv) > 0 {
		pos, keyPos = mv[0].Pos, mv[0].Pos
	}
	if mv := f.Markers["patchMergeKey"]; len(mv) > 0 {
		keyPos = mv[0].Pos
	}
	if !explicit {
		return // derived from the list type, which is checked above
	}
	elem := sliceElem(f.Type)
	merges := strings.Contains(f.PatchStrategy, "merge")
	switch {
	case f.PatchMergeKey != "" && (elem == nil || structFields(elem) == nil):
		l.errorf(keyPos, "%s: +patchMergeKey needs a list of structs", subject)
	case f.PatchMergeKey != "":
		if findJSON(structFields(elem), f.PatchMergeKey) == nil {
			var names []string
			collectJSONNames(structFields(elem), &names)
			hint := ""
			if s := markers.Closest(f.PatchMergeKey, names); s != "" {
				hint = fmt.Sprintf(": did you mean %q?", s)
			}
			l.errorf(keyPos, "%s: +patchMergeKey=%s is not a JSON field of the list items%s", subject, f.PatchMergeKey, hint)
		}
		if !merges {
			l.errorf(keyPos, "%s: +patchMergeKey needs +patchStrategy=merge", subject)
		}
	case merges && elem != nil && structFields(elem) != nil:
		l.errorf(pos, "%s: +patchStrategy=merge on a list of structs needs +patchMergeKey (or +listType=map with +listMapKey)", subject)
	}
}

func hasDefaultMarker(f *Field) bool {
	return f.Markers.Has("default") || f.Markers.Has("kubebuilder:default")
}

func sliceElem(r *TypeRef) *TypeRef {
	r = deref(r)
	if r == nil {
		return nil
	}
	switch {
	case r.Kind == SliceRef:
		return r.Elem
	case r.Kind == NamedRef && r.Local != nil && r.Local.Kind == SliceKind:
		return r.Local.Underlying.Elem
	}
	return nil
}

// structFields returns the fields of the struct behind r (through pointers),
// or nil when r is not a struct with known fields.
func structFields(r *TypeRef) []*Field {
	r = deref(r)
	if r == nil || r.Kind != NamedRef {
		return nil
	}
	if r.Local != nil && r.Local.Kind == StructKind {
		if r.Local.Fields == nil {
			return []*Field{}
		}
		return r.Local.Fields
	}
	if r.External != nil && r.External.Fields != nil {
		return r.External.Fields
	}
	return nil
}

// findJSON finds the field with JSON name name among fields, descending into
// inline fields.
func findJSON(fields []*Field, name string) *Field {
	for _, f := range fields {
		if f.Inline {
			if got := findJSON(structFields(f.Type), name); got != nil {
				return got
			}
			continue
		}
		if f.JSONName == name {
			return f
		}
	}
	return nil
}

func collectJSONNames(fields []*Field, out *[]string) {
	for _, f := range fields {
		if f.Inline {
			collectJSONNames(structFields(f.Type), out)
		} else if f.JSONName != "" && f.JSONName != "-" {
			*out = append(*out, f.JSONName)
		}
	}
}

// jsonShape says what JSON a value of r takes: string, integer, number,
// boolean, array, object, int-or-string, quantity, duration, any.
func jsonShape(r *TypeRef) string {
	r = deref(r)
	if r == nil {
		return "any"
	}
	switch r.Kind {
	case BuiltinRef:
		switch {
		case r.Name == "string":
			return "string"
		case r.Name == "bool":
			return "boolean"
		case strings.HasPrefix(r.Name, "int") || strings.HasPrefix(r.Name, "uint") || r.Name == "byte" || r.Name == "rune":
			return "integer"
		case strings.HasPrefix(r.Name, "float"):
			return "number"
		}
		return "any"
	case SliceRef, ArrayRef:
		if e := deref(r.Elem); e != nil && e.Kind == BuiltinRef && (e.Name == "byte" || e.Name == "uint8") {
			return "string" // base64
		}
		return "array"
	case MapRef:
		return "object"
	case InterfaceRef:
		return "any"
	case NamedRef:
		if r.Local != nil {
			switch r.Local.Kind {
			case StructKind:
				return "object"
			default:
				return jsonShape(r.Local.Underlying)
			}
		}
		if e := r.External; e != nil {
			switch e.Known {
			case "Time", "MicroTime":
				return "string"
			case "Duration":
				return "duration"
			case "Quantity":
				return "quantity"
			case "IntOrString":
				return "int-or-string"
			case "RawExtension", "JSON":
				return "any"
			}
			if e.Struct {
				return "object"
			}
			return jsonShape(e.Underlying)
		}
	}
	return "any"
}

// defaultOf reads +default / +kubebuilder:default, checks the value against
// the type and converts it to a Literal: the one place a default is checked.
func (l *loader) defaultOf(ms Markers, typ *TypeRef, val Validation, subject string) *Default {
	a, b := ms["default"], ms["kubebuilder:default"]
	mvs := append(append([]MarkerValue(nil), a...), b...)
	if len(mvs) == 0 {
		return nil
	}
	mv := mvs[0]
	raw, _ := mv.Value.(string)
	if len(a) > 0 && len(b) > 0 {
		// k8s.io/api writes both with one value (LocalObjectReference.Name):
		// fine; two different values are not.
		other, _ := b[0].Value.(string)
		if l.resolveRef(mv.Pos, raw) != l.resolveRef(b[0].Pos, other) {
			l.errorf(b[0].Pos, "%s: both +default and +kubebuilder:default, with different values", subject)
			return nil
		}
	}
	raw = l.resolveRef(mv.Pos, raw)
	// +kubebuilder:default also takes controller-tools' literals ({80,443}).
	v, err := decodeValue(raw, typ, len(a) == 0)
	if err != nil {
		l.errorf(mv.Pos, "%s: invalid default %s: %v", subject, raw, err)
		return nil
	}
	canon, err := json.Marshal(v)
	if err != nil {
		l.errorf(mv.Pos, "%s: encode default %s: %v", subject, raw, err)
		return nil
	}
	if len(val.Enum) > 0 {
		ok := false
		for _, e := range val.Enum {
			if enc, err := json.Marshal(e); err == nil && bytes.Equal(enc, canon) {
				ok = true
			}
		}
		if !ok {
			l.errorf(mv.Pos, "%s: default %s is not one of the enum values", subject, canon)
			return nil
		}
	}
	lit, err := defaultLiteral(typ, v)
	if err != nil {
		l.errorf(mv.Pos, "%s: invalid default %s: %v", subject, raw, err)
		return nil
	}
	return &Default{JSON: canon, Value: v, Literal: lit, Pos: mv.Pos}
}

func decodeJSON(raw string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

// decodeDefault decodes raw for a value of typ: JSON, or a bare string for
// string-like types.
func decodeDefault(raw string, typ *TypeRef) (any, error) {
	shape := jsonShape(typ)
	v, jerr := decodeJSON(raw)
	switch shape {
	case "string", "int-or-string", "quantity", "duration":
		if jerr != nil {
			v = raw // a bare string
		} else if _, isNum := v.(json.Number); !isNum || shape == "string" || shape == "duration" {
			if _, isStr := v.(string); !isStr {
				v = raw
			}
		}
	default:
		if jerr != nil {
			return nil, fmt.Errorf("not JSON: %w", jerr)
		}
	}
	if err := checkJSON(v, typ); err != nil {
		return nil, err
	}
	return v, nil
}

// checkJSON checks a decoded JSON value against typ.
func checkJSON(v any, typ *TypeRef) error {
	shape := jsonShape(typ)
	if v == nil {
		if deref(typ) != typ || shape == "any" {
			return nil
		}
		return fmt.Errorf("null for a non-pointer field")
	}
	want := func(what string) error { return fmt.Errorf("want %s, got %s", what, describe(v)) }
	switch shape {
	case "any":
		return nil
	case "string":
		if _, ok := v.(string); !ok {
			return want("a string")
		}
	case "duration":
		s, ok := v.(string)
		if !ok {
			return want("a duration string such as \"1h0m0s\"")
		}
		if _, err := time.ParseDuration(s); err != nil {
			return fmt.Errorf("bad duration %q: %w", s, err)
		}
	case "quantity":
		switch x := v.(type) {
		case string:
			if _, err := resource.ParseQuantity(x); err != nil {
				return fmt.Errorf("bad quantity %q: %w", x, err)
			}
		case json.Number:
		default:
			return want("a quantity such as \"1Gi\"")
		}
	case "int-or-string":
		switch x := v.(type) {
		case string:
		case json.Number:
			if _, err := strconv.ParseInt(string(x), 10, 32); err != nil {
				return want("an integer or a string")
			}
		default:
			return want("an integer or a string")
		}
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return want("an integer")
		}
		if _, err := strconv.ParseInt(string(n), 10, 64); err != nil {
			if _, err := strconv.ParseUint(string(n), 10, 64); err != nil {
				return want("an integer")
			}
		}
	case "number":
		if _, ok := v.(json.Number); !ok {
			return want("a number")
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return want("true or false")
		}
	case "array":
		arr, ok := v.([]any)
		if !ok {
			return want("a JSON array")
		}
		elem := deref(typ)
		if elem.Kind == NamedRef && elem.Local != nil {
			elem = elem.Local.Underlying
		} else if elem.Kind == NamedRef && elem.External != nil {
			elem = elem.External.Underlying
		}
		for i, x := range arr {
			if err := checkJSON(x, elem.Elem); err != nil {
				return fmt.Errorf("item %d: %w", i, err)
			}
		}
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return want("a JSON object")
		}
		if fields := structFields(typ); fields != nil {
			for k, x := range obj {
				f := findJSON(fields, k)
				if f == nil {
					return fmt.Errorf("unknown field %q", k)
				}
				if err := checkJSON(x, f.Type); err != nil {
					return fmt.Errorf("field %q: %w", k, err)
				}
			}
			return nil
		}
		m := deref(typ)
		if m.Kind == NamedRef && m.Local != nil {
			m = m.Local.Underlying
		}
		if m != nil && m.Kind == MapRef {
			for k, x := range obj {
				if err := checkJSON(x, m.Elem); err != nil {
					return fmt.Errorf("key %q: %w", k, err)
				}
			}
		}
	}
	return nil
}

func describe(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("string %q", x)
	case json.Number:
		return "number " + string(x)
	case bool:
		return fmt.Sprintf("boolean %v", x)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "null"
}

var refDefaultRE = regexp.MustCompile(`^ref\(([A-Za-z_][A-Za-z0-9_]*)\)$`)

// resolveRef turns defaulter-gen's +default=ref(Name) into the JSON value
// of the constant Name of the package the marker stands in
// (k8s.io/api/core/v1 writes +default=ref(AzureDataDiskCachingReadWrite)).
// controller-gen leaves such defaults out; the constant's value is what
// defaulter-gen applies. Anything else is returned as it is.
func (l *loader) resolveRef(pos Position, raw string) string {
	m := refDefaultRE.FindStringSubmatch(strings.TrimSpace(raw))
	if m == nil {
		return raw
	}
	pkg := l.packageAt(pos)
	if pkg == nil {
		return raw
	}
	c, ok := pkg.Scope().Lookup(m[1]).(*types.Const)
	if !ok {
		return raw
	}
	var v any
	switch c.Val().Kind() {
	case constant.String:
		v = constant.StringVal(c.Val())
	case constant.Bool:
		v = constant.BoolVal(c.Val())
	case constant.Int, constant.Float:
		v = json.Number(c.Val().ExactString())
	default:
		return raw
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return string(out)
}

// checkValidation rejects validation values no generated check can
// enforce: an unknown format, a multipleOf that is not positive and a
// pattern that does not compile, of the value and of its items. In
// packages the user does not own they are left out instead (errorf).
func (l *loader) checkValidation(v *Validation, ms Markers, subject string) {
	l.checkValidationWith(v, ms, validationPrefix, subject)
	if v.Items != nil {
		l.checkValidationWith(&v.Items.Validation, ms, itemsPrefix, subject)
	}
}

func (l *loader) checkValidationWith(v *Validation, ms Markers, prefix, subject string) {
	pos := func(name string) Position {
		if mv := ms[prefix+name]; len(mv) > 0 {
			return mv[0].Pos
		}
		return Position{}
	}
	what := ""
	if prefix == itemsPrefix {
		what = "items "
	}
	if v.Format != "" && !validate.KnownFormat(v.Format) {
		l.errorf(pos("Format"), "%s: %sformat %q is unknown (known: email, uri, url, uuid, date-time, date, hostname, ipv4, ipv6, cidr, byte, duration, ...)", subject, what, v.Format)
		v.Format = ""
	}
	if v.MultipleOf != nil && *v.MultipleOf <= 0 {
		l.errorf(pos("MultipleOf"), "%s: %smultipleOf %v must be greater than 0", subject, what, *v.MultipleOf)
		v.MultipleOf = nil
	}
	if err := checkPattern(v.Pattern); err != nil {
		l.errorf(pos("Pattern"), "%s: %spattern %q does not compile: %v", subject, what, v.Pattern, err)
		v.Pattern = ""
	}
}
