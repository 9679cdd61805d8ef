package applyconfig

import (
	"github.com/dave/jennifer/jen"

	"github.com/kubeforge/kubeforge/generators/genall"
	cp "github.com/kubeforge/kubeforge/generators/internal/clientpkg"
	"github.com/kubeforge/kubeforge/generators/model"
)

const metav1Pkg = "k8s.io/apimachinery/pkg/apis/meta/v1"

// metaApply are the apimachinery meta/v1 structs client-go has apply
// configurations for (k8s.io/client-go/applyconfigurations/meta/v1).
var metaApply = map[string]bool{
	"Condition": true, "DeleteOptions": true, "GroupResource": true, "LabelSelector": true,
	"LabelSelectorRequirement": true, "ManagedFieldsEntry": true, "ObjectMeta": true,
	"OwnerReference": true, "Preconditions": true, "TypeMeta": true,
}

// applyType is the type a field of type r has in an apply configuration
// (pointers dropped, structs replaced by their apply configurations) and
// whether that type is itself an apply configuration.
func (g *gen) applyType(r *model.TypeRef) (*jen.Statement, bool) {
	switch r.Kind {
	case model.PointerRef:
		return g.applyType(r.Elem)
	case model.NamedRef:
		if r.Local != nil && g.want[r.Local] {
			return jen.Qual(g.p.Apply(g.byV[r.Local.Version]), cp.ApplyName(r.Name)), true
		}
		if r.Package == metav1Pkg && metaApply[r.Name] {
			return jen.Qual(cp.MetaApply, cp.ApplyName(r.Name)), true
		}
		return genall.TypeCode(r), false
	case model.SliceRef:
		elem, _ := g.applyType(r.Elem)
		return jen.Index().Add(elem), false
	case model.MapRef:
		key, _ := g.applyType(r.Key)
		elem, _ := g.applyType(r.Elem)
		return jen.Map(key).Add(elem), false
	}
	return genall.TypeCode(r), false
}

// nillable: slices and maps are kept as they are, everything else is a pointer.
func nillable(r *model.TypeRef) bool { return r.Kind == model.SliceRef || r.Kind == model.MapRef }

func isMeta(f *model.Field, name string) bool {
	return f.Type.Kind == model.NamedRef && f.Type.Package == metav1Pkg && f.Type.Name == name
}

func hasTypeMeta(t *model.Type) bool {
	for _, f := range t.Fields {
		if f.Embedded && isMeta(f, "TypeMeta") {
			return true
		}
	}
	return false
}

func hasJSON(f *model.Field) bool { return f.JSONName != "" || f.Inline }

// structFields are the apply configuration's fields: every field optional
// (pointer, or nil slice or map) and omitted when empty.
func (g *gen) structFields(t *model.Type) []jen.Code {
	var out []jen.Code
	for _, f := range t.Fields {
		if !hasJSON(f) {
			continue
		}
		typ, _ := g.applyType(f.Type)
		if f.Doc != "" {
			out = append(out, jen.Comment(f.Doc))
		}
		switch {
		case f.Embedded && f.Inline:
			out = append(out, typ.Tag(map[string]string{"json": ""}))
		case f.Embedded:
			out = append(out, jen.Op("*").Add(typ).Tag(map[string]string{"json": f.JSONName + ",omitempty"}))
		case nillable(f.Type):
			out = append(out, jen.Id(f.Name).Add(typ).Tag(map[string]string{"json": f.JSONName + ",omitempty"}))
		default:
			out = append(out, jen.Id(f.Name).Op("*").Add(typ).Tag(map[string]string{"json": f.JSONName + ",omitempty"}))
		}
	}
	return out
}

// member is where a With function writes: b.<Field> or, for a field of an
// embedded struct, b.<Embedded>.<Field>.
type member struct {
	embed  string // Go name of the embedded apply configuration, "" for own fields
	ensure string // the ensure function of a pointer embed, "" when none
}

// withFuncs writes one With function per field of t, recursing into
// embedded structs (metav1.TypeMeta, metav1.ObjectMeta, inline local ones).
func (g *gen) withFuncs(f *jen.File, name string, t *model.Type, in *member, seen map[string]bool) {
	for _, fl := range t.Fields {
		if !hasJSON(fl) || seen[fl.Name] {
			continue
		}
		seen[fl.Name] = true
		if fl.Embedded {
			g.embedded(f, name, fl, seen)
			continue
		}
		g.with(f, name, fl, in)
	}
}

func (g *gen) embedded(f *jen.File, name string, fl *model.Field, seen map[string]bool) {
	typ, _ := g.applyType(fl.Type)
	embedName := cp.ApplyName(fl.Type.Name)
	switch {
	case isMeta(fl, "TypeMeta"):
		for _, m := range typeMetaFields {
			g.with(f, name, m, &member{embed: embedName})
		}
	case isMeta(fl, "ObjectMeta"):
		ensure := "ensure" + embedName + "Exists"
		for _, m := range g.objectMetaFields() {
			g.with(f, name, m, &member{embed: embedName, ensure: ensure})
		}
		f.Func().Params(jen.Id("b").Op("*").Id(name)).Id(ensure).Params().Block(
			jen.If(jen.Id("b").Dot(embedName).Op("==").Nil()).Block(
				jen.Id("b").Dot(embedName).Op("=").Op("&").Add(typ).Values()))
	case fl.Type.Local != nil && g.want[fl.Type.Local]:
		m := &member{embed: embedName}
		if !fl.Inline {
			m.ensure = "ensure" + embedName + "Exists"
		}
		for _, sub := range fl.Type.Local.Fields {
			if hasJSON(sub) && !seen[sub.Name] && !sub.Embedded {
				seen[sub.Name] = true
				g.with(f, name, sub, m)
			}
		}
		if m.ensure != "" {
			f.Func().Params(jen.Id("b").Op("*").Id(name)).Id(m.ensure).Params().Block(
				jen.If(jen.Id("b").Dot(embedName).Op("==").Nil()).Block(
					jen.Id("b").Dot(embedName).Op("=").Op("&").Add(typ).Values()))
		}
	}
}

// with writes the With function of one field: set for scalars and
// structs, append for slices, put for maps.
func (g *gen) with(f *jen.File, name string, fl *model.Field, in *member) {
	target := jen.Id("b").Dot(fl.Name)
	var pre []jen.Code
	if in != nil {
		target = jen.Id("b").Dot(in.embed).Dot(fl.Name)
		if in.ensure != "" {
			pre = append(pre, jen.Id("b").Dot(in.ensure).Call())
		}
	}
	recv := jen.Id("b").Op("*").Id(name)
	fn := "With" + fl.Name
	typ, ac := g.applyType(fl.Type)
	switch fl.Type.Kind {
	case model.SliceRef:
		elem, elemAC := g.applyType(fl.Type.Elem)
		f.Comment(fn + " appends values to the " + fl.Name + " field and returns the receiver.")
		if elemAC {
			f.Func().Params(recv).Id(fn).Params(jen.Id("values").Op("...").Op("*").Add(elem)).Op("*").Id(name).Block(append(pre,
				jen.For(jen.Id("i").Op(":=").Range().Id("values")).Block(
					jen.If(jen.Id("values").Index(jen.Id("i")).Op("==").Nil()).Block(jen.Panic(jen.Lit("nil value passed to "+fn))),
					target.Clone().Op("=").Append(target.Clone(), jen.Op("*").Id("values").Index(jen.Id("i")))),
				jen.Return(jen.Id("b")))...)
			return
		}
		f.Func().Params(recv).Id(fn).Params(jen.Id("values").Op("...").Add(elem)).Op("*").Id(name).Block(append(pre,
			jen.For(jen.Id("i").Op(":=").Range().Id("values")).Block(
				target.Clone().Op("=").Append(target.Clone(), jen.Id("values").Index(jen.Id("i")))),
			jen.Return(jen.Id("b")))...)
	case model.MapRef:
		f.Comment(fn + " puts entries into the " + fl.Name + " field, replacing entries with the same key, and returns the receiver.")
		f.Func().Params(recv).Id(fn).Params(jen.Id("entries").Add(typ.Clone())).Op("*").Id(name).Block(append(pre,
			jen.If(target.Clone().Op("==").Nil().Op("&&").Len(jen.Id("entries")).Op(">").Lit(0)).Block(
				target.Clone().Op("=").Make(typ.Clone(), jen.Len(jen.Id("entries")))),
			jen.For(jen.List(jen.Id("k"), jen.Id("v")).Op(":=").Range().Id("entries")).Block(
				target.Clone().Index(jen.Id("k")).Op("=").Id("v")),
			jen.Return(jen.Id("b")))...)
	default:
		f.Comment(fn + " sets the " + fl.Name + " field and returns the receiver.")
		if ac {
			f.Func().Params(recv).Id(fn).Params(jen.Id("value").Op("*").Add(typ)).Op("*").Id(name).Block(append(pre,
				target.Op("=").Id("value"), jen.Return(jen.Id("b")))...)
			return
		}
		f.Func().Params(recv).Id(fn).Params(jen.Id("value").Add(typ)).Op("*").Id(name).Block(append(pre,
			target.Op("=").Op("&").Id("value"), jen.Return(jen.Id("b")))...)
	}
}

// getters are the Get functions client-go's apply calls need on a kind:
// GetKind and GetAPIVersion (TypeMeta), GetName and GetNamespace
// (ObjectMeta).
func (g *gen) getters(f *jen.File, name string, t *model.Type) {
	for _, fl := range t.Fields {
		if !fl.Embedded {
			continue
		}
		var fields []string
		ensure := ""
		switch {
		case isMeta(fl, "TypeMeta"):
			fields = []string{"Kind", "APIVersion"}
		case isMeta(fl, "ObjectMeta"):
			fields = []string{"Name", "Namespace"}
			ensure = "ensureObjectMetaApplyConfigurationExists"
		default:
			continue
		}
		embed := cp.ApplyName(fl.Type.Name)
		for _, m := range fields {
			var body []jen.Code
			if ensure != "" {
				body = append(body, jen.Id("b").Dot(ensure).Call())
			}
			body = append(body, jen.Return(jen.Id("b").Dot(embed).Dot(m)))
			f.Comment("Get" + m + " returns the " + m + " field.")
			f.Func().Params(jen.Id("b").Op("*").Id(name)).Id("Get" + m).Params().Op("*").String().Block(body...)
		}
	}
}

func scalar(name, typ, pkg string) *model.Field {
	r := &model.TypeRef{Kind: model.BuiltinRef, Name: typ}
	if pkg != "" {
		r = &model.TypeRef{Kind: model.NamedRef, Name: typ, Package: pkg}
	}
	return &model.Field{Name: name, JSONName: name, Type: r}
}

// typeMetaFields and objectMetaFields are the fields of metav1.TypeMeta and
// metav1.ObjectMeta an apply configuration may set (not managedFields or
// selfLink, which the server owns).
var typeMetaFields = []*model.Field{scalar("Kind", "string", ""), scalar("APIVersion", "string", "")}

func (g *gen) objectMetaFields() []*model.Field {
	str := func() *model.TypeRef { return &model.TypeRef{Kind: model.BuiltinRef, Name: "string"} }
	return []*model.Field{
		scalar("Name", "string", ""), scalar("GenerateName", "string", ""), scalar("Namespace", "string", ""),
		scalar("UID", "UID", "k8s.io/apimachinery/pkg/types"), scalar("ResourceVersion", "string", ""),
		scalar("Generation", "int64", ""), scalar("CreationTimestamp", "Time", metav1Pkg),
		scalar("DeletionTimestamp", "Time", metav1Pkg), scalar("DeletionGracePeriodSeconds", "int64", ""),
		{Name: "Labels", JSONName: "labels", Type: &model.TypeRef{Kind: model.MapRef, Key: str(), Elem: str()}},
		{Name: "Annotations", JSONName: "annotations", Type: &model.TypeRef{Kind: model.MapRef, Key: str(), Elem: str()}},
		{Name: "OwnerReferences", JSONName: "ownerReferences", Type: &model.TypeRef{Kind: model.SliceRef, Elem: &model.TypeRef{Kind: model.NamedRef, Name: "OwnerReference", Package: metav1Pkg}}},
		{Name: "Finalizers", JSONName: "finalizers", Type: &model.TypeRef{Kind: model.SliceRef, Elem: str()}},
	}
}
