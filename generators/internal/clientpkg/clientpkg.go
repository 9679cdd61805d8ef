// Package clientpkg is what the four Go client generators (clientset,
// listers, informers, applyconfig) share: which kinds get clients, the
// package paths code-generator's kube_codegen.sh lays out under
// generated/, and the Go names client-gen derives from a group and a kind.
// Keeping them here makes the generators agree by construction.
package clientpkg

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"

	"github.com/dave/jennifer/jen"

	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/model"
)

// Group is one API group with at least one client version.
type Group struct {
	Name string // "shipping.kubeforge.dev"
	// Pkg is the package directory ("shipping"): the first label of the
	// group name, lower case, letters and digits only (client-gen's rule).
	Pkg string
	// GoName is Pkg with an upper-case first letter ("Shipping").
	GoName   string
	Versions []*Version
}

// Version is one group-version and the kinds that get clients.
type Version struct {
	Group *Group
	V     *model.Version
	Name  string // "v1"
	// GoName is the version with an upper-case first letter ("V1alpha1").
	GoName string
	Kinds  []*model.Kind
}

// Prefix is the group-version's Go prefix: "ShippingV1".
func (v *Version) Prefix() string { return v.Group.GoName + v.GoName }

// Groups returns the groups of the user's own types (not +kubeforge:external
// ones: client-go has clients for those) with their served kinds, in model
// order (groups by name, versions by priority, kinds by name). Two groups
// whose names start with the same label would share client packages
// (client-gen's layout): that is an error naming both.
func Groups(api *model.API) ([]*Group, error) {
	var out []*Group
	byPkg := map[string]*model.Group{}
	for _, g := range api.Groups {
		cg := &Group{Name: g.Name, Pkg: groupPkg(g.Name)}
		cg.GoName = upperFirst(cg.Pkg)
		for _, v := range g.Versions {
			if v.External {
				continue
			}
			cv := &Version{Group: cg, V: v, Name: v.Name, GoName: upperFirst(v.Name)}
			for _, k := range v.Kinds {
				if k.Served {
					cv.Kinds = append(cv.Kinds, k)
				}
			}
			if len(cv.Kinds) > 0 {
				cg.Versions = append(cg.Versions, cv)
			}
		}
		if len(cg.Versions) == 0 {
			continue
		}
		if prev := byPkg[cg.Pkg]; prev != nil {
			return nil, fmt.Errorf("%s: group %s and group %s (%s) would share the Go client packages of %q: the first label of a group name must differ", g.Versions[0].Pos, g.Name, prev.Name, prev.Versions[0].Pos, cg.Pkg)
		}
		byPkg[cg.Pkg] = g
		out = append(out, cg)
	}
	return out, nil
}

// Versions returns every client group-version of groups, in order.
func Versions(groups []*Group) []*Version {
	var out []*Version
	for _, g := range groups {
		out = append(out, g.Versions...)
	}
	return out
}

func groupPkg(group string) string {
	first, _, _ := strings.Cut(group, ".")
	var b strings.Builder
	for _, r := range strings.ToLower(first) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// LowerFirst is s with a lower-case first letter ("shipment").
func LowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// Plural is the Go plural of a kind name as client-gen spells it in method
// and type names ("Shipments", "Policies", "Addresses").
func Plural(kind string) string {
	switch {
	case strings.HasSuffix(kind, "y") && len(kind) > 1 && !strings.ContainsRune("aeiou", rune(kind[len(kind)-2])):
		return kind[:len(kind)-1] + "ies"
	case strings.HasSuffix(kind, "s"), strings.HasSuffix(kind, "x"), strings.HasSuffix(kind, "z"),
		strings.HasSuffix(kind, "ch"), strings.HasSuffix(kind, "sh"):
		return kind + "es"
	}
	return kind + "s"
}

// Paths are the import paths of the client packages of one module.
type Paths struct{ Base string }

// For returns the client package paths under <module>/generated.
func For(api *model.API) Paths { return Paths{Base: api.Module + "/generated"} }

// Dir turns an import path under the module into a module-relative directory.
func (p Paths) Dir(api *model.API, importPath string) string {
	return strings.TrimPrefix(importPath, api.Module+"/")
}

func (p Paths) Clientset() string       { return p.Base + "/clientset/versioned" }
func (p Paths) ClientsetScheme() string { return p.Clientset() + "/scheme" }
func (p Paths) ClientsetFake() string   { return p.Clientset() + "/fake" }
func (p Paths) Typed(v *Version) string {
	return p.Clientset() + "/typed/" + v.Group.Pkg + "/" + v.Name
}
func (p Paths) TypedFake(v *Version) string { return p.Typed(v) + "/fake" }
func (p Paths) Lister(v *Version) string {
	return p.Base + "/listers/" + v.Group.Pkg + "/" + v.Name
}
func (p Paths) Informers() string { return p.Base + "/informers/externalversions" }
func (p Paths) InformersInternal() string {
	return p.Informers() + "/internalinterfaces"
}
func (p Paths) InformerGroup(g *Group) string { return p.Informers() + "/" + g.Pkg }
func (p Paths) InformerVersion(v *Version) string {
	return p.InformerGroup(v.Group) + "/" + v.Name
}
func (p Paths) ApplyConfigurations() string { return p.Base + "/applyconfiguration" }
func (p Paths) ApplyInternal() string       { return p.ApplyConfigurations() + "/internal" }
func (p Paths) Apply(v *Version) string {
	return p.ApplyConfigurations() + "/" + v.Group.Pkg + "/" + v.Name
}

// ApplyName is the apply configuration type of a struct type.
func ApplyName(typeName string) string { return typeName + "ApplyConfiguration" }

// HasStatus reports whether a kind's clients get UpdateStatus/ApplyStatus:
// when it serves the status subresource.
func HasStatus(k *model.Kind) bool { return k.StatusSubresource }

// Alias is the import alias of a version-specific package: "shippingv1".
func Alias(prefix string, v *Version) string { return prefix + v.Group.Pkg + v.Name }

// NewFile starts a generated file of package name at importPath, with the
// standard header and the given doc comment.
func NewFile(name, importPath, doc string) *jen.File {
	f := genall.NewFile(name, importPath)
	f.ImportAlias(Metav1, "metav1")
	f.ImportAlias("k8s.io/api/autoscaling/v1", "autoscalingv1")
	if doc != "" {
		f.PackageComment(doc)
	}
	return f
}

// Render renders f into a genall.File at dir/zz_generated.<what>.go.
func Render(f *jen.File, dir, what string) (genall.File, error) {
	// genall formats every file before writing: formatting here too would
	// double the cost, which dominates the client generators.
	f.NoFormat = true
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return genall.File{}, fmt.Errorf("render %s/zz_generated.%s.go: %w", dir, what, err)
	}
	return genall.File{Path: dir + "/zz_generated." + what + ".go", Content: buf.Bytes()}, nil
}

// GroupVersion is a schema.GroupVersion literal of v.
func GroupVersion(v *Version) *jen.Statement {
	return jen.Qual(Schema, "GroupVersion").Values(jen.Dict{
		jen.Id("Group"):   jen.Lit(v.Group.Name),
		jen.Id("Version"): jen.Lit(v.Name),
	})
}

// Import paths the generators use often.
const (
	Schema    = "k8s.io/apimachinery/pkg/runtime/schema"
	Runtime   = "k8s.io/apimachinery/pkg/runtime"
	Metav1    = "k8s.io/apimachinery/pkg/apis/meta/v1"
	Context   = "context"
	Rest      = "k8s.io/client-go/rest"
	Cache     = "k8s.io/client-go/tools/cache"
	Watch     = "k8s.io/apimachinery/pkg/watch"
	Types     = "k8s.io/apimachinery/pkg/types"
	Gentype   = "k8s.io/client-go/gentype"
	Testing   = "k8s.io/client-go/testing"
	MetaApply = "k8s.io/client-go/applyconfigurations/meta/v1"
)

// ImportTypes names the types packages of versions "<group><version>" in
// f ("shippingv1"), so files importing several v1 packages stay readable.
func ImportTypes(f *jen.File, versions ...*Version) {
	for _, v := range versions {
		f.ImportAlias(v.V.Package, v.Group.Pkg+v.Name)
	}
}

// Args are call arguments written one per line, for long constructor calls.
func Args(args ...jen.Code) *jen.Statement {
	return jen.Custom(jen.Options{Open: "(", Close: ")", Separator: ",", Multi: true}, args...)
}
