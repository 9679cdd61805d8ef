package model

import (
	"errors"
	"fmt"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kubeforge/kubeforge/generators/markers"
)

// ExternalMarker declares a served kind of a types package kubeforge does
// not own (k8s.io/api). It stands only in the package doc comment of
// <TypesDir>/doc.go.
const ExternalMarker = "kubeforge:external"

// externalDecl is one +kubeforge:external marker.
type externalDecl struct {
	pkg, kind          string
	scope              string
	plural, singular   string
	shortNames, categs []string
	storedAs           string // import path of the package whose kind stores this one
	pos                Position
}

// nameRules are the metadata.name rules kube-apiserver applies to built-in
// kinds that are not DNS subdomains, by "<group>/<Kind>".
var nameRules = map[string]string{
	"/Namespace": NameDNSLabel,
	"/Service":   NameDNS1035Label,
	// kube checks a core/v1 Event's name only as a path segment (its
	// strategy skips metadata validation for that version): client-go's
	// recorder names events after their object, as "system:node:a.17f3".
	"/Event": NamePathSegment,
	// RBAC names are path segments (system:discovery), as in kube's
	// ValidateRBACName.
	"rbac.authorization.k8s.io/Role":               NamePathSegment,
	"rbac.authorization.k8s.io/ClusterRole":        NamePathSegment,
	"rbac.authorization.k8s.io/RoleBinding":        NamePathSegment,
	"rbac.authorization.k8s.io/ClusterRoleBinding": NamePathSegment,
}

// declarations reads the +kubeforge:external markers of <TypesDir>/doc.go
// (absent file: none). Marker errors are recorded with file:line:col;
// duplicates too.
func (l *loader) declarations() ([]*externalDecl, error) {
	file := filepath.Join(l.root, l.opts.TypesDir, "doc.go")
	src, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read external declarations: %w", err)
	}
	f, err := goparser.ParseFile(l.fset, file, src, goparser.ParseComments|goparser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parse external declarations: %s", l.relPaths(err.Error()))
	}
	exclude := map[*ast.CommentGroup]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GenDecl:
			exclude[n.Doc] = true
		case *ast.FuncDecl:
			exclude[n.Doc] = true
		}
		return true
	})
	lines, _ := l.blocks(f, f.Doc, f.Package, exclude)
	ms := l.parseMarkers(lines, markers.PackageTarget)
	var out []*externalDecl
	seen := map[string]Position{}
	for _, mv := range ms[ExternalMarker] {
		m, _ := mv.Value.(map[string]any)
		d := &externalDecl{pos: mv.Pos}
		d.pkg, _ = m["package"].(string)
		d.kind, _ = m["kind"].(string)
		d.scope, _ = m["scope"].(string)
		d.plural, _ = m["plural"].(string)
		d.singular, _ = m["singular"].(string)
		d.shortNames, _ = m["shortName"].([]string)
		d.categs, _ = m["categories"].([]string)
		d.storedAs, _ = m["storedAs"].(string)
		if d.pkg == "" || d.kind == "" {
			l.errorf(mv.Pos, "+%s: package and kind must not be empty", ExternalMarker)
			continue
		}
		if strings.HasPrefix(d.pkg, ".") || strings.HasPrefix(d.pkg, "/") {
			l.errorf(mv.Pos, "+%s: package %q must be an import path", ExternalMarker, d.pkg)
			continue
		}
		if l.api.Module != "" && (d.pkg == l.api.Module || strings.HasPrefix(d.pkg, l.api.Module+"/")) {
			l.errorf(mv.Pos, "+%s: package %s is in this module; mark its kinds with +kubebuilder:object:root=true under %s/ instead", ExternalMarker, d.pkg, l.opts.TypesDir)
			continue
		}
		if _, set := m["storedAs"]; set && (d.storedAs == "" || strings.HasPrefix(d.storedAs, ".") || strings.HasPrefix(d.storedAs, "/")) {
			l.errorf(mv.Pos, "+%s: storedAs=%q must be the import path of another declared package", ExternalMarker, d.storedAs)
			continue
		}
		if d.storedAs == d.pkg {
			l.errorf(mv.Pos, "+%s: kind %s of %s cannot be stored as itself (storedAs=%s)", ExternalMarker, d.kind, d.pkg, d.storedAs)
			continue
		}
		key := d.pkg + "." + d.kind
		if prev, dup := seen[key]; dup {
			l.errorf(mv.Pos, "+%s: kind %s of %s is already declared at %s", ExternalMarker, d.kind, d.pkg, prev)
			continue
		}
		seen[key] = mv.Pos
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].pkg < out[j].pkg })
	return out, nil
}

// isExternalFile reports whether a model position (relative file name) is
// in an external package: marker errors there are ignored (see parseMarkers).
func (l *loader) isExternalFile(file string) bool {
	return l.extPkgs[path.Dir(file)] != nil
}

// externalGroupName reads +groupName from the package doc of an external
// package, accepting the empty value of the core group ("+groupName=").
func externalGroupName(pi *pkgInfo) (string, bool) {
	name, found := "", false
	for i, f := range pi.files {
		// Every comment above the package clause: k8s.io/api separates the
		// +groupName block from the doc comment by blank lines.
		var list []*ast.Comment
		for _, g := range f.Comments {
			if g.End() < f.Package {
				list = append(list, g.List...)
			}
		}
		for _, c := range list {
			text := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
			if rest, ok := strings.CutPrefix(text, "+groupName="); ok {
				if !found || path.Base(pi.names[i]) == "doc.go" {
					name, found = strings.Trim(strings.TrimSpace(rest), `"`), true
				}
			}
		}
	}
	return name, found
}

// keepExternal computes, per external package, the named types to model:
// the declared kinds, their lists and every type of an external package they
// (or the types of the owned packages) reach. Nothing else of the external
// packages is modelled, so unrelated types never fail generation or reach
// the output.
func (l *loader) keepExternal() {
	var walk func(t types.Type)
	seen := map[types.Type]bool{}
	walk = func(t types.Type) {
		if t == nil || seen[t] {
			return
		}
		seen[t] = true
		switch t := types.Unalias(t).(type) {
		case *types.Named:
			obj := t.Obj()
			if obj.Pkg() != nil {
				if x := l.extPkgs[obj.Pkg().Path()]; x != nil {
					x.keep[obj.Name()] = true
				}
			}
			walk(t.Underlying())
		case *types.Pointer:
			walk(t.Elem())
		case *types.Slice:
			walk(t.Elem())
		case *types.Array:
			walk(t.Elem())
		case *types.Map:
			walk(t.Key())
			walk(t.Elem())
		case *types.Struct:
			for i := 0; i < t.NumFields(); i++ {
				walk(t.Field(i).Type())
			}
		}
	}
	for _, pi := range l.pkgs {
		x := l.extPkgs[pi.v.Package]
		if x == nil {
			// Owned package: whatever it uses of an external package.
			scope := pi.tpkg.Scope()
			for _, n := range scope.Names() {
				if tn, ok := scope.Lookup(n).(*types.TypeName); ok {
					walk(tn.Type())
				}
			}
			continue
		}
		for _, d := range x.decls {
			for _, n := range []string{d.kind, d.kind + "List"} {
				if tn, ok := pi.tpkg.Scope().Lookup(n).(*types.TypeName); ok {
					walk(tn.Type())
				}
			}
		}
	}
}

// externalKinds builds the declared kinds of an external package.
func (l *loader) externalKinds(pi *pkgInfo) {
	v := pi.v
	x := l.extPkgs[v.Package]
	for _, d := range x.decls {
		t := v.Type(d.kind)
		if t == nil {
			var names []string
			for n := range pi.specs {
				if ast.IsExported(n) {
					names = append(names, n)
				}
			}
			msg := fmt.Sprintf("+%s: package %s has no type %s", ExternalMarker, d.pkg, d.kind)
			if c := markers.Closest(d.kind, names); c != "" {
				msg += fmt.Sprintf(": did you mean %q?", c)
			}
			l.errorf(d.pos, "%s", msg)
			continue
		}
		if t.Kind != StructKind || !hasMeta(t, "TypeMeta") || !hasMeta(t, "ObjectMeta") {
			l.errorf(d.pos, "+%s: type %s of %s is not a root object (a struct embedding metav1.TypeMeta and metav1.ObjectMeta)", ExternalMarker, d.kind, d.pkg)
			continue
		}
		list := v.Type(d.kind + "List")
		if list == nil || list.Kind != StructKind || !hasMeta(list, "TypeMeta") || !hasMeta(list, "ListMeta") || fieldByGo(list, "Items") == nil {
			l.errorf(d.pos, "+%s: package %s has no list type %sList (TypeMeta, ListMeta, Items)", ExternalMarker, d.pkg, d.kind)
			continue
		}
		t.IsKind, list.IsList = true, true
		k := &Kind{
			Version:    v,
			Name:       t.Name,
			Type:       t,
			ListName:   list.Name,
			List:       list,
			Plural:     builtinPlural(t.Name),
			Singular:   strings.ToLower(t.Name),
			Namespaced: !genclientNonNamespaced(pi.specs[t.Name]),
			ShortNames: d.shortNames,
			Categories: d.categs,
			Served:     true,
			NameRule:   NameDNSSubdomain,
		}
		if r := nameRules[v.Group.Name+"/"+k.Name]; r != "" {
			k.NameRule = r
		}
		if d.plural != "" {
			k.Plural = d.plural
		}
		if d.singular != "" {
			k.Singular = d.singular
		}
		if d.scope != "" {
			k.Namespaced = d.scope != "Cluster"
		}
		for _, f := range t.Fields {
			switch f.JSONName {
			case "spec":
				k.SpecField = f
			case "status":
				k.StatusField = f
			}
		}
		// Kubernetes serves /status for every built-in kind with a status.
		k.StatusSubresource = k.StatusField != nil
		v.Kinds = append(v.Kinds, k)
	}
	sort.Slice(v.Kinds, func(i, j int) bool { return v.Kinds[i].Name < v.Kinds[j].Name })
}

// genclientNonNamespaced reports +genclient:nonNamespaced in a type's doc.
func genclientNonNamespaced(ts *typeSpec) bool {
	if ts == nil {
		return false
	}
	for _, g := range []*ast.CommentGroup{ts.extra, ts.doc} {
		if g == nil {
			continue
		}
		for _, c := range g.List {
			if strings.TrimSpace(strings.TrimPrefix(c.Text, "//")) == "+genclient:nonNamespaced" {
				return true
			}
		}
	}
	return false
}

// extPackage is one external package being loaded.
type extPackage struct {
	decls []*externalDecl
	keep  map[string]bool
	dir   string // absolute directory of its files
}

// externalPos is where errors about an external package are reported: its
// first declaration.
func (x *extPackage) pos() Position { return x.decls[0].pos }

// resolveStoredAs links every declared kind with storedAs= to the kind of
// the same name declared for that package (Kind.StoredAs), after every
// external kind is built and before storage versions are decided. The
// target must be declared, not stored elsewhere itself, in another group
// and of the same scope; errors are reported at the declaration.
func (l *loader) resolveStoredAs() {
	pkgs := make([]string, 0, len(l.extPkgs))
	for p := range l.extPkgs {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		for _, d := range l.extPkgs[p].decls {
			if d.storedAs == "" {
				continue
			}
			v := l.locals[d.pkg]
			if v == nil || v.Kind(d.kind) == nil {
				continue // the package or the kind failed to load: reported
			}
			k := v.Kind(d.kind)
			// Until linked, the kind is not a storage version candidate
			// either: one error per bad declaration, not a second one
			// about its group's storage version.
			l.storedElsewhere[k] = true
			tx := l.extPkgs[d.storedAs]
			if tx == nil {
				l.errorf(d.pos, "+%s: storedAs=%s: package %s is not declared; add // +%s:package=%s,kind=%s", ExternalMarker, d.storedAs, d.storedAs, ExternalMarker, d.storedAs, d.kind)
				continue
			}
			var td *externalDecl
			var declared []string
			for _, o := range tx.decls {
				declared = append(declared, o.kind)
				if o.kind == d.kind {
					td = o
				}
			}
			if td == nil {
				sort.Strings(declared)
				l.errorf(d.pos, "+%s: storedAs=%s: kind %s of %s is not declared (declared there: %s); a kind is stored as the kind of the same name", ExternalMarker, d.storedAs, d.kind, d.storedAs, strings.Join(declared, ", "))
				continue
			}
			if td.storedAs != "" {
				l.errorf(d.pos, "+%s: storedAs=%s: kind %s of %s is itself stored as %s (declared at %s); name the package that stores it", ExternalMarker, d.storedAs, d.kind, d.storedAs, td.storedAs, td.pos)
				continue
			}
			tv := l.locals[d.storedAs]
			if tv == nil || tv.Kind(d.kind) == nil {
				continue // reported at the target's declaration
			}
			tk := tv.Kind(d.kind)
			if tv.Group == v.Group {
				l.errorf(d.pos, "+%s: storedAs=%s: %s and %s are versions of the same group %q; versions of one group share a store through its storage version", ExternalMarker, d.storedAs, d.pkg, d.storedAs, v.Group.Name)
				continue
			}
			if tk.Namespaced != k.Namespaced {
				l.errorf(d.pos, "+%s: storedAs=%s: kind %s is %s in %s but %s in %s", ExternalMarker, d.storedAs, d.kind, scopeName(k.Namespaced), d.pkg, scopeName(tk.Namespaced), d.storedAs)
				continue
			}
			k.StoredAs = tk
		}
	}
}

func scopeName(namespaced bool) string {
	if namespaced {
		return "namespaced"
	}
	return "cluster-scoped"
}

// typesPackage records the package at the root of the types tree
// (API.Types): its import path, name and the top-level functions of its
// hand-written files. Generated files (excluded by BuildTag) and tests are
// skipped, so only hand-written Convert_ functions count.
func (l *loader) typesPackage() error {
	dir := filepath.Join(l.root, l.opts.TypesDir)
	tp := &TypesPackage{
		Package: l.api.Module + "/" + filepath.ToSlash(l.opts.TypesDir),
		Dir:     filepath.ToSlash(l.opts.TypesDir),
		Name:    filepath.Base(dir),
		Funcs:   map[string]bool{},
	}
	l.api.Types = tp
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read types package %s: %w", tp.Dir, err)
	}
	named := false
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := goparser.ParseFile(token.NewFileSet(), filepath.Join(dir, n), nil, goparser.ParseComments|goparser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("parse types package %s: %s", tp.Dir, l.relPaths(err.Error()))
		}
		if excludedByTag(f) {
			continue
		}
		if !named || n == "doc.go" {
			tp.Name, named = f.Name.Name, true
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				tp.Funcs[fd.Name.Name] = true
			}
		}
	}
	return nil
}
