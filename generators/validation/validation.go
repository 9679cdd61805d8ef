// Package validation is the "validation" generator: for every group-version
// it writes generated/<group>/<version>/zz_generated.validation.go with
//
//	func Validate<Kind>(obj *T) field.ErrorList
//
// per kind, and one unexported function per named struct type reached from
// the kinds (validate_<Type>(obj *T, fldPath *field.Path) field.ErrorList),
// called from its parents.
//
// What is checked, in order, for every value:
//
//   - metadata (kinds only): validate.ObjectMeta (apimachinery's
//     ValidateObjectMeta, which it calls for any metadata its byte loops
//     find invalid) with the kind's name function (NameIsDNSSubdomain
//     unless the kind says otherwise), namespaced or not per the kind;
//     path "metadata".
//   - +required: a required field that is missing gets field.Required
//     ("Required value") and no other check. Missing means nil for pointers,
//     slices and maps (an absent key or null: [] is a value, as in a CRD),
//     the zero value for metav1.Time and MicroTime (written as null), and
//     "" for strings, the zero Duration, Quantity and IntOrString, and 0 or
//     false for numbers and booleans with an explicit +required marker
//     (without one they are values); structs never (their fields are
//     checked). A field without omitempty writes those zeros as values, so
//     Validate<Kind>From asks the request's JSON (runtime/presence) whether
//     its key was there: an explicit "" or 0 is then a value, checked by the
//     field's other markers, as kube-apiserver checks a custom resource.
//   - an optional field with omitempty that is zero is absent from the JSON
//     and, as in Kubernetes, not validated further.
//   - the validation markers (model.Validation). The user's kinds get
//     kube-apiserver's words for a custom resource ("spec.size in body
//     should be ...", map values at spec.m.key), built-in kinds those of
//     kube's declarative validation ("must be ..."); a string of the
//     user's kinds gets only the first of MaxLength, MinLength and Pattern
//     that fails, as kube-openapi's string check stops there. Scalar markers
//     (lengths, pattern, enum, format, bounds) on a slice or map field apply
//     to its items/values; item and property markers to the collection.
//     The +kubebuilder:validation:items:* markers (Validation.Items) apply
//     to each item of a list, at its index (spec.tags[1]), before the
//     list's own scalar markers.
//   - MinProperties and MaxProperties on a struct count the JSON fields it
//     writes (omitempty ones when set, inline structs' fields flattened).
//   - listType=set and UniqueItems: field.Duplicate at the repeated index;
//     listType=map: field.Duplicate at the key of the repeated item.
//   - recursion through structs, pointers, slices (spec.parcels[1].count),
//     maps (spec.openingHours[mon].open, keys visited in sorted order so the
//     error list is deterministic) and inline embedded structs (flattened
//     into the parent path).
//   - then the hand-written hook Validate_<Type>(obj *<Type>, fldPath
//     *field.Path) from the type's package, when declared, for every value
//     of that type. For a kind the hook gets the root path, which is nil:
//     fldPath.Child("spec") is then "spec".
//
// Types from other group-versions are validated by functions generated into
// this file too (validate_<group><version>_<Type>), calling their own hooks.
package validation

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/kubeforge/kubeforge/generators/builtinstrategy"
	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/internal/typegraph"
	"github.com/kubeforge/kubeforge/generators/model"
)

// FileName is the name of the generated file in every generated/<g>/<v>.
const FileName = "zz_generated.validation.go"

const (
	fieldPkg     = "k8s.io/apimachinery/pkg/util/validation/field"
	apiValPkg    = "k8s.io/apimachinery/pkg/api/validation"
	pathValPkg   = "k8s.io/apimachinery/pkg/api/validation/path"
	builtinPkg   = "github.com/kubeforge/kubeforge/runtime/builtin"
	validatePkg  = "github.com/kubeforge/kubeforge/runtime/validate"
	metav1Pkg    = "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcePkg  = "k8s.io/apimachinery/pkg/api/resource"
	intstrPkg    = "k8s.io/apimachinery/pkg/util/intstr"
	utf8Pkg      = "unicode/utf8"
	mathPkg      = "math"
	slicesPkg    = "slices"
	mapsPkg      = "maps"
	fmtPkg       = "fmt"
	presencePkg  = "github.com/kubeforge/kubeforge/runtime/presence"
	maxNestDepth = typegraph.MaxDepth
)

// Generator is the validation generator.
type Generator struct{}

// New returns the validation generator.
func New() *Generator { return &Generator{} }

// Name implements genall.Generator.
func (*Generator) Name() string { return "validation" }

// Generate implements genall.Generator: one file per group-version that
// declares at least one kind.
func (*Generator) Generate(api *model.API) ([]genall.File, error) {
	return genall.PerVersion(api, "validation", generateVersion)
}

type gen struct {
	api   *model.API
	v     *model.Version
	graph *typegraph.Graph

	patterns    map[string]string // pattern -> var name
	patternVars map[string]bool
	patternList []string

	loop int // nesting of generated loops, for variable names

	// hooksOnly walks to the hand-written Validate_ hooks and checks no
	// marker: Validate<Kind>Hooks, what the storage version runs on an
	// object written through another served version (which that version's
	// own markers validated).
	hooksOnly bool

	// asks holds the keys of the struct types whose functions take the
	// request's JSON (in presence.Node): a required field of theirs, or
	// of a type below them, asks it whether its zero was sent.
	asks map[string]bool
	// names counts the variables of the function being written.
	names typegraph.Names
}

func generateVersion(api *model.API, v *model.Version) (genall.File, error) {
	importPath, dir, pkgName := genall.GeneratedPackage(api, v)
	g, hg, err := buildGraphs(api, v)
	if err != nil {
		return genall.File{}, err
	}

	g.resetPatterns()
	f := genall.NewFile(pkgName, importPath)
	f.ImportAlias(v.Package, v.PackageName)
	f.ImportAlias(metav1Pkg, "metav1")
	f.ImportAlias(apiValPkg, "apivalidation")
	for _, gr := range api.Groups {
		for _, ov := range gr.Versions {
			if ov != v {
				f.ImportAlias(ov.Package, gr.Short+ov.Name)
			}
		}
	}

	var decls []jen.Code
	for _, k := range v.Kinds {
		decls = append(decls, kindFuncs(k, g, hg)...)
	}
	// Node bodies register the patterns they use, so they are built before
	// the pattern variables are written above them.
	for _, gg := range []*gen{g, hg} {
		nodes, err := gg.nodeFuncs()
		if err != nil {
			return genall.File{}, err
		}
		decls = append(decls, nodes...)
	}

	if len(g.patternList) > 0 {
		var defs []jen.Code
		for _, p := range g.patternList {
			// Compiled at generation time too, so MustCompile cannot panic.
			defs = append(defs, jen.Id(g.patterns[p]).Op("=").Qual("regexp", "MustCompile").Call(jen.Lit(p)))
		}
		f.Comment("Patterns of +kubebuilder:validation:Pattern, compiled once (checked at generation time).")
		f.Var().Defs(defs...)
		f.Line()
	}
	for _, d := range decls {
		f.Add(d)
	}

	var buf strings.Builder
	if err := f.Render(&buf); err != nil {
		return genall.File{}, fmt.Errorf("render %s: %w", FileName, err)
	}
	return genall.File{Path: dir + "/" + FileName, Content: []byte(buf.String())}, nil
}

// buildGraphs returns the generator of marker checks and hooks (g) and the
// generator of hooks only (hg), each over its grown type graph.
func buildGraphs(api *model.API, v *model.Version) (g, hg *gen, err error) {
	graph, err := typegraph.Build(v, "validate_", "Validate_")
	if err != nil {
		return nil, nil, err
	}
	g = &gen{api: api, v: v, graph: graph, asks: map[string]bool{}}
	if !v.External {
		// A struct whose only check is a required number or boolean
		// asking the JSON (asksAbsent) needs its function for that alone.
		for _, n := range graph.Order {
			for _, f := range n.Fields {
				if f.Type != nil && asksAbsent(f, resolve(f.Type)) {
					g.asks[n.Key] = true
				}
			}
		}
	}

	// Fixed point: a node needs a function when it (or anything it reaches)
	// has something to check. Start from "nothing" and grow.
	if err := graph.Grow(func(n *typegraph.Node) (bool, error) {
		g.resetPatterns()
		body, err := g.nodeBody(n)
		return len(body) > 0, err
	}); err != nil {
		return nil, nil, err
	}
	if !v.External {
		g.growAsks()
	}
	hookGraph, err := typegraph.Build(v, "validateHooks_", "Validate_")
	if err != nil {
		return nil, nil, err
	}
	hg = &gen{api: api, v: v, graph: hookGraph, hooksOnly: true, asks: map[string]bool{}}
	if err := hookGraph.Grow(func(n *typegraph.Node) (bool, error) {
		body, err := hg.nodeBody(n)
		return len(body) > 0, err
	}); err != nil {
		return nil, nil, err
	}
	return g, hg, nil
}

// kindFuncs returns Validate<Kind> (metadata, markers and hooks, from g) and
// Validate<Kind>Hooks (hooks only, from hg) of kind k.
func kindFuncs(k *model.Kind, g, hg *gen) []jen.Code {
	v := g.v
	root := g.graph.Nodes[v.Package+"."+k.Type.Name]
	stmts := []jen.Code{
		jen.Id("errs").Op(":=").Qual(validatePkg, "ObjectMeta").Call(
			jen.Op("&").Id("obj").Dot("ObjectMeta"), jen.Lit(k.Namespaced),
			nameFunc(k), jen.Qual(fieldPkg, "NewPath").Call(jen.Lit("metadata"))),
	}
	if g.graph.Needs[root.Key] {
		stmts = append(stmts, appendAll(g.call(root, jen.Id("obj"), jen.Nil(), func() *jen.Statement { return jen.Id("in") })))
	}
	builtinCheck := builtinstrategy.For(k).Validate
	if builtinCheck != "" {
		stmts = append(stmts, appendAll(jen.Qual(builtinPkg, builtinCheck).Call(jen.Id("obj"))))
	}
	stmts = append(stmts, jen.Return(jen.Id("errs")))
	scope := "cluster-scoped"
	if k.Namespaced {
		scope = "namespaced"
	}
	objParam := jen.Id("obj").Op("*").Qual(v.Package, k.Type.Name)
	decls := []jen.Code{
		jen.Commentf("Validate%s validates %s %s: its metadata (a %s object named as a %s),", k.Name, genall.Article(k.Name), k.Name, scope, nameText(k)),
		jen.Comment("every validation marker and the hand-written Validate_ hooks. Error paths start at the"),
		jen.Comment("object's root (spec.parcels[1].count). A required field that is zero is missing."),
		jen.Func().Id("Validate"+k.Name).Params(objParam).
			Qual(fieldPkg, "ErrorList").Block(jen.Return(jen.Id("Validate"+k.Name+"From").Call(jen.Id("obj"), jen.Qual(presencePkg, "Node").Values()))),
		jen.Line(),
	}
	if g.asks[root.Key] {
		decls = append(decls,
			jen.Commentf("Validate%sFrom is Validate%s for an object decoded from in: a required field", k.Name, k.Name),
			jen.Comment("without omitempty is missing only when in has no key for it (or null), as in a CRD, so"),
			jen.Comment("an explicit \"\" or 0 is a value, checked by the field's other markers."))
	} else if v.External {
		decls = append(decls,
			jen.Commentf("Validate%sFrom is Validate%s: %s is a built-in kind, checked as kube-apiserver", k.Name, k.Name, k.Name),
			jen.Comment("checks it, whatever the request's JSON (in) holds."))
	} else {
		decls = append(decls,
			jen.Commentf("Validate%sFrom is Validate%s: no required field of %s can be set to its zero", k.Name, k.Name, k.Name),
			jen.Comment("in JSON apart from leaving it out, so in is not asked."))
	}
	decls = append(decls,
		jen.Func().Id("Validate"+k.Name+"From").Params(objParam, jen.Id("in").Qual(presencePkg, "Node")).
			Qual(fieldPkg, "ErrorList").Block(stmts...),
		jen.Line(),
	)
	if up := builtinstrategy.For(k).ValidateUpdate; up != "" {
		decls = append(decls, updateFunc(k, g, up)...)
	}
	if builtinstrategy.For(k).ValidateOwnVersionOnly {
		builtinCheck = ""
	}
	hookRoot := hg.graph.Nodes[v.Package+"."+k.Type.Name]
	hookBody := []jen.Code{jen.Return(jen.Nil())}
	switch {
	case hg.graph.Needs[hookRoot.Key] && builtinCheck != "":
		hookBody = []jen.Code{
			jen.Id("errs").Op(":=").Id(hookRoot.Fn).Call(jen.Id("obj"), jen.Nil()),
			appendAll(jen.Qual(builtinPkg, builtinCheck).Call(jen.Id("obj"))),
			jen.Return(jen.Id("errs")),
		}
	case hg.graph.Needs[hookRoot.Key]:
		hookBody = []jen.Code{jen.Return(jen.Id(hookRoot.Fn).Call(jen.Id("obj"), jen.Nil()))}
	case builtinCheck != "":
		hookBody = []jen.Code{jen.Return(jen.Qual(builtinPkg, builtinCheck).Call(jen.Id("obj")))}
	}
	return append(decls,
		jen.Commentf("Validate%sHooks runs only the hand-written Validate_ hooks of %s %s: what the", k.Name, genall.Article(k.Name), k.Name),
		jen.Comment("storage version checks on an object written through another served version, whose own"),
		jen.Comment("markers validated it."),
		jen.Func().Id("Validate"+k.Name+"Hooks").Params(jen.Id("obj").Op("*").Qual(v.Package, k.Type.Name)).
			Qual(fieldPkg, "ErrorList").Block(hookBody...),
		jen.Line(),
	)
}

// updateFunc returns Validate<Kind>Update: metadata (its name only as a
// path segment: names cannot change on update, and kube does not check
// them again) and the kind's hand-written update check up (runtime/builtin),
// which is the whole of kube's update validation of the kind: the markers,
// which stand in for kube's create validation, are not checked.
func updateFunc(k *model.Kind, g *gen, up string) []jen.Code {
	v := g.v
	stmts := []jen.Code{
		jen.Id("errs").Op(":=").Qual(validatePkg, "ObjectMeta").Call(
			jen.Op("&").Id("obj").Dot("ObjectMeta"), jen.Lit(k.Namespaced),
			jen.Qual(pathValPkg, "ValidatePathSegmentName"), jen.Qual(fieldPkg, "NewPath").Call(jen.Lit("metadata"))),
	}
	stmts = append(stmts, appendAll(jen.Qual(builtinPkg, up).Call(jen.Id("obj"), jen.Id("old"))), jen.Return(jen.Id("errs")))
	t := jen.Op("*").Qual(v.Package, k.Type.Name)
	return []jen.Code{
		jen.Commentf("Validate%sUpdate validates an update of %s %s as kube-apiserver does, which", k.Name, genall.Article(k.Name), k.Name),
		jen.Comment("differs from a create: its metadata and kube's update checks (not the markers)."),
		jen.Func().Id("Validate"+k.Name+"Update").Params(jen.Id("obj"), jen.Id("old").Add(t)).
			Qual(fieldPkg, "ErrorList").Block(stmts...),
		jen.Line(),
	}
}

// nodeFuncs returns one function per type node that has something to
// check: validate_<Type>, or validateHooks_<Type> when hooksOnly.
func (g *gen) nodeFuncs() ([]jen.Code, error) {
	var decls []jen.Code
	for _, n := range g.graph.Order {
		if !g.graph.Needs[n.Key] {
			continue
		}
		body, err := g.nodeBody(n)
		if err != nil {
			return nil, err
		}
		stmts := append([]jen.Code{jen.Var().Id("errs").Qual(fieldPkg, "ErrorList")}, body...)
		stmts = append(stmts, jen.Return(jen.Id("errs")))
		doc := jen.Commentf("%s validates %s %s at fldPath.", n.Fn, genall.Article(n.Name), n.Name)
		if g.hooksOnly {
			doc = jen.Commentf("%s runs the Validate_ hooks of %s %s at fldPath.", n.Fn, genall.Article(n.Name), n.Name)
		}
		params := []jen.Code{
			jen.Id("obj").Op("*").Qual(n.Pkg, n.Name),
			jen.Id("fldPath").Op("*").Qual(fieldPkg, "Path"),
		}
		if g.asks[n.Key] {
			params = append(params, jen.Id("in").Qual(presencePkg, "Node"))
			doc = jen.Commentf("%s validates %s %s at fldPath; in is its JSON.", n.Fn, genall.Article(n.Name), n.Name)
		}
		decls = append(decls,
			doc,
			jen.Func().Id(n.Fn).Params(params...).Qual(fieldPkg, "ErrorList").Block(stmts...),
			jen.Line(),
		)
	}
	return decls, nil
}

func (g *gen) resetPatterns() {
	g.patterns = map[string]string{}
	g.patternVars = map[string]bool{}
	g.patternList = nil
}

func appendAll(call jen.Code) jen.Code {
	return jen.Id("errs").Op("=").Append(jen.Id("errs"), jen.Add(call).Op("..."))
}

func appendOne(call jen.Code) jen.Code {
	return jen.Id("errs").Op("=").Append(jen.Id("errs"), call)
}

// crd reports whether failed checks speak as kube-apiserver's schema
// check of a custom resource does ("spec.size in body should be ...",
// map values at spec.m.key): true for the user's kinds, which are served
// as CRDs would be; false for built-in kinds, whose words are kube's
// declarative validation's ("must be ...").
func (g *gen) crd() bool { return !g.v.External }

// invalid is the Invalid error of a failed check of value at path: crd
// says "<path> in body " + crdDetail, a built-in kind plainDetail.
func (g *gen) invalid(path func() *jen.Statement, value jen.Code, crdDetail, plainDetail string) jen.Code {
	if g.crd() {
		return jen.Qual(validatePkg, "InBody").Call(path(), value, jen.Lit(crdDetail))
	}
	return jen.Qual(fieldPkg, "Invalid").Call(path(), value, jen.Lit(plainDetail))
}

// --- shapes ----------------------------------------------------------------

// resolved is a type reference with named non-struct types looked through.
type resolved struct {
	ref     *model.TypeRef // the shape: builtin, pointer, slice, map, array, or a struct/known named ref
	named   *model.TypeRef // the named ref we looked through, if any (outermost)
	val     model.Validation
	hookPkg string // package with Validate_<hookName>
	hook    string
}

// resolve looks through named non-struct types (type Size string, type Tags
// []string), collecting their validation markers and hooks.
func resolve(r *model.TypeRef) resolved {
	shape, named := r.LookThrough()
	res := resolved{ref: shape, named: named}
	if named != nil && named.Local != nil {
		t := named.Local
		res.val = t.Validation
		if t.Version != nil && t.Version.Funcs["Validate_"+t.Name] {
			res.hookPkg, res.hook = named.Package, "Validate_"+t.Name
		}
	}
	return res
}

func isInt(b string) bool {
	switch b {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "byte", "rune":
		return true
	}
	return false
}

func isFloat(b string) bool { return b == "float32" || b == "float64" }

func intRange(b string) (lo, hi float64) {
	switch b {
	case "int8":
		return math.MinInt8, math.MaxInt8
	case "int16":
		return math.MinInt16, math.MaxInt16
	case "int32", "rune":
		return math.MinInt32, math.MaxInt32
	case "uint8", "byte":
		return 0, math.MaxUint8
	case "uint16":
		return 0, math.MaxUint16
	case "uint32":
		return 0, math.MaxUint32
	case "uint", "uint64", "uintptr":
		return 0, 1 << 53
	default:
		return -(1 << 53), 1 << 53
	}
}

func known(r *model.TypeRef) string {
	if r != nil && r.Kind == model.NamedRef && r.External != nil {
		return r.External.Known
	}
	return ""
}

func explicitRequired(f *model.Field) bool {
	return f.Markers.Has("required") || f.Markers.Has("kubebuilder:validation:Required")
}

// zero returns the condition "x is the zero value" for shapes where zero
// means "not set", or nil. forRequired drops numbers and booleans unless the
// field is explicitly +required.
func zero(r resolved, x func() *jen.Statement, numbersAndBools bool) jen.Code {
	ref := r.ref
	switch ref.Kind {
	case model.PointerRef:
		return x().Op("==").Nil()
	case model.SliceRef, model.MapRef:
		// nil is an absent key or null; [] and {} are values (a CRD's
		// required list is satisfied by [], and minItems judges it).
		return x().Op("==").Nil()
	case model.BuiltinRef:
		switch {
		case ref.Name == "string":
			return x().Op("==").Lit("")
		case ref.Name == "bool" && numbersAndBools:
			return jen.Op("!").Add(x())
		case (isInt(ref.Name) || isFloat(ref.Name)) && numbersAndBools:
			return x().Op("==").Lit(0)
		}
	case model.NamedRef:
		switch known(ref) {
		case "Time", "MicroTime":
			return x().Dot("IsZero").Call()
		case "Duration":
			return x().Dot("Duration").Op("==").Lit(0)
		case "Quantity":
			return x().Op("==").Parens(jen.Qual(resourcePkg, "Quantity").Values())
		case "IntOrString":
			return x().Op("==").Parens(jen.Qual(intstrPkg, "IntOrString").Values())
		case "RawExtension":
			return x().Dot("Raw").Op("==").Nil().Op("&&").Add(x()).Dot("Object").Op("==").Nil()
		}
	}
	return nil
}

// nonZero is the negation of zero (numbers and booleans included).
func nonZero(r resolved, x func() *jen.Statement) jen.Code {
	ref := r.ref
	switch ref.Kind {
	case model.PointerRef:
		return x().Op("!=").Nil()
	case model.SliceRef, model.MapRef:
		return jen.Len(x()).Op("!=").Lit(0)
	case model.BuiltinRef:
		switch {
		case ref.Name == "string":
			return x().Op("!=").Lit("")
		case ref.Name == "bool":
			return x()
		case isInt(ref.Name) || isFloat(ref.Name):
			return x().Op("!=").Lit(0)
		}
	case model.NamedRef:
		switch known(ref) {
		case "Time", "MicroTime":
			return jen.Op("!").Add(x()).Dot("IsZero").Call()
		case "Duration":
			return x().Dot("Duration").Op("!=").Lit(0)
		case "Quantity":
			return x().Op("!=").Parens(jen.Qual(resourcePkg, "Quantity").Values())
		case "IntOrString":
			return x().Op("!=").Parens(jen.Qual(intstrPkg, "IntOrString").Values())
		}
	}
	return nil
}

// --- node bodies ------------------------------------------------------------

func (g *gen) nodeBody(n *typegraph.Node) ([]jen.Code, error) {
	obj := func() *jen.Statement { return jen.Id("obj") }
	path := func() *jen.Statement { return jen.Id("fldPath") }
	g.names = typegraph.Names{}
	var in expr
	if g.asks[n.Key] {
		in = func() *jen.Statement { return jen.Id("in") }
	}
	stmts, err := g.fields(n.Name, n.Fields, obj, path, in)
	if err != nil {
		return nil, err
	}
	if n.Hook {
		stmts = append(stmts, appendAll(jen.Qual(n.Pkg, "Validate_"+n.Name).Call(jen.Id("obj"), jen.Id("fldPath"))))
	}
	return stmts, nil
}

func (g *gen) fields(typeName string, fields []*model.Field, obj, path func() *jen.Statement, in expr) ([]jen.Code, error) {
	var stmts []jen.Code
	for _, f := range fields {
		s, err := g.field(f, obj, path, in)
		if err != nil {
			return nil, fmt.Errorf("field %s.%s: %w", typeName, f.Name, err)
		}
		stmts = append(stmts, s...)
	}
	return stmts, nil
}

func (g *gen) field(f *model.Field, obj, parent func() *jen.Statement, in expr) ([]jen.Code, error) {
	switch known(f.Type) {
	case "TypeMeta", "ObjectMeta", "ListMeta":
		return nil, nil // metadata is checked by Validate<Kind>
	}
	x := func() *jen.Statement { return obj().Dot(f.Name) }
	path := parent
	if !(f.Inline || f.Embedded) || f.JSONName != "" {
		path = func() *jen.Statement { return parent().Dot("Child").Call(jen.Lit(f.JSONName)) }
	}
	r := resolve(f.Type)
	val := model.MergeValidation(f.Validation, r.val)
	checks, err := g.value(r, val, f, x, path, fieldIn(f, in))
	if err != nil {
		return nil, err
	}
	if in != nil && structField(f, r) {
		return g.structFieldChecks(f, r, x, path, in, checks), nil
	}
	var req jen.Code
	if f.Required && !g.hooksOnly {
		req = zero(r, x, explicitRequired(f))
		if req != nil && in != nil && asksJSON(f, r) {
			req = jen.Add(req).Op("&&").Op("!").Add(in()).Dot("Has").Call(jen.Lit(f.JSONName))
		} else if req == nil && in != nil && asksAbsent(f, r) {
			// A required number or boolean: its zero is a value, and
			// missing only when the request's JSON lacks the key.
			req = jen.Add(zero(r, x, true)).Op("&&").Add(in()).Dot("Absent").Call(jen.Lit(f.JSONName))
		}
	}
	if req != nil {
		stmt := jen.If(req).Block(appendOne(jen.Qual(fieldPkg, "Required").Call(path(), jen.Lit(""))))
		if len(checks) > 0 {
			stmt = stmt.Else().Block(checks...)
		}
		return []jen.Code{stmt}, nil
	}
	if len(checks) == 0 {
		return nil, nil
	}
	if f.OmitEmpty && r.ref.Kind != model.PointerRef {
		if nz := nonZero(r, x); nz != nil {
			if in != nil && asksZero(f, r, val) {
				nz = jen.Add(nz).Op("||").Add(in()).Dot("Sent").Call(jen.Lit(f.JSONName))
			}
			return []jen.Code{jen.If(nz).Block(checks...)}, nil
		}
	}
	return checks, nil
}

// structField reports whether f holds a struct by value (not inline, not
// one of the known opaque types): kube-apiserver checks an object's
// contents only where the JSON holds it, and Go holds a zero struct where
// the key was absent.
func structField(f *model.Field, r resolved) bool {
	if f.JSONName == "" || f.Inline || r.ref.Kind != model.NamedRef || known(r.ref) != "" {
		return false
	}
	if l := r.ref.Local; l != nil {
		return l.Kind == model.StructKind
	}
	return r.ref.External != nil && r.ref.External.Fields != nil
}

// structFieldChecks checks a struct field where the object holds it: an
// absent `status` (a create drops it) or `spec` has no Required fields
// below it, as in kube-apiserver, which sees no object there; a required
// one is Required itself. Present means: without omitempty, not absent
// from the JSON (Go writes it always); with omitempty, not zero, or sent
// (an explicit `spec: {}` is checked).
func (g *gen) structFieldChecks(f *model.Field, r resolved, x, path, in expr, checks []jen.Code) []jen.Code {
	absent := in().Dot("Absent").Call(jen.Lit(f.JSONName))
	var present jen.Code = jen.Op("!").Add(absent)
	if f.OmitEmpty {
		present = jen.Add(nonZeroStruct(r, x)).Op("||").Add(in()).Dot("Sent").Call(jen.Lit(f.JSONName))
	}
	if f.Required && !g.hooksOnly {
		missing := jen.Add(absent)
		if f.OmitEmpty {
			missing = jen.Op("!").Parens(nonZeroStruct(r, x)).Op("&&").Add(absent)
		}
		stmt := jen.If(missing).Block(appendOne(jen.Qual(fieldPkg, "Required").Call(path(), jen.Lit(""))))
		switch {
		case len(checks) == 0:
		case f.OmitEmpty:
			stmt = stmt.Else().If(present).Block(checks...)
		default: // present is "not missing"
			stmt = stmt.Else().Block(checks...)
		}
		return []jen.Code{stmt}
	}
	if len(checks) == 0 {
		return nil
	}
	return []jen.Code{jen.If(present).Block(checks...)}
}

// nonZeroStruct is "the struct x is not its zero value": == where Go can
// compare it, else reflect's IsZero (nil, not empty, lists).
func nonZeroStruct(r resolved, x expr) jen.Code {
	if model.Comparable(r.ref) {
		return x().Op("!=").Parens(genall.TypeCode(r.ref).Values())
	}
	return jen.Op("!").Qual("reflect", "ValueOf").Call(x()).Dot("IsZero").Call()
}

// asksZero reports whether the zero of f, an omitempty field, asks the
// request's JSON: Go writes no zero of it, so an explicit "", 0, [] or {}
// is known only from the JSON, and kube-apiserver checks it against the
// markers a zero can fail (a minimum, an enum without "", a pattern, a
// format, a minimum length or count).
func asksZero(f *model.Field, r resolved, val model.Validation) bool {
	if !f.OmitEmpty || f.JSONName == "" || r.ref.Kind == model.PointerRef {
		return false
	}
	positive := func(p *int64) bool { return p != nil && *p > 0 }
	switch r.ref.Kind {
	case model.SliceRef, model.ArrayRef:
		return positive(val.MinItems)
	case model.MapRef:
		return positive(val.MinProperties)
	case model.BuiltinRef, model.NamedRef:
		return val.Minimum != nil || val.Maximum != nil || positive(val.MinLength) ||
			val.Pattern != "" || len(val.Enum) > 0 || val.Format != ""
	}
	return false
}

// expr is a generated expression.
type expr = func() *jen.Statement

// asksJSON reports whether the required check of f asks the request's
// JSON: f has no omitempty, so Go writes its zero as a value ("", 0,
// false, "0s", "0"), and only the JSON tells an explicit zero from an
// absent key. (Nil pointers, slices and maps and the zero Time write null,
// which is missing in JSON too.)
func asksJSON(f *model.Field, r resolved) bool {
	if f.OmitEmpty || f.JSONName == "" || !f.Required {
		return false
	}
	switch r.ref.Kind {
	case model.BuiltinRef:
		return true
	case model.NamedRef:
		switch known(r.ref) {
		case "Duration", "Quantity", "IntOrString":
			return true
		}
	}
	return false
}

// asksAbsent reports whether the required check of f, a number or
// boolean without +required and without a default, asks the request's
// JSON whether the key is missing (kube's Required), its zero being a value
// otherwise. A default fills a missing key before validation.
func asksAbsent(f *model.Field, r resolved) bool {
	if explicitRequired(f) || !asksJSON(f, r) || f.Default != nil || r.ref.Kind != model.BuiltinRef {
		return false
	}
	if r.named != nil && r.named.Local != nil && r.named.Local.Default != nil {
		return false
	}
	return zero(r, func() *jen.Statement { return jen.Id("x") }, true) != nil
}

// fieldIn is the node of f's value within its struct's node in: the
// struct's own for an inline field.
func fieldIn(f *model.Field, in expr) expr {
	if in == nil || (f.JSONName == "" && (f.Inline || f.Embedded)) {
		return in
	}
	return func() *jen.Statement { return in().Dot("Field").Call(jen.Lit(f.JSONName)) }
}

// call is the call of n's function on ptr at path, with in when n takes
// it (the zero Node when the caller has none).
func (g *gen) call(n *typegraph.Node, ptr, path jen.Code, in expr) jen.Code {
	if !g.asks[n.Key] {
		return jen.Id(n.Fn).Call(ptr, path)
	}
	if in == nil {
		return jen.Id(n.Fn).Call(ptr, path, jen.Qual(presencePkg, "Node").Values())
	}
	return jen.Id(n.Fn).Call(ptr, path, in())
}

// growAsks finds the struct types whose functions take the request's JSON:
// those with a required field whose check asks it, or an omitempty field
// whose zero can fail its markers (asksZero), and those above them.
func (g *gen) growAsks() {
	x := func() *jen.Statement { return jen.Id("x") }
	g.graph.Mark(g.asks, func(f *model.Field) bool {
		r := resolve(f.Type)
		if asksZero(f, r, model.MergeValidation(f.Validation, r.val)) && nonZero(r, x) != nil || asksAbsent(f, r) || structField(f, r) {
			return true
		}
		return asksJSON(f, r) && zero(r, x, explicitRequired(f)) != nil
	})
}

// refAsks reports whether checking a value of type r asks the JSON.
func (g *gen) refAsks(r *model.TypeRef) bool { return g.graph.Reaches(r, g.asks) }

// scalarOnly keeps the markers that apply to a scalar value.
func scalarOnly(v model.Validation) model.Validation {
	return model.Validation{
		Minimum: v.Minimum, Maximum: v.Maximum, ExclusiveMinimum: v.ExclusiveMinimum, ExclusiveMaximum: v.ExclusiveMaximum,
		MultipleOf: v.MultipleOf, MinLength: v.MinLength, MaxLength: v.MaxLength, Pattern: v.Pattern, Enum: v.Enum, Format: v.Format,
	}
}

// value returns the checks of one value x (of shape r) at path. f is the
// field the value belongs to (for list types), or nil for nested items.
//
// in is x's node of the request's JSON, nil when nothing below x asks it.
func (g *gen) value(r resolved, val model.Validation, f *model.Field, x, path func() *jen.Statement, in expr) ([]jen.Code, error) {
	var stmts []jen.Code
	ref := r.ref
	if in != nil && !g.refAsks(ref) {
		in = nil
	}
	switch ref.Kind {
	case model.PointerRef:
		er := resolve(ref.Elem)
		var inner []jen.Code
		if n := g.graph.Struct(er.ref); n != nil {
			inner = g.structProperties(n, val, x, path) // x.f reads through the pointer
			// A pointer to a struct is passed on as is.
			if g.graph.Needs[n.Key] {
				inner = append(inner, appendAll(g.call(n, x(), path(), in)))
			}
		} else {
			var err error
			inner, err = g.value(er, model.MergeValidation(val, er.val), f, deref(er.ref, x), path, in) // still f's value
			if err != nil {
				return nil, err
			}
		}
		if len(inner) > 0 {
			stmts = append(stmts, jen.If(x().Op("!=").Nil()).Block(inner...))
		}
	case model.SliceRef, model.ArrayRef:
		if ref.Kind == model.SliceRef && ref.Elem != nil && ref.Elem.Kind == model.BuiltinRef && ref.Elem.Name == "byte" {
			break // []byte is a base64 string in JSON
		}
		s, err := g.list(r, val, f, x, path, in)
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, s...)
	case model.MapRef:
		s, err := g.mapValue(r, val, x, path, in)
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, s...)
	case model.BuiltinRef:
		s, err := g.scalar(r, val, x, path)
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, s...)
	case model.NamedRef:
		if n := g.graph.Struct(ref); n != nil {
			stmts = append(stmts, g.structProperties(n, val, x, path)...)
			if g.graph.Needs[n.Key] {
				stmts = append(stmts, appendAll(g.call(n, addr(x), path(), in)))
			}
			return stmts, nil
		}
		// Well-known external types (Time, Quantity, IntOrString, ...) carry
		// their own JSON form; only +required applies to them, but a
		// RawExtension of the user's kinds is an object in the CRD
		// controller-gen writes, which kube checks.
		if known(ref) == "RawExtension" && !g.v.External && !g.hooksOnly {
			embedded := f != nil && f.EmbeddedResource
			stmts = append(stmts, appendAll(jen.Qual(validatePkg, "RawObject").Call(path(), x().Dot("Raw"), jen.Lit(embedded))))
		}
	}
	if r.hook != "" {
		stmts = append(stmts, appendAll(jen.Qual(r.hookPkg, r.hook).Call(addr(x), path())))
	}
	return stmts, nil
}

// structProperties checks MinProperties and MaxProperties on the struct x
// (of node n): the JSON fields it writes, omitempty ones only when set,
// inline structs' fields flattened in.
func (g *gen) structProperties(n *typegraph.Node, val model.Validation, x, path func() *jen.Statement) []jen.Code {
	if g.hooksOnly || (val.MinProperties == nil && val.MaxProperties == nil) {
		return nil
	}
	var set []jen.Code
	var walk func(fields []*model.Field, x func() *jen.Statement, depth int)
	walk = func(fields []*model.Field, x func() *jen.Statement, depth int) {
		for _, f := range fields {
			fx := func() *jen.Statement { return x().Dot(f.Name) }
			if f.JSONName == "" && (f.Inline || f.Embedded) {
				if sf, ok := typegraph.StructFields(f.Type); ok && depth < maxNestDepth {
					walk(sf, fx, depth+1)
				}
				continue
			}
			if f.JSONName == "" || f.JSONName == "-" {
				continue
			}
			if f.OmitEmpty {
				if nz := nonZero(resolve(f.Type), fx); nz != nil {
					set = append(set, nz)
					continue
				}
			}
			set = append(set, jen.True())
		}
	}
	walk(n.Fields, x, 0)
	count := jen.Qual(validatePkg, "Properties").Call(set...)
	var cases []jen.Code
	if val.MaxProperties != nil {
		cases = append(cases, jen.Case(jen.Id("props").Op(">").Lit(int(*val.MaxProperties))).Block(
			appendOne(jen.Qual(fieldPkg, "TooMany").Call(path(), jen.Id("props"), jen.Lit(int(*val.MaxProperties))))))
	}
	if val.MinProperties != nil {
		cases = append(cases, jen.Case(jen.Id("props").Op("<").Lit(int(*val.MinProperties))).Block(
			appendOne(g.invalid(path, jen.Id("props"),
				fmt.Sprintf("should have at least %d properties", *val.MinProperties),
				fmt.Sprintf("must have at least %d %s", *val.MinProperties, plural(*val.MinProperties, "property", "properties"))))))
	}
	return []jen.Code{jen.Switch(jen.Id("props").Op(":=").Add(count), jen.Empty()).Block(cases...)}
}

// deref returns *x, in parentheses when it is indexed ((*x)[i]).
func deref(elem *model.TypeRef, x func() *jen.Statement) func() *jen.Statement {
	switch elem.Kind {
	case model.SliceRef, model.MapRef, model.ArrayRef, model.NamedRef:
		return func() *jen.Statement { return jen.Parens(jen.Op("*").Add(x())) }
	}
	return func() *jen.Statement { return jen.Op("*").Add(x()) }
}

// addr returns &x.
func addr(x func() *jen.Statement) jen.Code {
	return jen.Op("&").Add(x())
}

func (g *gen) loopVar(base string) string {
	if g.loop == 0 {
		return base
	}
	return base + strconv.Itoa(g.loop+1)
}

func (g *gen) list(r resolved, val model.Validation, f *model.Field, x, path func() *jen.Statement, in expr) ([]jen.Code, error) {
	var stmts []jen.Code
	ref := r.ref
	n := func() *jen.Statement { return jen.Len(x()) }
	if g.hooksOnly {
		val = model.Validation{}
	}
	listType := ""
	var mapKeys []string
	if f != nil && !g.hooksOnly {
		listType, mapKeys = f.ListType, f.ListMapKeys
	}
	if ref.Kind == model.SliceRef {
		if val.MaxItems != nil {
			stmts = append(stmts, jen.If(n().Op(">").Lit(int(*val.MaxItems))).Block(
				appendOne(jen.Qual(fieldPkg, "TooMany").Call(path(), n(), jen.Lit(int(*val.MaxItems))))))
		}
		if val.MinItems != nil {
			tooFew := jen.Qual(fieldPkg, "TooFew").Call(path(), n(), jen.Lit(int(*val.MinItems)))
			if g.crd() {
				tooFew = jen.Qual(validatePkg, "InBody").Call(path(), n(), jen.Lit(fmt.Sprintf("should have at least %d items", *val.MinItems)))
			}
			stmts = append(stmts, jen.If(n().Op("<").Lit(int(*val.MinItems))).Block(appendOne(tooFew)))
		}
	}
	er := resolve(ref.Elem)
	if listType == "set" || val.UniqueItems {
		if !comparable(er.ref, 0) {
			return nil, fmt.Errorf("listType=set or uniqueItems needs items that compare by value, not %s", genall.Describe(ref.Elem))
		}
		stmts = append(stmts, appendAll(jen.Qual(validatePkg, "Unique").Call(path(), x())))
	}
	if listType == "map" && len(mapKeys) > 0 {
		s, err := g.mapKeys(er, mapKeys, x, path)
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, s...)
	}
	i := g.loopVar("i")
	var items, itemNode string
	var itemIn expr
	if in != nil {
		items, itemNode = g.names.Fresh("items"), g.names.Fresh("item")
		itemIn = func() *jen.Statement { return jen.Id(itemNode) }
	}
	g.loop++
	item := func() *jen.Statement { return x().Index(jen.Id(i)) }
	ipath := func() *jen.Statement { return path().Dot("Index").Call(jen.Id(i)) }
	// Each item: the +kubebuilder:validation:items:* markers, and (where
	// those say nothing) the scalar markers written on the list itself.
	itemVal := scalarOnly(val)
	if val.Items != nil {
		itemVal = model.MergeValidation(val.Items.Validation, itemVal)
	}
	inner, err := g.item(er, itemVal, item, ipath, itemIn)
	g.loop--
	if err != nil {
		return nil, fmt.Errorf("items: %w", err)
	}
	if len(inner) > 0 {
		if in != nil {
			inner = append([]jen.Code{jen.Id(itemNode).Op(":=").Id(items).Dot("Next").Call()}, inner...)
			stmts = append(stmts, jen.Id(items).Op(":=").Add(in()).Dot("Items").Call())
		}
		stmts = append(stmts, jen.For(jen.Id(i).Op(":=").Range().Add(x())).Block(inner...))
	}
	return stmts, nil
}

// item checks a slice item or map value: the element type's own markers
// and the scalar markers of the field.
func (g *gen) item(er resolved, fieldScalar model.Validation, x, path func() *jen.Statement, in expr) ([]jen.Code, error) {
	return g.value(er, model.MergeValidation(fieldScalar, er.val), nil, x, path, in)
}

func (g *gen) mapValue(r resolved, val model.Validation, x, path func() *jen.Statement, in expr) ([]jen.Code, error) {
	var stmts []jen.Code
	ref := r.ref
	n := func() *jen.Statement { return jen.Len(x()) }
	if g.hooksOnly {
		val = model.Validation{}
	}
	if val.MaxProperties != nil {
		stmts = append(stmts, jen.If(n().Op(">").Lit(int(*val.MaxProperties))).Block(
			appendOne(jen.Qual(fieldPkg, "TooMany").Call(path(), n(), jen.Lit(int(*val.MaxProperties))))))
	}
	if val.MinProperties != nil {
		stmts = append(stmts, jen.If(n().Op("<").Lit(int(*val.MinProperties))).Block(
			appendOne(g.invalid(path, n(),
				fmt.Sprintf("should have at least %d properties", *val.MinProperties),
				fmt.Sprintf("must have at least %d %s", *val.MinProperties, plural(*val.MinProperties, "property", "properties"))))))
	}
	kr := resolve(ref.Key)
	k := g.loopVar("k")
	v := g.loopVar("v")
	var members, member string
	var memberIn expr
	if in != nil {
		members, member = g.names.Fresh("members"), g.names.Fresh("member")
		memberIn = func() *jen.Statement { return jen.Id(member) }
	}
	g.loop++
	item := func() *jen.Statement { return x().Index(jen.Id(k)) }
	var keyStr jen.Code
	switch {
	case kr.ref.Kind == model.BuiltinRef && kr.ref.Name == "string" && kr.named == nil:
		keyStr = jen.Id(k)
	case kr.ref.Kind == model.BuiltinRef && kr.ref.Name == "string":
		keyStr = jen.String().Call(jen.Id(k))
	default:
		keyStr = jen.Qual(fmtPkg, "Sprint").Call(jen.Id(k))
	}
	// kube-openapi names a custom resource's map value spec.m.key.
	kpath := func() *jen.Statement { return path().Dot("Key").Call(keyStr) }
	if g.crd() {
		kpath = func() *jen.Statement { return path().Dot("Child").Call(keyStr) }
	}
	// Map values are not addressable: struct checks get a copy.
	er := resolve(ref.Elem)
	needCopy := er.ref.Kind == model.NamedRef || er.hook != ""
	var itemExpr func() *jen.Statement = item
	if needCopy {
		itemExpr = func() *jen.Statement { return jen.Id(v) }
	}
	inner, err := g.item(er, scalarOnly(val), itemExpr, kpath, memberIn)
	g.loop--
	if err != nil {
		return nil, fmt.Errorf("values: %w", err)
	}
	if len(inner) > 0 {
		if needCopy {
			inner = append([]jen.Code{jen.Id(v).Op(":=").Add(item())}, inner...)
		}
		if in != nil {
			// JSON keys are strings: other keys have no member to ask.
			node := jen.Qual(presencePkg, "Node").Values()
			if kr.ref.Kind == model.BuiltinRef && kr.ref.Name == "string" {
				node = jen.Id(members).Dot("Get").Call(keyStr)
			}
			inner = append([]jen.Code{jen.Id(member).Op(":=").Add(node)}, inner...)
			stmts = append(stmts, jen.Id(members).Op(":=").Add(in()).Dot("Members").Call())
		}
		var keys jen.Code
		if kr.ref.Kind == model.BuiltinRef && (kr.ref.Name == "string" || isInt(kr.ref.Name) || isFloat(kr.ref.Name)) {
			// Sorted keys keep the error list deterministic.
			keys = jen.Qual(slicesPkg, "Sorted").Call(jen.Qual(mapsPkg, "Keys").Call(x()))
			stmts = append(stmts, jen.For(jen.List(jen.Id("_"), jen.Id(k)).Op(":=").Range().Add(keys)).Block(inner...))
		} else {
			stmts = append(stmts, jen.For(jen.Id(k).Op(":=").Range().Add(x())).Block(inner...))
		}
	}
	return stmts, nil
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// findJSON finds the field with JSON name name, looking into inline
// embedded structs; it returns the Go selector path.
func findJSON(fields []*model.Field, name string, depth int) ([]string, *model.Field) {
	for _, f := range fields {
		if f.JSONName == name {
			return []string{f.Name}, f
		}
	}
	if depth > maxNestDepth {
		return nil, nil
	}
	for _, f := range fields {
		if (f.Inline || f.Embedded) && f.JSONName == "" {
			if sub, ok := typegraph.StructFields(f.Type); ok {
				if sel, found := findJSON(sub, name, depth+1); found != nil {
					return append([]string{f.Name}, sel...), found
				}
			}
		}
	}
	return nil, nil
}

func (g *gen) mapKeys(er resolved, keys []string, x, path func() *jen.Statement) ([]jen.Code, error) {
	fields, ok := typegraph.StructFields(er.ref)
	if !ok {
		return nil, fmt.Errorf("listType=map needs struct items, not %s", genall.Describe(er.ref))
	}
	itemType := genall.TypeCode(er.ref)
	var sels [][]string
	var types []*model.TypeRef
	// The model refuses keys that name no field or a non-scalar one, with
	// their positions (model/finish.go), and leaves such markers of
	// packages the user does not own out: these two errors cannot be
	// reached from input. They stay so that a model bug fails generation
	// instead of writing validation that compares the wrong thing.
	for _, k := range keys {
		sel, kf := findJSON(fields, k, 0)
		if kf == nil {
			return nil, fmt.Errorf("listMapKey %q: no such field in %s (the model should have refused it)", k, er.ref.Name)
		}
		kr := resolve(kf.Type)
		if kr.ref.Kind != model.BuiltinRef {
			return nil, fmt.Errorf("listMapKey %q: must be a string, integer or boolean field, not %s (the model should have refused it)", k, genall.Describe(kf.Type))
		}
		sels = append(sels, sel)
		types = append(types, kf.Type)
	}
	selector := func(sel []string) *jen.Statement {
		s := jen.Id("item")
		for _, name := range sel {
			s = s.Dot(name)
		}
		return s
	}
	if len(keys) == 1 {
		fn := jen.Func().Params(jen.Id("item").Op("*").Add(itemType)).Add(genall.TypeCode(types[0])).
			Block(jen.Return(selector(sels[0])))
		return []jen.Code{appendAll(jen.Qual(validatePkg, g.inBody("MapKey")).Call(path(), x(), jen.Lit(keys[0]), fn))}, nil
	}
	var vals, names []jen.Code
	for i, k := range keys {
		vals = append(vals, selector(sels[i]))
		names = append(names, jen.Lit(k))
	}
	fn := jen.Func().Params(jen.Id("item").Op("*").Add(itemType)).Index().Any().
		Block(jen.Return(jen.Index().Any().Values(vals...)))
	return []jen.Code{appendAll(jen.Qual(validatePkg, g.inBody("MapKeys")).Call(path(), x(), jen.Index().String().Values(names...), fn))}, nil
}

// inBody names the runtime check of your kinds, worded as kube-apiserver
// words a custom resource's (name + "InBody"); built-in kinds keep name.
func (g *gen) inBody(name string) string {
	if g.crd() {
		return name + "InBody"
	}
	return name
}

// comparable reports whether values of r compare by value with == (so a set
// of them can be checked with a Go map).
func comparable(r *model.TypeRef, depth int) bool {
	if r == nil || depth > maxNestDepth {
		return false
	}
	switch r.Kind {
	case model.BuiltinRef:
		return true
	case model.ArrayRef:
		return comparable(r.Elem, depth+1)
	case model.NamedRef:
		if t := r.Local; t != nil {
			if t.Kind == model.StructKind {
				for _, f := range t.Fields {
					if !comparable(f.Type, depth+1) {
						return false
					}
				}
				return true
			}
			return comparable(t.Underlying, depth+1)
		}
		if e := r.External; e != nil && e.Known == "" && e.Fields == nil {
			return comparable(e.Underlying, depth+1)
		}
	}
	return false
}

// --- scalars ------------------------------------------------------------------

// formatNumber prints a bound the way a user wrote it: 100, 0.5, 1e+30.
func formatNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func (g *gen) scalar(r resolved, val model.Validation, x, path func() *jen.Statement) ([]jen.Code, error) {
	if g.hooksOnly {
		return nil, nil
	}
	b := r.ref.Name
	// plain is x converted to its builtin type (for messages and helpers).
	plain := x
	if r.named != nil {
		plain = func() *jen.Statement { return jen.Id(b).Call(x()) }
	}
	var stmts []jen.Code
	switch {
	case b == "string":
		// Length and pattern checks as (condition, error) pairs: a custom
		// resource's string gets the first that fails (kube-openapi's
		// string validator stops there), a built-in kind's every one.
		type check struct{ cond, err jen.Code }
		var checks []check
		if val.MaxLength != nil {
			n := int(*val.MaxLength)
			tooLong := "TooLongCharacters"
			if g.crd() {
				tooLong = "TooLong" // kube-apiserver's words for a custom resource ("bytes")
			}
			checks = append(checks, check{jen.Qual(utf8Pkg, "RuneCountInString").Call(plain()).Op(">").Lit(n),
				jen.Qual(fieldPkg, tooLong).Call(path(), plain(), jen.Lit(n))})
		}
		if val.MinLength != nil {
			n := int(*val.MinLength)
			tooShort := jen.Qual(fieldPkg, "TooShort").Call(path(), plain(), jen.Lit(n))
			if g.crd() {
				tooShort = jen.Qual(validatePkg, "InBody").Call(path(), plain(), jen.Lit(fmt.Sprintf("should be at least %d chars long", n)))
			}
			checks = append(checks, check{jen.Qual(utf8Pkg, "RuneCountInString").Call(plain()).Op("<").Lit(n), tooShort})
		}
		if val.Pattern != "" {
			name, err := g.pattern(val.Pattern)
			if err != nil {
				return nil, err
			}
			checks = append(checks, check{jen.Op("!").Id(name).Dot("MatchString").Call(plain()),
				g.invalid(path, plain(), "should match '"+val.Pattern+"'", "must match '"+val.Pattern+"'")})
		}
		if g.crd() && len(checks) > 0 {
			chain := jen.If(checks[0].cond).Block(appendOne(checks[0].err))
			for _, c := range checks[1:] {
				chain = chain.Else().If(c.cond).Block(appendOne(c.err))
			}
			stmts = append(stmts, chain)
		} else {
			for _, c := range checks {
				stmts = append(stmts, jen.If(c.cond).Block(appendOne(c.err)))
			}
		}
		if val.Format != "" { // known: the model checks it
			if !typeFormat(val.Format) {
				format := "Format"
				if g.crd() {
					format = "FormatInBody"
				}
				stmts = append(stmts, jen.If(jen.Id("err").Op(":=").Qual(validatePkg, format).Call(path(), plain(), jen.Lit(val.Format)),
					jen.Id("err").Op("!=").Nil()).Block(appendOne(jen.Id("err"))))
			}
		}
	case isInt(b) || isFloat(b):
		s, err := g.number(b, val, x, plain, path)
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, s...)
	}
	if len(val.Enum) > 0 {
		s, err := enum(b, val.Enum, x, plain, path)
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, s...)
	}
	return stmts, nil
}

func typeFormat(f string) bool {
	switch f {
	case "int32", "int64", "float", "double", "password":
		return true
	}
	return false
}

func (g *gen) pattern(p string) (string, error) {
	if _, err := regexp.Compile(p); err != nil {
		return "", fmt.Errorf("pattern %q: %w", p, err)
	}
	if name, ok := g.patterns[p]; ok {
		return name, nil
	}
	name := fmt.Sprintf("pattern%d", len(g.patternList))
	g.patterns[p] = name
	g.patternList = append(g.patternList, p)
	return name, nil
}

// bound renders a numeric bound for a comparison with x of builtin type b:
// an untyped constant when it fits, else x is compared as float64.
func bound(b string, f float64, x func() *jen.Statement) (lhs *jen.Statement, rhs jen.Code) {
	if isInt(b) {
		lo, hi := intRange(b)
		if f == math.Trunc(f) && f >= lo && f <= hi {
			return x(), jen.Id(formatNumber(f))
		}
		return jen.Float64().Call(x()), jen.Id(strconv.FormatFloat(f, 'g', -1, 64))
	}
	return x(), jen.Id(strconv.FormatFloat(f, 'g', -1, 64))
}

func (g *gen) number(b string, val model.Validation, x, plain, path func() *jen.Statement) ([]jen.Code, error) {
	var stmts []jen.Code
	// kube-openapi prints a bound as the value it checks: an integer's as
	// an int64, a float's with %v (1e+06).
	crdBound := func(f float64) string {
		if isInt(b) {
			return strconv.FormatInt(int64(f), 10)
		}
		return fmt.Sprint(f)
	}
	check := func(op string, f float64, crdMsg, msg string) {
		lhs, rhs := bound(b, f, x)
		stmts = append(stmts, jen.If(lhs.Op(op).Add(rhs)).Block(
			appendOne(g.invalid(path, plain(), crdMsg+" "+crdBound(f), msg+" "+formatNumber(f)))))
	}
	if val.Maximum != nil {
		if val.ExclusiveMaximum {
			check(">=", *val.Maximum, "should be less than", "must be less than")
		} else {
			check(">", *val.Maximum, "should be less than or equal to", "must be less than or equal to")
		}
	}
	if val.Minimum != nil {
		if val.ExclusiveMinimum {
			check("<=", *val.Minimum, "should be greater than", "must be greater than")
		} else {
			check("<", *val.Minimum, "should be greater than or equal to", "must be greater than or equal to")
		}
	}
	if val.MultipleOf != nil {
		m := *val.MultipleOf
		msg := g.invalid(path, plain(), "should be a multiple of "+crdBound(m), "must be a multiple of "+formatNumber(m))
		lo, hi := intRange(b)
		if isInt(b) && m == math.Trunc(m) && m <= hi && m >= lo {
			stmts = append(stmts, jen.If(x().Op("%").Id(formatNumber(m)).Op("!=").Lit(0)).Block(appendOne(msg)))
		} else {
			stmts = append(stmts, jen.If(jen.Op("!").Qual(validatePkg, "MultipleOf").Call(jen.Float64().Call(x()), jen.Id(strconv.FormatFloat(m, 'g', -1, 64)))).Block(appendOne(msg)))
		}
	}
	return stmts, nil
}

func enum(b string, values []any, x, plain, path func() *jen.Statement) ([]jen.Code, error) {
	var cases []jen.Code
	var names []jen.Code
	seen := map[string]bool{}
	for _, v := range values {
		lit, text, err := enumLiteral(b, v)
		if err != nil {
			return nil, fmt.Errorf("enum value %v: %w", v, err)
		}
		if seen[text] {
			continue
		}
		seen[text] = true
		cases = append(cases, lit)
		names = append(names, jen.Lit(text))
	}
	if len(cases) == 0 {
		return nil, nil
	}
	return []jen.Code{jen.Switch(x()).Block(
		jen.Case(cases...),
		jen.Default().Block(appendOne(jen.Qual(fieldPkg, "NotSupported").Call(path(), plain(), jen.Index().String().Values(names...)))),
	)}, nil
}

// enumLiteral renders an enum value as a constant of builtin type b and the
// text shown in "supported values" (strings as is, others as JSON).
func enumLiteral(b string, v any) (jen.Code, string, error) {
	switch val := v.(type) {
	case string:
		if b != "string" {
			return nil, "", fmt.Errorf("a string value for a %s", b)
		}
		return jen.Lit(val), val, nil
	case bool:
		if b != "bool" {
			return nil, "", fmt.Errorf("a boolean value for a %s", b)
		}
		return jen.Lit(val), strconv.FormatBool(val), nil
	case json.Number:
		if isInt(b) {
			i, err := strconv.ParseInt(string(val), 10, 64)
			if err != nil {
				return nil, "", fmt.Errorf("parse integer: %w", err)
			}
			lo, hi := intRange(b)
			if float64(i) < lo || float64(i) > hi {
				return nil, "", fmt.Errorf("out of range for %s", b)
			}
			return jen.Id(strconv.FormatInt(i, 10)), strconv.FormatInt(i, 10), nil
		}
		if isFloat(b) {
			f, err := strconv.ParseFloat(string(val), 64)
			if err != nil {
				return nil, "", fmt.Errorf("parse number: %w", err)
			}
			return jen.Id(strconv.FormatFloat(f, 'g', -1, 64)), string(val), nil
		}
		return nil, "", fmt.Errorf("a number for a %s", b)
	case float64:
		return enumLiteral(b, json.Number(strconv.FormatFloat(val, 'g', -1, 64)))
	case int64:
		return enumLiteral(b, json.Number(strconv.FormatInt(val, 10)))
	case int:
		return enumLiteral(b, json.Number(strconv.Itoa(val)))
	}
	return nil, "", fmt.Errorf("unsupported enum value of type %T", v)
}

// nameFunc is apimachinery's validation of metadata.name for k
// (Kind.NameRule): kube-apiserver names namespaces as DNS-1123 labels,
// services as DNS-1035 labels, RBAC objects as path segments and
// everything else as DNS subdomains.
func nameFunc(k *model.Kind) jen.Code {
	switch k.NameRule {
	case model.NameDNSLabel:
		return jen.Qual(apiValPkg, "NameIsDNSLabel")
	case model.NameDNS1035Label:
		return jen.Qual(apiValPkg, "NameIsDNS1035Label")
	case model.NamePathSegment:
		return jen.Qual(pathValPkg, "ValidatePathSegmentName")
	}
	return jen.Qual(apiValPkg, "NameIsDNSSubdomain")
}

func nameText(k *model.Kind) string {
	switch k.NameRule {
	case model.NameDNSLabel:
		return "DNS label"
	case model.NameDNS1035Label:
		return "DNS-1035 label"
	case model.NamePathSegment:
		return "path segment"
	}
	return "DNS subdomain"
}
