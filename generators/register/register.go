// Package register is the "register" generator. For every group-version with
// kinds it writes generated/<group>/<version>/zz_generated.register.go
// (package <short><version>, e.g. shippingv1) with:
//
//   - GroupName, SchemeGroupVersion, SchemeBuilder and AddToScheme, which adds
//     every kind of the version and its list (plus metav1.AddToGroupVersion:
//     ListOptions, WatchEvent, ... for client-go and controller-runtime users);
//   - Kind(string) schema.GroupKind and Resource(string) schema.GroupResource;
//   - per kind, var <Kind>Info = resource.Info{...}: the resource table row;
//   - var Resources = []*resource.Info{...}: the served kinds' rows, sorted by
//     plural.
//
// The file lives in generated/ rather than in the types package, so it never
// collides with a kubebuilder groupversion_info.go that declares its own
// SchemeBuilder.
package register

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"sort"

	"github.com/dave/jennifer/jen"

	"github.com/kubeforge/kubeforge/generators/builtinfields"
	"github.com/kubeforge/kubeforge/generators/builtinprinters"
	"github.com/kubeforge/kubeforge/generators/builtinstrategy"
	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/ids"
	"github.com/kubeforge/kubeforge/generators/model"
)

// FileName is the base name of the file written into each generated package.
const FileName = "zz_generated.register.go"

const (
	metav1Pkg   = "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimePkg  = "k8s.io/apimachinery/pkg/runtime"
	schemaPkg   = "k8s.io/apimachinery/pkg/runtime/schema"
	resourcePkg = "github.com/kubeforge/kubeforge/runtime/resource"
)

// Generator writes the scheme registration and resource table.
type Generator struct{}

// Name implements genall.Generator.
func (Generator) Name() string { return "register" }

// Generate implements genall.Generator.
func (Generator) Generate(api *model.API) ([]genall.File, error) {
	return genall.PerVersion(api, "register", generateVersion)
}

func generateVersion(api *model.API, v *model.Version) (genall.File, error) {
	importPath, dir, name := genall.GeneratedPackage(api, v)
	f := genall.NewFile(name, importPath)
	// The types package goes by its own name (v1, v1alpha1), as in every
	// other generated file of the package.
	f.ImportAlias(metav1Pkg, "metav1")
	f.ImportAlias(runtimePkg, "runtime")
	f.ImportAlias(schemaPkg, "schema")
	f.ImportAlias(resourcePkg, "resource")
	f.PackageComment("Package " + name + " holds the generated registration, resource table and helpers of " + v.GroupVersion() + ".")

	f.Comment("GroupName is the API group of the types in this package.")
	f.Const().Id("GroupName").Op("=").Lit(v.Group.Name)
	f.Line()
	f.Comment("SchemeGroupVersion is the group-version the types are registered under.")
	f.Var().Id("SchemeGroupVersion").Op("=").Qual(schemaPkg, "GroupVersion").Values(jen.Dict{
		jen.Id("Group"):   jen.Id("GroupName"),
		jen.Id("Version"): jen.Lit(v.Name),
	})
	f.Line()
	if v.External {
		// k8s.io/api packages register their kinds themselves: delegate.
		f.Var().Defs(
			jen.Comment("SchemeBuilder is the types package's own: "+v.Package+" registers its kinds itself."),
			jen.Id("SchemeBuilder").Op("=").Qual(v.Package, "SchemeBuilder"),
			jen.Comment("AddToScheme is the types package's own AddToScheme: every kind of "+v.Package+","),
			jen.Comment("served or not, and its list."),
			jen.Id("AddToScheme").Op("=").Qual(v.Package, "AddToScheme"),
		)
		f.Line()
	} else {
		addKnownTypes(f, v)
	}
	return resourceTable(f, v, dir)
}

// addKnownTypes writes SchemeBuilder, AddToScheme and addKnownTypes for a
// types package this module owns.
func addKnownTypes(f *jen.File, v *model.Version) {
	f.Var().Defs(
		jen.Comment("SchemeBuilder collects the functions that add the types to a scheme."),
		jen.Id("SchemeBuilder").Op("=").Qual(runtimePkg, "NewSchemeBuilder").Call(jen.Id("addKnownTypes")),
		jen.Comment("AddToScheme adds every kind of "+v.GroupVersion()+" and its list to a scheme."),
		jen.Id("AddToScheme").Op("=").Id("SchemeBuilder").Dot("AddToScheme"),
	)
	f.Line()

	var objs []jen.Code
	objs = append(objs, jen.Id("SchemeGroupVersion"))
	for _, k := range v.Kinds {
		objs = append(objs,
			jen.Op("&").Qual(v.Package, k.Name).Values(),
			jen.Op("&").Qual(v.Package, listName(k)).Values(),
		)
	}
	f.Func().Id("addKnownTypes").Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")).Error().Block(
		jen.Id("scheme").Dot("AddKnownTypes").Call(listLines(objs)...),
		jen.Qual(metav1Pkg, "AddToGroupVersion").Call(jen.Id("scheme"), jen.Id("SchemeGroupVersion")),
		jen.Return(jen.Nil()),
	)
	f.Line()
}

// resourceTable writes Kind, Resource, the <Kind>Info rows and Resources.
func resourceTable(f *jen.File, v *model.Version, dir string) (genall.File, error) {
	f.Comment("Kind takes an unqualified kind and returns a group-qualified GroupKind.")
	f.Func().Id("Kind").Params(jen.Id("kind").String()).Qual(schemaPkg, "GroupKind").Block(
		jen.Return(jen.Id("SchemeGroupVersion").Dot("WithKind").Call(jen.Id("kind")).Dot("GroupKind").Call()),
	)
	f.Line()
	f.Comment("Resource takes an unqualified resource and returns a group-qualified GroupResource.")
	f.Func().Id("Resource").Params(jen.Id("resource").String()).Qual(schemaPkg, "GroupResource").Block(
		jen.Return(jen.Id("SchemeGroupVersion").Dot("WithResource").Call(jen.Id("resource")).Dot("GroupResource").Call()),
	)

	served := make([]*model.Kind, 0, len(v.Kinds))
	for _, k := range v.Kinds {
		info, err := infoValue(v, k)
		if err != nil {
			return genall.File{}, fmt.Errorf("describe kind %s: %w", k.Name, err)
		}
		f.Line()
		gr := k.Plural
		if v.Group.Name != "" {
			gr += "." + v.Group.Name
		}
		f.Commentf("%s is the resource table row of %s.", ids.Info(k), gr)
		f.Var().Id(ids.Info(k)).Op("=").Qual(resourcePkg, "Info").Values(info...)
		if k.Served {
			served = append(served, k)
		}
	}
	sort.Slice(served, func(i, j int) bool { return served[i].Plural < served[j].Plural })
	var rows []jen.Code
	for _, k := range served {
		rows = append(rows, jen.Op("&").Id(ids.Info(k)))
	}
	f.Line()
	f.Comment("Resources lists the served resources of " + v.GroupVersion() + ", sorted by plural.")
	f.Var().Id("Resources").Op("=").Index().Op("*").Qual(resourcePkg, "Info").Values(listLines(rows)...)

	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return genall.File{}, fmt.Errorf("render %s: %w", FileName, err)
	}
	return genall.File{Path: dir + "/" + FileName, Content: buf.Bytes()}, nil
}

func listName(k *model.Kind) string {
	if k.ListName != "" {
		return k.ListName
	}
	return k.Name + "List"
}

// field is one key: value element of a struct literal, kept in source order
// (jen.Dict sorts keys).
type field struct {
	name  string
	value jen.Code
}

func fields(fs []field) []jen.Code {
	items := make([]jen.Code, len(fs))
	for i, f := range fs {
		items[i] = jen.Id(f.name).Op(":").Add(f.value)
	}
	return listLines(items)
}

func infoValue(v *model.Version, k *model.Kind) ([]jen.Code, error) {
	g := v.Group
	// A kind stored as a kind of another group (+kubeforge:external
	// storedAs=) names the version of that kind.
	hub := k.Hub()
	if hub == nil {
		return nil, fmt.Errorf("find storage version of %s in group %s: no version is marked +kubebuilder:storageversion", k.Name, g.Name)
	}
	storage := hub.Version
	d := []field{
		{"Group", jen.Id("GroupName")},
		{"Version", jen.Lit(v.Name)},
		{"Kind", jen.Lit(k.Name)},
		{"ListKind", jen.Lit(listName(k))},
		{"Plural", jen.Lit(k.Plural)},
		{"Singular", jen.Lit(k.Singular)},
		{"Namespaced", jen.Lit(k.Namespaced)},
	}
	if len(k.ShortNames) > 0 {
		d = append(d, field{"ShortNames", stringSlice(k.ShortNames)})
	}
	if len(k.Categories) > 0 {
		d = append(d, field{"Categories", stringSlice(k.Categories)})
	}
	if k.StatusSubresource {
		subs := []string{"status"}
		if k.Scale != nil {
			subs = append(subs, "scale")
		}
		d = append(d, field{"Subresources", stringSlice(subs)})
	}
	if len(k.PrinterColumns) > 0 {
		var cols []jen.Code
		for _, c := range k.PrinterColumns {
			col := []jen.Code{
				jen.Id("Name").Op(":").Lit(c.Name),
				jen.Id("Type").Op(":").Lit(c.Type),
			}
			if c.Format != "" {
				col = append(col, jen.Id("Format").Op(":").Lit(c.Format))
			}
			if c.Description != "" {
				col = append(col, jen.Id("Description").Op(":").Lit(c.Description))
			}
			col = append(col, jen.Id("JSONPath").Op(":").Lit(c.JSONPath))
			if c.Priority != 0 {
				col = append(col, jen.Id("Priority").Op(":").Lit(int(c.Priority)))
			}
			cols = append(cols, jen.Values(col...))
		}
		d = append(d, field{"PrinterColumns", jen.Index().Qual(resourcePkg, "PrinterColumn").Values(listLines(cols)...)})
	} else if t, err := builtinprinters.For(k); err != nil {
		return nil, err
	} else if t != nil {
		d = append(d,
			field{"PrinterColumns", builtinColumns(t)},
			field{"PrinterColumnsWithName", jen.True()},
		)
	}
	labels, defaultLabels, err := fieldLabels(k)
	if err != nil {
		return nil, err
	}
	if len(labels) > 0 {
		d = append(d, field{"SelectableFields", stringSlice(labels)})
	}
	if defaultLabels {
		d = append(d, field{"DefaultFieldLabelConversion", jen.True()})
	}
	if k.NameRule == model.NamePathSegment {
		d = append(d, field{"PathSegmentNames", jen.True()})
	}
	st := builtinstrategy.For(k)
	if st.UnconditionalUpdate {
		d = append(d, field{"UnconditionalUpdate", jen.True()})
	}
	if st.CreateOnUpdate {
		d = append(d, field{"CreateOnUpdate", jen.True()})
	}
	if st.UntrackedGeneration {
		d = append(d, field{"UntrackedGeneration", jen.True()})
	}
	if st.NoDeleteCollection {
		// Discovery lists what the routes serve: no deletecollection.
		d = append(d, field{"Verbs", stringSlice([]string{"create", "delete", "get", "list", "patch", "update", "watch"})})
	}
	d = append(d,
		field{"StorageVersion", jen.Lit(storage.Name)},
		field{"StorageVersionHash", jen.Lit(storageVersionHash(storage.Group.Name, storage.Name, hub.Name))},
		field{"ServedVersions", stringSlice(ServedVersions(g, k.Name))},
	)
	return fields(d), nil
}

// storageVersionHash is kube-apiserver's discovery.StorageVersionHash of
// the kind objects are stored as: the first 8 bytes of the SHA-256 of
// "group/version/kind", in base64 (an events.k8s.io Event's is core/v1
// Event's, as on kube).
func storageVersionHash(group, version, kind string) string {
	sum := sha256.Sum256([]byte(group + "/" + version + "/" + kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}

// fieldLabels returns the field selector labels of k besides metadata.name
// and metadata.namespace: its +kubebuilder:selectablefield labels, or for a
// built-in kind those of generators/builtinfields. A built-in kind without a
// table there has kube-apiserver's default field label conversion
// (defaultConversion).
func fieldLabels(k *model.Kind) (labels []string, defaultConversion bool, err error) {
	if !k.Version.External {
		for _, f := range k.SelectableFields {
			labels = append(labels, f.Label)
		}
		sort.Strings(labels)
		return labels, false, nil
	}
	t, err := builtinfields.For(k)
	if err != nil {
		return nil, false, err
	}
	if t == nil {
		return nil, true, nil
	}
	return t.Labels(), false, nil
}

// builtinColumns is kube-apiserver's column list of a built-in kind, the
// name column included (see generators/builtinprinters).
func builtinColumns(t *builtinprinters.Table) jen.Code {
	var cols []jen.Code
	for _, c := range t.Columns {
		col := []jen.Code{
			jen.Id("Name").Op(":").Lit(c.Name),
			jen.Id("Type").Op(":").Lit(c.Type),
		}
		if c.Format != "" {
			col = append(col, jen.Id("Format").Op(":").Lit(c.Format))
		}
		col = append(col, jen.Id("Description").Op(":").Add(c.Description))
		if c.Priority != 0 {
			col = append(col, jen.Id("Priority").Op(":").Lit(int(c.Priority)))
		}
		cols = append(cols, jen.Values(col...))
	}
	return jen.Index().Qual(resourcePkg, "PrinterColumn").Values(listLines(cols)...)
}

// ServedVersions returns the served versions of kind in g, preferred first:
// the storage version (when served), then the others in Kubernetes version
// priority order (g.Versions is sorted that way).
func ServedVersions(g *model.Group, kind string) []string {
	var out []string
	storage := g.StorageVersion(kind)
	if storage != nil {
		if k := storage.Kind(kind); k != nil && k.Served {
			out = append(out, storage.Name)
		}
	}
	for _, v := range g.Versions {
		if v == storage {
			continue
		}
		if k := v.Kind(kind); k != nil && k.Served {
			out = append(out, v.Name)
		}
	}
	return out
}

func stringSlice(ss []string) jen.Code {
	vals := make([]jen.Code, len(ss))
	for i, s := range ss {
		vals[i] = jen.Lit(s)
	}
	return jen.Index().String().Values(vals...)
}

// listLines puts each element of a composite literal on its own line.
func listLines(items []jen.Code) []jen.Code {
	if len(items) == 0 {
		return nil
	}
	out := make([]jen.Code, 0, len(items)+1)
	for _, it := range items {
		out = append(out, jen.Line().Add(it))
	}
	out = append(out, jen.Line())
	return out
}
