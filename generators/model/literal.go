package model

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// LiteralKind says which Go value a Literal is.
type LiteralKind int

// The kinds of Literal, each with the Literal fields it sets.
const (
	StringLit          LiteralKind = iota + 1 // Text
	BoolLit                                   // Bool
	IntLit                                    // Int
	UintLit                                   // Uint
	FloatLit                                  // Float, exact at the width of Type
	BytesLit                                  // Text: the decoded bytes of a []byte
	DurationLit                               // Duration: a metav1.Duration
	QuantityLit                               // Text: a resource.Quantity, already parsed
	IntOrStringTextLit                        // Text: intstr.FromString
	IntOrStringIntLit                         // Int (fits int32): intstr.FromInt32
	TimeLit                                   // Time (UTC): a metav1.Time or MicroTime
	RawLit                                    // Text: the JSON of a runtime.RawExtension
	PointerLit                                // Elem
	ListLit                                   // Items: a slice or array
	MapLit                                    // Keys and Items, sorted by key
	StructLit                                 // Fields
)

// Literal is a default value converted once, by the model, to the Go type
// it defaults: generators write it without checking the user's input again.
type Literal struct {
	Kind LiteralKind
	// Type is the Go type of the value: the defaulted field's type, a
	// pointer's target, a list item's or map value's type.
	Type     *TypeRef
	Text     string
	Bool     bool
	Int      int64
	Uint     uint64
	Float    float64
	Duration time.Duration
	Time     time.Time
	Elem     *Literal
	Keys     []*Literal
	Items    []*Literal
	Fields   []LiteralField
}

// LiteralField is one field set by a StructLit; an inline embedded struct
// is a field of its own whose Value is a StructLit.
type LiteralField struct {
	Name  string // Go name
	Value *Literal
}

// maxLiteralDepth bounds the nesting of a default value.
const maxLiteralDepth = 32

// knownOf returns the External.Known name of r ("" when r is not one).
func knownOf(r *TypeRef) string {
	if r != nil && r.Kind == NamedRef && r.External != nil {
		return r.External.Known
	}
	return ""
}

// literalStructFields returns the fields of r when a default for r is a
// composite literal: a local struct, or an external struct that is not one
// of the known apimachinery types.
func literalStructFields(r *TypeRef) ([]*Field, bool) {
	if r == nil || r.Kind != NamedRef {
		return nil, false
	}
	if r.Local != nil && r.Local.Kind == StructKind {
		return r.Local.Fields, true
	}
	if r.External != nil && r.External.Known == "" && r.External.Fields != nil {
		return r.External.Fields, true
	}
	return nil, false
}

// describeType names r in an error.
func describeType(r *TypeRef) string {
	if r == nil {
		return "nothing"
	}
	switch r.Kind {
	case PointerRef:
		return "*" + describeType(r.Elem)
	case SliceRef:
		return "[]" + describeType(r.Elem)
	case ArrayRef:
		return fmt.Sprintf("[%d]%s", r.Len, describeType(r.Elem))
	case MapRef:
		return "map[" + describeType(r.Key) + "]" + describeType(r.Elem)
	case InterfaceRef:
		return "interface{}"
	}
	return r.Name
}

// defaultLiteral converts a default value v (decoded with UseNumber) for a
// field of type r. The generated code applies it when the field is zero:
// no arrays; a struct whose zero cannot be compared with == (Gateway API's
// status, with its lists) is tested field by field (see Comparable).
func defaultLiteral(r *TypeRef, v any) (*Literal, error) {
	shape, _ := r.LookThrough()
	if shape != nil && shape.Kind == ArrayRef {
		return nil, fmt.Errorf("defaults on %s are not supported", describeType(r))
	}
	return toLiteral(r, v, 0)
}

// Comparable reports whether == compares values of r, so that a default's
// zero test can be `x == T{}`.
func Comparable(r *TypeRef) bool { return comparableType(r, 0) }

// comparableType reports whether == compares values of r.
func comparableType(r *TypeRef, depth int) bool {
	if r == nil || depth > maxLiteralDepth {
		return false
	}
	switch r.Kind {
	case BuiltinRef, PointerRef:
		return true
	case ArrayRef:
		return comparableType(r.Elem, depth+1)
	case NamedRef:
		switch knownOf(r) {
		case "Duration", "Quantity", "IntOrString", "Time", "MicroTime":
			return true
		}
		if fields, ok := literalStructFields(r); ok {
			for _, f := range fields {
				if !comparableType(f.Type, depth+1) {
					return false
				}
			}
			return true
		}
		if u, _ := r.LookThrough(); u != r {
			return comparableType(u, depth+1)
		}
	}
	return false
}

// toLiteral converts the JSON value v to a Literal of type r.
func toLiteral(r *TypeRef, v any, depth int) (*Literal, error) {
	if depth > maxLiteralDepth {
		return nil, fmt.Errorf("value nested deeper than %d", maxLiteralDepth)
	}
	if v == nil {
		return nil, fmt.Errorf("null is not a default for %s", describeType(r))
	}
	if lit, err, ok := knownLiteral(r, v); ok {
		return lit, err
	}
	if fields, ok := literalStructFields(r); ok {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("an object default for %s must be a JSON object, not %v", r.Name, v)
		}
		return structLiteral(r, fields, obj, depth)
	}
	u, _ := r.LookThrough()
	switch u.Kind {
	case PointerRef:
		elem, err := toLiteral(u.Elem, v, depth+1)
		if err != nil {
			return nil, err
		}
		return &Literal{Kind: PointerLit, Type: r, Elem: elem}, nil
	case SliceRef, ArrayRef:
		if u.Kind == SliceRef && u.Elem.Kind == BuiltinRef && (u.Elem.Name == "byte" || u.Elem.Name == "uint8") {
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("a []byte default must be a base64 string, not %v", v)
			}
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return nil, fmt.Errorf("decode base64: %w", err)
			}
			return &Literal{Kind: BytesLit, Type: r, Text: string(b)}, nil
		}
		arr, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("a list default must be a JSON array, not %v", v)
		}
		if u.Kind == ArrayRef && int64(len(arr)) > u.Len {
			return nil, fmt.Errorf("%d items do not fit %s", len(arr), describeType(u))
		}
		lit := &Literal{Kind: ListLit, Type: r}
		for i, item := range arr {
			il, err := toLiteral(u.Elem, item, depth+1)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", i, err)
			}
			lit.Items = append(lit.Items, il)
		}
		return lit, nil
	case MapRef:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("a map default must be a JSON object, not %v", v)
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		lit := &Literal{Kind: MapLit, Type: r}
		for _, k := range keys {
			kl, err := toLiteral(u.Key, k, depth+1)
			if err != nil {
				return nil, fmt.Errorf("key %q: %w", k, err)
			}
			vl, err := toLiteral(u.Elem, obj[k], depth+1)
			if err != nil {
				return nil, fmt.Errorf("value of %q: %w", k, err)
			}
			lit.Keys, lit.Items = append(lit.Keys, kl), append(lit.Items, vl)
		}
		return lit, nil
	case BuiltinRef:
		return scalarLiteral(r, u.Name, v)
	}
	return nil, fmt.Errorf("defaults on %s are not supported", describeType(r))
}

// knownLiteral converts v for the known apimachinery types; ok is false
// when r is not one.
func knownLiteral(r *TypeRef, v any) (lit *Literal, err error, ok bool) {
	switch knownOf(r) {
	case "":
		return nil, nil, false
	case "Duration":
		s, isStr := v.(string)
		if !isStr {
			return nil, fmt.Errorf("a duration default must be a string such as \"1h0m0s\", not %v", v), true
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, fmt.Errorf("parse duration: %w", err), true
		}
		return &Literal{Kind: DurationLit, Type: r, Duration: d}, nil, true
	case "Quantity":
		var s string
		switch q := v.(type) {
		case string:
			s = q
		case json.Number:
			s = string(q)
		default:
			return nil, fmt.Errorf("a quantity default must be a string or number, not %v", v), true
		}
		if _, err := resource.ParseQuantity(s); err != nil {
			return nil, fmt.Errorf("parse quantity %q: %w", s, err), true
		}
		return &Literal{Kind: QuantityLit, Type: r, Text: s}, nil, true
	case "IntOrString":
		switch q := v.(type) {
		case string:
			return &Literal{Kind: IntOrStringTextLit, Type: r, Text: q}, nil, true
		case json.Number:
			i, err := strconv.ParseInt(string(q), 10, 32)
			if err != nil {
				return nil, fmt.Errorf("int-or-string default %s: %w", q, err), true
			}
			return &Literal{Kind: IntOrStringIntLit, Type: r, Int: i}, nil, true
		}
		return nil, fmt.Errorf("an int-or-string default must be a string or an integer, not %v", v), true
	case "Time", "MicroTime":
		s, isStr := v.(string)
		if !isStr {
			return nil, fmt.Errorf("a time default must be an RFC 3339 string, not %v", v), true
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, fmt.Errorf("parse time: %w", err), true
		}
		return &Literal{Kind: TimeLit, Type: r, Time: t.UTC()}, nil, true
	case "RawExtension":
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encode raw extension: %w", err), true
		}
		return &Literal{Kind: RawLit, Type: r, Text: string(b)}, nil, true
	}
	return nil, fmt.Errorf("defaults on %s are not supported", r.Name), true
}

// scalarLiteral converts v for the builtin type b (r itself, or r's
// underlying type).
func scalarLiteral(r *TypeRef, b string, v any) (*Literal, error) {
	switch {
	case b == "string":
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("a string default must be a JSON string, not %v", v)
		}
		return &Literal{Kind: StringLit, Type: r, Text: s}, nil
	case b == "bool":
		t, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("a boolean default must be true or false, not %v", v)
		}
		return &Literal{Kind: BoolLit, Type: r, Bool: t}, nil
	case isIntType(b):
		n, ok := v.(json.Number)
		if !ok {
			// Map keys arrive as strings.
			s, isStr := v.(string)
			if !isStr {
				return nil, fmt.Errorf("an integer default must be a JSON number, not %v", v)
			}
			n = json.Number(s)
		}
		lo, hi, unsigned := intRange(b)
		if unsigned {
			u, err := strconv.ParseUint(string(n), 10, 64)
			if err != nil || u > uint64(hi) {
				return nil, fmt.Errorf("%s does not fit %s", n, b)
			}
			return &Literal{Kind: UintLit, Type: r, Uint: u}, nil
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil || i < lo || i > hi {
			return nil, fmt.Errorf("%s does not fit %s", n, b)
		}
		return &Literal{Kind: IntLit, Type: r, Int: i}, nil
	case b == "float32" || b == "float64":
		n, ok := v.(json.Number)
		if !ok {
			return nil, fmt.Errorf("a number default must be a JSON number, not %v", v)
		}
		size := 64
		if b == "float32" {
			size = 32
		}
		f, err := strconv.ParseFloat(string(n), size)
		if err != nil {
			return nil, fmt.Errorf("%s does not fit %s: %w", n, b, err)
		}
		return &Literal{Kind: FloatLit, Type: r, Float: f}, nil
	}
	return nil, fmt.Errorf("defaults on %s are not supported", b)
}

func isIntType(b string) bool {
	switch b {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "byte", "rune":
		return true
	}
	return false
}

func intRange(b string) (lo, hi int64, unsigned bool) {
	switch b {
	case "int8":
		return math.MinInt8, math.MaxInt8, false
	case "int16":
		return math.MinInt16, math.MaxInt16, false
	case "int32", "rune":
		return math.MinInt32, math.MaxInt32, false
	case "uint8", "byte":
		return 0, math.MaxUint8, true
	case "uint16":
		return 0, math.MaxUint16, true
	case "uint32":
		return 0, math.MaxUint32, true
	case "uint", "uint64", "uintptr":
		return 0, math.MaxInt64, true
	default:
		return math.MinInt64, math.MaxInt64, false
	}
}

// structLiteral converts a JSON object for the struct r, following inline
// embedded structs; unknown keys are errors.
func structLiteral(r *TypeRef, fields []*Field, obj map[string]any, depth int) (*Literal, error) {
	used := map[string]bool{}
	lit, err := fillStructLiteral(r, fields, obj, used, depth)
	if err != nil {
		return nil, err
	}
	var unknown []string
	for k := range obj {
		if !used[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("%s has no field %q", r.Name, unknown[0])
	}
	return lit, nil
}

func fillStructLiteral(r *TypeRef, fields []*Field, obj map[string]any, used map[string]bool, depth int) (*Literal, error) {
	if depth > maxLiteralDepth {
		return nil, fmt.Errorf("value nested deeper than %d", maxLiteralDepth)
	}
	lit := &Literal{Kind: StructLit, Type: r}
	for _, f := range fields {
		if (f.Inline || f.Embedded) && f.JSONName == "" {
			sub, ok := literalStructFields(f.Type)
			if !ok {
				continue
			}
			inner, err := fillStructLiteral(f.Type, sub, obj, used, depth+1)
			if err != nil {
				return nil, err
			}
			if len(inner.Fields) > 0 {
				lit.Fields = append(lit.Fields, LiteralField{Name: f.Name, Value: inner})
			}
			continue
		}
		val, ok := obj[f.JSONName]
		if !ok || f.JSONName == "" {
			continue
		}
		used[f.JSONName] = true
		fl, err := toLiteral(f.Type, val, depth+1)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", f.JSONName, err)
		}
		lit.Fields = append(lit.Fields, LiteralField{Name: f.Name, Value: fl})
	}
	return lit, nil
}
