// Package cel enforces +kubebuilder:validation:XValidation rules with
// Kubernetes' own CEL validator for custom resources
// (k8s.io/apiextensions-apiserver's schema/cel and k8s.io/apiserver's CEL
// library): the same environment, library functions, cost limits and error
// text as kube-apiserver gives a CRD of the same types. The kind's
// structural schema is built from the generated OpenAPI v3 schemas, and the
// rules are compiled once per process.
package cel

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"sync"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	celschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/kubeforge/kubeforge/runtime/jsonencode"
	"github.com/kubeforge/kubeforge/runtime/openapidefs"
)

// StaticEstimatedCostLimit is kube-apiserver's limit on a rule's estimated
// cost (times how often it can run, under unbounded lists and maps) when a
// CRD is written.
const StaticEstimatedCostLimit = 10000000

// Rules are the CEL rules of one kind. The zero value is not usable; the
// generated code declares one per kind with rules.
type Rules struct {
	// Root is the kind's component schema name; Schemas returns the
	// generated OpenAPI v3 component schemas of its group-version.
	Root    string
	Schemas func() map[string]json.RawMessage

	once       sync.Once
	err        error
	structural *schema.Structural
	validator  *celschema.Validator
}

// Compile builds the structural schema and compiles every rule, checking
// each against the cost limit; an error names the rule's path and the CEL
// message. It runs once; later calls return the first result.
func (r *Rules) Compile() error {
	r.once.Do(func() { r.err = r.compile() })
	return r.err
}

func (r *Rules) compile() error {
	all := openapidefs.KnownSchemas()
	for k, v := range r.Schemas() {
		all[k] = v
	}
	s, err := Structural(all, r.Root)
	if err != nil {
		return fmt.Errorf("cel rules of %s: %w", r.Root, err)
	}
	if err := CheckRules(s); err != nil {
		return fmt.Errorf("cel rules of %s: %w", r.Root, err)
	}
	r.structural = s
	r.validator = celschema.NewValidator(s, true, celconfig.PerCallLimit)
	return nil
}

// Validate runs the rules on obj (and, for an update, old: transition
// rules run only then). Errors are kube-apiserver's, paths from the root
// ("spec: Invalid value: \"object\": ...").
func (r *Rules) Validate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	if err := r.Compile(); err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	if r.validator == nil {
		return nil
	}
	u, err := content(obj)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("convert for cel validation: %w", err))}
	}
	var o any // an untyped nil when there is no old object
	if old != nil {
		ou, err := content(old)
		if err != nil {
			return field.ErrorList{field.InternalError(nil, fmt.Errorf("convert for cel validation: %w", err))}
		}
		o = ou
	}
	errs, _ := r.validator.Validate(ctx, nil, r.structural, u, o, celconfig.RuntimeCELCostBudget)
	return errs
}

// RuleError is a rule that cannot be enforced.
type RuleError struct {
	Path string // where the rule stands, from the root (<root>.spec)
	Rule string
	Msg  string // the CEL message
}

func (e RuleError) Error() string { return fmt.Sprintf("%s: rule %q: %s", e.Path, e.Rule, e.Msg) }

// CheckRules compiles every rule of s, as kube-apiserver does when a CRD is
// written: a rule that does not compile or type-check, a bad
// messageExpression, or an estimated cost over the limit is an error
// naming the rule's path.
func CheckRules(s *schema.Structural) error {
	var msgs []string
	for _, e := range RuleErrors(s) {
		msgs = append(msgs, e.Error())
	}
	if len(msgs) > 0 {
		return fmt.Errorf("%s", strings.Join(msgs, "; "))
	}
	return nil
}

// StaticEstimatedCRDCostLimit is kube-apiserver's limit on the sum of the
// estimated costs of every rule and messageExpression of one schema.
const StaticEstimatedCRDCostLimit = 100000000

// RuleErrors is every rule of s that cannot be enforced (see CheckRules),
// in a deterministic order. Costs are counted as kube-apiserver counts a
// CRD's: a rule's estimated cost times how often it can run (the product
// of the maxItems and maxProperties above it, or the request size's bound
// where one of them is unset), each against StaticEstimatedCostLimit, and
// the sum of all of them, messageExpressions included, against
// StaticEstimatedCRDCostLimit. An error of the sum has an empty Rule.
func RuleErrors(s *schema.Structural) []RuleError {
	var errs []RuleError
	var total ruleCosts
	one := uint64(1)
	var walk func(path string, n *schema.Structural, root bool, card *uint64)
	walk = func(path string, n *schema.Structural, root bool, card *uint64) {
		if n == nil {
			return
		}
		if len(n.XValidations) > 0 {
			decl := model.SchemaDeclType(n, root || n.XEmbeddedResource)
			results, err := celschema.Compile(n, decl, celconfig.PerCallLimit,
				environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()), celschema.StoredExpressionsEnvLoader())
			if err != nil {
				errs = append(errs, RuleError{Path: path, Rule: n.XValidations[0].Rule, Msg: err.Error()})
			}
			for i, res := range results {
				rule := n.XValidations[i].Rule
				times := res.MaxCardinality
				if card != nil {
					times = *card
				}
				cost := mulCapped(res.MaxCost, times)
				total.observe(path, rule, cost)
				if cost > StaticEstimatedCostLimit {
					errs = append(errs, RuleError{Path: path, Rule: rule, Msg: overBudget("estimated rule cost", cost, StaticEstimatedCostLimit)})
				}
				switch {
				case res.Error != nil:
					errs = append(errs, RuleError{Path: path, Rule: rule, Msg: res.Error.Detail})
				case res.MessageExpressionError != nil:
					errs = append(errs, RuleError{Path: path, Rule: rule, Msg: "messageExpression: " + res.MessageExpressionError.Detail})
				case res.MessageExpression != nil:
					total.observe(path, rule, res.MessageExpressionMaxCost)
					if res.MessageExpressionMaxCost > StaticEstimatedCostLimit {
						errs = append(errs, RuleError{Path: path, Rule: rule, Msg: "messageExpression: " + overBudget("estimated messageExpression cost", res.MessageExpressionMaxCost, StaticEstimatedCostLimit)})
					}
				}
			}
		}
		childCard := card
		if card != nil {
			if m := maxElements(n); m == nil {
				childCard = nil
			} else {
				c := mulCapped(*card, *m)
				childCard = &c
			}
		}
		names := make([]string, 0, len(n.Properties))
		for name := range n.Properties {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			p := n.Properties[name]
			walk(path+"."+name, &p, false, childCard)
		}
		if n.Items != nil {
			walk(path+"[*]", n.Items, n.Items.XEmbeddedResource, childCard)
		}
		if n.AdditionalProperties != nil && n.AdditionalProperties.Structural != nil {
			walk(path+"[*]", n.AdditionalProperties.Structural, false, childCard)
		}
	}
	walk("<root>", s, true, &one)
	if total.sum > StaticEstimatedCRDCostLimit {
		for _, e := range total.most {
			errs = append(errs, RuleError{Path: e.path, Rule: e.rule, Msg: "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"})
		}
		errs = append(errs, RuleError{Path: "<root>", Msg: overBudget("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", total.sum, StaticEstimatedCRDCostLimit)})
	}
	return errs
}

// ruleCosts sums estimated costs and keeps the four largest of those over
// 1% of the schema's limit, as kube-apiserver names them.
type ruleCosts struct {
	sum  uint64
	most []ruleCost
}

type ruleCost struct {
	path, rule string
	cost       uint64
}

func (c *ruleCosts) observe(path, rule string, cost uint64) {
	if math.MaxUint64-c.sum < cost {
		c.sum = math.MaxUint64
	} else {
		c.sum += cost
	}
	if cost < StaticEstimatedCRDCostLimit/100 {
		return
	}
	c.most = append(c.most, ruleCost{path: path, rule: rule, cost: cost})
	sort.SliceStable(c.most, func(i, j int) bool { return c.most[i].cost > c.most[j].cost })
	if len(c.most) > 4 {
		c.most = c.most[:4]
	}
}

// maxElements is how many times n's children can occur per occurrence of
// n: its maxItems or maxProperties, nil (unbounded) without one, 1 for a
// struct or a scalar.
func maxElements(n *schema.Structural) *uint64 {
	var limit *int64
	switch {
	case n.Type == "array":
		if n.ValueValidation != nil {
			limit = n.ValueValidation.MaxItems
		}
	case n.Type == "object" && n.AdditionalProperties != nil:
		if n.ValueValidation != nil {
			limit = n.ValueValidation.MaxProperties
		}
	default:
		one := uint64(1)
		return &one
	}
	if limit == nil {
		return nil
	}
	v := uint64(max(*limit, 0))
	return &v
}

func mulCapped(a, b uint64) uint64 {
	if a == 0 {
		return 0
	}
	if math.MaxUint64/a < b {
		return math.MaxUint64
	}
	return a * b
}

// overBudget words an estimated cost over its limit as kube-apiserver does.
func overBudget(what string, cost, limit uint64) string {
	factor := float64(cost) / float64(limit)
	var f string
	switch {
	case factor > 100:
		f = "more than 100x"
	case factor < 1.5:
		f = fmt.Sprintf("%fx", factor)
	default:
		f = fmt.Sprintf("%.1fx", factor)
	}
	return what + " exceeds budget by factor of " + f + " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
}

// Structural builds the structural schema of root, with every reference
// inlined, the way a CRD's schema is written: ObjectMeta is an object of
// name and generateName (all a rule may read of it), Time a date-time
// string, IntOrString and Quantity int-or-string.
func Structural(all map[string]json.RawMessage, root string) (*schema.Structural, error) {
	inl := &inliner{all: all}
	v, err := inl.named(root, 0)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(raw, &v1); err != nil {
		return nil, fmt.Errorf("decode the inlined schema: %w", err)
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		return nil, fmt.Errorf("convert the schema: %w", err)
	}
	return schema.NewStructural(&internal)
}

type inliner struct {
	all map[string]json.RawMessage
}

const maxDepth = 32

func (in *inliner) named(name string, depth int) (map[string]any, error) {
	switch name {
	case "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta":
		return map[string]any{"type": "object", "properties": map[string]any{
			"name": map[string]any{"type": "string"}, "generateName": map[string]any{"type": "string"},
		}}, nil
	case "io.k8s.apimachinery.pkg.apis.meta.v1.Time", "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime":
		return map[string]any{"type": "string", "format": "date-time"}, nil
	case "io.k8s.apimachinery.pkg.apis.meta.v1.Duration":
		return map[string]any{"type": "string"}, nil
	case "io.k8s.apimachinery.pkg.util.intstr.IntOrString", "io.k8s.apimachinery.pkg.api.resource.Quantity":
		return map[string]any{"x-kubernetes-int-or-string": true}, nil
	}
	raw, ok := in.all[name]
	if !ok {
		return nil, fmt.Errorf("schema %s not found", name)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("decode schema %s: %w", name, err)
	}
	return in.schema(m, depth+1)
}

func (in *inliner) schema(m map[string]any, depth int) (map[string]any, error) {
	if depth > maxDepth {
		return map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}, nil
	}
	out := map[string]any{}
	// A described reference: allOf [{$ref}] beside description and default.
	if all, ok := m["allOf"].([]any); ok && len(all) == 1 {
		if ref, ok := all[0].(map[string]any); ok && ref["$ref"] != nil {
			m = mergeRef(m, ref)
		}
	}
	if ref, ok := m["$ref"].(string); ok {
		target, err := in.named(strings.TrimPrefix(ref, openapidefs.RefPrefix), depth)
		if err != nil {
			return nil, err
		}
		for k, v := range target {
			out[k] = v
		}
	}
	for k, v := range m {
		switch k {
		case "$ref", "allOf", "x-kubernetes-group-version-kind", "x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key":
		case "anyOf", "oneOf":
			// int-or-string in v3 form: the extension says it for CRDs.
			if m["x-kubernetes-int-or-string"] == true {
				continue
			}
			out[k] = v
		case "properties":
			props := map[string]any{}
			for name, p := range v.(map[string]any) {
				ps, err := in.schema(p.(map[string]any), depth+1)
				if err != nil {
					return nil, err
				}
				props[name] = ps
			}
			out[k] = props
		case "items", "additionalProperties":
			if sm, ok := v.(map[string]any); ok {
				s, err := in.schema(sm, depth+1)
				if err != nil {
					return nil, err
				}
				out[k] = s
			} else {
				out[k] = v
			}
		default:
			out[k] = v
		}
	}
	return out, nil
}

// mergeRef returns m with allOf replaced by the reference it holds.
func mergeRef(m, ref map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if k != "allOf" {
			out[k] = v
		}
	}
	out["$ref"] = ref["$ref"]
	return out
}

// content is obj as the rules see it. A user's kind registered as a
// custom resource is the JSON it is written as, decoded (integers as
// int64), as kube's rules see a custom resource: a field Go holds as null
// or an empty struct with omitempty is absent (has() is false), as it is
// from kube. Anything else is its unstructured conversion.
func content(obj runtime.Object) (map[string]any, error) {
	if t := reflect.TypeOf(obj); t == nil || t.Kind() != reflect.Pointer || !jsonencode.IsCustomResource(t.Elem()) {
		return runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	}
	data, err := jsonencode.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var u map[string]any
	if err := utiljson.Unmarshal(data, &u); err != nil {
		return nil, err
	}
	return u, nil
}
