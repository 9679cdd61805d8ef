// Package markers is the one typed registry of the comment markers kubeforge
// understands, and the parser that turns comment lines into checked values.
//
// A marker is a comment line starting with "+" (`// +optional`, also
// `//+optional`). Its grammar follows controller-tools:
//
//	+name                      a flag
//	+name=value                a single value
//	+name:arg=value,arg2=value named (struct) arguments
//
// Values are bare or double-quoted strings, raw strings in backquotes,
// numbers, booleans, lists separated by ";" (`Enum=a;b;c`) or written as
// `{a,b,c}`.
//
// Strictness: under an accepted prefix ("kubebuilder:", "k8s:",
// "kubeforge:") and for the bare names the registry knows (optional,
// required, default, listType, groupName, ...) an unknown marker, a malformed
// argument or a marker on the wrong kind of declaration is an error carrying
// file:line:col and the closest known spelling. Any other "+" comment (a
// `// +1` remark, another tool's `+some-tool:foo`) is left alone.
package markers

import (
	"fmt"
	"sort"
	"strings"
)

// Target says on which kind of declaration a marker may stand. Targets
// combine as a bit set (TypeTarget|FieldTarget).
type Target uint8

const (
	// PackageTarget is the package doc comment (doc.go), or the comment block
	// one blank line above the package clause.
	PackageTarget Target = 1 << iota
	// TypeTarget is a named type declaration.
	TypeTarget
	// FieldTarget is a struct field.
	FieldTarget
)

// String lists the targets ("type or field").
func (t Target) String() string {
	var parts []string
	if t&PackageTarget != 0 {
		parts = append(parts, "package")
	}
	if t&TypeTarget != 0 {
		parts = append(parts, "type")
	}
	if t&FieldTarget != 0 {
		parts = append(parts, "field")
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, " or ")
}

// ArgType is the type of a marker value or of one named argument.
type ArgType int

const (
	// StringArg is a bare, "double-quoted" or `raw` string. Parsed to string.
	StringArg ArgType = iota + 1
	// IntArg is an integer. Parsed to int64.
	IntArg
	// NumberArg is an integer or a decimal number. Parsed to float64.
	NumberArg
	// BoolArg is true or false; a bare marker means true. Parsed to bool.
	BoolArg
	// StringListArg is `a;b;c` or `{a,b,c}`. Parsed to []string.
	StringListArg
	// AnyListArg is a list whose items are JSON values or bare strings
	// (`Enum=small;medium;1`). Parsed to []any of string, json.Number, bool, nil.
	AnyListArg
	// RawArg is kept as written (with quotes removed only when the text is a
	// raw `backquoted` string). Parsed to string. Used for +default, whose
	// meaning (JSON, or a bare string for a string field) depends on the
	// field's type and is decided by the loader.
	RawArg
	// AnyArg is anything; parsed to the text as written. Used for tolerated
	// markers of other tools.
	AnyArg
	// TextArg is a string that must not read as another kind of value: bare
	// text, "double-quoted" or `raw`, but not an unquoted number, boolean,
	// null, {list or map} or a;b list (controller-tools refuses those where
	// it wants a string: +kubebuilder:title). Parsed to string.
	TextArg
	// LiteralArg is kept as written, like RawArg, for a value whose meaning
	// depends on the field's type: JSON, a bare string for string fields,
	// or one of controller-tools' literals ({a,b} lists, {key: value} maps,
	// a;b lists). The loader decodes and checks it
	// (+kubebuilder:default, +kubebuilder:example). Parsed to string.
	LiteralArg
)

// String names the type as the reference documentation does.
func (a ArgType) String() string {
	switch a {
	case StringArg:
		return "string"
	case IntArg:
		return "integer"
	case NumberArg:
		return "number"
	case BoolArg:
		return "bool"
	case StringListArg:
		return "list of strings (a;b or {a,b})"
	case AnyListArg:
		return "list of values (a;b or {a,b})"
	case RawArg:
		return "JSON value, or a bare string for string fields"
	case AnyArg:
		return "anything"
	case TextArg:
		return "string"
	case LiteralArg:
		return "JSON value, a bare string for string fields, or a kubebuilder literal ({a,b}, {key: value})"
	}
	return "none"
}

// Arg is one named argument of a struct marker, or the single value of a
// value marker (Name "").
type Arg struct {
	Name     string
	Type     ArgType
	Required bool
	// Enum restricts string values (scope=Namespaced|Cluster).
	Enum []string
	Help string
}

// Definition declares one marker.
type Definition struct {
	// Name is the spelling without "+" ("kubebuilder:validation:Minimum").
	Name string
	// Target is where the marker may stand.
	Target Target
	// Value is the single value of a "+name=value" marker; nil for flags and
	// struct markers.
	Value *Arg
	// Args are the named arguments of a "+name:a=1,b=2" marker.
	Args []Arg
	// Repeatable markers may occur more than once at one place
	// (printcolumn, listMapKey, XValidation).
	Repeatable bool
	// Tolerated markers belong to other code generators: they are known so
	// that real types are not rejected, and have no effect here.
	Tolerated bool
	// Family makes the definition match every marker whose name starts with
	// Name + ":" as well (tolerated families such as kubebuilder:rbac).
	Family bool
	// Alias names the canonical definition this spelling is equivalent to
	// ("k8s:minimum" -> "kubebuilder:validation:Minimum"). Parsed markers
	// carry the canonical name in Marker.Name.
	Alias string
	// Help is one or two sentences for the reference documentation.
	Help string
}

// IsFlag reports whether the marker takes no value at all.
func (d *Definition) IsFlag() bool { return d.Value == nil && len(d.Args) == 0 }

func (d *Definition) arg(name string) *Arg {
	for i := range d.Args {
		if d.Args[i].Name == name {
			return &d.Args[i]
		}
	}
	return nil
}

// Registry holds marker definitions by name.
type Registry struct {
	defs map[string]*Definition
	// prefixes whose unknown markers are errors ("kubebuilder", "k8s", "kubeforge").
	strictPrefixes map[string]bool
}

// NewRegistry returns an empty registry whose strict prefixes are
// kubebuilder:, k8s: and kubeforge:.
func NewRegistry() *Registry {
	return &Registry{
		defs:           map[string]*Definition{},
		strictPrefixes: map[string]bool{"kubebuilder": true, "k8s": true, "kubeforge": true},
	}
}

// Register adds a definition. It fails on an empty or duplicate name, a
// missing target, or an alias to an unknown definition.
func (r *Registry) Register(d Definition) error {
	if d.Name == "" {
		return fmt.Errorf("register marker: empty name")
	}
	if _, dup := r.defs[d.Name]; dup {
		return fmt.Errorf("register marker %q: already registered", d.Name)
	}
	if d.Target == 0 {
		return fmt.Errorf("register marker %q: no target", d.Name)
	}
	if d.Value != nil && len(d.Args) > 0 {
		return fmt.Errorf("register marker %q: both a value and named arguments", d.Name)
	}
	if d.Alias != "" {
		if _, ok := r.defs[d.Alias]; !ok {
			return fmt.Errorf("register marker %q: alias of unknown marker %q", d.Name, d.Alias)
		}
	}
	dd := d
	r.defs[d.Name] = &dd
	return nil
}

// mustRegister registers d and records a failure (a bug in the static tables,
// caught by the package's tests) instead of panicking.
func (r *Registry) mustRegister(d Definition, errs *[]error) {
	if err := r.Register(d); err != nil {
		*errs = append(*errs, err)
	}
}

// Lookup returns the definition with exactly this name, or nil.
func (r *Registry) Lookup(name string) *Definition { return r.defs[name] }

// Canonical returns the canonical name of name (following an alias).
func (r *Registry) Canonical(name string) string {
	if d := r.defs[name]; d != nil && d.Alias != "" {
		return d.Alias
	}
	return name
}

// Definitions returns every definition sorted by name.
func (r *Registry) Definitions() []*Definition {
	out := make([]*Definition, 0, len(r.defs))
	for _, d := range r.defs {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names returns every registered name, sorted.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.defs))
	for n := range r.defs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// family returns the tolerated family definition covering name, if any.
func (r *Registry) family(name string) *Definition {
	for {
		i := strings.LastIndexByte(name, ':')
		if i < 0 {
			return nil
		}
		name = name[:i]
		if d := r.defs[name]; d != nil && d.Family {
			return d
		}
	}
}

// strict reports whether an unknown marker with this name is an error.
func (r *Registry) strict(name string) bool {
	if i := strings.IndexByte(name, ':'); i >= 0 {
		return r.strictPrefixes[name[:i]]
	}
	// A bare name: strict when it is close to a known bare name (a typo of
	// +optional, +listType, ...). Other bare words are left alone.
	if len(name) < 4 {
		return false
	}
	for n := range r.defs {
		if strings.IndexByte(n, ':') >= 0 {
			continue
		}
		if levenshtein(strings.ToLower(name), strings.ToLower(n)) <= 2 {
			return true
		}
	}
	return false
}

// Suggest returns the registered name closest to name (Levenshtein distance,
// case-insensitive), or "" when nothing is reasonably close.
func (r *Registry) Suggest(name string) string { return Closest(name, r.Names()) }

// Closest returns the entry of names closest to name (Levenshtein distance,
// case-insensitive), or "" when nothing is reasonably close (more than
// half of name's length, plus one, away). Every "did you mean" of the
// generators goes through it.
func Closest(name string, names []string) string {
	best, bestD := "", -1
	lname := strings.ToLower(name)
	for _, n := range names {
		d := levenshtein(lname, strings.ToLower(n))
		if bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	if bestD < 0 || bestD > len(name)/2+1 {
		return ""
	}
	return best
}

// lowerFirst returns s with its first letter in lower case, for help texts
// that continue a sentence ("Applies to each item: smallest allowed ...").
func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return s
	}
	if len(s) > 1 && s[1] >= 'A' && s[1] <= 'Z' {
		return s // an acronym (OpenAPI, CEL)
	}
	return string(s[0]+'a'-'A') + s[1:]
}

// levenshtein is the edit distance between a and b (bytes).
func levenshtein(a, b string) int {
	if a == b {
		return 0
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
