// Package defaults is the "defaults" generator: for every group-version it
// writes generated/<group>/<version>/zz_generated.defaults.go with
//
//	func SetObjectDefaults_<Kind>(obj *T)
//	func SetObjectDefaultsFrom_<Kind>(obj *T, in presence.Node)
//	func SetObjectDefaults_<Kind>List(obj *L)
//	func RegisterDefaults(scheme *runtime.Scheme) error
//
// and one unexported setDefaults_<Type>(obj *T) per named struct type that
// has something to default, called from its parents (with the type's node
// of the request's JSON, setDefaults_<Type>(obj *T, in presence.Node),
// when something below it asks the JSON; see below).
//
// Semantics follow Kubernetes' structural defaulting of CRDs, as users
// expect it:
//
//   - a +default / +kubebuilder:default value is applied to a field that is
//     zero: "", 0, false, a nil pointer, a nil (or, with omitempty, empty)
//     slice or map, the zero metav1.Duration, metav1.Time, resource.Quantity
//     or intstr.IntOrString, or the zero value of a struct (compared with
//     == when it can be, else with reflect's IsZero);
//   - except, in a types package the user owns, a field without omitempty
//     whose zero JSON writes as a value (0, false, "", "0s", {}) whose key
//     the request's JSON set: SetObjectDefaultsFrom_<Kind> is given that
//     JSON (runtime/presence), and an explicit `replicas: 0` is kept, as
//     kube-apiserver keeps it in a custom resource. With omitempty the zero
//     is not kept whatever is done here (encoding drops it, and the next
//     read defaults it), so such fields default every zero. Kinds of
//     packages the user does not own (k8s.io/api) keep defaulter-gen's
//     rule, as kube-apiserver applies it to its built-in types;
//   - the value is a typed Go literal written from the model's
//     Default.Literal, which the model converted from the JSON and checked
//     (ints of the field's width, metav1.Duration{Duration: 24 *
//     time.Hour}, resource.MustParse of a quantity the model parsed so it
//     cannot panic, intstr.FromString / FromInt32, composite literals for
//     objects, arrays and maps, new(v) for pointers); a value that does not
//     fit the field's type is a load error at the marker's file:line:col;
//   - defaulting then recurses into the value (so a defaulted object gets its
//     own nested defaults): nested structs, inline embedded structs, pointers,
//     slice items and map values; in a package the user owns, not into a
//     struct field without a default of its own that the request's JSON
//     leaves out (kube defaults nothing below an absent object; Go holds a
//     zero struct there);
//   - after a value's fields, the hand-written SetDefaults_<Type>(obj *Type)
//     of its package is called, when declared, for every value of that type.
//
// Types from other group-versions reached through fields are defaulted by
// functions generated into this file (setDefaults_<group><version>_<Type>),
// which call those packages' own SetDefaults_ hooks.
package defaults

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dave/jennifer/jen"

	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/internal/typegraph"
	"github.com/kubeforge/kubeforge/generators/model"
)

// FileName is the name of the generated file in every generated/<g>/<v>.
const FileName = "zz_generated.defaults.go"

const (
	runtimePkg   = "k8s.io/apimachinery/pkg/runtime"
	presencePkg  = "github.com/kubeforge/kubeforge/runtime/presence"
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
	// asks holds the keys of the struct types whose functions take the
	// JSON's node: a field of theirs, or of a type below them, asks it.
	asks map[string]bool
	// names counts the variables of the function being written, by base
	// name: sibling loops each declare their own walk of the JSON.
	names typegraph.Names
}

func generateVersion(api *model.API, v *model.Version) (genall.File, error) {
	importPath, dir, pkgName := genall.GeneratedPackage(api, v)
	graph, err := typegraph.Build(v, "setDefaults_", "SetDefaults_")
	if err != nil {
		return genall.File{}, err
	}
	g := &gen{api: api, v: v, graph: graph, asks: map[string]bool{}}
	if err := graph.Grow(func(n *typegraph.Node) (bool, error) {
		body, err := g.nodeBody(n)
		return len(body) > 0, err
	}); err != nil {
		return genall.File{}, err
	}
	if !v.External {
		g.growAsks()
	}

	f := genall.NewFile(pkgName, importPath)
	f.ImportAlias(v.Package, v.PackageName)
	f.ImportAlias(metav1Pkg, "metav1")
	f.ImportName(presencePkg, "presence")
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
		call := func(in jen.Code) []jen.Code {
			switch {
			case g.asks[root.Key]:
				return []jen.Code{jen.Id(root.Fn).Call(jen.Id("obj"), in)}
			case g.graph.Needs[root.Key]:
				return []jen.Code{jen.Id(root.Fn).Call(jen.Id("obj"))}
			}
			return []jen.Code{jen.Comment("No +default markers or SetDefaults_ hooks apply to " + k.Name + ".")}
		}
		objParam := jen.Id("obj").Op("*").Qual(v.Package, k.Type.Name)
		f.Commentf("SetObjectDefaults_%s applies the +default markers and SetDefaults_ hooks to %s %s.", k.Name, genall.Article(k.Name), k.Name)
		if g.asks[root.Key] {
			f.Comment("Every zero field is defaulted: see SetObjectDefaultsFrom_" + k.Name + " for an object decoded from JSON.")
		}
		f.Func().Id("SetObjectDefaults_" + k.Name).Params(objParam).Block(call(jen.Qual(presencePkg, "Node").Values())...)
		f.Line()
		switch {
		case g.asks[root.Key]:
			f.Commentf("SetObjectDefaultsFrom_%s is SetObjectDefaults_%s for an object decoded from in: a zero", k.Name, k.Name)
			f.Comment("that in sets, in a field without omitempty, is kept, and nothing below an object in leaves")
			f.Comment("out is defaulted.")
		case v.External:
			f.Commentf("SetObjectDefaultsFrom_%s is SetObjectDefaults_%s: %s is a built-in kind, whose", k.Name, k.Name, k.Name)
			f.Comment("defaults apply to every zero, whatever the request's JSON (in) set.")
		default:
			f.Commentf("SetObjectDefaultsFrom_%s is SetObjectDefaults_%s: no default of %s depends", k.Name, k.Name, k.Name)
			f.Comment("on whether the request's JSON (in) set a zero.")
		}
		f.Func().Id("SetObjectDefaultsFrom_"+k.Name).Params(objParam, jen.Id("in").Qual(presencePkg, "Node")).Block(call(jen.Id("in"))...)
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
		params := []jen.Code{jen.Id("obj").Op("*").Qual(n.Pkg, n.Name)}
		if g.asks[n.Key] {
			f.Commentf("%s defaults %s %s; in is its JSON.", n.Fn, genall.Article(n.Name), n.Name)
			params = append(params, jen.Id("in").Qual(presencePkg, "Node"))
		} else {
			f.Commentf("%s defaults %s %s.", n.Fn, genall.Article(n.Name), n.Name)
		}
		f.Func().Id(n.Fn).Params(params...).Block(body...)
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
	g.names = typegraph.Names{}
	var in expr
	if g.asks[n.Key] {
		in = func() *jen.Statement { return jen.Id("in") }
	}
	var stmts []jen.Code
	for _, f := range n.Fields {
		s, err := g.field(f, obj, in)
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

// fieldDefault is the default that applies to f: its own, else its named
// type's.
func fieldDefault(f *model.Field) *model.Default {
	if f.Default == nil && f.Type != nil && f.Type.Kind == model.NamedRef && f.Type.Local != nil {
		return f.Type.Local.Default
	}
	return f.Default
}

// asksJSON reports whether f's default must ask the request's JSON: its
// zero is written (no omitempty) as a value, not null, so an explicit zero
// and an absent key differ in JSON and not in Go.
func asksJSON(f *model.Field, def *model.Default) bool {
	if def == nil || f.OmitEmpty || f.JSONName == "" {
		return false
	}
	switch def.Literal.Kind {
	case model.StringLit, model.BoolLit, model.IntLit, model.UintLit, model.FloatLit,
		model.DurationLit, model.QuantityLit, model.IntOrStringTextLit, model.IntOrStringIntLit, model.StructLit:
		return true
	}
	return false // nil pointers, slices and maps and the zero Time write null
}

// fieldIn is the node of f's value within its struct's node in: the
// struct's own for an inline field.
func fieldIn(f *model.Field, in expr) expr {
	if in == nil || f.JSONName == "" {
		return in
	}
	return func() *jen.Statement { return in().Dot("Field").Call(jen.Lit(f.JSONName)) }
}

func (g *gen) field(f *model.Field, obj, in expr) ([]jen.Code, error) {
	switch known(f.Type) {
	case "TypeMeta", "ObjectMeta", "ListMeta":
		return nil, nil
	}
	x := func() *jen.Statement { return obj().Dot(f.Name) }
	var stmts []jen.Code
	if def := fieldDefault(f); def != nil {
		lit, err := literal(def.Literal, false)
		if err != nil {
			return nil, fmt.Errorf("+default %s: %w", string(def.JSON), err)
		}
		cond := zero(def.Literal, x, f.OmitEmpty)
		if in != nil && asksJSON(f, def) {
			cond = jen.Add(cond).Op("&&").Op("!").Add(in()).Dot("Has").Call(jen.Lit(f.JSONName))
		}
		stmts = append(stmts, jen.If(cond).Block(x().Op("=").Add(lit)))
	}
	inner, err := g.value(f.Type, x, 0, fieldIn(f, in))
	if err != nil {
		return nil, err
	}
	if in != nil && len(inner) > 0 && g.guardsAbsence(f) {
		inner = []jen.Code{jen.If(jen.Op("!").Add(in()).Dot("Absent").Call(jen.Lit(f.JSONName))).Block(inner...)}
	}
	return append(stmts, inner...), nil
}

// guardsAbsence reports whether the defaults below f apply only when the
// request's JSON holds f's object: a struct field (not a pointer, which an
// absent key leaves nil) without a default of its own. kube-apiserver
// defaults nothing below an object a custom resource leaves out (a
// Shipment created without spec, a status a create drops); Go holds a
// zero struct there, whose fields' defaults would otherwise apply.
func (g *gen) guardsAbsence(f *model.Field) bool {
	if f.JSONName == "" || fieldDefault(f) != nil || f.Type == nil || f.Type.Kind != model.NamedRef {
		return false
	}
	n := g.graph.Struct(f.Type)
	return n != nil && g.graph.Needs[n.Key]
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
//
// in is x's node of the request's JSON, nil when nothing below x asks it.
func (g *gen) value(r *model.TypeRef, x expr, depth int, in expr) ([]jen.Code, error) {
	if r == nil || depth > maxNestDepth {
		return nil, nil
	}
	if in != nil && !g.refAsks(r) {
		in = nil
	}
	switch r.Kind {
	case model.PointerRef:
		var inner []jen.Code
		if n := g.graph.Struct(r.Elem); n != nil {
			if g.graph.Needs[n.Key] {
				inner = []jen.Code{g.call(n, x(), in)}
			}
		} else {
			var err error
			inner, err = g.value(r.Elem, func() *jen.Statement { return jen.Parens(jen.Op("*").Add(x())) }, depth+1, in) // (*p)[i]
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
		var items, item string
		if in != nil {
			items, item = g.names.Fresh("items"), g.names.Fresh("item")
		}
		var itemIn expr
		if in != nil {
			itemIn = func() *jen.Statement { return jen.Id(item) }
		}
		g.loop++
		inner, err := g.value(r.Elem, func() *jen.Statement { return x().Index(jen.Id(i)) }, depth+1, itemIn)
		g.loop--
		if err != nil || len(inner) == 0 {
			return nil, err
		}
		if in == nil {
			return []jen.Code{jen.For(jen.Id(i).Op(":=").Range().Add(x())).Block(inner...)}, nil
		}
		body := append([]jen.Code{jen.Id(item).Op(":=").Id(items).Dot("Next").Call()}, inner...)
		return []jen.Code{
			jen.Id(items).Op(":=").Add(in()).Dot("Items").Call(),
			jen.For(jen.Id(i).Op(":=").Range().Add(x())).Block(body...),
		}, nil
	case model.MapRef:
		k, v := g.loopVar("k"), g.loopVar("v")
		var members, member string
		if in != nil {
			members, member = g.names.Fresh("members"), g.names.Fresh("member")
		}
		var memberIn expr
		if in != nil {
			memberIn = func() *jen.Statement { return jen.Id(member) }
		}
		g.loop++
		elem := underlying(r.Elem)
		// Struct and array values are not addressable: default a copy and
		// store it back. Pointers, slices and maps share their insides.
		byValue := elem.Kind == model.ArrayRef || elem.Kind == model.NamedRef
		var inner []jen.Code
		var err error
		if byValue {
			inner, err = g.value(r.Elem, func() *jen.Statement { return jen.Id(v) }, depth+1, memberIn)
		} else {
			inner, err = g.value(r.Elem, func() *jen.Statement { return x().Index(jen.Id(k)) }, depth+1, memberIn)
		}
		g.loop--
		if err != nil || len(inner) == 0 {
			return nil, err
		}
		var pre []jen.Code
		if in != nil {
			// JSON keys are strings: a map with other keys has no
			// member to ask, and each value is defaulted as without JSON.
			key := jen.Qual(presencePkg, "Node").Values()
			switch shape := underlying(r.Key); {
			case r.Key != nil && r.Key.Kind == model.BuiltinRef && r.Key.Name == "string":
				key = jen.Id(members).Dot("Get").Call(jen.Id(k))
			case shape != nil && shape.Kind == model.BuiltinRef && shape.Name == "string":
				key = jen.Id(members).Dot("Get").Call(jen.String().Call(jen.Id(k)))
			}
			pre = []jen.Code{jen.Id(member).Op(":=").Add(key)}
		}
		body := append(pre, inner...)
		var loop *jen.Statement
		if byValue {
			body = append(body, x().Index(jen.Id(k)).Op("=").Id(v))
			loop = jen.For(jen.List(jen.Id(k), jen.Id(v)).Op(":=").Range().Add(x())).Block(body...)
		} else {
			loop = jen.For(jen.Id(k).Op(":=").Range().Add(x())).Block(body...)
		}
		if in == nil {
			return []jen.Code{loop}, nil
		}
		return []jen.Code{jen.Id(members).Op(":=").Add(in()).Dot("Members").Call(), loop}, nil
	case model.NamedRef:
		if n := g.graph.Struct(r); n != nil {
			if g.graph.Needs[n.Key] {
				return []jen.Code{g.call(n, jen.Op("&").Add(x()), in)}, nil
			}
			return nil, nil
		}
		if t := r.Local; t != nil && t.Underlying != nil {
			inner, err := g.value(t.Underlying, x, depth+1, in)
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

// call is the call of n's function on ptr, with in when n takes it.
func (g *gen) call(n *typegraph.Node, ptr *jen.Statement, in expr) jen.Code {
	if g.asks[n.Key] && in != nil {
		return jen.Id(n.Fn).Call(ptr, in())
	}
	if g.asks[n.Key] {
		return jen.Id(n.Fn).Call(ptr, jen.Qual(presencePkg, "Node").Values())
	}
	return jen.Id(n.Fn).Call(ptr)
}

// growAsks finds the struct types whose functions take the request's
// JSON: those with a field whose default asks it, and those above them.
func (g *gen) growAsks() {
	g.graph.Mark(g.asks, func(f *model.Field) bool { return asksJSON(f, fieldDefault(f)) || g.guardsAbsence(f) })
}

// refAsks reports whether defaulting a value of type r asks the JSON.
func (g *gen) refAsks(r *model.TypeRef) bool { return g.graph.Reaches(r, g.asks) }

// zero returns the condition under which the default lit applies to x.
// The model accepted lit only for fields whose zero value can be compared.
func zero(lit *model.Literal, x expr, omitEmpty bool) jen.Code {
	switch lit.Kind {
	case model.TimeLit:
		return x().Dot("IsZero").Call()
	case model.DurationLit:
		return x().Dot("Duration").Op("==").Lit(0)
	case model.QuantityLit:
		return x().Op("==").Parens(jen.Qual(resourcePkg, "Quantity").Values())
	case model.IntOrStringTextLit, model.IntOrStringIntLit:
		return x().Op("==").Parens(jen.Qual(intstrPkg, "IntOrString").Values())
	case model.RawLit:
		return x().Dot("Raw").Op("==").Nil().Op("&&").Add(x()).Dot("Object").Op("==").Nil()
	case model.ListLit, model.BytesLit, model.MapLit:
		if omitEmpty {
			return jen.Len(x()).Op("==").Lit(0)
		}
		return x().Op("==").Nil()
	case model.StringLit:
		return x().Op("==").Lit("")
	case model.BoolLit:
		return jen.Op("!").Add(x())
	case model.IntLit, model.UintLit, model.FloatLit:
		return x().Op("==").Lit(0)
	case model.StructLit:
		if !model.Comparable(underlying(lit.Type)) {
			// Lists or maps inside: zero as encoding/json's omitzero
			// sees it (nil, not empty, lists), so `status: {conditions:
			// []}` is not defaulted, as kube keeps a key it was sent.
			return jen.Qual("reflect", "ValueOf").Call(x()).Dot("IsZero").Call()
		}
		return x().Op("==").Parens(genall.TypeCode(underlying(lit.Type)).Values())
	}
	return x().Op("==").Nil() // PointerLit
}

// --- literals ------------------------------------------------------------------

// literal renders lit as a Go expression of its type. typed forces a typed
// expression (new(int32(1)) rather than an untyped constant).
func literal(lit *model.Literal, typed bool) (jen.Code, error) {
	r := lit.Type
	switch lit.Kind {
	case model.DurationLit:
		return jen.Qual(metav1Pkg, "Duration").Values(jen.Dict{jen.Id("Duration"): durationExpr(lit.Duration)}), nil
	case model.QuantityLit:
		// The model parsed it: MustParse cannot panic on this string.
		return jen.Qual(resourcePkg, "MustParse").Call(jen.Lit(lit.Text)), nil
	case model.IntOrStringTextLit:
		return jen.Qual(intstrPkg, "FromString").Call(jen.Lit(lit.Text)), nil
	case model.IntOrStringIntLit:
		return jen.Qual(intstrPkg, "FromInt32").Call(jen.Lit(int(lit.Int))), nil
	case model.TimeLit:
		t := lit.Time
		fn := "NewTime"
		if known(r) == "MicroTime" {
			fn = "NewMicroTime"
		}
		return jen.Qual(metav1Pkg, fn).Call(jen.Qual(timePkg, "Date").Call(
			jen.Lit(t.Year()), jen.Qual(timePkg, t.Month().String()), jen.Lit(t.Day()),
			jen.Lit(t.Hour()), jen.Lit(t.Minute()), jen.Lit(t.Second()), jen.Lit(t.Nanosecond()), jen.Qual(timePkg, "UTC"))), nil
	case model.RawLit:
		return jen.Qual(runtimePkg, "RawExtension").Values(jen.Dict{jen.Id("Raw"): jen.Index().Byte().Call(jen.Lit(lit.Text))}), nil
	case model.StructLit:
		dict := jen.Dict{}
		for _, f := range lit.Fields {
			fl, err := literal(f.Value, false)
			if err != nil {
				return nil, err
			}
			dict[jen.Id(f.Name)] = fl
		}
		return genall.TypeCode(r).Values(dict), nil
	case model.PointerLit:
		inner, err := literal(lit.Elem, true)
		if err != nil {
			return nil, err
		}
		if lit.Elem.Kind == model.StructLit {
			return jen.Op("&").Add(inner), nil
		}
		return jen.New(inner), nil
	case model.BytesLit:
		return genall.TypeCode(r).Call(jen.Lit(lit.Text)), nil
	case model.ListLit:
		var items []jen.Code
		for _, item := range lit.Items {
			il, err := literal(item, false)
			if err != nil {
				return nil, err
			}
			items = append(items, il)
		}
		return genall.TypeCode(r).Values(items...), nil
	case model.MapLit:
		dict := jen.Dict{}
		for i, k := range lit.Keys {
			kl, err := literal(k, false)
			if err != nil {
				return nil, err
			}
			vl, err := literal(lit.Items[i], false)
			if err != nil {
				return nil, err
			}
			dict[kl] = vl
		}
		return genall.TypeCode(r).Values(dict), nil
	case model.StringLit, model.BoolLit, model.IntLit, model.UintLit, model.FloatLit:
		u := underlying(r)
		s := scalar(lit, u.Name)
		if typed || (u != r && u.Name != "string" && u.Name != "bool") {
			return genall.TypeCode(r).Call(s), nil
		}
		return s, nil
	}
	return nil, fmt.Errorf("literal of kind %d for %s: the model converts no such default", lit.Kind, genall.Describe(r))
}

// scalar renders a string, bool or number literal; b is the builtin type.
func scalar(lit *model.Literal, b string) jen.Code {
	switch lit.Kind {
	case model.StringLit:
		return jen.Lit(lit.Text)
	case model.BoolLit:
		return jen.Lit(lit.Bool)
	case model.IntLit:
		return jen.Id(strconv.FormatInt(lit.Int, 10))
	case model.UintLit:
		return jen.Id(strconv.FormatUint(lit.Uint, 10))
	}
	size := 64
	if b == "float32" {
		size = 32
	}
	s := strconv.FormatFloat(lit.Float, 'g', -1, size)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return jen.Id(s)
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
