package conversion

import (
	"github.com/dave/jennifer/jen"

	"github.com/kubeforge/kubeforge/generators/ids"
	"github.com/kubeforge/kubeforge/generators/model"
)

// gvkVar is the name of the package-level GroupVersionKind of a kind in
// version v, used in the errors of its conversion methods.
func gvkVar(k *model.Kind, hub bool) string {
	if hub {
		return "gvk" + k.Name + "Hub"
	}
	return "gvk" + k.Name
}

// convertibleFuncs writes <Kind>ToHub, <Kind>FromHub and the list
// functions of a kind converted by its own controller-runtime methods
// (model.Kind.Convertible). The methods get a deep copy of their input,
// which may be the watch cache's object, so that neither what they do to
// it nor an output sharing its maps and slices can reach the cache. The
// output's metadata is then the input's with the output's labels and
// annotations (kfconversion.RestoreMeta, as kube-apiserver treats a
// conversion webhook's answer), and any error is a
// kfconversion.ConvertibleError: the server answers it as kube answers a
// failing conversion webhook.
func (p *planner) convertibleFuncs(f *jen.File, kp *kindPair) {
	sk, hk := kp.sk, kp.hk
	sv, hv := sk.Version, hk.Version
	f.ImportAlias(hv.Package, p.alias(hv))
	name := sk.Name
	sT, hT := jen.Qual(sv.Package, name), jen.Qual(hv.Package, hk.Name)
	f.Var().Defs(
		jen.Id(gvkVar(sk, false)).Op("=").Add(gvkLit(sk)),
		jen.Id(gvkVar(sk, true)).Op("=").Add(gvkLit(hk)),
	)
	f.Line()
	fn := func(fnName, method string, from, to *jen.Statement, fromGVK, toGVK string, toV *model.Version, toKind string) {
		call := jen.Id("src").Dot(method).Call(jen.Id("out"))
		if method == "ConvertFrom" {
			call = jen.Id("out").Dot(method).Call(jen.Id("src"))
		}
		f.Func().Id(fnName).Params(jen.Id("in").Op("*").Add(from.Clone())).Params(jen.Op("*").Add(to.Clone()), jen.Error()).Block(
			jen.Id("src").Op(":=").Id("in").Dot("DeepCopy").Call(),
			jen.Id("out").Op(":=").New(to.Clone()),
			jen.If(jen.Err().Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Qual(kfconvPkg, "Convertible").Call(jen.Id(fromGVK), jen.Err()))),
			jen.If(jen.Err().Op(":=").Qual(kfconvPkg, "RestoreMeta").Call(jen.Id(fromGVK), jen.Op("&").Id("src").Dot("ObjectMeta"), jen.Op("&").Id("out").Dot("ObjectMeta")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Err())),
			jen.List(jen.Id("out").Dot("APIVersion"), jen.Id("out").Dot("Kind")).Op("=").List(jen.Lit(toV.GroupVersion()), jen.Lit(toKind)),
			jen.Return(jen.Id("out"), jen.Nil()),
		)
		f.Line()
	}
	f.Commentf("%s converts a %s %s to the hub (storage) version %s by its ConvertTo method (controller-runtime's conversion.Convertible).", ids.ToHub(name), sv.Name, name, hv.Name)
	fn(ids.ToHub(name), "ConvertTo", sT, hT, gvkVar(sk, false), gvkVar(sk, true), hv, hk.Name)
	f.Commentf("%s converts a %s %s from the hub (storage) version to %s by the spoke's ConvertFrom method (controller-runtime's conversion.Convertible).", ids.FromHub(name), hv.Name, name, sv.Name)
	fn(ids.FromHub(name), "ConvertFrom", hT, sT, gvkVar(sk, true), gvkVar(sk, false), sv, name)

	sl, hl := jen.Qual(sv.Package, sk.ListName), jen.Qual(hv.Package, hk.ListName)
	for _, d := range []struct {
		fn, item     string
		from, to, el *jen.Statement
		toV          *model.Version
		toListName   string
	}{
		{ids.ToHub(name + "List"), ids.ToHub(name), sl, hl, hT, hv, hk.ListName},
		{ids.FromHub(name + "List"), ids.FromHub(name), hl, sl, sT, sv, sk.ListName},
	} {
		f.Commentf("%s converts a list item by item as %s does.", d.fn, d.item)
		f.Func().Id(d.fn).Params(jen.Id("in").Op("*").Add(d.from.Clone())).Params(jen.Op("*").Add(d.to.Clone()), jen.Error()).Block(
			jen.Id("out").Op(":=").Op("&").Add(d.to.Clone()).Values(jen.Dict{
				jen.Id("ListMeta"): jen.Op("*").Id("in").Dot("ListMeta").Dot("DeepCopy").Call(),
			}),
			jen.List(jen.Id("out").Dot("APIVersion"), jen.Id("out").Dot("Kind")).Op("=").List(jen.Lit(d.toV.GroupVersion()), jen.Lit(d.toListName)),
			jen.If(jen.Id("in").Dot("Items").Op("!=").Nil()).Block(
				jen.Id("out").Dot("Items").Op("=").Make(jen.Index().Add(d.el.Clone()), jen.Len(jen.Id("in").Dot("Items"))),
			),
			jen.For(jen.Id("i").Op(":=").Range().Id("in").Dot("Items")).Block(
				jen.List(jen.Id("item"), jen.Err()).Op(":=").Id(d.item).Call(jen.Op("&").Id("in").Dot("Items").Index(jen.Id("i"))),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.Id("out").Dot("Items").Index(jen.Id("i")).Op("=").Op("*").Id("item"),
			),
			jen.Return(jen.Id("out"), jen.Nil()),
		)
		f.Line()
	}
}

// registerConvertibles adds the kinds and lists converted by their own
// methods to RegisterConversions, through their ToHub and FromHub.
func (p *planner) registerConvertibles() []jen.Code {
	var body []jen.Code
	for _, kp := range p.kinds {
		if !kp.convertible {
			continue
		}
		sv, hv := kp.sk.Version, kp.hk.Version
		for _, t := range []struct{ s, h, to, from string }{
			{kp.sk.Name, kp.hk.Name, ids.ToHub(kp.sk.Name), ids.FromHub(kp.sk.Name)},
			{kp.sk.ListName, kp.hk.ListName, ids.ToHub(kp.sk.Name + "List"), ids.FromHub(kp.sk.Name + "List")},
		} {
			for _, d := range []struct {
				from, to *jen.Statement
				fn       string
			}{
				{jen.Qual(sv.Package, t.s), jen.Qual(hv.Package, t.h), t.to},
				{jen.Qual(hv.Package, t.h), jen.Qual(sv.Package, t.s), t.from},
			} {
				body = append(body, jen.If(jen.Err().Op(":=").Id("s").Dot("AddConversionFunc").Call(
					jen.Parens(jen.Op("*").Add(d.from.Clone())).Parens(jen.Nil()),
					jen.Parens(jen.Op("*").Add(d.to.Clone())).Parens(jen.Nil()),
					jen.Func().Params(jen.List(jen.Id("a"), jen.Id("b")).Interface(), jen.Id("scope").Qual(apiconvPkg, "Scope")).Error().Block(
						jen.List(jen.Id("out"), jen.Err()).Op(":=").Id(d.fn).Call(jen.Id("a").Assert(jen.Op("*").Add(d.from.Clone()))),
						jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
						jen.Op("*").Id("b").Assert(jen.Op("*").Add(d.to.Clone())).Op("=").Op("*").Id("out"),
						jen.Return(jen.Nil()),
					),
				), jen.Err().Op("!=").Nil()).Block(
					jen.Return(jen.Qual(fmtPkg, "Errorf").Call(jen.Lit("register conversion by "+d.fn+": %w"), jen.Err())),
				))
			}
		}
	}
	return body
}
