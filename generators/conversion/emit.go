package conversion

import (
	"bytes"
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/ids"
	"github.com/kubeforge/kubeforge/generators/model"
)

const (
	fmtPkg        = "fmt"
	equalityPkg   = "k8s.io/apimachinery/pkg/api/equality"
	runtimePkg    = "k8s.io/apimachinery/pkg/runtime"
	apiconvPkg    = "k8s.io/apimachinery/pkg/conversion"
	kfconvPkg     = "github.com/kubeforge/kubeforge/runtime/conversion"
	fieldmgrPkg   = "github.com/kubeforge/kubeforge/runtime/fieldmanager"
	schemaPkg     = "k8s.io/apimachinery/pkg/runtime/schema"
	annotationDoc = "kubeforge.dev/conversion-data"
)

type expr func() *jen.Statement

func sel(base string, path []string) expr {
	return func() *jen.Statement {
		s := jen.Id(base)
		for _, p := range path {
			s = s.Dot(p)
		}
		return s
	}
}

func addr(e expr) *jen.Statement { return jen.Op("&").Add(e()) }

func emit(api *model.API, p *planner) ([]genall.File, error) {
	gf, err := p.generatedFile(api)
	if err != nil {
		return nil, err
	}
	if len(p.pairs) == 0 {
		// Only kinds converted by their own methods: no field-by-field
		// functions beside the types.
		return []genall.File{gf}, nil
	}
	tf, err := p.typesFile()
	if err != nil {
		return nil, err
	}
	return []genall.File{tf, gf}, nil
}

func render(f *jen.File, path string) (genall.File, error) {
	var b bytes.Buffer
	if err := f.Render(&b); err != nil {
		return genall.File{}, fmt.Errorf("render %s: %w", path, err)
	}
	return genall.File{Path: path, Content: b.Bytes()}, nil
}

// typesFile writes the field-by-field functions beside the spoke types.
func (p *planner) typesFile() (genall.File, error) {
	v := p.spoke
	f := genall.NewFile(v.PackageName, v.Package)
	if err := p.typesFuncs(f); err != nil {
		return genall.File{}, err
	}
	return render(f, v.Dir+"/"+FileName)
}

// crossTypesFile writes the field-by-field functions of every version
// whose kinds are stored as another group's kinds into one file of the
// types root package (model.API.Types), beside the hand-written ones.
func crossTypesFile(ps []*planner) (genall.File, error) {
	c := ps[0].fns
	f := genall.NewFile(c.name, c.pkg)
	for _, p := range ps {
		if err := p.typesFuncs(f); err != nil {
			return genall.File{}, fmt.Errorf("%s: %w", p.spoke.Package, err)
		}
	}
	return render(f, c.dir+"/"+FileName)
}

// typesFuncs adds the autoConvert_ and (unless hand-written) Convert_
// functions of every pair, in both directions, to f.
func (p *planner) typesFuncs(f *jen.File) error {
	f.ImportName(fmtPkg, "fmt")
	for _, pr := range p.sorted() {
		if p.cross {
			f.ImportAlias(pr.sv.Package, p.alias(pr.sv))
		}
		f.ImportAlias(pr.hv.Package, p.alias(pr.hv))
	}
	for _, pr := range p.sorted() {
		for _, s2h := range []bool{true, false} {
			from, to := pr.sv, pr.hv
			hand := pr.handS2H
			if !s2h {
				from, to, hand = pr.hv, pr.sv, pr.handH2S
			}
			auto := autoName(pr.label(from), pr.label(to), pr.name)
			body, err := p.pairBody(pr, s2h)
			if err != nil {
				return fmt.Errorf("type %s: %w", pr.name, err)
			}
			f.Commentf("%s converts the fields of %s.%s that %s.%s has under the same JSON name with a compatible type.", auto, pr.label(from), pr.name, pr.label(to), pr.name)
			f.Func().Id(auto).Params(jen.Id("in").Op("*").Qual(from.Package, pr.name), jen.Id("out").Op("*").Qual(to.Package, pr.name)).Error().Block(body...)
			f.Line()
			if hand {
				continue
			}
			fn := funcName(pr.label(from), pr.label(to), pr.name)
			f.Commentf("%s converts %s.%s to %s.%s.", fn, pr.label(from), pr.name, pr.label(to), pr.name)
			f.Func().Id(fn).Params(jen.Id("in").Op("*").Qual(from.Package, pr.name), jen.Id("out").Op("*").Qual(to.Package, pr.name)).Error().Block(
				jen.Return(jen.Id(auto).Call(jen.Id("in"), jen.Id("out"))),
			)
			f.Line()
		}
	}
	return nil
}

func (p *planner) pairBody(pr *pair, s2h bool) ([]jen.Code, error) {
	var body []jen.Code
	from, to := pr.sv, pr.hv
	if !s2h {
		from, to = pr.hv, pr.sv
	}
	for _, m := range pr.matches {
		a, b := m.s, m.h
		if !s2h {
			a, b = m.h, m.s
		}
		code, err := p.conv(a.f.Type, b.f.Type, sel("in", a.path), sel("out", b.path), pr.name+"."+a.goName())
		if err != nil {
			return nil, err
		}
		body = append(body, code...)
	}
	need := pr.needS2H
	if !s2h {
		need = pr.needH2S
	}
	for _, m := range need {
		body = append(body, jen.Commentf("WARNING: %s.%s needs hand-written code in %s: %s", pr.label(m.side), m.f.goName(), funcName(pr.label(from), pr.label(to), pr.name), m.reason))
	}
	if s2h {
		for _, h := range pr.hubOnly {
			body = append(body, jen.Commentf("out.%s (json %q) has no %s counterpart: kept in the %s annotation by the generated FromHub/ToHub.", h.goName(), h.json, pr.label(from), annotationDoc))
		}
	}
	body = append(body, jen.Return(jen.Nil()))
	return body, nil
}

// pairFunc returns the Convert_ function for a value of from converted to
// to, when they are a struct pair.
func (p *planner) pairFunc(from, to *model.TypeRef) (string, bool) {
	if pr := p.pairOf(from, to); pr != nil && from.Local.Version == pr.sv {
		return pr.s2h(), true
	}
	if pr := p.pairOf(to, from); pr != nil && to.Local.Version == pr.sv {
		return pr.h2s(), true
	}
	return "", false
}

// conv emits statements converting the value in (type from) to out (type to).
func (p *planner) conv(from, to *model.TypeRef, in, out expr, ctx string) ([]jen.Code, error) {
	if identical(from, to) {
		return p.copyIdentical(from, in, out, ctx)
	}
	if b := basicOf(from); b != "" && b == basicOf(to) {
		return []jen.Code{out().Op("=").Add(genall.TypeCode(to)).Parens(in())}, nil
	}
	if fn, ok := p.pairFunc(from, to); ok {
		return []jen.Code{callConvert(jen.Qual(p.fns.pkg, fn), in, out, ctx)}, nil
	}
	return p.structural(from, to, in, out, ctx)
}

func callConvert(fn *jen.Statement, in, out expr, ctx string) jen.Code {
	return jen.If(jen.Err().Op(":=").Add(fn).Call(addr(in), addr(out)), jen.Err().Op("!=").Nil()).Block(
		jen.Return(jen.Qual(fmtPkg, "Errorf").Call(jen.Lit("convert "+ctx+": %w"), jen.Err())),
	)
}

func (p *planner) copyIdentical(r *model.TypeRef, in, out expr, ctx string) ([]jen.Code, error) {
	assign := []jen.Code{out().Op("=").Add(in())}
	method := []jen.Code{in().Dot("DeepCopyInto").Call(addr(out))}
	switch r.Kind {
	case model.BuiltinRef, model.InterfaceRef:
		return assign, nil
	case model.NamedRef:
		if l := r.Local; l != nil {
			switch {
			case l.Kind == model.StructKind:
				return method, nil
			case shapeOf(r) != r:
				return p.structural(r, r, in, out, ctx)
			}
			return assign, nil
		}
		e := r.External
		if e == nil {
			return nil, fmt.Errorf("%s: type %s not resolved by the loader", ctx, refString(r))
		}
		switch {
		case knownShallow[e.Known]:
			return assign, nil
		case knownMethod[e.Known], e.HasDeepCopyInto:
			return method, nil
		case e.Struct && len(e.Fields) > 0 && canCopyFields(e.Fields):
			return assign, nil
		case e.Struct:
			return method, nil
		case basicOf(e.Underlying) != "":
			return assign, nil
		}
		return nil, fmt.Errorf("%s: cannot copy external type %s", ctx, refString(r))
	}
	return p.structural(r, r, in, out, ctx)
}

func canCopyFields(fs []*model.Field) bool {
	for _, f := range fs {
		if basicOf(f.Type) == "" {
			return false
		}
	}
	return true
}

// structural converts pointers, slices, maps and arrays element by element.
func (p *planner) structural(from, to *model.TypeRef, in, out expr, ctx string) ([]jen.Code, error) {
	fs, ts := shapeOf(from), shapeOf(to)
	if fs.Kind != ts.Kind {
		return nil, fmt.Errorf("%s: cannot convert %s to %s", ctx, refString(from), refString(to))
	}
	rebind := jen.List(jen.Id("in"), jen.Id("out")).Op(":=").List(addr(in), addr(out))
	derefIn := func() *jen.Statement { return jen.Parens(jen.Op("**").Id("in")) }
	derefOut := func() *jen.Statement { return jen.Parens(jen.Op("**").Id("out")) }
	elemIn := func() *jen.Statement { return jen.Parens(jen.Op("*").Id("in")).Index(jen.Id("i")) }
	elemOut := func() *jen.Statement { return jen.Parens(jen.Op("*").Id("out")).Index(jen.Id("i")) }
	switch fs.Kind {
	case model.PointerRef:
		inner, err := p.conv(fs.Elem, ts.Elem, derefIn, derefOut, ctx)
		if err != nil {
			return nil, err
		}
		body := append([]jen.Code{rebind, jen.Op("*").Id("out").Op("=").New(genall.TypeCode(ts.Elem))}, inner...)
		return []jen.Code{jen.If(in().Op("!=").Nil()).Block(body...).Else().Block(out().Op("=").Nil())}, nil
	case model.SliceRef:
		body := []jen.Code{rebind, jen.Op("*").Id("out").Op("=").Make(genall.TypeCode(to), jen.Len(jen.Op("*").Id("in")))}
		if identical(fs.Elem, ts.Elem) && basicOf(fs.Elem) != "" {
			body = append(body, jen.Copy(jen.Op("*").Id("out"), jen.Op("*").Id("in")))
		} else {
			inner, err := p.conv(fs.Elem, ts.Elem, elemIn, elemOut, ctx)
			if err != nil {
				return nil, err
			}
			body = append(body, jen.For(jen.Id("i").Op(":=").Range().Op("*").Id("in")).Block(inner...))
		}
		return []jen.Code{jen.If(in().Op("!=").Nil()).Block(body...).Else().Block(out().Op("=").Nil())}, nil
	case model.ArrayRef:
		inner, err := p.conv(fs.Elem, ts.Elem, elemIn, elemOut, ctx)
		if err != nil {
			return nil, err
		}
		return []jen.Code{jen.Block(rebind, jen.For(jen.Id("i").Op(":=").Range().Op("*").Id("in")).Block(inner...))}, nil
	case model.MapRef:
		key := jen.Id("key")
		if !identical(fs.Key, ts.Key) {
			key = genall.TypeCode(ts.Key).Call(jen.Id("key"))
		}
		inner, err := p.conv(fs.Elem, ts.Elem, func() *jen.Statement { return jen.Id("val") }, func() *jen.Statement { return jen.Id("newVal") }, ctx)
		if err != nil {
			return nil, err
		}
		loop := append([]jen.Code{jen.Var().Id("newVal").Add(genall.TypeCode(ts.Elem))}, inner...)
		loop = append(loop, jen.Parens(jen.Op("*").Id("out")).Index(key).Op("=").Id("newVal"))
		body := []jen.Code{rebind,
			jen.Op("*").Id("out").Op("=").Make(genall.TypeCode(to), jen.Len(jen.Op("*").Id("in"))),
			jen.For(jen.List(jen.Id("key"), jen.Id("val")).Op(":=").Range().Op("*").Id("in")).Block(loop...),
		}
		return []jen.Code{jen.If(in().Op("!=").Nil()).Block(body...).Else().Block(out().Op("=").Nil())}, nil
	}
	return nil, fmt.Errorf("%s: cannot convert %s to %s", ctx, refString(from), refString(to))
}

// generatedFile writes the kind-level helpers, the annotation save/restore
// and RegisterConversions into generated/<g>/<v>.
func (p *planner) generatedFile(api *model.API) (genall.File, error) {
	v := p.spoke
	importPath, dir, pkgName := genall.GeneratedPackage(api, v)
	f := genall.NewFile(pkgName, importPath)
	f.ImportAlias(v.Package, p.alias(v))
	for _, pr := range p.sorted() {
		f.ImportAlias(pr.hv.Package, p.alias(pr.hv))
	}
	if p.cross {
		f.ImportAlias(p.fns.pkg, p.fns.name)
	}
	f.ImportName(fmtPkg, "fmt")
	f.ImportAlias(kfconvPkg, "kfconversion")
	f.ImportName(apiconvPkg, "conversion")
	f.ImportName(runtimePkg, "runtime")
	f.ImportName(equalityPkg, "equality")

	for _, kp := range p.kinds {
		if kp.convertible {
			p.convertibleFuncs(f, kp)
			continue
		}
		if err := p.kindFuncs(f, kp); err != nil {
			return genall.File{}, fmt.Errorf("kind %s: %w", kp.sk.Name, err)
		}
	}
	reach := map[*pair]bool{}
	var walk func(pr *pair)
	walk = func(pr *pair) {
		if reach[pr] || !p.hasData(pr) {
			return
		}
		reach[pr] = true
		for _, m := range pr.matches {
			if k, sub, _ := p.nested(m); k != noNest {
				walk(sub)
			}
		}
	}
	for _, kp := range p.kinds {
		if kp.kind != nil {
			walk(kp.kind)
		}
	}
	for _, pr := range p.sorted() {
		if !reach[pr] {
			continue
		}
		p.saveFunc(f, pr)
		p.restoreFunc(f, pr)
	}
	p.register(f)
	p.conversions(f)
	return render(f, dir+"/"+FileName)
}

func saveName(pr *pair) string    { return "save_" + pr.hl + "_" + pr.name }
func restoreName(pr *pair) string { return "restore_" + pr.hl + "_" + pr.name }

func objectMetaField(t *model.Type) string {
	for _, f := range t.Fields {
		if f.Type != nil && f.Type.External != nil && f.Type.External.Known == "ObjectMeta" {
			return f.Name
		}
	}
	return ""
}

func errf(format string, args ...jen.Code) jen.Code {
	return jen.Return(jen.Nil(), jen.Qual(fmtPkg, "Errorf").Call(append([]jen.Code{jen.Lit(format)}, args...)...))
}

func (p *planner) kindFuncs(f *jen.File, kp *kindPair) error {
	pr := kp.kind
	sv, hv := pr.sv, pr.hv
	name := pr.name
	meta := objectMetaField(pr.h)
	if meta == "" || objectMetaField(pr.s) == "" {
		return fmt.Errorf("no embedded metav1.ObjectMeta")
	}
	sT, hT := jen.Qual(sv.Package, name), jen.Qual(hv.Package, name)
	data := p.hasData(pr)

	// ToHub.
	toHub := []jen.Code{
		jen.Id("out").Op(":=").New(hT.Clone()),
		jen.If(jen.Err().Op(":=").Qual(p.fns.pkg, pr.s2h()).Call(jen.Id("in"), jen.Id("out")), jen.Err().Op("!=").Nil()).Block(
			errf("convert "+name+" %q from "+sv.GroupVersion()+" to "+pr.hl+": %w", jen.Id("in").Dot("Name"), jen.Err())),
		jen.List(jen.Id("out").Dot("APIVersion"), jen.Id("out").Dot("Kind")).Op("=").List(jen.Lit(hv.GroupVersion()), jen.Lit(name)),
	}
	if data {
		toHub = append(toHub,
			jen.Id("saved").Op(":=").New(hT.Clone()),
			jen.If(jen.List(jen.Id("raw"), jen.Id("ok")).Op(":=").Qual(kfconvPkg, "Load").Call(jen.Op("&").Id("out").Dot(meta), jen.Id("saved")), jen.Id("ok")).Block(
				jen.If(jen.Err().Op(":=").Id(restoreName(pr)).Call(jen.Id("saved"), jen.Id("out"), jen.Id("raw")), jen.Err().Op("!=").Nil()).Block(
					errf("restore "+name+" %q fields of "+pr.hl+" from annotation "+annotationDoc+": %w", jen.Id("in").Dot("Name"), jen.Err())),
			))
	} else {
		toHub = append(toHub, jen.Qual(kfconvPkg, "Strip").Call(jen.Op("&").Id("out").Dot(meta)))
	}
	toHub = append(toHub, jen.Return(jen.Id("out"), jen.Nil()))
	f.Commentf("%sToHub converts a %s %s to the hub (storage) version %s, restoring the %s-only fields kept in the %s annotation, which it removes.", name, pr.sl, name, pr.hl, pr.hl, annotationDoc)
	f.Func().Id(ids.ToHub(name)).Params(jen.Id("in").Op("*").Add(sT.Clone())).Params(jen.Op("*").Add(hT.Clone()), jen.Error()).Block(toHub...)
	f.Line()

	// FromHub.
	fromHub := []jen.Code{
		jen.Id("out").Op(":=").New(sT.Clone()),
		jen.If(jen.Err().Op(":=").Qual(p.fns.pkg, pr.h2s()).Call(jen.Id("in"), jen.Id("out")), jen.Err().Op("!=").Nil()).Block(
			errf("convert "+name+" %q from "+hv.GroupVersion()+" to "+pr.sl+": %w", jen.Id("in").Dot("Name"), jen.Err())),
		jen.List(jen.Id("out").Dot("APIVersion"), jen.Id("out").Dot("Kind")).Op("=").List(jen.Lit(sv.GroupVersion()), jen.Lit(name)),
	}
	if data {
		fromHub = append(fromHub,
			jen.Id("back").Op(":=").New(hT.Clone()),
			jen.If(jen.Err().Op(":=").Qual(p.fns.pkg, pr.s2h()).Call(jen.Id("out"), jen.Id("back")), jen.Err().Op("!=").Nil()).Block(
				errf("convert "+name+" %q back from "+pr.sl+" to "+pr.hl+": %w", jen.Id("in").Dot("Name"), jen.Err())),
			jen.If(jen.Err().Op(":=").Qual(kfconvPkg, "Store").Call(jen.Op("&").Id("out").Dot(meta), jen.Id(saveName(pr)).Call(jen.Id("in"), jen.Id("back"))), jen.Err().Op("!=").Nil()).Block(
				errf("keep "+name+" %q fields of "+pr.hl+": %w", jen.Id("in").Dot("Name"), jen.Err())),
		)
	} else {
		fromHub = append(fromHub, jen.Qual(kfconvPkg, "Strip").Call(jen.Op("&").Id("out").Dot(meta)))
	}
	fromHub = append(fromHub, jen.Return(jen.Id("out"), jen.Nil()))
	f.Commentf("%sFromHub converts a %s %s from the hub (storage) version to %s, keeping the fields %s cannot express in the %s annotation.", name, pr.hl, name, pr.sl, pr.sl, annotationDoc)
	f.Func().Id(ids.FromHub(name)).Params(jen.Id("in").Op("*").Add(hT.Clone())).Params(jen.Op("*").Add(sT.Clone()), jen.Error()).Block(fromHub...)
	f.Line()

	if kp.list == nil {
		return nil
	}
	lp := kp.list
	items := listItems(lp, name)
	for _, dir := range []struct {
		fn, conv, item string
		from, to       *model.Version
	}{
		{ids.ToHub(name + "List"), lp.s2h(), ids.ToHub(name), sv, hv},
		{ids.FromHub(name + "List"), lp.h2s(), ids.FromHub(name), hv, sv},
	} {
		body := []jen.Code{
			jen.Id("out").Op(":=").New(jen.Qual(dir.to.Package, lp.name)),
			jen.If(jen.Err().Op(":=").Qual(p.fns.pkg, dir.conv).Call(jen.Id("in"), jen.Id("out")), jen.Err().Op("!=").Nil()).Block(
				errf("convert "+lp.name+" from "+dir.from.GroupVersion()+" to "+lp.label(dir.to)+": %w", jen.Err())),
			jen.List(jen.Id("out").Dot("APIVersion"), jen.Id("out").Dot("Kind")).Op("=").List(jen.Lit(dir.to.GroupVersion()), jen.Lit(lp.name)),
		}
		if items != nil {
			body = append(body, jen.For(jen.Id("i").Op(":=").Range().Id("in").Dot(items.s.goName())).Block(
				jen.List(jen.Id("item"), jen.Err()).Op(":=").Id(dir.item).Call(jen.Op("&").Id("in").Dot(items.s.goName()).Index(jen.Id("i"))),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.Id("out").Dot(items.h.goName()).Index(jen.Id("i")).Op("=").Op("*").Id("item"),
			))
		}
		body = append(body, jen.Return(jen.Id("out"), jen.Nil()))
		f.Commentf("%s converts a %s %s to %s, each item as %s does.", dir.fn, lp.label(dir.from), lp.name, lp.label(dir.to), dir.item)
		f.Func().Id(dir.fn).Params(jen.Id("in").Op("*").Qual(dir.from.Package, lp.name)).Params(jen.Op("*").Qual(dir.to.Package, lp.name), jen.Error()).Block(body...)
		f.Line()
	}
	return nil
}

// listItems returns the matched items field of a list pair, or nil.
func listItems(lp *pair, kind string) *match {
	for i, m := range lp.matches {
		r := m.h.f.Type
		if m.h.json == "items" && len(m.h.path) == 1 && r.Kind == model.SliceRef && r.Elem.Kind == model.NamedRef && r.Elem.Name == kind {
			return &lp.matches[i]
		}
	}
	return nil
}

func (p *planner) saveFunc(f *jen.File, pr *pair) {
	hT := jen.Qual(pr.hv.Package, pr.name)
	body := []jen.Code{jen.Id("m").Op(":=").Map(jen.String()).Any().Values()}
	for _, h := range pr.hubOnly {
		if h.json == "" {
			body = append(body, jen.Commentf("%s: inline field not kept (no JSON name)", h.goName()))
			continue
		}
		body = append(body, jen.If(jen.Op("!").Qual(equalityPkg, "Semantic").Dot("DeepEqual").Call(sel("in", h.path)(), sel("back", h.path)())).Block(
			jen.Id("m").Index(jen.Lit(h.json)).Op("=").Add(sel("in", h.path)()),
		))
	}
	for _, m := range pr.matches {
		kind, sub, keys := p.nested(m)
		if kind == noNest {
			continue
		}
		in, back := sel("in", m.h.path), sel("back", m.h.path)
		fn := jen.Id(saveName(sub))
		put := func(v jen.Code) jen.Code { return jen.Id("m").Index(jen.Lit(m.h.json)).Op("=").Add(v) }
		switch kind {
		case nestValue:
			if m.h.json == "" {
				body = append(body, jen.For(jen.List(jen.Id("k"), jen.Id("v")).Op(":=").Range().Add(fn.Clone().Call(addr(in), addr(back)))).Block(
					jen.Id("m").Index(jen.Id("k")).Op("=").Id("v")))
				continue
			}
			body = append(body, jen.If(jen.Id("sub").Op(":=").Add(fn.Clone().Call(addr(in), addr(back))), jen.Len(jen.Id("sub")).Op(">").Lit(0)).Block(put(jen.Id("sub"))))
		case nestPointer:
			body = append(body, jen.If(in().Op("!=").Nil().Op("&&").Add(back()).Op("!=").Nil()).Block(
				jen.If(jen.Id("sub").Op(":=").Add(fn.Clone().Call(in(), back())), jen.Len(jen.Id("sub")).Op(">").Lit(0)).Block(put(jen.Id("sub")))))
		case nestKeyed:
			inner := []jen.Code{}
			for _, k := range keys {
				inner = append(inner, jen.Id("sub").Index(jen.Lit(k.json)).Op("=").Add(in()).Index(jen.Id("i")).Dot(k.path[0]).Do(func(s *jen.Statement) {
					for _, x := range k.path[1:] {
						s.Dot(x)
					}
				}))
			}
			inner = append(inner, jen.Id("items").Op("=").Append(jen.Id("items"), jen.Id("sub")))
			body = append(body, jen.If(jen.Len(in()).Op("==").Len(back())).Block(
				jen.Var().Id("items").Index().Any(),
				jen.For(jen.Id("i").Op(":=").Range().Add(in())).Block(
					jen.If(jen.Id("sub").Op(":=").Add(fn.Clone().Call(jen.Op("&").Add(in()).Index(jen.Id("i")), jen.Op("&").Add(back()).Index(jen.Id("i")))), jen.Len(jen.Id("sub")).Op(">").Lit(0)).Block(inner...),
				),
				jen.If(jen.Len(jen.Id("items")).Op(">").Lit(0)).Block(put(jen.Id("items"))),
			))
		case nestIndexed:
			body = append(body, jen.If(jen.Len(in()).Op("==").Len(back())).Block(
				jen.Id("items").Op(":=").Make(jen.Index().Any(), jen.Len(in())),
				jen.Id("found").Op(":=").False(),
				jen.For(jen.Id("i").Op(":=").Range().Add(in())).Block(
					jen.Id("sub").Op(":=").Add(fn.Clone().Call(jen.Op("&").Add(in()).Index(jen.Id("i")), jen.Op("&").Add(back()).Index(jen.Id("i")))),
					jen.Id("found").Op("=").Id("found").Op("||").Len(jen.Id("sub")).Op(">").Lit(0),
					jen.Id("items").Index(jen.Id("i")).Op("=").Id("sub"),
				),
				jen.If(jen.Id("found")).Block(put(jen.Id("items"))),
			))
		case nestMap:
			body = append(body, jen.Block(
				jen.Id("items").Op(":=").Map(jen.String()).Any().Values(),
				jen.For(jen.List(jen.Id("k"), jen.Id("iv")).Op(":=").Range().Add(in())).Block(
					jen.List(jen.Id("bv"), jen.Id("ok")).Op(":=").Add(back()).Index(jen.Id("k")),
					jen.If(jen.Op("!").Id("ok")).Block(jen.Continue()),
					jen.If(jen.Id("sub").Op(":=").Add(fn.Clone().Call(jen.Op("&").Id("iv"), jen.Op("&").Id("bv"))), jen.Len(jen.Id("sub")).Op(">").Lit(0)).Block(
						jen.Id("items").Index(jen.String().Call(jen.Id("k"))).Op("=").Id("sub")),
				),
				jen.If(jen.Len(jen.Id("items")).Op(">").Lit(0)).Block(put(jen.Id("items"))),
			))
		}
	}
	body = append(body, jen.Return(jen.Id("m")))
	f.Commentf("%s returns, by JSON name, the fields of in that the %s value converted back (back) lost.", saveName(pr), pr.sl)
	f.Func().Id(saveName(pr)).Params(jen.List(jen.Id("in"), jen.Id("back")).Op("*").Add(hT)).Map(jen.String()).Any().Block(body...)
	f.Line()
}

func (p *planner) restoreFunc(f *jen.File, pr *pair) {
	hT := jen.Qual(pr.hv.Package, pr.name)
	sT := jen.Qual(pr.sv.Package, pr.name)
	var body []jen.Code
	check := func(fn jen.Code, args ...jen.Code) jen.Code {
		return jen.If(jen.Err().Op(":=").Add(fn).Call(args...), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
	}
	kf := func(name string, args ...jen.Code) *jen.Statement { return jen.Qual(kfconvPkg, name).Call(args...) }
	for _, m := range pr.matches {
		kind, sub, keys := p.nested(m)
		if kind == noNest {
			continue
		}
		saved, out := sel("saved", m.h.path), sel("out", m.h.path)
		fn := jen.Id(restoreName(sub))
		obj := kf("Object", jen.Id("raw"), jen.Lit(m.h.json))
		switch kind {
		case nestValue:
			if m.h.json == "" {
				obj = jen.Id("raw")
			}
			body = append(body, check(fn.Clone(), addr(saved), addr(out), obj))
		case nestPointer:
			body = append(body, jen.If(saved().Op("!=").Nil().Op("&&").Add(out()).Op("!=").Nil()).Block(check(fn.Clone(), saved(), out(), obj)))
		case nestKeyed:
			cond := jen.Op("!").Id("used").Index(jen.Id("j"))
			for _, k := range keys {
				kp := k.path
				cond = cond.Op("&&").Add(saved()).Index(jen.Id("j")).Do(func(s *jen.Statement) {
					for _, x := range kp {
						s.Dot(x)
					}
				}).Op("==").Add(out()).Index(jen.Id("i")).Do(func(s *jen.Statement) {
					for _, x := range kp {
						s.Dot(x)
					}
				})
			}
			body = append(body, jen.Block(
				jen.Id("items").Op(":=").Add(kf("Items", jen.Id("raw"), jen.Lit(m.h.json))),
				jen.Id("used").Op(":=").Make(jen.Index().Bool(), jen.Len(saved())),
				jen.For(jen.Id("i").Op(":=").Range().Add(out())).Block(
					jen.For(jen.Id("j").Op(":=").Range().Add(saved())).Block(
						jen.If(cond).Block(
							jen.Id("used").Index(jen.Id("j")).Op("=").True(),
							check(fn.Clone(), jen.Op("&").Add(saved()).Index(jen.Id("j")), jen.Op("&").Add(out()).Index(jen.Id("i")), kf("Item", jen.Id("items"), jen.Id("j"))),
							jen.Break(),
						),
					),
				),
			))
		case nestIndexed:
			body = append(body, jen.If(jen.Len(saved()).Op("==").Len(out())).Block(
				jen.Id("items").Op(":=").Add(kf("Items", jen.Id("raw"), jen.Lit(m.h.json))),
				jen.For(jen.Id("i").Op(":=").Range().Add(out())).Block(
					check(fn.Clone(), jen.Op("&").Add(saved()).Index(jen.Id("i")), jen.Op("&").Add(out()).Index(jen.Id("i")), kf("Item", jen.Id("items"), jen.Id("i"))))))
		case nestMap:
			body = append(body, jen.Block(
				jen.Id("items").Op(":=").Add(obj),
				jen.For(jen.List(jen.Id("k"), jen.Id("ov")).Op(":=").Range().Add(out())).Block(
					jen.If(jen.List(jen.Id("sv"), jen.Id("ok")).Op(":=").Add(saved()).Index(jen.Id("k")), jen.Id("ok")).Block(
						check(fn.Clone(), jen.Op("&").Id("sv"), jen.Op("&").Id("ov"), kf("Object", jen.Id("items"), jen.String().Call(jen.Id("k")))),
						out().Index(jen.Id("k")).Op("=").Id("ov"),
					))))
		}
	}
	var fields []flat
	for _, h := range pr.hubOnly {
		if h.json != "" {
			fields = append(fields, h)
		}
	}
	has := func(h flat) *jen.Statement { return kf("Has", jen.Id("raw"), jen.Lit(h.json)) }
	if len(fields) > 0 && (pr.handS2H || pr.handH2S) {
		// Hand-written code may express a hub-only field through other
		// spoke fields: restore a kept value only when the spoke view
		// stays what the client sent.
		body = append(body,
			jen.Var().Id("base").Add(sT.Clone()),
			check(jen.Qual(p.fns.pkg, pr.h2s()), jen.Id("out"), jen.Op("&").Id("base")))
		// Fast path: every kept field at once.
		all := []jen.Code{jen.Id("cand").Op(":=").Op("*").Id("out")}
		var assign []jen.Code
		for _, h := range fields {
			all = append(all, jen.If(has(h)).Block(sel("cand", h.path)().Op("=").Add(sel("saved", h.path)())))
			assign = append(assign, jen.If(has(h)).Block(sel("out", h.path)().Op("=").Add(sel("saved", h.path)())))
		}
		all = append(all,
			jen.Var().Id("got").Add(sT.Clone()),
			check(jen.Qual(p.fns.pkg, pr.h2s()), jen.Op("&").Id("cand"), jen.Op("&").Id("got")),
			jen.If(jen.Qual(equalityPkg, "Semantic").Dot("DeepEqual").Call(jen.Op("&").Id("got"), jen.Op("&").Id("base"))).Block(
				append(assign, jen.Return(jen.Nil()))...))
		body = append(body, jen.Block(all...))
		for _, h := range fields {
			body = append(body, jen.If(has(h)).Block(
				jen.Id("cand").Op(":=").Op("*").Id("out"),
				sel("cand", h.path)().Op("=").Add(sel("saved", h.path)()),
				jen.Var().Id("got").Add(sT.Clone()),
				check(jen.Qual(p.fns.pkg, pr.h2s()), jen.Op("&").Id("cand"), jen.Op("&").Id("got")),
				jen.If(jen.Qual(equalityPkg, "Semantic").Dot("DeepEqual").Call(jen.Op("&").Id("got"), jen.Op("&").Id("base"))).Block(
					sel("out", h.path)().Op("=").Add(sel("saved", h.path)())),
			))
		}
	} else {
		for _, h := range fields {
			body = append(body, jen.If(has(h)).Block(sel("out", h.path)().Op("=").Add(sel("saved", h.path)())))
		}
	}
	body = append(body, jen.Return(jen.Nil()))
	f.Commentf("%s copies into out the fields of saved that %s cannot express and the %s annotation kept (raw is that annotation's JSON at this level).", restoreName(pr), pr.sl, annotationDoc)
	f.Func().Id(restoreName(pr)).Params(jen.List(jen.Id("saved"), jen.Id("out")).Op("*").Add(hT), jen.Id("raw").Map(jen.String()).Any()).Error().Block(body...)
	f.Line()
}

func (p *planner) register(f *jen.File) {
	kindFn := map[*pair][2]string{}
	for _, kp := range p.kinds {
		if kp.convertible {
			continue
		}
		kindFn[kp.kind] = [2]string{ids.ToHub(kp.kind.name), ids.FromHub(kp.kind.name)}
		if kp.list != nil {
			kindFn[kp.list] = [2]string{kp.sk.Name + "ListToHub", kp.sk.Name + "ListFromHub"}
		}
	}
	var body []jen.Code
	for _, pr := range p.sorted() {
		for i, dir := range []struct {
			from, to *model.Version
			conv     string
		}{{pr.sv, pr.hv, pr.s2h()}, {pr.hv, pr.sv, pr.h2s()}} {
			fromT, toT := jen.Qual(dir.from.Package, pr.name), jen.Qual(dir.to.Package, pr.name)
			var fn []jen.Code
			if k, ok := kindFn[pr]; ok {
				fn = []jen.Code{
					jen.List(jen.Id("out"), jen.Err()).Op(":=").Id(k[i]).Call(jen.Id("a").Assert(jen.Op("*").Add(fromT.Clone()))),
					jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
					jen.Op("*").Id("b").Assert(jen.Op("*").Add(toT.Clone())).Op("=").Op("*").Id("out"),
					jen.Return(jen.Nil()),
				}
			} else {
				fn = []jen.Code{jen.Return(jen.Qual(p.fns.pkg, dir.conv).Call(
					jen.Id("a").Assert(jen.Op("*").Add(fromT.Clone())), jen.Id("b").Assert(jen.Op("*").Add(toT.Clone()))))}
			}
			body = append(body, jen.If(jen.Err().Op(":=").Id("s").Dot("AddConversionFunc").Call(
				jen.Parens(jen.Op("*").Add(fromT.Clone())).Parens(jen.Nil()),
				jen.Parens(jen.Op("*").Add(toT.Clone())).Parens(jen.Nil()),
				jen.Func().Params(jen.List(jen.Id("a"), jen.Id("b")).Interface(), jen.Id("scope").Qual(apiconvPkg, "Scope")).Error().Block(fn...),
			), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Qual(fmtPkg, "Errorf").Call(jen.Lit(fmt.Sprintf("register conversion from %s.%s to %s.%s: %%w", pr.label(dir.from), pr.name, pr.label(dir.to), pr.name)), jen.Err())),
			))
		}
	}
	body = append(body, p.registerConvertibles()...)
	body = append(body, jen.Return(jen.Nil()))
	f.Comment("RegisterConversions adds every conversion of this version to and from its hub version to s, so that s.Convert works; kinds and lists convert as <Kind>ToHub and <Kind>FromHub do (TypeMeta and the " + annotationDoc + " annotation included).")
	f.Func().Id("RegisterConversions").Params(jen.Id("s").Op("*").Qual(runtimePkg, "Scheme")).Error().Block(body...)
}

// gvkLit is a schema.GroupVersionKind literal of kind k.
func gvkLit(k *model.Kind) jen.Code {
	return jen.Qual(schemaPkg, "GroupVersionKind").Values(jen.Dict{
		jen.Id("Group"):   jen.Lit(k.Version.Group.Name),
		jen.Id("Version"): jen.Lit(k.Version.Name),
		jen.Id("Kind"):    jen.Lit(k.Name),
	})
}

// conversions writes Conversions: every served kind of the spoke with its
// hub and its ToHub/FromHub, for the server's field managers.
func (p *planner) conversions(f *jen.File) {
	var items []jen.Code
	for _, kp := range p.kinds {
		if !kp.sk.Served {
			continue
		}
		name := kp.sk.Name
		sT, hT := jen.Qual(kp.sk.Version.Package, name), jen.Qual(kp.hk.Version.Package, kp.hk.Name)
		items = append(items, jen.Qual(fieldmgrPkg, "NewConversion").Call(
			jen.Line().Add(gvkLit(kp.sk)),
			jen.Line().Add(gvkLit(kp.hk)),
			jen.Line().Func().Params().Op("*").Add(sT.Clone()).Block(jen.Return(jen.New(sT.Clone()))),
			jen.Line().Func().Params().Op("*").Add(hT.Clone()).Block(jen.Return(jen.New(hT.Clone()))),
			jen.Line().Id(ids.ToHub(name)),
			jen.Line().Id(ids.FromHub(name)).Op(",").Line(),
		))
	}
	f.Line()
	f.Comment("Conversions are the served kinds of this version with their hub (storage)")
	f.Comment("versions and <Kind>ToHub/<Kind>FromHub. generated.Install gives them to the")
	f.Comment("server (AddConversions): server-side apply converts objects to the version")
	f.Comment("of each managedFields entry, so entries written through any served version")
	f.Comment("are kept and conflict with writes through another.")
	f.Func().Id("Conversions").Params().Index().Qual(fieldmgrPkg, "Conversion").Block(
		jen.Return(jen.Index().Qual(fieldmgrPkg, "Conversion").ValuesFunc(func(g *jen.Group) {
			for _, it := range items {
				g.Line().Add(it)
			}
			if len(items) > 0 {
				g.Line()
			}
		})),
	)
}
