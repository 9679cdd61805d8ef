package model

import (
	"go/ast"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/kubeforge/kubeforge/generators/markers"
)

// WebhookDir is where kubebuilder (v4 layout) scaffolds webhooks:
// internal/webhook/<version>/ (or <group>/<version>/ in a multi-group
// project). Every Go package under it is loaded from source. The older
// layout's api/<version>/*_webhook.go files are read in the types
// packages (types/<group>/<version>/*_webhook.go).
const WebhookDir = "internal/webhook"

const webhookMarker = "kubebuilder:webhook"

// Webhook is one +kubebuilder:webhook marker with the type that
// implements it.
type Webhook struct {
	// Name is the marker's name ("vcronjob-v1.kb.io").
	Name     string
	Mutating bool
	// FailurePolicy is "Fail" or "Ignore".
	FailurePolicy string
	// SideEffects is "None", "NoneOnDryRun", "Some" or "Unknown"
	// (default, as kube's admissionregistration/v1 requires one).
	SideEffects string
	// Operations are CREATE, UPDATE and DELETE, from the marker's verbs.
	Operations []string
	// Exact is matchPolicy=Exact: called only for writes through Kind's
	// version (kube's default, Equivalent: through every version).
	Exact bool
	// Kind is the kind in the marker's version. The webhook runs on the
	// store of Kind.Hub() (the storage version) and sees writes through
	// every version; for a spoke Kind the object is converted for the
	// call, as kube's matchPolicy=Equivalent does.
	Kind *Kind
	// Package is the import path of the implementing type's package,
	// Type its name.
	Package, Type string
	// Typed: the type implements admission.Defaulter[*Kind] or
	// Validator[*Kind]; otherwise the untyped CustomDefaulter or
	// CustomValidator (runtime.Object).
	Typed bool
	// Configure is set when the package declares
	// func Configure<Type>(w *<Type>) error, or with ConfigureClient
	// func Configure<Type>(w *<Type>, c client.Client) error (c a
	// controller-runtime client of the server itself): the one
	// hand-written place where the fields SetupWebhookWithManager would
	// set are set.
	Configure, ConfigureClient bool
	Pos                        Position
}

// webhookPkg is a loaded package that may hold webhooks.
type webhookPkg struct {
	tpkg  *types.Package
	files []*ast.File
}

// findWebhookDirs lists the package directories under WebhookDir.
func (l *loader) findWebhookDirs() []string {
	var dirs []string
	root := filepath.Join(l.root, filepath.FromSlash(WebhookDir))
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return filepath.SkipDir // no such directory: no webhooks
		}
		if d.IsDir() && hasGoFiles(p) {
			dirs = append(dirs, p)
		}
		return nil
	})
	return dirs
}

// webhookPackage records a loaded package of WebhookDir.
func (l *loader) webhookPackage(p *packages.Package) {
	wp := &webhookPkg{tpkg: p.Types}
	for _, f := range p.Syntax {
		if !l.hidden[l.fset.Position(f.Package).Filename] {
			wp.files = append(wp.files, f)
		}
	}
	l.webhookPkgs = append(l.webhookPkgs, wp)
}

// webhooks reads every +kubebuilder:webhook marker of the webhook packages
// and of the types packages' *_webhook.go files, and finds the type
// implementing each.
func (l *loader) webhooks() {
	pkgs := append([]*webhookPkg(nil), l.webhookPkgs...)
	for _, pi := range l.pkgs {
		if pi.v.External {
			continue
		}
		wp := &webhookPkg{tpkg: pi.tpkg}
		for i, f := range pi.files {
			if strings.HasSuffix(pi.names[i], "_webhook.go") {
				wp.files = append(wp.files, f)
			}
		}
		pkgs = append(pkgs, wp)
	}
	for _, wp := range pkgs {
		for _, f := range wp.files {
			for _, g := range f.Comments {
				var lines []markers.Line
				for _, ln := range l.lines(g) {
					if strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(ln.Text, "//")), "+"+webhookMarker+":") {
						lines = append(lines, ln)
					}
				}
				if len(lines) == 0 {
					continue
				}
				for _, mv := range l.parseMarkers(lines, markers.PackageTarget)[webhookMarker] {
					if w := l.webhook(wp, mv); w != nil {
						l.api.Webhooks = append(l.api.Webhooks, w)
					}
				}
			}
		}
	}
	sort.SliceStable(l.api.Webhooks, func(i, j int) bool {
		a, b := l.api.Webhooks[i].Kind.Hub(), l.api.Webhooks[j].Kind.Hub()
		if a != b {
			return a.Version.Package+"."+a.Name < b.Version.Package+"."+b.Name
		}
		return l.api.Webhooks[i].Pos.String() < l.api.Webhooks[j].Pos.String()
	})
}

// webhook resolves one marker: its kind, and the one type of its package
// implementing it.
func (l *loader) webhook(wp *webhookPkg, mv MarkerValue) *Webhook {
	args, _ := mv.Value.(map[string]any)
	str := func(k string) string { s, _ := args[k].(string); return s }
	list := func(k string) []string { s, _ := args[k].([]string); return s }
	w := &Webhook{Name: str("name"), Pos: mv.Pos, FailurePolicy: "Fail", SideEffects: "Unknown"}
	w.Mutating, _ = args["mutating"].(bool)
	w.Exact = str("matchPolicy") == "Exact"
	if strings.EqualFold(str("failurePolicy"), "ignore") {
		w.FailurePolicy = "Ignore"
	}
	if s := str("sideEffects"); s != "" {
		w.SideEffects = s
	}
	for _, verb := range list("verbs") {
		switch strings.ToLower(verb) {
		case "create", "update", "delete":
			w.Operations = append(w.Operations, strings.ToUpper(verb))
		case "*":
			w.Operations = append(w.Operations, "CREATE", "UPDATE", "DELETE")
		case "connect":
		default:
			l.errorf(mv.Pos, "+%s %s: verb %q is not create, update, delete, connect or *", webhookMarker, w.Name, verb)
			return nil
		}
	}
	groups, resources, versions := list("groups"), list("resources"), list("versions")
	if len(groups) != 1 || len(resources) != 1 || len(versions) != 1 {
		l.errorf(mv.Pos, "+%s %s: name one group, one resource and one version (got %d, %d, %d): an in-process webhook takes one kind's type", webhookMarker, w.Name, len(groups), len(resources), len(versions))
		return nil
	}
	w.Kind = l.kindByResource(groups[0], resources[0], versions[0])
	if w.Kind == nil {
		l.errorf(mv.Pos, "+%s %s: no kind with resource %s in %s/%s under %s", webhookMarker, w.Name, resources[0], groups[0], versions[0], l.opts.TypesDir)
		return nil
	}
	if !w.Kind.Storage && (w.Kind.StoredAs != nil || w.Kind.Hub() == nil || !w.Kind.Served) {
		l.errorf(mv.Pos, "+%s %s: %s %s is neither the storage version nor a served version converted to it", webhookMarker, w.Name, w.Kind.Version.GroupVersion(), w.Kind.Name)
		return nil
	}
	cands := implementers(wp.tpkg, w.Kind, w.Mutating)
	what := "Validator[*" + w.Kind.Name + "] or CustomValidator (ValidateCreate, ValidateUpdate, ValidateDelete)"
	if w.Mutating {
		what = "Defaulter[*" + w.Kind.Name + "] or CustomDefaulter (Default)"
	}
	if len(cands) == 0 {
		l.errorf(mv.Pos, "+%s %s: no type in package %s implements controller-runtime's admission.%s", webhookMarker, w.Name, wp.tpkg.Path(), what)
		return nil
	}
	// Several: the first declared after the marker (kubebuilder writes the
	// marker above the type), else the last before it.
	pick := cands[len(cands)-1]
	for _, c := range cands {
		if p := l.position(c.obj.Pos()); p.File == mv.Pos.File && p.Line > mv.Pos.Line {
			pick = c
			break
		}
	}
	w.Package, w.Type, w.Typed = wp.tpkg.Path(), pick.obj.Name(), pick.typed
	if fn, ok := wp.tpkg.Scope().Lookup("Configure" + w.Type).(*types.Func); ok {
		sig := fn.Type().(*types.Signature)
		p, isPtr := types.Unalias(paramType(sig, 0)).(*types.Pointer)
		n := sig.Params().Len()
		withClient := n == 2 && isNamed(paramType(sig, 1), "sigs.k8s.io/controller-runtime/pkg/client", "Client")
		if (n != 1 && !withClient) || !isPtr || types.Unalias(p.Elem()) != pick.obj.Type() || sig.Results().Len() != 1 || !isError(sig.Results().At(0).Type()) {
			l.errorf(l.position(fn.Pos()), "func Configure%s: want func Configure%s(w *%s) error or func Configure%s(w *%s, c client.Client) error (client of sigs.k8s.io/controller-runtime/pkg/client)", w.Type, w.Type, w.Type, w.Type, w.Type)
			return nil
		}
		w.Configure, w.ConfigureClient = true, withClient
	}
	return w
}

func (l *loader) kindByResource(group, resource, version string) *Kind {
	for _, g := range l.api.Groups {
		if g.Name != group {
			continue
		}
		for _, v := range g.Versions {
			if v.Name != version {
				continue
			}
			for _, k := range v.Kinds {
				if k.Plural == resource {
					return k
				}
			}
		}
	}
	return nil
}

type implementer struct {
	obj   *types.TypeName
	typed bool
}

// implementers lists the named types of pkg whose pointer implements the
// defaulter (mutating) or validator of k, typed or untyped, by position.
func implementers(pkg *types.Package, k *Kind, mutating bool) []implementer {
	var out []implementer
	for _, name := range pkg.Scope().Names() {
		tn, ok := pkg.Scope().Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		if _, isIface := tn.Type().Underlying().(*types.Interface); isIface {
			continue
		}
		ms := types.NewMethodSet(types.NewPointer(tn.Type()))
		method := func(name string) *types.Signature {
			sel := ms.Lookup(pkg, name)
			if sel == nil {
				return nil
			}
			return sel.Obj().Type().(*types.Signature)
		}
		var typed, untyped bool
		if mutating {
			typed, untyped = objParams(method("Default"), k, 1, false)
		} else {
			t1, u1 := objParams(method("ValidateCreate"), k, 1, true)
			t2, u2 := objParams(method("ValidateUpdate"), k, 2, true)
			t3, u3 := objParams(method("ValidateDelete"), k, 1, true)
			typed, untyped = t1 && t2 && t3, u1 && u2 && u3
		}
		if typed || untyped {
			out = append(out, implementer{obj: tn, typed: typed})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].obj.Pos() < out[j].obj.Pos() })
	return out
}

// objParams checks sig is func(context.Context, n objects) error, or
// (admission.Warnings, error) for a validator, and reports whether the
// objects are *k (typed) or runtime.Object (untyped).
func objParams(sig *types.Signature, k *Kind, n int, warnings bool) (typed, untyped bool) {
	if sig == nil || sig.Params().Len() != n+1 || !isNamed(paramType(sig, 0), "context", "Context") {
		return false, false
	}
	res := 1
	if warnings {
		res = 2
	}
	if sig.Results().Len() != res || !isError(sig.Results().At(res-1).Type()) {
		return false, false
	}
	if warnings && !isNamed(sig.Results().At(0).Type(), "sigs.k8s.io/controller-runtime/pkg/webhook/admission", "Warnings") {
		return false, false
	}
	typed, untyped = true, true
	for i := 1; i <= n; i++ {
		t := types.Unalias(paramType(sig, i))
		p, ok := t.(*types.Pointer)
		typed = typed && ok && isNamed(p.Elem(), k.Version.Package, k.Name)
		untyped = untyped && isNamed(t, "k8s.io/apimachinery/pkg/runtime", "Object")
	}
	return typed, untyped
}

func paramType(sig *types.Signature, i int) types.Type {
	if i >= sig.Params().Len() {
		return nil
	}
	return sig.Params().At(i).Type()
}

func isNamed(t types.Type, path, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == path && n.Obj().Name() == name
}

func isError(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}
