// Package applyconfig generates generated/applyconfiguration: for every
// struct type a served kind reaches, a <Type>ApplyConfiguration with a
// With... builder per field; for kinds Extract<Kind> (and per subresource)
// reading back what a field manager owns; ForKind and NewTypeConverter in
// the root package; and the structured-merge-diff schema those need in
// applyconfiguration/internal. The exported API is code-generator's
// applyconfiguration-gen's.
package applyconfig

import (
	"sort"

	"github.com/dave/jennifer/jen"

	"github.com/kubeforge/kubeforge/generators/genall"
	cp "github.com/kubeforge/kubeforge/generators/internal/clientpkg"
	"github.com/kubeforge/kubeforge/generators/model"
)

// Generator writes the apply configurations.
type Generator struct{}

// Name implements genall.Generator.
func (Generator) Name() string { return "applyconfig" }

// gen is one run: the paths and which types get apply configurations.
type gen struct {
	api  *model.API
	p    cp.Paths
	byV  map[*model.Version]*cp.Version
	want map[*model.Type]bool
}

// Generate implements genall.Generator.
func (Generator) Generate(api *model.API) ([]genall.File, error) {
	groups, err := cp.Groups(api)
	if err != nil {
		return nil, err
	}
	versions := cp.Versions(groups)
	if len(versions) == 0 {
		return nil, nil
	}
	g := &gen{api: api, p: cp.For(api), byV: map[*model.Version]*cp.Version{}, want: map[*model.Type]bool{}}
	for _, v := range versions {
		g.byV[v.V] = v
	}
	for _, v := range versions {
		for _, k := range v.Kinds {
			g.reach(k.Type)
		}
	}
	var files []genall.File
	for _, v := range versions {
		dir := g.p.Dir(api, g.p.Apply(v))
		for _, t := range g.types(v) {
			out, err := cp.Render(g.typeFile(v, t), dir, lowerAll(t.Name))
			if err != nil {
				return nil, err
			}
			files = append(files, out)
		}
	}
	utils, err := cp.Render(g.utilsFile(versions), g.p.Dir(api, g.p.ApplyConfigurations()), "utils")
	if err != nil {
		return nil, err
	}
	internal, err := g.internalFile(versions)
	if err != nil {
		return nil, err
	}
	return append(files, utils, internal), nil
}

func lowerAll(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}

// reach marks t and every struct type of a client version its fields
// reach (inline ones included).
func (g *gen) reach(t *model.Type) {
	if t == nil || g.want[t] || t.Kind != model.StructKind || g.byV[t.Version] == nil || !hasJSONField(t) {
		return
	}
	g.want[t] = true
	for _, f := range t.Fields {
		g.reachRef(f.Type)
	}
}

func (g *gen) reachRef(r *model.TypeRef) {
	for r != nil {
		if r.Kind == model.NamedRef {
			g.reach(r.Local)
			return
		}
		if r.Kind == model.MapRef {
			g.reachRef(r.Key)
		}
		r = r.Elem
	}
}

func hasJSONField(t *model.Type) bool {
	for _, f := range t.Fields {
		if f.JSONName != "" || f.Inline {
			return true
		}
	}
	return false
}

// types returns the types of v that get apply configurations, by name.
func (g *gen) types(v *cp.Version) []*model.Type {
	var out []*model.Type
	for _, t := range v.V.Types {
		if g.want[t] {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// kindOf returns the client kind whose type is t, or nil.
func (g *gen) kindOf(t *model.Type) *model.Kind {
	if v := g.byV[t.Version]; v != nil {
		for _, k := range v.Kinds {
			if k.Type == t {
				return k
			}
		}
	}
	return nil
}

// typeFile is one type's apply configuration.
func (g *gen) typeFile(v *cp.Version, t *model.Type) *jen.File {
	f := cp.NewFile(v.Name, g.p.Apply(v), "Package "+v.Name+" holds the apply configurations of "+v.Group.Name+"/"+v.Name+".")
	cp.ImportTypes(f, v)
	f.ImportAlias(cp.MetaApply, "applymetav1")
	name := cp.ApplyName(t.Name)
	doc := name + " is a declarative configuration of the " + t.Name + " type for use with apply."
	if t.Doc != "" {
		doc += "\n\n" + t.Doc
	}
	f.Comment(doc)
	f.Type().Id(name).Struct(g.structFields(t)...)
	k := g.kindOf(t)
	switch {
	case k != nil:
		g.kindConstructor(f, v, k)
		g.extract(f, v, k)
	case hasTypeMeta(t):
		f.Comment(t.Name + " constructs an " + name + " with its kind and apiVersion set.")
		f.Func().Id(t.Name).Params().Op("*").Id(name).Block(
			jen.Id("b").Op(":=").Op("&").Id(name).Values(),
			jen.Id("b").Dot("WithKind").Call(jen.Lit(t.Name)),
			jen.Id("b").Dot("WithAPIVersion").Call(jen.Lit(v.Group.Name+"/"+v.Name)),
			jen.Return(jen.Id("b")))
	default:
		f.Comment(t.Name + " constructs an empty " + name + ".")
		f.Func().Id(t.Name).Params().Op("*").Id(name).Block(jen.Return(jen.Op("&").Id(name).Values()))
	}
	if k != nil || hasTypeMeta(t) {
		f.Comment("IsApplyConfiguration marks " + name + " as an apply configuration.")
		f.Func().Params(jen.Id("b").Id(name)).Id("IsApplyConfiguration").Params().Block()
	}
	seen := map[string]bool{}
	g.withFuncs(f, name, t, nil, seen)
	g.getters(f, name, t)
	return f
}

func (g *gen) kindConstructor(f *jen.File, v *cp.Version, k *model.Kind) {
	name := cp.ApplyName(k.Name)
	params := []jen.Code{jen.Id("name")}
	body := []jen.Code{
		jen.Id("b").Op(":=").Op("&").Id(name).Values(),
		jen.Id("b").Dot("WithName").Call(jen.Id("name")),
	}
	if k.Namespaced {
		params = append(params, jen.Id("namespace"))
		body = append(body, jen.Id("b").Dot("WithNamespace").Call(jen.Id("namespace")))
	}
	body = append(body,
		jen.Id("b").Dot("WithKind").Call(jen.Lit(k.Name)),
		jen.Id("b").Dot("WithAPIVersion").Call(jen.Lit(v.Group.Name+"/"+v.Name)),
		jen.Return(jen.Id("b")))
	f.Comment(k.Name + " constructs the apply configuration of the named " + k.Name + ".")
	f.Func().Id(k.Name).Params(jen.List(params...).String()).Op("*").Id(name).Block(body...)
}

// extract writes Extract<Kind>From, Extract<Kind> and one
// Extract<Kind><Subresource> per subresource the kind serves.
func (g *gen) extract(f *jen.File, v *cp.Version, k *model.Kind) {
	name := cp.ApplyName(k.Name)
	obj := cp.LowerFirst(k.Name)
	typ := jen.Op("*").Qual(k.Version.Package, k.Name)
	from := "Extract" + k.Name + "From"
	body := []jen.Code{
		jen.Id("b").Op(":=").Op("&").Id(name).Values(),
		jen.Err().Op(":=").Qual("k8s.io/apimachinery/pkg/util/managedfields", "ExtractInto").Call(
			jen.Id(obj), jen.Qual(g.p.ApplyInternal(), "Parser").Call().Dot("Type").Call(jen.Lit(smdName(k.Type))),
			jen.Id("fieldManager"), jen.Id("b"), jen.Id("subresource")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Id("b").Dot("WithName").Call(jen.Id(obj).Dot("Name")),
	}
	if k.Namespaced {
		body = append(body, jen.Id("b").Dot("WithNamespace").Call(jen.Id(obj).Dot("Namespace")))
	}
	body = append(body,
		jen.Id("b").Dot("WithKind").Call(jen.Lit(k.Name)),
		jen.Id("b").Dot("WithAPIVersion").Call(jen.Lit(v.Group.Name+"/"+v.Name)),
		jen.Return(jen.Id("b"), jen.Nil()))
	f.Comment(from + " extracts what fieldManager applied to " + obj + " through subresource\n(\"\" for the main resource), for an extract, modify, apply cycle. " + obj + " must be\nunmodified since it was read from the server; fields another manager took over are\nmissing from the result.")
	f.Func().Id(from).Params(jen.Id(obj).Add(typ.Clone()), jen.Id("fieldManager").String(), jen.Id("subresource").String()).Params(jen.Op("*").Id(name), jen.Error()).Block(body...)
	f.Comment("Extract" + k.Name + " extracts what fieldManager applied to the main resource of " + obj + ".")
	f.Func().Id("Extract"+k.Name).Params(jen.Id(obj).Add(typ.Clone()), jen.Id("fieldManager").String()).Params(jen.Op("*").Id(name), jen.Error()).Block(
		jen.Return(jen.Id(from).Call(jen.Id(obj), jen.Id("fieldManager"), jen.Lit(""))))
	var subs []string
	if k.Scale != nil {
		subs = append(subs, "scale")
	}
	if cp.HasStatus(k) {
		subs = append(subs, "status")
	}
	for _, s := range subs {
		fn := "Extract" + k.Name + upperFirst(s)
		f.Comment(fn + " extracts what fieldManager applied to the " + s + " subresource of " + obj + ".")
		f.Func().Id(fn).Params(jen.Id(obj).Add(typ.Clone()), jen.Id("fieldManager").String()).Params(jen.Op("*").Id(name), jen.Error()).Block(
			jen.Return(jen.Id(from).Call(jen.Id(obj), jen.Id("fieldManager"), jen.Lit(s))))
	}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
