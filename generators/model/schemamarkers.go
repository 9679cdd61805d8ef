package model

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/kubeforge/kubeforge/generators/markers"
)

// The type-level CEL shorthands of controller-tools, in the order
// controller-gen applies them (after +kubebuilder:validation:XValidation),
// with the rule and message it writes for fields f ([a b]).
var oneOfMarkers = []struct {
	name string
	rule func(fields []string) string
	msg  string
}{
	{"AtMostOneOf", func(fs []string) string { return oneOfSum(fs) + " <= 1" }, "at most one of the fields in %v may be set"},
	{"ExactlyOneOf", func(fs []string) string { return oneOfSum(fs) + " == 1" }, "exactly one of the fields in %v must be set"},
	{"AtLeastOneOf", oneOfAny, "at least one of the fields in %v must be set"},
}

// oneOfSum is controller-gen's count of the fields set:
// (has(self.a)?1:0)+(has(self.b)?1:0).
func oneOfSum(fields []string) string {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteString("+")
		}
		b.WriteString("(has(self." + f + ")?1:0)")
	}
	return b.String()
}

// oneOfAny is controller-gen's has(self.a)||has(self.b).
func oneOfAny(fields []string) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = "has(self." + f + ")"
	}
	return strings.Join(parts, "||")
}

// typeRules completes the CEL rules of a type from its markers, before the
// fields are finished (a field of a named type takes the type's rules):
// first, as controller-gen writes them, one rule per optional +k8s:immutable
// field of a struct (the field may not be cleared once set; the field's own
// rule, self == oldSelf, does not run when it is absent), then the
// type's +kubebuilder:validation:XValidation rules, then one per
// AtMostOneOf, ExactlyOneOf and AtLeastOneOf marker.
func (l *loader) typeRules(pi *pkgInfo, t *Type) {
	subject := "type " + t.Name
	var rules []XValidation
	if !pi.v.External {
		for _, f := range t.Fields {
			mv := f.Markers["k8s:immutable"]
			if len(mv) == 0 || f.Required || !serialized(f) {
				continue
			}
			rules = append(rules, XValidation{
				Rule:    fmt.Sprintf("!has(oldSelf.%s) || has(self.%s)", f.JSONName, f.JSONName),
				Message: fmt.Sprintf("field %s is immutable once set", f.JSONName),
				Pos:     mv[0].Pos,
			})
		}
	}
	rules = append(rules, t.Validation.XValidations...)
	for _, c := range oneOfMarkers {
		for _, mv := range t.Markers[validationPrefix+c.name] {
			fields, _ := mv.Value.([]string)
			if !l.checkOneOf(t, c.name, fields, mv.Pos, subject) {
				continue
			}
			rules = append(rules, XValidation{Rule: c.rule(fields), Message: fmt.Sprintf(c.msg, fields), Pos: mv.Pos})
		}
	}
	t.Validation.XValidations = rules
}

// serialized reports whether f is a property of its struct's JSON (not
// inline, not json:"-").
func serialized(f *Field) bool {
	return !f.Inline && f.JSONName != "" && f.JSONName != "-"
}

// checkOneOf checks the fields of a oneOf marker as controller-gen does:
// top-level JSON fields of the struct (inline embedded ones included),
// none required. It reports whether the rule can be written.
func (l *loader) checkOneOf(t *Type, name string, fields []string, pos Position, subject string) bool {
	marker := "+" + validationPrefix + name
	if t.Kind != StructKind {
		l.errorf(pos, "%s: %s on a type that is not a struct", subject, marker)
		return false
	}
	ok := true
	seen := map[string]bool{}
	for _, fn := range fields {
		if strings.Contains(fn, ".") {
			l.errorf(pos, "%s: %s cannot reference nested fields: %s", subject, marker, fn)
			ok = false
			continue
		}
		if seen[fn] {
			l.errorf(pos, "%s: %s lists %q twice", subject, marker, fn)
			ok = false
			continue
		}
		seen[fn] = true
		f := findJSON(t.Fields, fn)
		if f == nil {
			var names []string
			collectJSONNames(t.Fields, &names)
			hint := ""
			if s := markers.Closest(fn, names); s != "" {
				hint = fmt.Sprintf(": did you mean %q?", s)
			}
			l.errorf(pos, "%s: %s: %q is not a JSON field of %s%s", subject, marker, fn, t.Name, hint)
			ok = false
			continue
		}
		switch {
		case !f.Required:
		case f.Markers.Has("required") || f.Markers.Has("kubebuilder:validation:Required"):
			l.errorf(pos, "%s: %s: field %s is part of a oneOf constraint and cannot be marked as required", subject, marker, fn)
			ok = false
		default:
			l.errorf(pos, "%s: %s: field %s is part of a oneOf constraint and must have omitempty or omitzero tag (or +optional)", subject, marker, fn)
			ok = false
		}
	}
	return ok
}

// immutableRule adds +k8s:immutable's rule to a field of the user's own
// packages (k8s.io/api's is Kubernetes' declarative validation, read by
// kube-apiserver for its own kinds, not here).
func (l *loader) immutableRule(pi *pkgInfo, f *Field, subject string) {
	mv := f.Markers["k8s:immutable"]
	if len(mv) == 0 || pi.v.External {
		return
	}
	if !serialized(f) {
		l.errorf(mv[0].Pos, "%s: +k8s:immutable on a field that is not a JSON property (inline or json:\"-\"); mark the fields it holds", subject)
		return
	}
	f.Validation.XValidations = append(f.Validation.XValidations, XValidation{Rule: "self == oldSelf", Message: "field is immutable", Pos: mv[0].Pos})
}

// listItemType returns the item type of the list r stands for, through
// pointers and named non-struct types, or nil when r is not a list ([]byte
// is a base64 string).
func listItemType(r *TypeRef) *TypeRef {
	for i := 0; i < maxNamedDepth && r != nil; i++ {
		switch r.Kind {
		case PointerRef:
			r = r.Elem
		case SliceRef, ArrayRef:
			if e := r.Elem; r.Kind == SliceRef && e != nil && e.Kind == BuiltinRef && (e.Name == "byte" || e.Name == "uint8") {
				return nil
			}
			return r.Elem
		case NamedRef:
			shape, named := r.LookThrough()
			if named == nil {
				return nil
			}
			r = shape
		default:
			return nil
		}
	}
	return nil
}

// itemsConstraint says which items of a list an items: marker fits, as
// controller-gen checks it against the items schema ("must apply maxlength
// to a textual value").
var itemsConstraint = map[string]struct {
	shapes []string
	what   string
	numVal func(v *Validation) *float64
}{
	"Minimum":          {[]string{"integer", "number"}, "numbers", func(v *Validation) *float64 { return v.Minimum }},
	"Maximum":          {[]string{"integer", "number"}, "numbers", func(v *Validation) *float64 { return v.Maximum }},
	"ExclusiveMinimum": {[]string{"integer", "number"}, "numbers", nil},
	"ExclusiveMaximum": {[]string{"integer", "number"}, "numbers", nil},
	"MultipleOf":       {[]string{"integer", "number"}, "numbers", func(v *Validation) *float64 { return v.MultipleOf }},
	"MinLength":        {[]string{"string", "int-or-string", "quantity", "duration"}, "strings", nil},
	"MaxLength":        {[]string{"string", "int-or-string", "quantity", "duration"}, "strings", nil},
	"Pattern":          {[]string{"string", "int-or-string", "quantity", "duration"}, "strings", nil},
	"MinItems":         {[]string{"array"}, "lists", nil},
	"MaxItems":         {[]string{"array"}, "lists", nil},
	"UniqueItems":      {[]string{"array"}, "lists", nil},
	"MinProperties":    {[]string{"object"}, "maps or objects", nil},
	"MaxProperties":    {[]string{"object"}, "maps or objects", nil},
}

// checkItems checks the items: markers of a value of type typ: the value
// must be a list and each constraint must fit its items. A marker that
// does not is reported at its position and left out.
func (l *loader) checkItems(v *Validation, ms Markers, typ *TypeRef, subject string) {
	if v.Items == nil {
		return
	}
	var names []string
	for n := range ms {
		if strings.HasPrefix(n, itemsPrefix) {
			names = append(names, n)
		}
	}
	sort.Slice(names, func(i, j int) bool { return posLess(ms[names[i]][0].Pos, ms[names[j]][0].Pos) })
	elem := listItemType(typ)
	if elem == nil {
		if len(names) > 0 {
			l.errorf(ms[names[0]][0].Pos, "%s: +%s on %s, not a list", subject, names[0], describeShape(typ))
		}
		v.Items = nil
		return
	}
	shape := jsonShape(elem)
	items := v.Items
	for _, n := range names {
		c, ok := itemsConstraint[strings.TrimPrefix(n, itemsPrefix)]
		if !ok {
			continue
		}
		pos := ms[n][0].Pos
		if !contains(c.shapes, shape) {
			l.errorf(pos, "%s: +%s applies to %s; each list item is %s", subject, n, c.what, describeShape(elem))
			clearItems(items, strings.TrimPrefix(n, itemsPrefix))
			continue
		}
		if c.numVal != nil && shape == "integer" {
			if x := c.numVal(&items.Validation); x != nil && (*x != math.Trunc(*x) || math.IsInf(*x, 0)) {
				l.errorf(pos, "%s: +%s=%v is not an integer; each list item is an integer", subject, n, *x)
				clearItems(items, strings.TrimPrefix(n, itemsPrefix))
			}
		}
	}
}

func posLess(a, b Position) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Column < b.Column
}

// clearItems drops one items constraint that cannot apply.
func clearItems(items *ItemsValidation, name string) {
	v := &items.Validation
	switch name {
	case "Minimum":
		v.Minimum, v.ExclusiveMinimum = nil, false
	case "Maximum":
		v.Maximum, v.ExclusiveMaximum = nil, false
	case "ExclusiveMinimum":
		v.ExclusiveMinimum = false
	case "ExclusiveMaximum":
		v.ExclusiveMaximum = false
	case "MultipleOf":
		v.MultipleOf = nil
	case "MinLength":
		v.MinLength = nil
	case "MaxLength":
		v.MaxLength = nil
	case "Pattern":
		v.Pattern = ""
	case "MinItems":
		v.MinItems = nil
	case "MaxItems":
		v.MaxItems = nil
	case "UniqueItems":
		v.UniqueItems = false
	case "MinProperties":
		v.MinProperties = nil
	case "MaxProperties":
		v.MaxProperties = nil
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// schemaDoc reads the documentation markers of a field or type (typ is the
// type of the value, for the example): +kubebuilder:title,
// +kubebuilder:example and +kubebuilder:externalDocs.
func (l *loader) schemaDoc(ms Markers, typ *TypeRef, subject string) SchemaDoc {
	var d SchemaDoc
	d.Title, _ = first(ms, "kubebuilder:title").(string)
	if mv := ms["kubebuilder:example"]; len(mv) > 0 {
		raw, _ := mv[0].Value.(string)
		v, err := decodeValue(raw, typ, true)
		if err != nil {
			l.errorf(mv[0].Pos, "%s: invalid example %s: %v", subject, raw, err)
		} else if js, err := json.Marshal(v); err != nil {
			l.errorf(mv[0].Pos, "%s: encode example %s: %v", subject, raw, err)
		} else {
			d.Example = js
		}
	}
	if mv := ms["kubebuilder:externalDocs"]; len(mv) > 0 {
		args, _ := mv[0].Value.(map[string]any)
		u, _ := args["url"].(string)
		desc, _ := args["description"].(string)
		if _, err := url.ParseRequestURI(u); err != nil {
			l.errorf(mv[0].Pos, "%s: +kubebuilder:externalDocs: invalid url %q: %v", subject, u, err)
		} else {
			d.ExternalDocs = &ExternalDocs{URL: u, Description: desc}
		}
	}
	return d
}

// decodeValue decodes the value of a +default-like marker for a value of
// typ: JSON, or a bare string for string-like types; with literals also
// controller-tools' literals ({a,b}, {key: value}, a;b), as
// +kubebuilder:default and +kubebuilder:example take them. The value must
// fit typ.
func decodeValue(raw string, typ *TypeRef, literals bool) (any, error) {
	v, err := decodeDefault(raw, typ)
	if err == nil || !literals {
		return v, err
	}
	lv, lerr := markers.ParseLiteral(raw)
	if lerr != nil {
		return nil, err
	}
	switch lv.(type) {
	case []any, map[string]any:
	default:
		// Scalars read as JSON or bare strings above; the JSON error says more.
		return nil, err
	}
	if cerr := checkJSON(lv, typ); cerr != nil {
		return nil, cerr
	}
	return lv, nil
}

// checkMetadata checks +kubebuilder:metadata (which has no effect here):
// every annotation and label is key=value, as controller-gen requires.
func (l *loader) checkMetadata(ms Markers, subject string) {
	for _, mv := range ms["kubebuilder:metadata"] {
		args, _ := mv.Value.(map[string]any)
		for _, what := range []string{"annotations", "labels"} {
			items, _ := args[what].([]string)
			for _, kv := range items {
				if k, _, ok := strings.Cut(kv, "="); !ok || strings.TrimSpace(k) == "" {
					l.errorf(mv.Pos, "%s: +kubebuilder:metadata: %s item %q is not key=value", subject, what[:len(what)-1], kv)
				}
			}
		}
	}
}

// checkPattern rejects a pattern no check can compile.
func checkPattern(p string) error {
	if p == "" {
		return nil
	}
	if _, err := regexp.Compile(p); err != nil {
		return err
	}
	return nil
}
