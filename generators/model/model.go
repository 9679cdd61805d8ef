// Package model is the one API model every generator reads.
//
// The loader (load.go) parses and type-checks types/<group>/<version>/ once
// through golang.org/x/tools/go/packages (dependencies from export data),
// resolves and checks every marker against the registry in
// generators/markers, and fills these structs. Generators never look at
// go/types: everything they need is here, already validated, sorted by name
// so output is deterministic.
package model

import "encoding/json"

// API is the whole input: every group found under the types root.
type API struct {
	// Module is the module path of the user's module ("github.com/acme/api").
	Module string
	// Root is the absolute directory of the module (never written into output).
	Root string
	// Groups sorted by Name.
	Groups []*Group
}

// Group is one API group ("acceptance.example.dev").
type Group struct {
	Name string
	// Short is the directory name under types/ ("acceptance"): a Go identifier
	// used for generated package names and import aliases.
	Short string
	// Versions sorted by Kubernetes version priority, highest first
	// (v1 > v1beta2 > v1beta1 > v1alpha1).
	Versions []*Version
}

// Version is one group-version: one Go package types/<group>/<version>.
type Version struct {
	Group *Group
	// Name is the directory name ("v1").
	Name string
	// Package is the import path of the types package.
	Package string
	// Dir is the directory relative to API.Root, slash-separated ("types/acceptance/v1").
	Dir string
	// PackageName is the Go package name declared in the files.
	PackageName string
	Doc         string
	Pos         Position
	// Kinds sorted by Name.
	Kinds []*Kind
	// Types are all named types declared in the package, sorted by Name,
	// including kinds and hand-written lists.
	Types []*Type
	// HasSchemeBuilder is true when the package itself declares SchemeBuilder /
	// AddToScheme (kubebuilder's groupversion_info.go); generated registration
	// then lives only in generated/.
	HasSchemeBuilder bool
	// Funcs are the names of top-level functions in the package (hook lookup:
	// SetDefaults_<Type>, Validate_<Type>, Convert_...).
	Funcs map[string]bool
	// External is true for a types package kubeforge does not own (k8s.io/api
	// packages), declared by a +kubeforge:external marker in types/doc.go.
	// Dir is then the import path, Kinds only the declared kinds and Types
	// only what they reach. The package has its own deepcopy and
	// registration: only storage, routes, OpenAPI, defaults, validation and
	// the resource table are generated (see API.Owned).
	External bool
}

// Kind is a root object: a struct marked +kubebuilder:object:root=true that
// embeds metav1.TypeMeta and metav1.ObjectMeta.
type Kind struct {
	Version *Version
	Name    string // "Gadget"
	Type    *Type
	// ListName is "<Kind>List". List is the hand-written list type, or nil
	// when the lists generator writes it.
	ListName string
	List     *Type

	Plural     string // "gadgets"
	Singular   string // "gadget"
	Namespaced bool
	ShortNames []string
	Categories []string

	// StatusSubresource is set by +kubebuilder:subresource:status; the kind
	// then has a field with JSON name "status" (StatusField).
	StatusSubresource bool
	StatusField       *Field
	// SpecField is the field with JSON name "spec", or nil.
	SpecField *Field

	PrinterColumns []PrinterColumn

	// Storage is true for the one version of this kind that is stored
	// (+kubebuilder:storageversion, or the only version).
	Storage bool
	// Served is false only when +kubebuilder:unservedversion is set.
	Served bool

	// NameRule is the rule metadata.name must follow: "DNSSubdomain" (the
	// default), "DNSLabel" (core Namespace, as kube-apiserver) or
	// "DNS1035Label" (core Service).
	NameRule string
}

// Name rules of metadata.name (Kind.NameRule).
const (
	NameDNSSubdomain = "DNSSubdomain"
	NameDNSLabel     = "DNSLabel"
	NameDNS1035Label = "DNS1035Label"
)

// PrinterColumn is one +kubebuilder:printcolumn.
type PrinterColumn struct {
	Name        string
	Type        string // integer, number, string, boolean, date
	JSONPath    string
	Description string
	Format      string
	Priority    int32
	// Path is JSONPath resolved against the kind's fields, outermost first;
	// empty for .metadata.* paths (the runtime reads metadata generically).
	Path []*Field
}

// TypeKind says what a named type is.
type TypeKind int

const (
	StructKind  TypeKind = iota
	SliceKind            // type Tags []string
	MapKind              // type Labels map[string]string
	BasicKind            // type Size string (enums), type Count int32
	PointerKind          // rare: type P *T
	ArrayKind            // type A [4]byte
)

// Type is a named type declared in a types package.
type Type struct {
	Version *Version
	Name    string
	Kind    TypeKind
	Doc     string
	Pos     Position
	Markers Markers

	// Fields of a struct, in declaration order.
	Fields []*Field
	// Underlying is the unnamed type behind a non-struct named type
	// ([]string for SliceKind, string for BasicKind, ...).
	Underlying *TypeRef

	// IsKind / IsList mark root objects and their lists.
	IsKind bool
	IsList bool
	// Generated is true for types the generators write (Zone's ZoneList).
	Generated bool

	// HandWritten records hand-written methods that generators must respect.
	HasDeepCopy       bool // DeepCopy or DeepCopyInto declared by hand
	HasDeepCopyObject bool

	// Enum values from +enum / +kubebuilder:validation:Enum on the type (JSON values).
	Validation Validation
	Default    *Default
}

// Field is one struct field.
type Field struct {
	Parent *Type
	Name   string // Go name
	// JSONName is the json tag name; empty for inline/embedded fields with ",inline".
	JSONName  string
	Inline    bool
	Embedded  bool
	OmitEmpty bool
	Doc       string
	Pos       Position
	Markers   Markers
	Type      *TypeRef

	// Required is true for +required / +kubebuilder:validation:Required, or
	// when neither +optional nor omitempty is present (Kubernetes' rule).
	Required bool
	Optional bool

	Default    *Default
	Validation Validation

	// ListType is "atomic", "set" or "map" (+listType); ListMapKeys with map.
	ListType    string
	ListMapKeys []string
	// MapType is "atomic" or "granular" (+mapType), StructType likewise.
	MapType    string
	StructType string

	// EmbeddedResource is +kubebuilder:validation:EmbeddedResource.
	EmbeddedResource bool
	// PreserveUnknownFields is +kubebuilder:pruning:PreserveUnknownFields.
	PreserveUnknownFields bool
}

// RefKind says what shape a type reference has.
type RefKind int

const (
	BuiltinRef RefKind = iota // string, int32, bool, float64, []byte is SliceRef of byte
	NamedRef                  // a named type (local or external)
	PointerRef
	SliceRef
	MapRef
	ArrayRef
	InterfaceRef // interface{} / any, rare in API types
)

// TypeRef is a use of a type: a field's type, a slice element, a map value.
type TypeRef struct {
	Kind RefKind
	// Builtin: the Go name ("string", "int32"). Named: the type name.
	Name string
	// Package is the import path for a named type, "" for builtins.
	Package string
	// Elem for pointer, slice, array and map; Key for map.
	Elem *TypeRef
	Key  *TypeRef
	Len  int64 // arrays

	// Local is set when the named type is declared in a types package of this
	// model (same or another version/group).
	Local *Type
	// External describes well-known external named types (metav1.Time,
	// resource.Quantity, intstr.IntOrString, ...) and other external types by
	// their underlying shape.
	External *External
}

// External is a named type declared outside the types packages.
type External struct {
	// Underlying is the shape behind the name (struct, string, ...).
	Underlying *TypeRef
	// HasDeepCopyInto / HasDeepCopy report the methods on *T and T.
	HasDeepCopyInto bool
	HasDeepCopy     bool
	// Fields for external structs (metav1.Condition, ...), used by OpenAPI
	// and defaulting. Nil for opaque types (see Known).
	Fields []*Field
	// Known names a well-known type with special JSON form:
	// "Time", "MicroTime", "Duration", "Quantity", "IntOrString",
	// "RawExtension", "JSON", "ObjectMeta", "ListMeta", "TypeMeta", or "".
	Known string
	Doc   string
	// Struct is true when the type is a struct (Fields is then filled unless
	// Known names an opaque type such as Time or Quantity).
	Struct bool
}

// Markers are the resolved markers at a position, by registry name
// ("kubebuilder:validation:Minimum"), each with its parsed value(s) and
// position. Generators should prefer the typed fields (Validation, Default,
// ...) filled by the loader; Markers is for the rest.
type Markers map[string][]MarkerValue

// MarkerValue is one occurrence of a marker.
type MarkerValue struct {
	// Value is the parsed argument: nil for a flag, string, int64, float64,
	// bool, []any, map[string]any, or a struct the registry declares.
	Value any
	Pos   Position
}

// Has reports whether the marker occurs.
func (m Markers) Has(name string) bool { return len(m[name]) > 0 }

// Default is a +default / +kubebuilder:default value.
type Default struct {
	// JSON is the canonical JSON encoding of the value.
	JSON json.RawMessage
	// Value is JSON decoded with UseNumber semantics (string, json.Number,
	// bool, nil, []any, map[string]any).
	Value any
	Pos   Position
}

// Validation is every validation marker, merged from the field and its
// named type (field markers win).
type Validation struct {
	Minimum          *float64
	Maximum          *float64
	ExclusiveMinimum bool
	ExclusiveMaximum bool
	MultipleOf       *float64
	MinLength        *int64
	MaxLength        *int64
	Pattern          string
	// Enum values decoded from the marker (string, json.Number, bool).
	Enum          []any
	MinItems      *int64
	MaxItems      *int64
	UniqueItems   bool
	MinProperties *int64
	MaxProperties *int64
	Format        string
	// XValidations (CEL) are recorded for OpenAPI only.
	XValidations []XValidation
}

// XValidation is a +kubebuilder:validation:XValidation rule (served in OpenAPI).
type XValidation struct {
	Rule    string
	Message string
}

// IsZero reports whether no validation marker is set.
func (v Validation) IsZero() bool {
	return v.Minimum == nil && v.Maximum == nil && v.MultipleOf == nil &&
		v.MinLength == nil && v.MaxLength == nil && v.Pattern == "" && len(v.Enum) == 0 &&
		v.MinItems == nil && v.MaxItems == nil && !v.UniqueItems && v.Format == "" &&
		v.MinProperties == nil && v.MaxProperties == nil && len(v.XValidations) == 0
}

// Position is a source position. File is relative to API.Root so output and
// error messages never carry machine paths.
type Position struct {
	File   string
	Line   int
	Column int
}

func (p Position) String() string {
	if p.File == "" {
		return "-"
	}
	if p.Column > 0 {
		return p.File + ":" + itoa(p.Line) + ":" + itoa(p.Column)
	}
	return p.File + ":" + itoa(p.Line)
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	neg := i < 0
	if neg {
		i = -i
	}
	var b [20]byte
	n := len(b)
	for i > 0 {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
	}
	if neg {
		n--
		b[n] = '-'
	}
	return string(b[n:])
}

// GroupVersion returns "group/version", or "version" for the core group ""
// (as Kubernetes writes apiVersion: v1).
func (v *Version) GroupVersion() string {
	if v.Group.Name == "" {
		return v.Name
	}
	return v.Group.Name + "/" + v.Name
}

// StorageVersion returns the version of g that stores kind, or nil.
func (g *Group) StorageVersion(kind string) *Version {
	for _, v := range g.Versions {
		for _, k := range v.Kinds {
			if k.Name == kind && k.Storage {
				return v
			}
		}
	}
	return nil
}

// Kind returns the kind by name, or nil.
func (v *Version) Kind(name string) *Kind {
	for _, k := range v.Kinds {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// Type returns the named type by name, or nil.
func (v *Version) Type(name string) *Type {
	for _, t := range v.Types {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Owned returns a view of the API without the groups of external types
// packages (Version.External): what the deepcopy, lists and conversion
// generators see, since those packages carry their own.
func (a *API) Owned() *API {
	out := &API{Module: a.Module, Root: a.Root}
	for _, g := range a.Groups {
		if !g.External() {
			out.Groups = append(out.Groups, g)
		}
	}
	return out
}

// External reports whether the group's versions are external packages.
func (g *Group) External() bool {
	for _, v := range g.Versions {
		if v.External {
			return true
		}
	}
	return false
}
