package storage

import (
	"fmt"
	"go/token"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/kubeforge/kubeforge/generators/builtinfields"
	"github.com/kubeforge/kubeforge/generators/model"
)

const (
	fieldsPkg  = "k8s.io/apimachinery/pkg/fields"
	strconvPkg = "strconv"
)

// SelectableFunc is the name of the generated function that returns the
// field set of a k for field selectors: "<kind>SelectableFields".
func SelectableFunc(k *model.Kind) string { return lowerFirst(k.Name) + "SelectableFields" }

// selectableFunc writes SelectableFunc(k): metadata.name, metadata.namespace
// (namespaced kinds) and every selectable field of k, from its
// +kubebuilder:selectablefield markers or, for a built-in kind, from
// generators/builtinfields. It returns nil when k selects on metadata only.
func selectableFunc(k *model.Kind) (jen.Code, error) {
	obj := jen.Id("obj")
	type entry struct {
		label string
		value jen.Code
	}
	var pre []jen.Code
	var entries []entry
	if k.Version.External {
		t, err := builtinfields.For(k)
		if err != nil || t == nil {
			return nil, err
		}
		p, values := t.Values(obj)
		pre = p
		for i, f := range t.Fields {
			entries = append(entries, entry{f.Label, values[i]})
		}
	} else {
		for _, sf := range k.SelectableFields {
			p, v, err := selectableValue(obj, sf)
			if err != nil {
				return nil, fmt.Errorf("selectable field %s: %w", sf.JSONPath, err)
			}
			pre = append(pre, p...)
			entries = append(entries, entry{sf.Label, v})
		}
	}
	if len(entries) == 0 {
		return nil, nil
	}
	entries = append(entries, entry{"metadata.name", obj.Clone().Dot("Name")})
	if k.Namespaced {
		entries = append(entries, entry{"metadata.namespace", obj.Clone().Dot("Namespace")})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].label < entries[j].label })
	labels := make([]string, len(entries))
	for i, e := range entries {
		labels[i] = e.label
	}
	body := append(pre, jen.Return(jen.Qual(fieldsPkg, "Set").ValuesFunc(func(g *jen.Group) {
		for _, e := range entries {
			g.Line().Lit(e.label).Op(":").Add(e.value)
		}
		g.Line()
	})))
	article := "a"
	if strings.ContainsRune("AEIOU", rune(k.Name[0])) {
		article = "an"
	}
	doc := jen.Commentf("%s is the field set of %s %s for field selectors", SelectableFunc(k), article, k.Name).Line().
		Comment(`("" when a field is absent):`).Line()
	for _, l := range wrap(labels, 72) {
		doc.Comment(l).Line()
	}
	return doc.Func().Id(SelectableFunc(k)).Params(obj.Clone().Op("*").Qual(k.Version.Package, k.Name)).Qual(fieldsPkg, "Set").
		Block(body...), nil
}

// selectableValue returns the string value of a +kubebuilder:selectablefield
// as the JSON form of the object has it: "" when a pointer on the path is
// nil or the field is an omitempty zero value (absent from the JSON), else
// the string, "true"/"false" or the decimal integer. Statements in pre
// compute it into a variable when it needs checks.
func selectableValue(obj *jen.Statement, sf model.SelectableField) (pre []jen.Code, value jen.Code, err error) {
	f := sf.Field()
	base, named, err := scalarBase(f.Type)
	if err != nil {
		return nil, nil, err
	}
	var conds []jen.Code
	cur := obj.Clone()
	for _, p := range sf.Path {
		cur = cur.Clone().Dot(p.Name)
		if p.Type.Kind == model.PointerRef {
			conds = append(conds, cur.Clone().Op("!=").Nil())
		}
	}
	v := cur
	switch {
	case f.Type.Kind == model.PointerRef:
		v = jen.Op("*").Add(cur)
	case f.OmitEmpty && base != "string":
		// encoding/json leaves an omitempty zero value out.
		zero := jen.Lit(0)
		if base == "bool" {
			zero = jen.False()
		}
		conds = append(conds, cur.Clone().Op("!=").Add(zero))
	}
	var s jen.Code
	switch {
	case base == "string" && !named:
		s = v
	case base == "string":
		s = jen.String().Call(v)
	case base == "bool" && !named:
		s = jen.Qual(strconvPkg, "FormatBool").Call(v)
	case base == "bool":
		s = jen.Qual(strconvPkg, "FormatBool").Call(jen.Bool().Call(v))
	case strings.HasPrefix(base, "uint"):
		s = jen.Qual(strconvPkg, "FormatUint").Call(jen.Uint64().Call(v), jen.Lit(10))
	case base == "int64" && !named:
		s = jen.Qual(strconvPkg, "FormatInt").Call(v, jen.Lit(10))
	default:
		s = jen.Qual(strconvPkg, "FormatInt").Call(jen.Int64().Call(v), jen.Lit(10))
	}
	if len(conds) == 0 {
		return nil, s, nil
	}
	name := varName(sf.Label)
	cond := conds[0]
	for _, c := range conds[1:] {
		cond = jen.Add(cond).Op("&&").Add(c)
	}
	return []jen.Code{
		jen.Id(name).Op(":=").Lit(""),
		jen.If(cond).Block(jen.Id(name).Op("=").Add(s)),
	}, jen.Id(name), nil
}

// scalarBase returns the Go basic type behind r (through a pointer and a
// named type): string, bool or an integer type, and whether r names a type
// of its own (types.UID, Phase) that needs a conversion.
func scalarBase(r *model.TypeRef) (base string, named bool, err error) {
	if r.Kind == model.PointerRef {
		r = r.Elem
	}
	var u *model.TypeRef
	switch {
	case r.Kind == model.BuiltinRef:
		u = r
	case r.Kind == model.NamedRef && r.Local != nil:
		u, named = r.Local.Underlying, true
	case r.Kind == model.NamedRef && r.External != nil:
		u, named = r.External.Underlying, true
	}
	if u == nil || u.Kind != model.BuiltinRef {
		return "", false, fmt.Errorf("not a string, boolean or integer")
	}
	switch n := u.Name; {
	case n == "string", n == "bool", strings.HasPrefix(n, "int"), strings.HasPrefix(n, "uint"), n == "byte", n == "rune":
		if n == "byte" {
			n = "uint8"
		}
		return n, named, nil
	}
	return "", false, fmt.Errorf("not a string, boolean or integer: %s", u.Name)
}

// wrap joins words with ", " into lines of at most width characters (a
// longer word stands alone), the last one ending with ".".
func wrap(words []string, width int) []string {
	var lines []string
	cur := ""
	for i, w := range words {
		sep := ","
		if i == len(words)-1 {
			sep = "."
		}
		switch {
		case cur == "":
			cur = w + sep
		case len(cur)+1+len(w)+1 <= width:
			cur += " " + w + sep
		default:
			lines = append(lines, cur)
			cur = w + sep
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// varName is a local variable for a label's value ("spec.carrier" →
// specCarrier), never a keyword or a name the function uses.
func varName(label string) string {
	n := lowerFirst(identFrom(label))
	switch {
	case n == "", token.IsKeyword(n), n == "obj", n == "fields", n == "strconv", n == "source":
		return n + "Value"
	}
	return n
}
