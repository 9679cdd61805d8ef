// Package lists is the "lists" generator: for every kind whose list type is
// not written by hand (model.Kind.List == nil) it writes
// types/<group>/<version>/zz_generated.lists.go with
//
//	// <Kind>List is a list of <Kind> objects.
//	type <Kind>List struct {
//		metav1.TypeMeta `json:",inline"`
//		metav1.ListMeta `json:"metadata,omitempty"`
//		Items           []<Kind> `json:"items"`
//	}
//
// A package whose lists are all hand-written gets no file. The model holds
// the same type (model.GeneratedList), so other generators treat generated
// lists like declared types.
package lists

import (
	"bytes"
	"fmt"
	"path"

	"github.com/dave/jennifer/jen"

	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/model"
)

// FileName is the base name of the file written into each types package.
const FileName = "zz_generated.lists.go"

const metav1 = "k8s.io/apimachinery/pkg/apis/meta/v1"

// Generator writes the list types the user did not write.
type Generator struct{}

// Name implements genall.Generator.
func (Generator) Name() string { return "lists" }

// Generate implements genall.Generator.
func (Generator) Generate(api *model.API) ([]genall.File, error) {
	// External packages (k8s.io/api, +kubeforge:external) carry their own.
	api = api.Owned()
	var files []genall.File
	for _, g := range api.Groups {
		for _, v := range g.Versions {
			f, ok, err := generateVersion(v)
			if err != nil {
				return nil, fmt.Errorf("generate lists for %s: %w", v.Package, err)
			}
			if ok {
				files = append(files, f)
			}
		}
	}
	return files, nil
}

func generateVersion(v *model.Version) (genall.File, bool, error) {
	kinds := v.KindsWithGeneratedLists()
	if len(kinds) == 0 {
		return genall.File{}, false, nil
	}
	f := genall.NewFile(v.PackageName, v.Package)
	f.ImportAlias(metav1, "metav1")
	for _, k := range kinds {
		if k.Type == nil {
			return genall.File{}, false, fmt.Errorf("write list for kind %s: kind has no type", k.Name)
		}
		name := listName(k)
		if t := v.Type(name); t != nil && !t.Generated {
			return genall.File{}, false, fmt.Errorf("write list for kind %s: type %s is already declared at %s", k.Name, name, t.Pos)
		}
		f.Comment(name + " is a list of " + k.Name + " objects.")
		f.Type().Id(name).Struct(
			jen.Qual(metav1, "TypeMeta").Tag(map[string]string{"json": ",inline"}),
			jen.Qual(metav1, "ListMeta").Tag(map[string]string{"json": "metadata,omitempty"}),
			jen.Line(),
			jen.Id("Items").Index().Id(k.Type.Name).Tag(map[string]string{"json": "items"}),
		)
	}
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return genall.File{}, false, fmt.Errorf("render %s: %w", FileName, err)
	}
	return genall.File{Path: path.Join(v.Dir, FileName), Content: buf.Bytes()}, true, nil
}

func listName(k *model.Kind) string {
	if k.ListName != "" {
		return k.ListName
	}
	return k.Name + "List"
}
