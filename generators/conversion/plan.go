package conversion

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kubeforge/kubeforge/generators/model"
)

// flat is a struct field as JSON sees it: inline embedded structs are
// flattened, path is the Go selector path from the struct.
type flat struct {
	f    *model.Field
	path []string
	json string // "" only for an inline field matched or kept whole
}

func (f flat) goName() string { return strings.Join(f.path, ".") }

// match is a field present on both sides with compatible types.
type match struct {
	s, h flat
}

// missing is a field that needs hand-written code.
type missing struct {
	f      flat
	side   *model.Version // the version declaring f
	reason string
}

// pair is a named struct type present in the spoke and the hub version.
type pair struct {
	name   string
	s, h   *model.Type
	sv, hv *model.Version
	// sl, hl label the versions in function names: the version name
	// ("v1alpha1"), or the generated package name ("eventsv1") for kinds
	// stored as another group's kind.
	sl, hl string

	matches []match
	// hubOnly are hub fields without a compatible spoke field: kept in the
	// annotation on the way to the spoke.
	hubOnly []flat
	// needS2H / needH2S are the fields that need a hand-written function in
	// that direction.
	needS2H, needH2S []missing
	// handS2H / handH2S: a hand-written Convert_ function exists in the
	// spoke types package.
	handS2H, handH2S bool

	data     int // 0 unknown, 1 visiting, 2 no, 3 yes: hub-only data below
	analyzed bool
}

func (p *pair) s2h() string { return funcName(p.sl, p.hl, p.name) }
func (p *pair) h2s() string { return funcName(p.hl, p.sl, p.name) }

// label returns the label of v in this pair's function names.
func (p *pair) label(v *model.Version) string {
	if v == p.sv {
		return p.sl
	}
	return p.hl
}

func funcName(from, to, name string) string {
	return "Convert_" + from + "_" + name + "_To_" + to + "_" + name
}

func autoName(from, to, name string) string {
	return "autoConvert_" + from + "_" + name + "_To_" + to + "_" + name
}

// kindPair is a kind served in the spoke and stored in the hub.
type kindPair struct {
	sk, hk *model.Kind
	kind   *pair
	list   *pair // nil when a side has no list type
	// convertible: sk converts by its own ConvertTo/ConvertFrom
	// (model.Kind.Convertible); kind and list are then nil.
	convertible bool
}

// planner plans the conversions of one spoke version.
type planner struct {
	spoke *model.Version
	// cross is set when the spoke's kinds are stored as kinds of other
	// groups (model.Kind.StoredAs): the spoke is then an external package
	// and the Convert_ functions live in the types root package.
	cross bool
	// hubs are the hub versions of other groups (cross only).
	hubs map[*model.Version]bool
	// fns is the package of the Convert_ and autoConvert_ functions.
	fns   convPackage
	pairs map[string]*pair // hub package + "." + type name
	queue []*pair
	kinds []*kindPair
	errs  []string // hub-package hand-written functions
}

// convPackage is where the field-by-field functions are written, beside
// the hand-written ones: the spoke's types package, or for kinds stored as
// another group's kind the types root package (model.API.Types).
type convPackage struct {
	pkg, dir, name string
	funcs          map[string]bool
}

func newPlanner(api *model.API, spoke *model.Version) (*planner, error) {
	p := &planner{spoke: spoke, pairs: map[string]*pair{}, hubs: map[*model.Version]bool{}}
	p.fns = convPackage{pkg: spoke.Package, dir: spoke.Dir, name: spoke.PackageName, funcs: spoke.Funcs}
	if spoke.External {
		if api.Types == nil {
			return nil, fmt.Errorf("no types root package in the model for the conversions of %s", spoke.Package)
		}
		p.cross = true
		p.fns = convPackage{pkg: api.Types.Package, dir: api.Types.Dir, name: api.Types.Name, funcs: api.Types.Funcs}
	}
	return p, nil
}

// label names v in function names: its version ("v1alpha1"), or, across
// groups, its generated package name ("eventsv1", "corev1").
func (p *planner) label(v *model.Version) string {
	if p.cross {
		return v.Group.Short + v.Name
	}
	return v.Name
}

// alias is the import alias of v's types package in generated code and
// signatures: its package name, or across groups its label (k8s.io/api
// packages are all named v1).
func (p *planner) alias(v *model.Version) string {
	if p.cross {
		return p.label(v)
	}
	return v.PackageName
}

// addPair returns the pair of the local struct types s (spoke) and h (hub)
// with the same name, or nil when they are not such a pair.
func (p *planner) addPair(s, h *model.Type) *pair {
	if s == nil || h == nil || s.Name != h.Name || s.Kind != model.StructKind || h.Kind != model.StructKind {
		return nil
	}
	if s.Version != p.spoke || h.Version == nil || h.Version == p.spoke {
		return nil
	}
	if p.cross && !p.hubs[h.Version] || !p.cross && h.Version.Group != p.spoke.Group {
		return nil
	}
	key := h.Version.Package + "." + h.Name
	if pr, ok := p.pairs[key]; ok {
		return pr
	}
	pr := &pair{name: s.Name, s: s, h: h, sv: s.Version, hv: h.Version, sl: p.label(s.Version), hl: p.label(h.Version)}
	pr.handS2H = p.fns.funcs[pr.s2h()]
	pr.handH2S = p.fns.funcs[pr.h2s()]
	for _, fn := range []string{pr.s2h(), pr.h2s()} {
		if !p.cross && h.Version.Funcs[fn] {
			p.errs = append(p.errs, fmt.Sprintf("%s: hand-written %s is declared in the hub package %s; move it to %s/conversion.go: the generated conversions of %s import %s, so %s cannot import %s",
				h.Version.Dir, fn, h.Version.Package, p.spoke.Dir, p.spoke.Name, h.Version.Name, h.Version.Name, p.spoke.Name))
		}
	}
	p.pairs[key] = pr
	p.queue = append(p.queue, pr)
	return pr
}

// analyze matches fields of every queued pair (which queues more pairs).
func (p *planner) analyze() {
	for i := 0; i < len(p.queue); i++ {
		pr := p.queue[i]
		if !pr.analyzed {
			pr.analyzed = true
			p.matchFields(pr)
		}
	}
}

// sorted returns every pair, by hub version then name.
func (p *planner) sorted() []*pair {
	out := make([]*pair, 0, len(p.pairs))
	for _, pr := range p.pairs {
		out = append(out, pr)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].hv.Package != out[j].hv.Package {
			return out[i].hv.Package < out[j].hv.Package
		}
		return out[i].name < out[j].name
	})
	return out
}

func isTypeMeta(f *model.Field) bool {
	r := f.Type
	return f.Inline && r != nil && r.Kind == model.NamedRef && r.External != nil && r.External.Known == "TypeMeta"
}

// inlineStruct returns the local struct type of an inline embedded value field.
func inlineStruct(f *model.Field) *model.Type {
	if !f.Inline || f.Type == nil || f.Type.Kind != model.NamedRef || f.Type.Local == nil {
		return nil
	}
	if f.Type.Local.Kind != model.StructKind {
		return nil
	}
	return f.Type.Local
}

// flatten lists the JSON fields of t, flattening inline embedded structs
// except those named in keep (matched whole).
func flatten(fields []*model.Field, prefix []string, keep map[string]bool, depth int) []flat {
	var out []flat
	for _, f := range fields {
		if isTypeMeta(f) || f.JSONName == "-" {
			continue
		}
		path := append(append([]string(nil), prefix...), f.Name)
		if t := inlineStruct(f); t != nil && !(len(prefix) == 0 && keep[f.Name]) && depth < 16 {
			out = append(out, flatten(t.Fields, path, nil, depth+1)...)
			continue
		}
		name := f.JSONName
		if f.Inline && name == "" {
			name = ""
		}
		out = append(out, flat{f: f, path: path, json: name})
	}
	return out
}

func (p *planner) matchFields(pr *pair) {
	// Inline embedded fields with the same Go name on both sides convert whole.
	keep := map[string]bool{}
	var wholes []match
	for _, sf := range pr.s.Fields {
		if isTypeMeta(sf) || !sf.Inline {
			continue
		}
		for _, hf := range pr.h.Fields {
			if hf.Inline && hf.Name == sf.Name && p.compatible(sf.Type, hf.Type) {
				keep[sf.Name] = true
				wholes = append(wholes, match{s: flat{f: sf, path: []string{sf.Name}}, h: flat{f: hf, path: []string{hf.Name}}})
			}
		}
	}
	sfl := flatten(pr.s.Fields, nil, keep, 0)
	hfl := flatten(pr.h.Fields, nil, keep, 0)
	key := func(f flat) string {
		if f.json == "" {
			return "inline:" + f.goName()
		}
		return f.json
	}
	hByKey := map[string]flat{}
	for _, h := range hfl {
		if !keep[h.goName()] {
			hByKey[key(h)] = h
		}
	}
	used := map[string]bool{}
	pr.matches = append(pr.matches, wholes...)
	for _, s := range sfl {
		if keep[s.goName()] {
			continue
		}
		k := key(s)
		h, ok := hByKey[k]
		desc := fmt.Sprintf("%s.%s (json %q)", pr.name, s.goName(), s.json)
		if !ok {
			why := fmt.Sprintf("no field %q in %s.%s", s.json, pr.hl, pr.name)
			pr.needS2H = append(pr.needS2H, missing{f: s, side: pr.sv, reason: fmt.Sprintf("cannot convert field %s to %s: %s", desc, pr.hl, why)})
			pr.needH2S = append(pr.needH2S, missing{f: s, side: pr.sv, reason: fmt.Sprintf("cannot fill field %s from %s: %s", desc, pr.hl, why)})
			continue
		}
		used[k] = true
		if p.compatible(s.f.Type, h.f.Type) {
			pr.matches = append(pr.matches, match{s: s, h: h})
			continue
		}
		why := fmt.Sprintf("%s type %s, %s type %s", pr.sl, refString(s.f.Type), pr.hl, refString(h.f.Type))
		pr.needS2H = append(pr.needS2H, missing{f: s, side: pr.sv, reason: fmt.Sprintf("cannot convert field %s to %s: %s", desc, pr.hl, why)})
		pr.needH2S = append(pr.needH2S, missing{f: h, side: pr.hv, reason: fmt.Sprintf("cannot convert field %s.%s (json %q) to %s: %s", pr.name, h.goName(), h.json, pr.sl, why)})
		pr.hubOnly = append(pr.hubOnly, h)
	}
	for _, h := range hfl {
		if keep[h.goName()] || used[key(h)] {
			continue
		}
		pr.hubOnly = append(pr.hubOnly, h)
	}
}

var builtins = map[string]bool{
	"bool": true, "string": true, "byte": true, "rune": true,
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true,
	"float32": true, "float64": true, "complex64": true, "complex128": true,
}

// External types by model.External.Known that are values without references,
// and those with a DeepCopyInto method.
var (
	knownShallow = map[string]bool{"TypeMeta": true, "Duration": true, "IntOrString": true}
	knownMethod  = map[string]bool{
		"Time": true, "MicroTime": true, "Quantity": true, "ObjectMeta": true,
		"ListMeta": true, "RawExtension": true, "JSON": true,
	}
)

func identical(a, b *model.TypeRef) bool {
	if a == nil || b == nil || a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case model.BuiltinRef:
		return a.Name == b.Name
	case model.NamedRef:
		return a.Name == b.Name && refPkg(a) == refPkg(b)
	case model.PointerRef, model.SliceRef:
		return identical(a.Elem, b.Elem)
	case model.ArrayRef:
		return a.Len == b.Len && identical(a.Elem, b.Elem)
	case model.MapRef:
		return identical(a.Key, b.Key) && identical(a.Elem, b.Elem)
	case model.InterfaceRef:
		return true
	}
	return false
}

func refPkg(r *model.TypeRef) string {
	if r.Package == "" && r.Local != nil && r.Local.Version != nil {
		return r.Local.Version.Package
	}
	return r.Package
}

// basicOf returns the builtin type behind a builtin or a named basic type
// ("string" for type Phase string), or "".
func basicOf(r *model.TypeRef) string {
	switch {
	case r == nil:
		return ""
	case r.Kind == model.BuiltinRef && builtins[r.Name]:
		return r.Name
	case r.Kind == model.NamedRef && r.Local != nil && r.Local.Kind == model.BasicKind && r.Local.Underlying != nil:
		return basicOf(r.Local.Underlying)
	}
	return ""
}

// shapeOf returns the unnamed type behind a local named slice, map, pointer
// or array type, or r.
func shapeOf(r *model.TypeRef) *model.TypeRef {
	if r != nil && r.Kind == model.NamedRef && r.Local != nil && r.Local.Underlying != nil {
		switch r.Local.Kind {
		case model.SliceKind, model.MapKind, model.PointerKind, model.ArrayKind:
			return r.Local.Underlying
		}
	}
	return r
}

// canCopy reports whether a value of r can be deep-copied by generated code.
func canCopy(r *model.TypeRef) bool {
	switch r.Kind {
	case model.BuiltinRef:
		return builtins[r.Name]
	case model.InterfaceRef:
		return true
	case model.PointerRef, model.SliceRef, model.ArrayRef:
		return canCopy(r.Elem)
	case model.MapRef:
		return canCopy(r.Key) && canCopy(r.Elem)
	case model.NamedRef:
		if r.Local != nil {
			if s := shapeOf(r); s != r {
				return canCopy(s)
			}
			return true
		}
		e := r.External
		if e == nil {
			return false
		}
		if knownShallow[e.Known] || knownMethod[e.Known] || e.HasDeepCopyInto {
			return true
		}
		if e.Struct {
			for _, f := range e.Fields {
				if basicOf(f.Type) == "" {
					return false
				}
			}
			return e.Fields != nil
		}
		return basicOf(e.Underlying) != ""
	}
	return false
}

// compatible reports whether a spoke value of type s converts to a hub value
// of type h and back without loss, queueing struct pairs it relies on.
func (p *planner) compatible(s, h *model.TypeRef) bool {
	if s == nil || h == nil {
		return false
	}
	if identical(s, h) {
		return canCopy(s)
	}
	if b := basicOf(s); b != "" && b == basicOf(h) {
		return true
	}
	if s.Kind == model.NamedRef && h.Kind == model.NamedRef && s.Local != nil && h.Local != nil {
		if p.addPair(s.Local, h.Local) != nil {
			return true
		}
	}
	ss, hs := shapeOf(s), shapeOf(h)
	if ss.Kind != hs.Kind {
		return false
	}
	switch ss.Kind {
	case model.PointerRef, model.SliceRef:
		return p.compatible(ss.Elem, hs.Elem)
	case model.ArrayRef:
		return ss.Len == hs.Len && p.compatible(ss.Elem, hs.Elem)
	case model.MapRef:
		kb := basicOf(ss.Key)
		return kb != "" && kb == basicOf(hs.Key) && p.compatible(ss.Elem, hs.Elem)
	}
	return false
}

// pairOf returns the struct pair behind two refs, or nil.
func (p *planner) pairOf(s, h *model.TypeRef) *pair {
	if s == nil || h == nil || s.Kind != model.NamedRef || h.Kind != model.NamedRef || s.Local == nil || h.Local == nil || identical(s, h) {
		return nil
	}
	if h.Local.Version == nil {
		return nil
	}
	return p.pairs[h.Local.Version.Package+"."+h.Name]
}

// nesting says how hub-only data under a matched field is reached.
type nesting int

const (
	noNest nesting = iota
	nestValue
	nestPointer
	nestKeyed
	nestIndexed
	nestMap
)

// nested returns how the matched field m leads to a pair with hub-only data.
func (p *planner) nested(m match) (nesting, *pair, []flat) {
	s, h := m.s.f.Type, m.h.f.Type
	if pr := p.pairOf(s, h); pr != nil {
		if p.hasData(pr) {
			return nestValue, pr, nil
		}
		return noNest, nil, nil
	}
	ss, hs := shapeOf(s), shapeOf(h)
	if ss.Kind != hs.Kind {
		return noNest, nil, nil
	}
	pr := p.pairOf(ss.Elem, hs.Elem)
	if pr == nil || !p.hasData(pr) {
		return noNest, nil, nil
	}
	switch ss.Kind {
	case model.PointerRef:
		return nestPointer, pr, nil
	case model.SliceRef:
		if keys := p.listKeys(m.h.f, pr); keys != nil {
			return nestKeyed, pr, keys
		}
		return nestIndexed, pr, nil
	case model.MapRef:
		if basicOf(hs.Key) == "string" {
			return nestMap, pr, nil
		}
	}
	return noNest, nil, nil
}

// listKeys returns the hub item fields of a +listType=map list when every
// key is a matched, comparable field of the items.
func (p *planner) listKeys(f *model.Field, item *pair) []flat {
	if f.ListType != "map" || len(f.ListMapKeys) == 0 {
		return nil
	}
	var keys []flat
	for _, k := range f.ListMapKeys {
		found := false
		for _, m := range item.matches {
			if m.h.json == k && basicOf(m.h.f.Type) != "" {
				keys = append(keys, m.h)
				found = true
				break
			}
		}
		if !found {
			return nil
		}
	}
	return keys
}

// hasData reports whether a hub value of the pair can hold data the spoke
// cannot express (hub-only fields, here or below).
func (p *planner) hasData(pr *pair) bool {
	switch pr.data {
	case 1, 2:
		return false
	case 3:
		return true
	}
	pr.data = 1
	yes := len(pr.hubOnly) > 0
	for _, m := range pr.matches {
		if k, _, _ := p.nested(m); k != noNest {
			yes = true
		}
	}
	if yes {
		pr.data = 3
	} else {
		pr.data = 2
	}
	return yes
}

func refString(r *model.TypeRef) string {
	if r == nil {
		return "<nil>"
	}
	switch r.Kind {
	case model.BuiltinRef:
		return r.Name
	case model.NamedRef:
		pkg := refPkg(r)
		if i := strings.LastIndex(pkg, "/"); i >= 0 {
			pkg = pkg[i+1:]
		}
		if pkg == "" {
			return r.Name
		}
		return pkg + "." + r.Name
	case model.PointerRef:
		return "*" + refString(r.Elem)
	case model.SliceRef:
		return "[]" + refString(r.Elem)
	case model.MapRef:
		return "map[" + refString(r.Key) + "]" + refString(r.Elem)
	case model.ArrayRef:
		return fmt.Sprintf("[%d]%s", r.Len, refString(r.Elem))
	case model.InterfaceRef:
		return "interface{}"
	}
	return "?"
}
