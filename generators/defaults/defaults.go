// Package defaults is the "defaults" generator: for every group-version it
// writes generated/<group>/<version>/zz_generated.defaults.go with
//
//	func SetObjectDefaults_<Kind>(obj *T)
//	func SetObjectDefaults_<Kind>List(obj *L)
//	func RegisterDefaults(scheme *runtime.Scheme) error
//
// and one unexported setDefaults_<Type>(obj *T) per named struct type that
// has something to default, called from its parents.
//
// Semantics follow Kubernetes' structural defaulting of CRDs, as users
// expect it:
//
//   - a +default / +kubebuilder:default value is applied to a field that is
//     zero: "", 0, false, a nil pointer, a nil (or, with omitempty, empty)
//     slice or map, the zero metav1.Duration, metav1.Time, resource.Quantity
//     or intstr.IntOrString, or the zero value of a comparable struct;
//   - the value is a typed Go literal built at generation time from the
//     JSON (ints of the field's width, metav1.Duration{Duration: 24 *
//     time.Hour}, resource.MustParse of a quantity already parsed here so it
//     cannot panic, intstr.FromString / FromInt32, composite literals for
//     objects, arrays and maps, new(v) for pointers); a value that does not
//     fit the field's type is a generation error;
//   - defaulting then recurses into the value (so a defaulted object gets its
//     own nested defaults): nested structs, inline embedded structs, pointers,
//     slice items and map values;
//   - after a value's fields, the hand-written SetDefaults_<Type>(obj *Type)
//     of its package is called, when declared, for every value of that type.
//
// Types from other group-versions reached through fields are defaulted by
// functions generated into this file (setDefaults_<group><version>_<Type>),
// which call those packages' own SetDefaults_ hooks.
package defaults

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dave/jennifer/jen"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/internal/typegraph"
	"github.com/kubeforge/kubeforge/generators/model"
)

// FileName is the name of the generated file in every generated/<g>/<v>.
const FileName = "zz_generated.defaults.go"

const (
	runtimePkg   = "k8s.io/apimachinery/pkg/runtime"
	metav1Pkg    = "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcePkg  = "k8s.io/apimachinery/pkg/api/resource"
	intstrPkg    = "k8s.io/apimachinery/pkg/util/intstr"
	timePkg      = "time"
	maxNestDepth = typegraph.MaxDepth
)

// Generator is the defaults generator.
type Generator struct{}

// New returns the defaults generator.
func New() *Generator { return &Generator{} }

// Name implements genall.Generator.
func (*Generator) Name() string { return "defaults" }

// Generate implements genall.Generator: one file per group-version that
// declares at least one kind.
func (*Generator) Generate(api *model.API) ([]genall.File, error) {
	return genall.PerVersion(api, "defaults", generateVersion)
}

type gen struct {
	api   *model.API
	v     *model.Version
	graph *typegraph.Graph
	loop  int
}

func generateVersion(api *model.API, v *model.Version) (genall.File, error) {
	importPath, dir, pkgName := genall.GeneratedPackage(api, v)
	graph, err := typegraph.Build(v, "setDefaults_", "SetDefaults_")
	if err != nil {
		return genall.File{}, err
	}
	g := &gen{api: api, v: v, graph: graph}
	if err := graph.Grow(func(n *typegraph.Node) (bool, error) {
		body, err := g.nodeBody(n)
		return len(body) > 0, err
	}); err != nil {
		return genall.File{}, err
	}

	f := genall.NewFile(pkgName, importPath)
	f.ImportAlias(v.Package, v.PackageName)
	f.ImportAlias(metav1Pkg, "metav1")
	for _, gr := range api.Groups {
		for _, ov := range gr.Versions {
			if ov != v {
				f.ImportAlias(ov.Package, gr.Short+ov.Name)
			}
		}
	}

	// RegisterDefaults.
	var reg []jen.Code
	for _, k := range v.Kinds {
		for _, t := range []struct{ typ, fn string }{{k.Type.Name, "SetObjectDefaults_" + k.Name}, {k.ListName, "SetObjectDefaults_" + k.ListName}} {
			reg = append(reg, jen.Id("scheme").Dot("AddTypeDefaultingFunc").Call(
				jen.Op("&").Qual(v.Package, t.typ).Values(),
				jen.Func().Params(jen.Id("obj").Any()).Block(
					jen.If(jen.List(jen.Id("o"), jen.Id("ok")).Op(":=").Id("obj").Assert(jen.Op("*").Qual(v.Package, t.typ)), jen.Id("ok")).
						Block(jen.Id(t.fn).Call(jen.Id("o"))),
				)))
		}
	}
	reg = append(reg, jen.Return(jen.Nil()))
	f.Comment("RegisterDefaults adds the defaulting functions of every kind of " + v.GroupVersion() + " and its list")
	f.Comment("to scheme; scheme.Default(obj) then applies them.")
	f.Func().Id("RegisterDefaults").Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")).Error().Block(reg...)
	f.Line()

	for _, k := range v.Kinds {
		root := g.graph.Nodes[v.Package+"."+k.Type.Name]
		var body []jen.Code
		if g.graph.Needs[root.Key] {
			body = append(body, jen.Id(root.Fn).Call(jen.Id("obj")))
		} else {
			body = append(body, jen.Comment("No +default markers or SetDefaults_ hooks apply to "+k.Name+"."))
		}
		f.Commentf("SetObjectDefaults_%s applies the +default markers and SetDefaults_ hooks to %s %s.", k.Name, genall.Article(k.Name), k.Name)
		f.Func().Id("SetObjectDefaults_" + k.Name).Params(jen.Id("obj").Op("*").Qual(v.Package, k.Type.Name)).Block(body...)
		f.Line()
		f.Commentf("SetObjectDefaults_%s defaults every item of %s %s.", k.ListName, genall.Article(k.ListName), k.ListName)
		f.Func().Id("SetObjectDefaults_" + k.ListName).Params(jen.Id("obj").Op("*").Qual(v.Package, k.ListName)).Block(
			jen.For(jen.Id("i").Op(":=").Range().Id("obj").Dot("Items")).Block(
				jen.Id("SetObjectDefaults_" + k.Name).Call(jen.Op("&").Id("obj").Dot("Items").Index(jen.Id("i"))),
			))
		f.Line()
	}

	for _, n := range g.graph.Order {
		if !g.graph.Needs[n.Key] {
			continue
		}
		body, err := g.nodeBody(n)
		if err != nil {
			return genall.File{}, err
		}
		f.Commentf("%s defaults %s %s.", n.Fn, genall.Article(n.Name), n.Name)
		f.Func().Id(n.Fn).Params(jen.Id("obj").Op("*").Qual(n.Pkg, n.Name)).Block(body...)
		f.Line()
	}

	var buf strings.Builder
	if err := f.Render(&buf); err != nil {
		return genall.File{}, fmt.Errorf("render %s: %w", FileName, err)
	}
	return genall.File{Path: dir + "/" + FileName, Content: []byte(buf.String())}, nil
}

// underlying looks through named non-struct types (type Size string).
func underlying(r *model.TypeRef) *model.TypeRef {
	shape, _ := r.LookThrough()
	return shape
}

func known(r *model.TypeRef) string {
	if r != nil && r.Kind == model.NamedRef && r.External != nil {
		return r.External.Known
	}
	return ""
}

// --- bodies ------------------------------------------------------------------

type expr = func() *jen.Statement

func (g *gen) nodeBody(n *typegraph.Node) ([]jen.Code, error) {
	obj := func() *jen.Statement { return jen.Id("obj") }
	var stmts []jen.Code
	for _, f := range n.Fields {
		s, err := g.field(f, obj)
		if err != nil {
			return nil, fmt.Errorf("field %s.%s: %w", n.Name, f.Name, err)
		}
		stmts = append(stmts, s...)
	}
	if n.Hook {
		stmts = append(stmts, jen.Qual(n.Pkg, "SetDefaults_"+n.Name).Call(jen.Id("obj")))
	}
	return stmts, nil
}

func (g *gen) field(f *model.Field, obj expr) ([]jen.Code, error) {
	switch known(f.Type) {
	case "TypeMeta", "ObjectMeta", "ListMeta":
		return nil, nil
	}
	x := func() *jen.Statement { return obj().Dot(f.Name) }
	var stmts []jen.Code
	def := f.Default
	if def == nil && f.Type != nil && f.Type.Kind == model.NamedRef && f.Type.Local != nil {
		def = f.Type.Local.Default
	}
	if def != nil {
		z, err := zero(f.Type, x, f.OmitEmpty)
		if err != nil {
			return nil, fmt.Errorf("+default: %w", err)
		}
		lit, err := literal(f.Type, def.Value, false, 0)
		if err != nil {
			return nil, fmt.Errorf("+default %s: %w", string(def.JSON), err)
		}
		stmts = append(stmts, jen.If(z).Block(x().Op("=").Add(lit)))
	}
	inner, err := g.value(f.Type, x, 0)
	if err != nil {
		return nil, err
	}
	return append(stmts, inner...), nil
}

func (g *gen) loopVar(base string) string {
	if g.loop == 0 {
		return base
	}
	return base + strconv.Itoa(g.loop+1)
}

// value returns the statements that default the insides of x (of type r):
// nested struct fields, pointer targets, slice items, map values, and the
// hooks of named non-struct types.
func (g *gen) value(r *model.TypeRef, x expr, depth int) ([]jen.Code, error) {
	if r == nil || depth > maxNestDepth {
		return nil, nil
	}
	switch r.Kind {
	case model.PointerRef:
		var inner []jen.Code
		if n := g.graph.Struct(r.Elem); n != nil {
			if g.graph.Needs[n.Key] {
				inner = []jen.Code{jen.Id(n.Fn).Call(x())}
			}
		} else {
			var err error
			inner, err = g.value(r.Elem, func() *jen.Statement { return jen.Parens(jen.Op("*").Add(x())) }, depth+1) // (*p)[i]
			if err != nil {
				return nil, err
			}
		}
		if len(inner) == 0 {
			return nil, nil
		}
		return []jen.Code{jen.If(x().Op("!=").Nil()).Block(inner...)}, nil
	case model.SliceRef, model.ArrayRef:
		i := g.loopVar("i")
		g.loop++
		inner, err := g.value(r.Elem, func() *jen.Statement { return x().Index(jen.Id(i)) }, depth+1)
		g.loop--
		if err != nil || len(inner) == 0 {
			return nil, err
		}
		return []jen.Code{jen.For(jen.Id(i).Op(":=").Range().Add(x())).Block(inner...)}, nil
	case model.MapRef:
		k, v := g.loopVar("k"), g.loopVar("v")
		g.loop++
		elem := underlying(r.Elem)
		// Struct and array values are not addressable: default a copy and
		// store it back. Pointers, slices and maps share their insides.
		byValue := elem.Kind == model.ArrayRef || elem.Kind == model.NamedRef
		var inner []jen.Code
		var err error
		if byValue {
			inner, err = g.value(r.Elem, func() *jen.Statement { return jen.Id(v) }, depth+1)
		} else {
			inner, err = g.value(r.Elem, func() *jen.Statement { return x().Index(jen.Id(k)) }, depth+1)
		}
		g.loop--
		if err != nil || len(inner) == 0 {
			return nil, err
		}
		if byValue {
			body := append([]jen.Code{}, inner...)
			body = append(body, x().Index(jen.Id(k)).Op("=").Id(v))
			return []jen.Code{jen.For(jen.List(jen.Id(k), jen.Id(v)).Op(":=").Range().Add(x())).Block(body...)}, nil
		}
		return []jen.Code{jen.For(jen.Id(k).Op(":=").Range().Add(x())).Block(inner...)}, nil
	case model.NamedRef:
		if n := g.graph.Struct(r); n != nil {
			if g.graph.Needs[n.Key] {
				return []jen.Code{jen.Id(n.Fn).Call(jen.Op("&").Add(x()))}, nil
			}
			return nil, nil
		}
		if t := r.Local; t != nil && t.Underlying != nil {
			inner, err := g.value(t.Underlying, x, depth+1)
			if err != nil {
				return nil, err
			}
			if t.Version != nil && t.Version.Funcs["SetDefaults_"+t.Name] {
				inner = append(inner, jen.Qual(r.Package, "SetDefaults_"+t.Name).Call(jen.Op("&").Add(x())))
			}
			return inner, nil
		}
	}
	return nil, nil
}

// zero returns the condition under which a default applies to x.
func zero(r *model.TypeRef, x expr, omitEmpty bool) (jen.Code, error) {
	switch known(r) {
	case "Time", "MicroTime":
		return x().Dot("IsZero").Call(), nil
	case "Duration":
		return x().Dot("Duration").Op("==").Lit(0), nil
	case "Quantity":
		return x().Op("==").Parens(jen.Qual(resourcePkg, "Quantity").Values()), nil
	case "IntOrString":
		return x().Op("==").Parens(jen.Qual(intstrPkg, "IntOrString").Values()), nil
	case "RawExtension":
		return x().Dot("Raw").Op("==").Nil().Op("&&").Add(x()).Dot("Object").Op("==").Nil(), nil
	case "":
	default:
		return nil, fmt.Errorf("defaults on %s are not supported", r.Name)
	}
	u := underlying(r)
	switch u.Kind {
	case model.PointerRef:
		return x().Op("==").Nil(), nil
	case model.SliceRef, model.MapRef:
		if omitEmpty {
			return jen.Len(x()).Op("==").Lit(0), nil
		}
		return x().Op("==").Nil(), nil
	case model.BuiltinRef:
		switch {
		case u.Name == "string":
			return x().Op("==").Lit(""), nil
		case u.Name == "bool":
			return jen.Op("!").Add(x()), nil
		case isInt(u.Name) || isFloat(u.Name):
			return x().Op("==").Lit(0), nil
		}
	case model.NamedRef:
		if _, ok := typegraph.StructFields(u); ok {
			if !comparable(u, 0) {
				return nil, fmt.Errorf("a default on the struct %s needs a pointer field: its zero value cannot be compared", u.Name)
			}
			return x().Op("==").Parens(genall.TypeCode(u).Values()), nil
		}
	}
	return nil, fmt.Errorf("defaults on %s are not supported", genall.Describe(r))
}

func comparable(r *model.TypeRef, depth int) bool {
	if r == nil || depth > maxNestDepth {
		return false
	}
	switch r.Kind {
	case model.BuiltinRef, model.PointerRef:
		return true
	case model.ArrayRef:
		return comparable(r.Elem, depth+1)
	case model.NamedRef:
		switch known(r) {
		case "Duration", "Quantity", "IntOrString", "Time", "MicroTime":
			return true
		}
		if fields, ok := typegraph.StructFields(r); ok {
			for _, f := range fields {
				if !comparable(f.Type, depth+1) {
					return false
				}
			}
			return true
		}
		if u := underlying(r); u != r {
			return comparable(u, depth+1)
		}
	}
	return false
}

func isInt(b string) bool {
	switch b {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "byte", "rune":
		return true
	}
	return false
}

func isFloat(b string) bool { return b == "float32" || b == "float64" }

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

// --- literals ------------------------------------------------------------------

// literal renders the JSON value v (decoded with UseNumber) as a Go
// expression of type r. typed forces a typed expression (new(int32(1))
// rather than an untyped constant).
func literal(r *model.TypeRef, v any, typed bool, depth int) (jen.Code, error) {
	if depth > maxNestDepth {
		return nil, fmt.Errorf("value nested deeper than %d", maxNestDepth)
	}
	if v == nil {
		return nil, fmt.Errorf("null is not a default for %s", genall.Describe(r))
	}
	switch known(r) {
	case "Duration":
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("a duration default must be a string such as \"1h0m0s\", not %v", v)
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, fmt.Errorf("parse duration: %w", err)
		}
		return jen.Qual(metav1Pkg, "Duration").Values(jen.Dict{jen.Id("Duration"): durationExpr(d)}), nil
	case "Quantity":
		var s string
		switch q := v.(type) {
		case string:
			s = q
		case json.Number:
			s = string(q)
		default:
			return nil, fmt.Errorf("a quantity default must be a string or number, not %v", v)
		}
		if _, err := resource.ParseQuantity(s); err != nil {
			return nil, fmt.Errorf("parse quantity %q: %w", s, err)
		}
		// Parsed above: MustParse cannot panic on this string.
		return jen.Qual(resourcePkg, "MustParse").Call(jen.Lit(s)), nil
	case "IntOrString":
		switch q := v.(type) {
		case string:
			return jen.Qual(intstrPkg, "FromString").Call(jen.Lit(q)), nil
		case json.Number:
			i, err := strconv.ParseInt(string(q), 10, 32)
			if err != nil {
				return nil, fmt.Errorf("int-or-string default %s: %w", q, err)
			}
			return jen.Qual(intstrPkg, "FromInt32").Call(jen.Lit(int(i))), nil
		}
		return nil, fmt.Errorf("an int-or-string default must be a string or an integer, not %v", v)
	case "Time", "MicroTime":
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("a time default must be an RFC 3339 string, not %v", v)
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, fmt.Errorf("parse time: %w", err)
		}
		t = t.UTC()
		fn := "NewTime"
		if known(r) == "MicroTime" {
			fn = "NewMicroTime"
		}
		return jen.Qual(metav1Pkg, fn).Call(jen.Qual(timePkg, "Date").Call(
			jen.Lit(t.Year()), jen.Qual(timePkg, t.Month().String()), jen.Lit(t.Day()),
			jen.Lit(t.Hour()), jen.Lit(t.Minute()), jen.Lit(t.Second()), jen.Lit(t.Nanosecond()), jen.Qual(timePkg, "UTC"))), nil
	case "RawExtension":
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encode raw extension: %w", err)
		}
		return jen.Qual(runtimePkg, "RawExtension").Values(jen.Dict{jen.Id("Raw"): jen.Index().Byte().Call(jen.Lit(string(b)))}), nil
	case "":
	default:
		return nil, fmt.Errorf("defaults on %s are not supported", r.Name)
	}

	if fields, ok := typegraph.StructFields(r); ok {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("an object default for %s must be a JSON object, not %v", r.Name, v)
		}
		dict, err := structDict(r.Name, fields, obj, depth)
		if err != nil {
			return nil, err
		}
		return genall.TypeCode(r).Values(dict), nil
	}

	u := underlying(r)
	named := u != r
	switch u.Kind {
	case model.PointerRef:
		if _, ok := typegraph.StructFields(u.Elem); ok {
			inner, err := literal(u.Elem, v, true, depth+1)
			if err != nil {
				return nil, err
			}
			return jen.Op("&").Add(inner), nil
		}
		inner, err := literal(u.Elem, v, true, depth+1)
		if err != nil {
			return nil, err
		}
		return jen.New(inner), nil
	case model.SliceRef, model.ArrayRef:
		if u.Kind == model.SliceRef && u.Elem.Kind == model.BuiltinRef && (u.Elem.Name == "byte" || u.Elem.Name == "uint8") {
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("a []byte default must be a base64 string, not %v", v)
			}
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return nil, fmt.Errorf("decode base64: %w", err)
			}
			return genall.TypeCode(r).Call(jen.Lit(string(b))), nil
		}
		arr, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("a list default must be a JSON array, not %v", v)
		}
		if u.Kind == model.ArrayRef && int64(len(arr)) > u.Len {
			return nil, fmt.Errorf("%d items do not fit %s", len(arr), genall.Describe(u))
		}
		var items []jen.Code
		for i, item := range arr {
			lit, err := literal(u.Elem, item, false, depth+1)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", i, err)
			}
			items = append(items, lit)
		}
		return genall.TypeCode(r).Values(items...), nil
	case model.MapRef:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("a map default must be a JSON object, not %v", v)
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		dict := jen.Dict{}
		for _, k := range keys {
			kl, err := literal(u.Key, k, false, depth+1)
			if err != nil {
				return nil, fmt.Errorf("key %q: %w", k, err)
			}
			vl, err := literal(u.Elem, obj[k], false, depth+1)
			if err != nil {
				return nil, fmt.Errorf("value of %q: %w", k, err)
			}
			dict[kl] = vl
		}
		return genall.TypeCode(r).Values(dict), nil
	case model.BuiltinRef:
		lit, err := scalarLiteral(u.Name, v)
		if err != nil {
			return nil, err
		}
		if typed || (named && u.Name != "string" && u.Name != "bool") {
			return genall.TypeCode(r).Call(lit), nil
		}
		return lit, nil
	}
	return nil, fmt.Errorf("defaults on %s are not supported", genall.Describe(r))
}

func scalarLiteral(b string, v any) (jen.Code, error) {
	switch {
	case b == "string":
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("a string default must be a JSON string, not %v", v)
		}
		return jen.Lit(s), nil
	case b == "bool":
		t, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("a boolean default must be true or false, not %v", v)
		}
		return jen.Lit(t), nil
	case isInt(b):
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
			return jen.Id(strconv.FormatUint(u, 10)), nil
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil || i < lo || i > hi {
			return nil, fmt.Errorf("%s does not fit %s", n, b)
		}
		return jen.Id(strconv.FormatInt(i, 10)), nil
	case isFloat(b):
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
		s := strconv.FormatFloat(f, 'g', -1, size)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return jen.Id(s), nil
	}
	return nil, fmt.Errorf("defaults on %s are not supported", b)
}

// structDict fills a composite literal from a JSON object, following inline
// embedded structs; unknown keys are errors.
func structDict(typeName string, fields []*model.Field, obj map[string]any, depth int) (jen.Dict, error) {
	dict := jen.Dict{}
	used := map[string]bool{}
	if err := fillStruct(dict, fields, obj, used, depth); err != nil {
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
		return nil, fmt.Errorf("%s has no field %q", typeName, unknown[0])
	}
	return dict, nil
}

func fillStruct(dict jen.Dict, fields []*model.Field, obj map[string]any, used map[string]bool, depth int) error {
	if depth > maxNestDepth {
		return fmt.Errorf("value nested deeper than %d", maxNestDepth)
	}
	for _, f := range fields {
		if (f.Inline || f.Embedded) && f.JSONName == "" {
			sub, ok := typegraph.StructFields(f.Type)
			if !ok {
				continue
			}
			inner := jen.Dict{}
			if err := fillStruct(inner, sub, obj, used, depth+1); err != nil {
				return err
			}
			if len(inner) > 0 {
				dict[jen.Id(f.Name)] = genall.TypeCode(f.Type).Values(inner)
			}
			continue
		}
		val, ok := obj[f.JSONName]
		if !ok || f.JSONName == "" {
			continue
		}
		used[f.JSONName] = true
		lit, err := literal(f.Type, val, false, depth+1)
		if err != nil {
			return fmt.Errorf("field %q: %w", f.JSONName, err)
		}
		dict[jen.Id(f.Name)] = lit
	}
	return nil
}

// durationExpr renders d as a readable constant expression (24 * time.Hour).
func durationExpr(d time.Duration) jen.Code {
	units := []struct {
		d    time.Duration
		name string
	}{{time.Hour, "Hour"}, {time.Minute, "Minute"}, {time.Second, "Second"}, {time.Millisecond, "Millisecond"}, {time.Microsecond, "Microsecond"}}
	if d == 0 {
		return jen.Lit(0)
	}
	for _, u := range units {
		if d%u.d == 0 {
			return jen.Id(strconv.FormatInt(int64(d/u.d), 10)).Op("*").Qual(timePkg, u.name)
		}
	}
	return jen.Id(strconv.FormatInt(int64(d), 10)).Op("*").Qual(timePkg, "Nanosecond")
}
