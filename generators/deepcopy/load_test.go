package deepcopy

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/kubeforge/kubeforge/generators/model"
)

// loadTypes is a small go/types based stand-in for model.Load, enough for
// the deepcopy and lists generators: named types, fields, kinds, lists,
// hand-written methods and external types. dirs are module-relative
// directories of types packages under root (module path module).
func loadTypes(root, module string, dirs ...string) (*model.API, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedFiles,
		Dir:  root,
	}
	var patterns []string
	for _, d := range dirs {
		patterns = append(patterns, "./"+d)
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("load %v: %w", dirs, err)
	}
	api := &model.API{Module: module, Root: root}
	groups := map[string]*model.Group{}
	l := &loader{local: map[*types.TypeName]*model.Type{}, ext: map[*types.Named]*model.External{}}
	var versions []*model.Version
	for i, p := range pkgs {
		// Hand-written code may call generated methods that are missing or
		// stale: type errors are expected, as long as the package parsed.
		if p.Types == nil || len(p.Syntax) == 0 {
			return nil, fmt.Errorf("load %s: %v", p.PkgPath, p.Errors)
		}
		dir := dirs[i]
		short := path.Base(path.Dir(dir))
		g := groups[short]
		if g == nil {
			g = &model.Group{Name: short + ".example.dev", Short: short}
			groups[short] = g
			api.Groups = append(api.Groups, g)
		}
		v := &model.Version{Group: g, Name: path.Base(dir), Package: p.PkgPath, Dir: dir, PackageName: p.Name, Funcs: map[string]bool{}}
		g.Versions = append(g.Versions, v)
		versions = append(versions, v)
		docs := map[string]string{}
		for _, f := range p.Syntax {
			for _, d := range f.Decls {
				if gd, ok := d.(*ast.GenDecl); ok {
					for _, s := range gd.Specs {
						if ts, ok := s.(*ast.TypeSpec); ok && gd.Doc != nil {
							docs[ts.Name.Name] = gd.Doc.Text()
						}
					}
				}
			}
		}
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			if tn, ok := scope.Lookup(name).(*types.TypeName); ok {
				t := &model.Type{Version: v, Name: name, Doc: docs[name]}
				t.IsKind = strings.Contains(docs[name], "+kubebuilder:object:root=true") && !strings.HasSuffix(name, "List")
				t.IsList = strings.Contains(docs[name], "+kubebuilder:object:root=true") && strings.HasSuffix(name, "List")
				if generatedPos(p, tn.Pos()) {
					continue // a generated list
				}
				ms := types.NewMethodSet(types.NewPointer(tn.Type()))
				handWritten := func(name string) bool {
					sel := ms.Lookup(nil, name)
					// Promoted methods (from embedded ObjectMeta) do not count.
					return sel != nil && len(sel.Index()) == 1 && !generatedPos(p, sel.Obj().Pos())
				}
				t.HasDeepCopy = handWritten("DeepCopyInto") || handWritten("DeepCopy")
				t.HasDeepCopyObject = handWritten("DeepCopyObject")
				l.local[tn] = t
				v.Types = append(v.Types, t)
			} else if _, ok := scope.Lookup(name).(*types.Func); ok {
				v.Funcs[name] = true
			}
		}
	}
	for tn, t := range l.local {
		if err := l.fill(tn, t); err != nil {
			return nil, err
		}
	}
	for _, v := range versions {
		for _, t := range v.Types {
			if !t.IsKind {
				continue
			}
			k := &model.Kind{Version: v, Name: t.Name, Type: t, ListName: t.Name + "List", Served: true, Storage: true}
			k.List = v.Type(k.ListName)
			v.Kinds = append(v.Kinds, k)
		}
	}
	sort.Slice(api.Groups, func(i, j int) bool { return api.Groups[i].Name < api.Groups[j].Name })
	return api, nil
}

func generatedPos(p *packages.Package, pos token.Pos) bool {
	return strings.HasPrefix(filepath.Base(p.Fset.Position(pos).Filename), "zz_generated.")
}

type loader struct {
	local map[*types.TypeName]*model.Type
	ext   map[*types.Named]*model.External
}

func (l *loader) fill(tn *types.TypeName, t *model.Type) error {
	switch u := tn.Type().Underlying().(type) {
	case *types.Struct:
		t.Kind = model.StructKind
		fs, err := l.fields(u)
		if err != nil {
			return fmt.Errorf("type %s: %w", t.Name, err)
		}
		for _, f := range fs {
			f.Parent = t
		}
		t.Fields = fs
		return nil
	case *types.Slice:
		t.Kind = model.SliceKind
	case *types.Map:
		t.Kind = model.MapKind
	case *types.Basic:
		t.Kind = model.BasicKind
	case *types.Pointer:
		t.Kind = model.PointerKind
	case *types.Array:
		t.Kind = model.ArrayKind
	default:
		return fmt.Errorf("type %s: unsupported underlying %T", t.Name, u)
	}
	r, err := l.ref(tn.Type().Underlying())
	if err != nil {
		return fmt.Errorf("type %s: %w", t.Name, err)
	}
	t.Underlying = r
	return nil
}

func (l *loader) fields(s *types.Struct) ([]*model.Field, error) {
	var out []*model.Field
	for i := 0; i < s.NumFields(); i++ {
		v := s.Field(i)
		if !v.Exported() {
			continue
		}
		r, err := l.ref(v.Type())
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", v.Name(), err)
		}
		out = append(out, &model.Field{Name: v.Name(), Embedded: v.Embedded(), Type: r})
	}
	return out, nil
}

var known = map[string]string{
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":                     "Time",
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":                "MicroTime",
	"k8s.io/apimachinery/pkg/apis/meta/v1.Duration":                 "Duration",
	"k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta":               "ObjectMeta",
	"k8s.io/apimachinery/pkg/apis/meta/v1.ListMeta":                 "ListMeta",
	"k8s.io/apimachinery/pkg/apis/meta/v1.TypeMeta":                 "TypeMeta",
	"k8s.io/apimachinery/pkg/api/resource.Quantity":                 "Quantity",
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString":               "IntOrString",
	"k8s.io/apimachinery/pkg/runtime.RawExtension":                  "RawExtension",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON": "JSON",
}

func (l *loader) ref(t types.Type) (*model.TypeRef, error) {
	switch t := types.Unalias(t).(type) {
	case *types.Basic:
		return &model.TypeRef{Kind: model.BuiltinRef, Name: t.Name()}, nil
	case *types.Pointer:
		e, err := l.ref(t.Elem())
		return &model.TypeRef{Kind: model.PointerRef, Elem: e}, err
	case *types.Slice:
		e, err := l.ref(t.Elem())
		return &model.TypeRef{Kind: model.SliceRef, Elem: e}, err
	case *types.Array:
		e, err := l.ref(t.Elem())
		return &model.TypeRef{Kind: model.ArrayRef, Elem: e, Len: t.Len()}, err
	case *types.Map:
		k, err := l.ref(t.Key())
		if err != nil {
			return nil, err
		}
		e, err := l.ref(t.Elem())
		return &model.TypeRef{Kind: model.MapRef, Key: k, Elem: e}, err
	case *types.Interface:
		return &model.TypeRef{Kind: model.InterfaceRef}, nil
	case *types.Named:
		obj := t.Obj()
		r := &model.TypeRef{Kind: model.NamedRef, Name: obj.Name()}
		if obj.Pkg() == nil {
			return &model.TypeRef{Kind: model.BuiltinRef, Name: obj.Name()}, nil // error
		}
		r.Package = obj.Pkg().Path()
		if lt, ok := l.local[obj]; ok {
			r.Local = lt
			return r, nil
		}
		e, err := l.external(t)
		r.External = e
		return r, err
	}
	return nil, fmt.Errorf("unsupported type %s", t)
}

func (l *loader) external(t *types.Named) (*model.External, error) {
	if e, ok := l.ext[t]; ok {
		return e, nil
	}
	e := &model.External{Known: known[t.Obj().Pkg().Path()+"."+t.Obj().Name()]}
	l.ext[t] = e
	ms := types.NewMethodSet(types.NewPointer(t))
	e.HasDeepCopyInto = ms.Lookup(t.Obj().Pkg(), "DeepCopyInto") != nil
	e.HasDeepCopy = ms.Lookup(t.Obj().Pkg(), "DeepCopy") != nil
	if e.Known != "" {
		return e, nil
	}
	switch u := t.Underlying().(type) {
	case *types.Struct:
		fs, err := l.fields(u)
		if err != nil {
			return nil, fmt.Errorf("external %s: %w", t, err)
		}
		e.Fields = fs
	default:
		r, err := l.ref(u)
		if err != nil {
			return nil, fmt.Errorf("external %s: %w", t, err)
		}
		e.Underlying = r
	}
	return e, nil
}
