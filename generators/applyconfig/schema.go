package applyconfig

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"
	yaml "go.yaml.in/yaml/v2"
	"k8s.io/kube-openapi/pkg/schemaconv"
	"k8s.io/kube-openapi/pkg/validation/spec"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"

	"github.com/kubeforge/kubeforge/generators/genall"
	cp "github.com/kubeforge/kubeforge/generators/internal/clientpkg"
	"github.com/kubeforge/kubeforge/generators/model"
	"github.com/kubeforge/kubeforge/generators/openapi"
	"github.com/kubeforge/kubeforge/runtime/openapidefs"
)

// smdName is the name of t in the structured-merge-diff schema: the
// OpenAPI definition name runtime.Scheme derives from the Go type
// (Scheme.ToOpenAPIDefinitionName), which is how NewTypeConverter finds a
// kind's schema.
func smdName(t *model.Type) string { return openapidefs.Name(t.Version.Package, t.Name) }

// utilsFile is the root package: ForKind and NewTypeConverter.
func (g *gen) utilsFile(versions []*cp.Version) *jen.File {
	f := cp.NewFile("applyconfiguration", g.p.ApplyConfigurations(), "Package applyconfiguration holds the apply configurations of every group-version and the type converter the fake clientset applies with.")
	var cases []jen.Code
	for _, v := range versions {
		f.ImportAlias(g.p.Apply(v), cp.Alias("apply", v))
		for _, t := range g.types(v) {
			gvk := jen.Qual(cp.Schema, "GroupVersionKind").Values(jen.Dict{
				jen.Id("Group"): jen.Lit(v.Group.Name), jen.Id("Version"): jen.Lit(v.Name), jen.Id("Kind"): jen.Lit(t.Name),
			})
			cases = append(cases, jen.Case(gvk).Block(jen.Return(jen.Op("&").Qual(g.p.Apply(v), cp.ApplyName(t.Name)).Values())))
		}
	}
	f.Comment("ForKind returns an empty apply configuration of kind, or nil when there is none.")
	f.Func().Id("ForKind").Params(jen.Id("kind").Qual(cp.Schema, "GroupVersionKind")).Interface().Block(
		jen.Switch(jen.Id("kind")).Block(cases...),
		jen.Return(jen.Nil()))
	f.Comment("NewTypeConverter returns a type converter over the schemas of this package's kinds,\nfor client-go's field-managed object tracker (the fake clientset's NewClientset).")
	f.Func().Id("NewTypeConverter").Params(jen.Id("scheme").Op("*").Qual(cp.Runtime, "Scheme")).Qual("k8s.io/apimachinery/pkg/util/managedfields", "TypeConverter").Block(
		jen.Return(jen.Qual("k8s.io/apimachinery/pkg/util/managedfields", "NewSchemeTypeConverter").Call(jen.Id("scheme"), jen.Qual(g.p.ApplyInternal(), "Parser").Call())))
	return f
}

// internalFile is applyconfiguration/internal: the structured-merge-diff
// schema of every kind and the types it reaches, converted at generation
// time from the same OpenAPI schemas the server publishes, and Parser.
func (g *gen) internalFile(versions []*cp.Version) (genall.File, error) {
	schemaYAML, err := g.smdSchema(versions)
	if err != nil {
		return genall.File{}, err
	}
	f := cp.NewFile("internal", g.p.ApplyInternal(), "Package internal holds the structured-merge-diff schema of the apply configurations.")
	typed := "sigs.k8s.io/structured-merge-diff/v6/typed"
	f.Comment("Parser returns the parser of the schema, built once. The schema is checked by the\ngenerator, so a parse error is a bug: it panics, as client-go's own Parser does.")
	f.Func().Id("Parser").Params().Op("*").Qual(typed, "Parser").Block(
		jen.Id("parserOnce").Dot("Do").Call(jen.Func().Params().Block(
			jen.Var().Err().Error(),
			jen.List(jen.Id("parser"), jen.Err()).Op("=").Qual(typed, "NewParser").Call(jen.Id("schemaYAML")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Panic(jen.Qual("fmt", "Sprintf").Call(jen.Lit("parse schema: %v"), jen.Err()))))),
		jen.Return(jen.Id("parser")))
	f.Var().Defs(
		jen.Id("parserOnce").Qual("sync", "Once"),
		jen.Id("parser").Op("*").Qual(typed, "Parser"),
	)
	f.Var().Id("schemaYAML").Op("=").Qual(typed, "YAMLObject").Call(jen.Id("`" + schemaYAML + "`"))
	return cp.Render(f, g.p.Dir(g.api, g.p.ApplyInternal()), "internal")
}

// smdSchema converts the OpenAPI schemas of the client versions' kinds to a
// structured-merge-diff schema in YAML, local types renamed from their
// served names (dev.kubeforge.shipping.v1.Shipment) to their Go path names.
func (g *gen) smdSchema(versions []*cp.Version) (string, error) {
	all := openapidefs.KnownSchemas()
	rename := map[string]string{}
	var roots []string
	for _, v := range versions {
		schemas, err := openapi.Schemas(v.V)
		if err != nil {
			return "", fmt.Errorf("schemas of %s: %w", v.V.GroupVersion(), err)
		}
		for name, raw := range schemas {
			all[name] = raw
		}
		for _, t := range v.V.Types {
			rename[openapidefs.LocalName(v.Group.Name, v.Name, t.Name)] = openapidefs.Name(v.V.Package, t.Name)
		}
		for _, k := range v.Kinds {
			roots = append(roots, openapidefs.LocalName(v.Group.Name, v.Name, k.Name))
		}
	}
	sort.Strings(roots)
	closure, err := openapidefs.Closure(all, roots...)
	if err != nil {
		return "", fmt.Errorf("schema closure: %w", err)
	}
	// One replacer for every reference: a pass over each schema, not one
	// per renamed type.
	pairs := make([]string, 0, 2*len(rename))
	for from, to := range rename {
		pairs = append(pairs, openapidefs.Ref(from)+`"`, openapidefs.Ref(to)+`"`)
	}
	refs := strings.NewReplacer(pairs...)
	models := make(map[string]*spec.Schema, len(closure))
	for name, raw := range closure {
		text := refs.Replace(string(raw))
		s := new(spec.Schema)
		if err := json.Unmarshal([]byte(text), s); err != nil {
			return "", fmt.Errorf("decode schema %s: %w", name, err)
		}
		if to, ok := rename[name]; ok {
			name = to
		}
		models[name] = s
	}
	smd, err := schemaconv.ToSchemaFromOpenAPI(models, false)
	if err != nil {
		return "", fmt.Errorf("convert schemas to structured-merge-diff: %w", err)
	}
	sort.Slice(smd.Types, func(i, j int) bool { return smd.Types[i].Name < smd.Types[j].Name })
	for i := range smd.Types {
		sortAtom(&smd.Types[i].Atom)
	}
	out, err := yaml.Marshal(smd)
	if err != nil {
		return "", fmt.Errorf("encode structured-merge-diff schema: %w", err)
	}
	if strings.Contains(string(out), "`") {
		return "", fmt.Errorf("structured-merge-diff schema contains a backquote")
	}
	return string(out), nil
}

// sortAtom sorts the fields of every map in a, which the conversion
// leaves in Go map order, so that the schema is written deterministically.
func sortAtom(a *smdschema.Atom) {
	if a.Map != nil {
		sort.Slice(a.Map.Fields, func(i, j int) bool { return a.Map.Fields[i].Name < a.Map.Fields[j].Name })
		for i := range a.Map.Fields {
			sortAtom(&a.Map.Fields[i].Type.Inlined)
		}
		sortAtom(&a.Map.ElementType.Inlined)
	}
	if a.List != nil {
		sortAtom(&a.List.ElementType.Inlined)
	}
}
