// Package storage is the "storage" generator: for every group-version it
// writes generated/<group>/<version>/zz_generated.storage.go with one
// resource.Strategy per kind served in that version (or stored in it), over
// that version's types: its defaults, validation, printer columns and field
// set for field selectors (<kind>SelectableFields, from
// +kubebuilder:selectablefield markers or generators/builtinfields).
//
// A kind's storage (hub) version also gets New<Kind>Store, the one store of
// the kind: every served version shares it, the storage version directly and
// the others through storage.NewConverted with their own strategy (see the
// routes and install generators). A kind stored as a kind of another group
// (model.Kind.StoredAs) gets no store: it is served over that kind's.
package storage

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/kubeforge/kubeforge/generators/builtinstrategy"

	"github.com/dave/jennifer/jen"

	"github.com/kubeforge/kubeforge/generators/builtinprinters"
	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/ids"
	"github.com/kubeforge/kubeforge/generators/model"
	"github.com/kubeforge/kubeforge/runtime/openapidefs"
)

const (
	resourcePkg = "github.com/kubeforge/kubeforge/runtime/resource"
	jsonencPkg  = "github.com/kubeforge/kubeforge/runtime/jsonencode"
	celPkg      = "github.com/kubeforge/kubeforge/runtime/cel"
	storagePkg  = "github.com/kubeforge/kubeforge/runtime/storage"
	equalityPkg = "k8s.io/apimachinery/pkg/api/equality"
	metav1Pkg   = "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FileName is the name of the generated file in each generated package.
const FileName = "zz_generated.storage.go"

// Generator writes the typed strategies.
type Generator struct{}

// New returns the storage generator.
func New() Generator { return Generator{} }

// Name implements genall.Generator.
func (Generator) Name() string { return "storage" }

// Generate implements genall.Generator.
func (Generator) Generate(api *model.API) ([]genall.File, error) {
	var files []genall.File
	for _, g := range api.Groups {
		for _, v := range g.Versions {
			kinds := v.StrategyKinds()
			if len(kinds) == 0 {
				continue
			}
			importPath, dir, name := genall.GeneratedPackage(api, v)
			f := genall.NewFile(name, importPath)
			f.ImportAlias(metav1Pkg, "metav1")
			f.ImportName(v.Package, v.PackageName)
			var builtins []*builtinprinters.Table
			for _, k := range kinds {
				code, err := strategy(k)
				if err != nil {
					return nil, fmt.Errorf("generate storage for %s %s: %w", v.GroupVersion(), k.Name, err)
				}
				for _, c := range code {
					f.Add(c)
				}
				if k.Storage {
					f.Add(newStore(k))
				}
				if t, _ := builtinprinters.For(k); t != nil { // strategy reported any error
					builtins = append(builtins, t)
				}
			}
			for _, h := range builtinprinters.Helpers(builtins) {
				f.Add(h)
			}
			var buf bytes.Buffer
			if err := f.Render(&buf); err != nil {
				return nil, fmt.Errorf("render %s/%s: %w", dir, FileName, err)
			}
			files = append(files, genall.File{Path: dir + "/" + FileName, Content: buf.Bytes()})
		}
	}
	return files, nil
}

// newStore writes New<Kind>Store(b *storage.Backend).
func newStore(k *model.Kind) jen.Code {
	pkg := k.Version.Package
	return jen.Commentf("%s returns the store of %s.%s, stored in %s. Build it once per", ids.Store(k), k.Plural, k.Version.Group.Name, k.Version.Name).Line().
		Comment("server: every served version of the kind shares it (the others convert).").Line().
		Func().Id(ids.Store(k)).Params(jen.Id("b").Op("*").Qual(storagePkg, "Backend")).Op("*").Qual(storagePkg, "Store").Types(
		jen.Op("*").Qual(pkg, k.Name), jen.Op("*").Qual(pkg, k.ListName),
	).Block(
		jen.Return(jen.Qual(storagePkg, "NewStore").Call(jen.Id("b"), jen.Id(ids.Strategy(k)))),
	)
}

func strategy(k *model.Kind) ([]jen.Code, error) {
	pkg := k.Version.Package
	list := jen.Op("*").Qual(pkg, k.ListName)

	fields := []jen.Code{
		jen.Id("Info").Op(":").Op("&").Id(ids.Info(k)),
		jen.Id("New").Op(":").Func().Params().Op("*").Qual(pkg, k.Name).Block(
			jen.Return(jen.Op("&").Qual(pkg, k.Name).Values()),
		),
		jen.Id("NewList").Op(":").Func().Params().Op("*").Qual(pkg, k.ListName).Block(
			jen.Return(jen.Op("&").Qual(pkg, k.ListName).Values()),
		),
		jen.Id("SetItems").Op(":").Func().Params(
			jen.Id("list").Add(list),
			jen.Id("items").Index().Op("*").Qual(pkg, k.Name),
		).Block(
			jen.Id("list").Dot("Items").Op("=").Make(jen.Index().Qual(pkg, k.Name), jen.Len(jen.Id("items"))),
			jen.For(jen.List(jen.Id("i"), jen.Id("item")).Op(":=").Range().Id("items")).Block(
				jen.Id("list").Dot("Items").Index(jen.Id("i")).Op("=").Op("*").Id("item"),
			),
		),
		jen.Id("GetItems").Op(":").Func().Params(jen.Id("list").Add(list)).Index().Op("*").Qual(pkg, k.Name).Block(
			jen.Id("items").Op(":=").Make(jen.Index().Op("*").Qual(pkg, k.Name), jen.Len(jen.Id("list").Dot("Items"))),
			jen.For(jen.Id("i").Op(":=").Range().Id("list").Dot("Items")).Block(
				jen.Id("items").Index(jen.Id("i")).Op("=").Op("&").Id("list").Dot("Items").Index(jen.Id("i")),
			),
			jen.Return(jen.Id("items")),
		),
		jen.Id("Default").Op(":").Id("SetObjectDefaultsFrom_" + k.Name),
		jen.Id("Validate").Op(":").Id("Validate" + k.Name + "From"),
		jen.Id("ValidateHooks").Op(":").Id("Validate" + k.Name + "Hooks"),
	}
	if builtinstrategy.For(k).ValidateUpdate != "" {
		fields = append(fields, jen.Id("ValidateUpdate").Op(":").Id("Validate"+k.Name+"Update"))
	}
	fields = append(fields,
		jen.Id("Ratchet").Op(":").Lit(!k.Version.External),
		jen.Id("FinalizerWarnings").Op(":").Lit(!k.Version.External),
	)
	if !k.Version.External {
		fields = append(fields, jen.Id("CustomResource").Op(":").Add(customResource(k)))
	}
	if k.CompilesRules() {
		// Rules compiled once (Install compiles them, failing the start on
		// a bad rule); the closure passes a nil old object as nil.
		fields = append(fields, jen.Id("Rules").Op(":").Func().Params(
			jen.Id("ctx").Qual("context", "Context"),
			jen.List(jen.Id("obj"), jen.Id("old")).Op("*").Qual(pkg, k.Name),
		).Qual("k8s.io/apimachinery/pkg/util/validation/field", "ErrorList").Block(
			jen.If(jen.Id("old").Op("==").Nil()).Block(
				jen.Return(jen.Id(ids.Rules(k)).Dot("Validate").Call(jen.Id("ctx"), jen.Id("obj"), jen.Nil())),
			),
			jen.Return(jen.Id(ids.Rules(k)).Dot("Validate").Call(jen.Id("ctx"), jen.Id("obj"), jen.Id("old"))),
		))
	}

	sub, err := subresourceFields(k)
	if err != nil {
		return nil, err
	}
	fields = append(fields, sub...)

	specChanged, err := specChanged(k)
	if err != nil {
		return nil, err
	}
	fields = append(fields, jen.Id("SpecChanged").Op(":").Func().Params(
		jen.List(jen.Id("oldObj"), jen.Id("newObj")).Op("*").Qual(pkg, k.Name),
	).Bool().Block(specChanged...))

	// The field set for field selectors, written after the strategy.
	sel, err := selectableFunc(k)
	if err != nil {
		return nil, err
	}
	var after []jen.Code
	if sel != nil {
		after = append(after, sel)
	}

	builtin, err := builtinprinters.For(k)
	if err != nil {
		return nil, err
	}
	if builtin != nil {
		// kube-apiserver's cells of a built-in kind (generators/builtinprinters).
		fields = append(fields, jen.Id("PrinterCells").Op(":").Id(builtinprinters.RowFunc(k)))
		if sel != nil {
			fields = append(fields, jen.Id("SelectableFields").Op(":").Id(SelectableFunc(k)))
		}
		return append([]jen.Code{strategyVar(k, fields), builtinprinters.Row(k, builtin)}, after...), nil
	}

	if len(k.PrinterColumns) > 0 {
		cells, helpers, err := printerCells(k)
		if err != nil {
			return nil, err
		}
		fields = append(fields, jen.Id("PrinterCells").Op(":").Func().Params(jen.Id("obj").Op("*").Qual(pkg, k.Name)).Index().Any().Block(
			jen.Return(jen.Index().Any().ValuesFunc(func(g *jen.Group) {
				for _, c := range cells {
					g.Line().Add(c)
				}
				g.Line()
			})),
		))
		after = append(helpers, after...)
	}
	if sel != nil {
		fields = append(fields, jen.Id("SelectableFields").Op(":").Id(SelectableFunc(k)))
	}
	if k.CompilesRules() {
		after = append(after, rulesVar(k, openapidefs.LocalName(k.Version.Group.Name, k.Version.Name, k.Name)))
	}
	return append([]jen.Code{strategyVar(k, fields)}, after...), nil
}

// customResource writes the jsonencode.CustomResource of a user's kind:
// its objects are written as kube-apiserver writes a custom resource, with
// the null of each +nullable field reached from the kind kept.
func customResource(k *model.Kind) jen.Code {
	d := jen.Dict{
		jen.Id("Type"): jen.Qual("reflect", "TypeFor").Types(jen.Qual(k.Version.Package, k.Name)).Call(),
	}
	if k.StatusSubresource {
		d[jen.Id("StatusSubresource")] = jen.True()
	}
	var nullable []jen.Code
	for _, f := range nullableFields(k.Type) {
		nullable = append(nullable, jen.Values(jen.Dict{
			jen.Id("Struct"): jen.Qual("reflect", "TypeFor").Types(jen.Qual(f.Parent.Version.Package, f.Parent.Name)).Call(),
			jen.Id("Name"):   jen.Lit(f.Name),
		}))
	}
	if len(nullable) > 0 {
		d[jen.Id("Nullable")] = jen.Index().Qual(jsonencPkg, "Field").ValuesFunc(func(g *jen.Group) {
			for _, n := range nullable {
				g.Line().Add(n)
			}
			g.Line()
		})
	}
	return jen.Op("&").Qual(jsonencPkg, "CustomResource").Values(d)
}

// nullableFields are the +nullable fields of the types package structs
// reached from t, in the order a walk of t's fields meets them.
func nullableFields(t *model.Type) []*model.Field {
	var out []*model.Field
	seen := map[*model.Type]bool{}
	var typ func(t *model.Type)
	var ref func(r *model.TypeRef)
	ref = func(r *model.TypeRef) {
		for ; r != nil; r = r.Elem {
			if r.Local != nil {
				typ(r.Local)
			}
			if r.Key != nil {
				ref(r.Key)
			}
		}
	}
	typ = func(t *model.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		for _, f := range t.Fields {
			if f.Markers.Has("nullable") {
				out = append(out, f)
			}
			ref(f.Type)
		}
		ref(t.Underlying)
	}
	typ(t)
	return out
}

// subresourceFields are the strategy's functions for the /status and
// /scale subresources of k.
func subresourceFields(k *model.Kind) ([]jen.Code, error) {
	pkg := k.Version.Package
	var fields []jen.Code
	if k.StatusSubresource {
		sf := k.StatusField
		if sf == nil {
			return nil, fmt.Errorf("kind has the status subresource but no status field")
		}
		zero, err := zeroValue(sf.Type)
		if err != nil {
			return nil, fmt.Errorf("zero value of field %s: %w", sf.Name, err)
		}
		fields = append(fields,
			jen.Id("ResetStatus").Op(":").Func().Params(jen.Id("obj").Op("*").Qual(pkg, k.Name)).Block(
				jen.Id("obj").Dot(sf.Name).Op("=").Add(zero),
			),
			jen.Id("CopyStatus").Op(":").Func().Params(jen.List(jen.Id("dst"), jen.Id("src")).Op("*").Qual(pkg, k.Name)).Block(
				jen.Id("dst").Dot(sf.Name).Op("=").Add(deepCopy(jen.Id("src").Dot(sf.Name), sf.Type)),
			),
		)
	}

	if k.Scale != nil {
		get, set, err := scaleFuncs(k)
		if err != nil {
			return nil, fmt.Errorf("scale subresource: %w", err)
		}
		var path []jen.Code
		for _, f := range k.Scale.SpecReplicas {
			path = append(path, jen.Lit(f.JSONName))
		}
		fields = append(fields, jen.Id("GetScale").Op(":").Add(get), jen.Id("SetReplicas").Op(":").Add(set),
			jen.Id("ScaleSpecPath").Op(":").Index().String().Values(path...))
	}
	return fields, nil
}

func strategyDoc(k *model.Kind) *jen.Statement {
	scope := "namespaced"
	if !k.Namespaced {
		scope = "cluster-scoped"
	}
	if !k.Storage {
		hub := "its storage version"
		if h := k.Hub(); h != nil && k.StoredAs != nil {
			hub = h.Version.GroupVersion() + " " + h.Name // another group's kind
		} else if h != nil {
			hub = h.Version.Name
		}
		return jen.Commentf("%sStrategy is the typed behaviour of %s (%s, %s) for the handlers and the converting store over %s.", k.Name, k.Plural, scope, k.Version.GroupVersion(), hub)
	}
	return jen.Commentf("%sStrategy is the typed behaviour of %s (%s, %s) for the generic store and handlers.", k.Name, k.Plural, scope, k.Version.GroupVersion())
}

func strategyVar(k *model.Kind, fields []jen.Code) jen.Code {
	pkg := k.Version.Package
	return strategyDoc(k).Line().Var().Id(ids.Strategy(k)).Op("=").Op("&").Qual(resourcePkg, "Strategy").Types(
		jen.Op("*").Qual(pkg, k.Name), jen.Op("*").Qual(pkg, k.ListName),
	).ValuesFunc(func(g *jen.Group) {
		for _, f := range fields {
			g.Line().Add(f)
		}
		g.Line()
	})
}

// specChanged compares every top-level field except TypeMeta, ObjectMeta and,
// with a status subresource, the status.
func specChanged(k *model.Kind) ([]jen.Code, error) {
	if k.Type == nil {
		return nil, fmt.Errorf("kind has no type")
	}
	var cmps []jen.Code
	for _, f := range k.Type.Fields {
		if isMeta(f) {
			continue
		}
		if k.StatusSubresource && k.StatusField != nil && f.Name == k.StatusField.Name {
			continue
		}
		cmps = append(cmps, jen.Op("!").Qual(equalityPkg, "Semantic").Dot("DeepEqual").Call(
			jen.Id("oldObj").Dot(f.Name), jen.Id("newObj").Dot(f.Name),
		))
	}
	if len(cmps) == 0 {
		return []jen.Code{jen.Return(jen.False())}, nil
	}
	expr := cmps[0]
	for _, c := range cmps[1:] {
		expr = jen.Add(expr).Op("||").Line().Add(c)
	}
	return []jen.Code{jen.Return(expr)}, nil
}

func isMeta(f *model.Field) bool {
	if f.Type != nil && f.Type.External != nil {
		switch f.Type.External.Known {
		case "TypeMeta", "ObjectMeta":
			return true
		}
	}
	return f.Embedded && (f.Name == "TypeMeta" || f.Name == "ObjectMeta")
}

// typeCode renders a type reference.
func typeCode(t *model.TypeRef) (jen.Code, error) {
	switch t.Kind {
	case model.BuiltinRef:
		return jen.Id(t.Name), nil
	case model.NamedRef:
		if t.Package == "" {
			return jen.Id(t.Name), nil
		}
		return jen.Qual(t.Package, t.Name), nil
	case model.PointerRef:
		e, err := typeCode(t.Elem)
		if err != nil {
			return nil, err
		}
		return jen.Op("*").Add(e), nil
	case model.SliceRef:
		e, err := typeCode(t.Elem)
		if err != nil {
			return nil, err
		}
		return jen.Index().Add(e), nil
	case model.ArrayRef:
		e, err := typeCode(t.Elem)
		if err != nil {
			return nil, err
		}
		return jen.Index(jen.Lit(int(t.Len))).Add(e), nil
	case model.MapRef:
		key, err := typeCode(t.Key)
		if err != nil {
			return nil, err
		}
		e, err := typeCode(t.Elem)
		if err != nil {
			return nil, err
		}
		return jen.Map(key).Add(e), nil
	case model.InterfaceRef:
		return jen.Any(), nil
	}
	return nil, fmt.Errorf("unsupported type reference kind %d", t.Kind)
}

// zeroValue renders the zero value of t as an expression.
func zeroValue(t *model.TypeRef) (jen.Code, error) {
	switch t.Kind {
	case model.PointerRef, model.SliceRef, model.MapRef, model.InterfaceRef:
		return jen.Nil(), nil
	case model.BuiltinRef:
		switch t.Name {
		case "string":
			return jen.Lit(""), nil
		case "bool":
			return jen.False(), nil
		default:
			return jen.Lit(0), nil
		}
	}
	tc, err := typeCode(t)
	if err != nil {
		return nil, err
	}
	if t.Kind == model.NamedRef && t.Local != nil && t.Local.Kind != model.StructKind && t.Local.Kind != model.ArrayKind {
		// type Phase string, type Tags []string: a conversion of the zero literal.
		u, err := zeroValue(t.Local.Underlying)
		if err != nil {
			return nil, err
		}
		return jen.Add(tc).Call(u), nil
	}
	return jen.Add(tc).Values(), nil
}

// deepCopy renders a copy of src (of type t) that shares no memory with it.
func deepCopy(src *jen.Statement, t *model.TypeRef) jen.Code {
	switch {
	case t.Kind == model.NamedRef && t.Local != nil && t.Local.Kind == model.StructKind:
		return jen.Op("*").Add(src).Dot("DeepCopy").Call()
	case t.Kind == model.PointerRef && t.Elem.Kind == model.NamedRef && t.Elem.Local != nil && t.Elem.Local.Kind == model.StructKind:
		return jen.Add(src).Dot("DeepCopy").Call()
	}
	return src
}

// printerCells returns one expression per printer column, plus helper
// functions for columns whose path goes through pointers.
func printerCells(k *model.Kind) (cells, helpers []jen.Code, err error) {
	for i, c := range k.PrinterColumns {
		if c.Dynamic {
			// A filter or wildcard: kube's evaluation, at run time.
			name := lowerFirst(k.Name) + "Column" + fmt.Sprint(i) + identFrom(c.Name)
			cells = append(cells, jen.Id(name).Dot("Cell").Call(jen.Id("obj")))
			helpers = append(helpers,
				jen.Commentf("%s is the %q column (%s) of %s, evaluated as kube-apiserver evaluates a CRD's.", name, c.Name, c.JSONPath, k.Name),
				jen.Var().Id(name).Op("=").Op("&").Qual("github.com/kubeforge/kubeforge/runtime/tablecell", "Column").Values(jen.Dict{
					jen.Id("Name"): jen.Lit(c.Name), jen.Id("JSONPath"): jen.Lit(c.JSONPath), jen.Id("Type"): jen.Lit(c.Type),
				}))
			continue
		}
		if len(c.Path) == 0 {
			cell, err := metadataCell(c.JSONPath)
			if err != nil {
				return nil, nil, fmt.Errorf("printer column %q: %w", c.Name, err)
			}
			cells = append(cells, cell)
			continue
		}
		if !throughPointer(c.Path) && omittedZero(c.Path[len(c.Path)-1], jen.Id("x")) == nil {
			cells = append(cells, cellValue(pathExpr(jen.Id("obj"), c.Path), c.Path[len(c.Path)-1].Type))
			continue
		}
		// Nil-safe access: a helper walks the path and returns nil at the
		// first nil pointer, or at a zero the JSON leaves out.
		name := lowerFirst(k.Name) + "Cell" + fmt.Sprint(i) + identFrom(c.Name)
		cells = append(cells, jen.Id(name).Call(jen.Id("obj")))
		helpers = append(helpers, cellHelper(k, name, c))
	}
	return cells, helpers, nil
}

// metadataCell reads a .metadata.* column with typed access.
func metadataCell(path string) (jen.Code, error) {
	obj := jen.Id("obj")
	switch strings.TrimPrefix(path, ".") {
	case "metadata.name":
		return obj.Dot("Name"), nil
	case "metadata.namespace":
		return obj.Dot("Namespace"), nil
	case "metadata.generateName":
		return obj.Dot("GenerateName"), nil
	case "metadata.uid":
		return jen.String().Call(obj.Dot("UID")), nil
	case "metadata.resourceVersion":
		return obj.Dot("ResourceVersion"), nil
	case "metadata.generation":
		return obj.Dot("Generation"), nil
	case "metadata.creationTimestamp":
		return obj.Dot("CreationTimestamp"), nil
	case "metadata.deletionTimestamp":
		return jen.Func().Params().Any().Block(
			jen.If(jen.Id("obj").Dot("DeletionTimestamp").Op("==").Nil()).Block(jen.Return(jen.Nil())),
			jen.Return(jen.Op("*").Id("obj").Dot("DeletionTimestamp")),
		).Call(), nil
	}
	return nil, fmt.Errorf("unsupported metadata path %q", path)
}

func throughPointer(path []*model.Field) bool {
	for _, f := range path {
		if f.Type.Kind == model.PointerRef {
			return true
		}
	}
	return false
}

// pathExpr is base.F1.F2...; embedded fields are named explicitly.
func pathExpr(base *jen.Statement, path []*model.Field) *jen.Statement {
	s := base
	for _, f := range path {
		s = s.Clone().Dot(f.Name)
	}
	return s
}

// cellValue turns the value at the end of a column path into a cell: named
// basic types become their underlying type, well-known types their printable
// form (metav1.Time stays a metav1.Time for the runtime to format).
func cellValue(v *jen.Statement, t *model.TypeRef) jen.Code {
	if t.Kind == model.PointerRef {
		// Only reached inside helpers after the nil check. Selectors
		// dereference by themselves; anything else needs *v.
		if e := t.Elem; e.Kind == model.NamedRef && e.External != nil {
			switch e.External.Known {
			case "Duration", "Quantity", "IntOrString":
				return cellValue(v, e)
			}
		}
		return cellValue(jen.Op("*").Add(v), t.Elem)
	}
	if t.Kind != model.NamedRef {
		return v
	}
	if t.External != nil {
		switch t.External.Known {
		case "Time", "MicroTime":
			// The runtime formats metav1.Time as RFC 3339.
			return v
		case "Duration":
			return v.Clone().Dot("Duration").Dot("String").Call()
		case "Quantity", "IntOrString":
			return v.Clone().Dot("String").Call()
		}
		if u := t.External.Underlying; u != nil && u.Kind == model.BuiltinRef {
			return jen.Id(u.Name).Call(v)
		}
		return v
	}
	if t.Local != nil && t.Local.Kind == model.BasicKind && t.Local.Underlying != nil && t.Local.Underlying.Kind == model.BuiltinRef {
		return jen.Id(t.Local.Underlying.Name).Call(v)
	}
	return v
}

// cellHelper writes func <name>(obj *T) any that walks c.Path, returning nil
// at the first nil pointer.
func cellHelper(k *model.Kind, name string, c model.PrinterColumn) jen.Code {
	var body []jen.Code
	cur := jen.Id("obj")
	for i, f := range c.Path {
		cur = cur.Clone().Dot(f.Name)
		if f.Type.Kind != model.PointerRef {
			continue
		}
		body = append(body, jen.If(cur.Clone().Op("==").Nil()).Block(jen.Return(jen.Nil())))
		if i == len(c.Path)-1 {
			body = append(body, jen.Return(cellValue(cur, f.Type)))
			return helperFunc(k, name, c, body)
		}
	}
	last := c.Path[len(c.Path)-1]
	if zero := omittedZero(last, cur); zero != nil {
		body = append(body, jen.If(zero).Block(jen.Return(jen.Nil())))
	}
	body = append(body, jen.Return(cellValue(cur, last.Type)))
	return helperFunc(k, name, c, body)
}

// omittedZero is the condition "v, the value of f, is a zero its JSON
// leaves out" (omitempty on a string, number, bool, slice or map, named
// or not), or nil: kube-apiserver evaluates a custom resource's column on
// its JSON, where such a field is absent, and the cell is null (kubectl
// prints <none>), not "" or 0.
func omittedZero(f *model.Field, v *jen.Statement) jen.Code {
	if !f.OmitEmpty {
		return nil
	}
	t := f.Type
	if t.Kind == model.NamedRef && t.Local != nil && t.Local.Kind == model.BasicKind && t.Local.Underlying != nil {
		t = t.Local.Underlying
	} else if t.Kind == model.NamedRef && t.External != nil && t.External.Known == "" && t.External.Underlying != nil {
		t = t.External.Underlying
	}
	switch t.Kind {
	case model.SliceRef, model.MapRef:
		return jen.Len(v.Clone()).Op("==").Lit(0)
	case model.BuiltinRef:
		switch t.Name {
		case "string":
			return v.Clone().Op("==").Lit("")
		case "bool":
			return jen.Op("!").Add(v.Clone())
		case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64":
			return v.Clone().Op("==").Lit(0)
		}
	}
	return nil
}

func helperFunc(k *model.Kind, name string, c model.PrinterColumn, body []jen.Code) jen.Code {
	return jen.Commentf("%s is the %q column (%s) of %s: nil when a pointer on the path is nil or the JSON leaves the value out.", name, c.Name, c.JSONPath, k.Name).Line().
		Func().Id(name).Params(jen.Id("obj").Op("*").Qual(k.Version.Package, k.Name)).Any().Block(body...)
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// identFrom keeps the letters and digits of a column name ("Last Seen" → "LastSeen").
func identFrom(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			if up {
				r -= 'a' - 'A'
			}
			b.WriteRune(r)
			up = false
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
			up = false
		default:
			up = true
		}
	}
	return b.String()
}

// scaleFuncs are the strategy's GetScale and SetReplicas over the fields
// +kubebuilder:subresource:scale names: reads stop at a nil pointer (zero),
// the write allocates the pointers on its way.
func scaleFuncs(k *model.Kind) (get, set jen.Code, err error) {
	pkg := k.Version.Package
	obj := jen.Op("*").Qual(pkg, k.Name)
	read := func(path []*model.Field, into string, conv func(jen.Code) jen.Code) jen.Code {
		// Walk the path: every pointer on the way guards what follows.
		var build func(i int, base *jen.Statement) jen.Code
		build = func(i int, base *jen.Statement) jen.Code {
			f := path[i]
			x := base.Clone().Dot(f.Name)
			if i == len(path)-1 {
				if f.Type.Kind == model.PointerRef {
					return jen.If(x.Clone().Op("!=").Nil()).Block(
						jen.Id("s").Dot(into).Op("=").Add(conv(jen.Op("*").Add(x))))
				}
				return jen.Id("s").Dot(into).Op("=").Add(conv(x))
			}
			if f.Type.Kind == model.PointerRef {
				return jen.If(x.Clone().Op("!=").Nil()).Block(build(i+1, x))
			}
			return build(i+1, x)
		}
		return build(0, jen.Id("obj"))
	}
	asInt32 := func(c jen.Code) jen.Code { return jen.Int32().Parens(c) }
	asString := func(c jen.Code) jen.Code { return jen.String().Parens(c) }
	body := []jen.Code{jen.Var().Id("s").Qual(resourcePkg, "Scale")}
	body = append(body, read(k.Scale.SpecReplicas, "SpecReplicas", asInt32), read(k.Scale.StatusReplicas, "StatusReplicas", asInt32))
	if len(k.Scale.LabelSelector) > 0 {
		body = append(body, read(k.Scale.LabelSelector, "Selector", asString))
	}
	body = append(body, jen.Return(jen.Id("s")))
	get = jen.Func().Params(jen.Id("obj").Add(obj)).Qual(resourcePkg, "Scale").Block(body...)

	// SetReplicas: allocate nil pointers on the way, then assign.
	var stmts []jen.Code
	x := jen.Id("obj")
	path := k.Scale.SpecReplicas
	for i, f := range path {
		x = x.Clone().Dot(f.Name)
		last := i == len(path)-1
		if f.Type.Kind == model.PointerRef {
			elem, err := typeCode(f.Type.Elem)
			if err != nil {
				return nil, nil, err
			}
			if last {
				stmts = append(stmts,
					jen.Id("v").Op(":=").Add(elem).Parens(jen.Id("replicas")),
					x.Clone().Op("=").Op("&").Id("v"))
				break
			}
			stmts = append(stmts, jen.If(x.Clone().Op("==").Nil()).Block(x.Clone().Op("=").New(elem)))
			continue
		}
		if last {
			t, err := typeCode(f.Type)
			if err != nil {
				return nil, nil, err
			}
			stmts = append(stmts, x.Clone().Op("=").Add(t).Parens(jen.Id("replicas")))
		}
	}
	set = jen.Func().Params(jen.Id("obj").Add(obj), jen.Id("replicas").Int32()).Block(stmts...)
	return get, set, nil
}

// rulesVar declares the kind's rules variable (ids.Rules) over the version's generated OpenAPI schemas.
func rulesVar(k *model.Kind, schemaName string) jen.Code {
	return jen.Commentf("%s are the CEL rules of %s, compiled once (Install compiles them).", ids.Rules(k), k.Name).Line().
		Var().Id(ids.Rules(k)).Op("=").Op("&").Qual(celPkg, "Rules").Values(jen.Dict{
		jen.Id("Root"):    jen.Lit(schemaName),
		jen.Id("Schemas"): jen.Id(ids.OpenAPISchemas),
	})
}
