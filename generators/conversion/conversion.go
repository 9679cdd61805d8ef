// Package conversion is the "conversion" generator. The storage version of
// a kind is the hub; every other version of the group serving that kind (a
// spoke) converts to and from it.
//
// For a spoke version <v> of group <g> it writes two files:
//
//   - types/<g>/<v>/zz_generated.conversion.go, beside the types (as
//     conversion-gen does), so that hand-written functions in the same
//     package can call the generated ones: for every struct type reachable
//     from a kind (and its list) whose name exists in both versions,
//     autoConvert_<from>_<T>_To_<to>_<T> (field by field, skipping fields
//     that need hand-written code) and, unless written by hand,
//     Convert_<from>_<T>_To_<to>_<T>, in both directions;
//   - generated/<g>/<v>/zz_generated.conversion.go: <Kind>ToHub,
//     <Kind>FromHub, <Kind>ListToHub, <Kind>ListFromHub (TypeMeta set, the
//     hub-only fields kept in the kubeforge.dev/conversion-data annotation)
//     and RegisterConversions(*runtime.Scheme) error.
//
// A hand-written Convert_<from>_<T>_To_<to>_<T> in the spoke's types package
// (model.Version.Funcs) replaces the generated one. A spoke field without a
// same-named compatible hub field, or a same-named field of incompatible
// type, needs one; generation then fails with the exact signatures to write
// (MissingError). See docs/conversion.md.
//
// A kind stored as another group's kind (+kubeforge:external storedAs=,
// model.Kind.StoredAs: events.k8s.io/v1 Event over core/v1 Event) is a
// spoke of that kind. Neither package is ours, so its field-by-field
// functions go into the types root package (model.API.Types,
// types/zz_generated.conversion.go, beside hand-written ones in any of its
// files), named after the generated packages
// (Convert_eventsv1_Event_To_corev1_Event); the kind-level functions go
// into the spoke's generated/<g>/<v> as usual.
package conversion

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/model"
)

// FileName is the name of both generated files.
const FileName = "zz_generated.conversion.go"

// Generator is the conversion generator.
type Generator struct{}

// New returns the conversion generator.
func New() *Generator { return &Generator{} }

// Name implements genall.Generator.
func (*Generator) Name() string { return "conversion" }

// MissingError lists every conversion function that must be written by hand.
type MissingError struct {
	// Problems, one per missing function (or misplaced one), sorted.
	Problems []string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("generate conversion: %d function(s) must be written by hand:\n%s", len(e.Problems), strings.Join(e.Problems, "\n"))
}

// Generate implements genall.Generator.
func (*Generator) Generate(api *model.API) ([]genall.File, error) {
	var files []genall.File
	var problems []string
	var cross []*planner
	for _, g := range api.Groups {
		for _, v := range g.Versions {
			if v.External && !v.StoredElsewhere() {
				// External packages (k8s.io/api, +kubeforge:external)
				// carry their own conversions.
				continue
			}
			p, err := planVersion(api, v)
			if err != nil {
				return nil, fmt.Errorf("generate conversion for %s: %w", v.GroupVersion(), err)
			}
			if p == nil {
				continue
			}
			probs := p.problems()
			if len(probs) > 0 {
				problems = append(problems, probs...)
				continue
			}
			if p.cross {
				// One types-root file for every such version, below.
				cross = append(cross, p)
				gf, err := p.generatedFile(api)
				if err != nil {
					return nil, fmt.Errorf("generate conversion for %s: %w", v.GroupVersion(), err)
				}
				files = append(files, gf)
				continue
			}
			fs, err := emit(api, p)
			if err != nil {
				return nil, fmt.Errorf("generate conversion for %s: %w", v.GroupVersion(), err)
			}
			files = append(files, fs...)
		}
	}
	if len(problems) > 0 {
		return nil, &MissingError{Problems: problems}
	}
	if len(cross) > 0 {
		tf, err := crossTypesFile(cross)
		if err != nil {
			return nil, fmt.Errorf("generate conversion for %s: %w", api.Types.Dir, err)
		}
		files = append(files, tf)
	}
	return files, nil
}

// planVersion plans the conversions of spoke v, or returns nil when v
// stores every kind it declares.
func planVersion(api *model.API, v *model.Version) (*planner, error) {
	p, err := newPlanner(api, v)
	if err != nil {
		return nil, err
	}
	for _, k := range v.Kinds {
		if k.Storage {
			continue
		}
		if k.StoredAs != nil && !v.External {
			return nil, fmt.Errorf("kind %s: stored as %s %s, but only kinds declared with +kubeforge:external may be stored as another group's kind", k.Name, k.StoredAs.Version.GroupVersion(), k.StoredAs.Name)
		}
		hk := k.Hub()
		if hk == nil {
			return nil, fmt.Errorf("kind %s: no storage version in group %s", k.Name, v.Group.Name)
		}
		if k.StoredAs == nil && v.External {
			return nil, fmt.Errorf("kind %s: stored in %s of its own group, which kubeforge does not convert for packages it does not own", k.Name, hk.Version.GroupVersion())
		}
		hv := hk.Version
		if k.StoredAs != nil {
			p.hubs[hv] = true
		}
		if k.Type == nil || hk.Type == nil {
			return nil, fmt.Errorf("kind %s: no type in the model", k.Name)
		}
		kp := &kindPair{sk: k, hk: hk}
		if k.Convertible {
			// The kind's own ConvertTo/ConvertFrom convert it: no
			// field-by-field functions, nothing to write by hand.
			kp.convertible = true
			p.kinds = append(p.kinds, kp)
			continue
		}
		kp.kind = p.addPair(k.Type, hk.Type)
		if kp.kind == nil {
			return nil, fmt.Errorf("kind %s: %s and %s types do not pair", k.Name, p.label(v), p.label(hv))
		}
		sl, hl := v.Type(k.ListName), hv.Type(hk.ListName)
		if sl != nil && hl != nil {
			kp.list = p.addPair(sl, hl)
		}
		p.kinds = append(p.kinds, kp)
	}
	if len(p.kinds) == 0 {
		return nil, nil
	}
	p.analyze()
	return p, nil
}

// problems lists the missing hand-written functions, each with the fields
// that need it, the exact signature and the file to write it in.
func (p *planner) problems() []string {
	out := append([]string(nil), p.errs...)
	for _, pr := range p.sorted() {
		for _, d := range []struct {
			need     []missing
			hand     bool
			from, to *model.Version
		}{{pr.needS2H, pr.handS2H, pr.sv, pr.hv}, {pr.needH2S, pr.handH2S, pr.hv, pr.sv}} {
			if len(d.need) == 0 || d.hand {
				continue
			}
			var b strings.Builder
			for i, m := range d.need {
				if i > 0 {
					b.WriteString("\n")
				}
				fmt.Fprintf(&b, "%s: %s", m.f.f.Pos, m.reason)
			}
			from, to := pr.label(d.from), pr.label(d.to)
			fmt.Fprintf(&b, "; write\n\tfunc %s(in *%s.%s, out *%s.%s) error\n  in %s/conversion.go",
				funcName(from, to, pr.name), p.alias(d.from), pr.name, p.alias(d.to), pr.name, p.fns.dir)
			if p.cross {
				fmt.Fprintf(&b, " (package %s, importing %s %q and %s %q; call the generated %s for the other fields)",
					p.fns.name, p.alias(d.from), d.from.Package, p.alias(d.to), d.to.Package, autoName(from, to, pr.name))
			} else {
				fmt.Fprintf(&b, " (call the generated %s for the other fields)", autoName(from, to, pr.name))
			}
			out = append(out, b.String())
		}
	}
	sort.Strings(out)
	return out
}
