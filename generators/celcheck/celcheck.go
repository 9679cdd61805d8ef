// Package celcheck checks every CEL rule at generate time (those of
// +kubebuilder:validation:XValidation and its items: form, +k8s:immutable
// and the oneOf markers), as kube-apiserver checks a CRD's rules when it is
// written: each rule is compiled and type-checked against the structural schema of
// the field it stands on (built from the generated OpenAPI, as the server
// builds it) and its cost estimated. A rule that does not compile, names a
// field that does not exist or exceeds the cost limit fails generation
// with the marker's file:line:col and the CEL message. Costs are counted as
// kube-apiserver counts them when a CRD is written (each rule times how
// often the lists and maps above it let it run, each messageExpression,
// and their sum over the kind), so a kind we generate is one kube-apiserver
// would accept as a CRD. It writes no files.
package celcheck

import (
	"fmt"
	"sort"

	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/markers"
	"github.com/kubeforge/kubeforge/generators/model"
	"github.com/kubeforge/kubeforge/generators/openapi"
	"github.com/kubeforge/kubeforge/runtime/cel"
	"github.com/kubeforge/kubeforge/runtime/openapidefs"
)

// Generator is the rule check.
type Generator struct{}

// Name implements genall.Generator.
func (Generator) Name() string { return "celcheck" }

// Generate implements genall.Generator: no files, an error per rule that
// cannot be enforced.
func (Generator) Generate(api *model.API) ([]genall.File, error) {
	var errs markers.ErrorList
	for _, g := range api.Owned().Groups {
		for _, v := range g.Versions {
			if err := checkVersion(v, &errs); err != nil {
				return nil, err
			}
		}
	}
	return nil, errs.Err()
}

func checkVersion(v *model.Version, errs *markers.ErrorList) error {
	var kinds []*model.Kind
	for _, k := range v.Kinds {
		if k.Served && k.HasRules() {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		return nil
	}
	schemas, err := openapi.Schemas(v)
	if err != nil {
		return fmt.Errorf("cel rules of %s: %w", v.GroupVersion(), err)
	}
	all := openapidefs.KnownSchemas()
	for name, s := range schemas {
		all[name] = s
	}
	positions := rulePositions(v)
	seen := map[string]bool{}
	for _, k := range kinds {
		s, err := cel.Structural(all, openapidefs.LocalName(v.Group.Name, v.Name, k.Name))
		if err != nil {
			return fmt.Errorf("cel rules of %s %s: %w", v.GroupVersion(), k.Name, err)
		}
		for _, e := range cel.RuleErrors(s) {
			pos := positions[e.Rule]
			if e.Rule == "" { // the sum of the kind's rule costs
				*errs = append(*errs, &markers.Error{Pos: k.Type.Pos, Msg: fmt.Sprintf("kind %s: %s", k.Name, e.Msg)})
				continue
			}
			key := pos.String() + e.Rule + e.Msg
			if seen[key] {
				continue // a type's rule reached from several kinds
			}
			seen[key] = true
			*errs = append(*errs, &markers.Error{Pos: pos, Msg: fmt.Sprintf("rule %q: %s", e.Rule, e.Msg)})
		}
	}
	sort.SliceStable(*errs, func(i, j int) bool { return (*errs)[i].Pos.String() < (*errs)[j].Pos.String() })
	return nil
}

// rulePositions maps each rule's text to the position of its marker.
func rulePositions(v *model.Version) map[string]model.Position {
	out := map[string]model.Position{}
	var add func(val model.Validation)
	add = func(val model.Validation) {
		for _, x := range val.XValidations {
			if _, ok := out[x.Rule]; !ok && x.Pos.File != "" {
				out[x.Rule] = x.Pos
			}
		}
		if val.Items != nil {
			add(val.Items.Validation)
		}
	}
	for _, t := range v.Types {
		add(t.Validation)
		for _, f := range t.Fields {
			add(f.Validation)
		}
	}
	return out
}
