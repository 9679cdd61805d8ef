package model

import (
	"github.com/gobuffalo/flect"
	"github.com/kubeforge/kubeforge/runtime/tablecell"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/kubeforge/kubeforge/generators/markers"
)

func isMeta(f *Field, name string) bool {
	return f.Embedded && f.Type != nil && f.Type.Kind == NamedRef && f.Type.Package == metav1Pkg && f.Type.Name == name
}

func hasMeta(t *Type, name string) bool {
	for _, f := range t.Fields {
		if isMeta(f, name) {
			return true
		}
	}
	return false
}

func fieldByGo(t *Type, name string) *Field {
	for _, f := range t.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// kinds finds root objects and their lists in one package.
func (l *loader) kinds(pi *pkgInfo) {
	v := pi.v
	var lists []*Type
	for _, t := range v.Types {
		root, isRoot := first(t.Markers, "kubebuilder:object:root").(bool)
		if !isRoot || !root {
			// A list by shape (TypeMeta, ListMeta, Items) is a list even
			// without the marker.
			if t.Kind == StructKind && hasMeta(t, "TypeMeta") && hasMeta(t, "ListMeta") && fieldByGo(t, "Items") != nil {
				lists = append(lists, t)
			}
			continue
		}
		pos := t.Markers["kubebuilder:object:root"][0].Pos
		switch {
		case t.Kind == StructKind && hasMeta(t, "TypeMeta") && hasMeta(t, "ObjectMeta"):
			t.IsKind = true
			v.Kinds = append(v.Kinds, l.kind(t))
		case t.Kind == StructKind && hasMeta(t, "TypeMeta") && hasMeta(t, "ListMeta") && fieldByGo(t, "Items") != nil:
			lists = append(lists, t)
		default:
			l.errorf(pos, "type %s: +kubebuilder:object:root=true needs a struct embedding metav1.TypeMeta and metav1.ObjectMeta (a kind), or metav1.TypeMeta, metav1.ListMeta and Items (a list)", t.Name)
		}
	}
	sort.Slice(v.Kinds, func(i, j int) bool { return v.Kinds[i].Name < v.Kinds[j].Name })
	for _, t := range v.Types {
		if ms := t.Markers["kubebuilder:selectablefield"]; len(ms) > 0 && !t.IsKind {
			l.errorf(ms[0].Pos, "type %s: +kubebuilder:selectablefield is only valid on a kind (a +kubebuilder:object:root=true struct embedding metav1.TypeMeta and metav1.ObjectMeta)", t.Name)
		}
	}
	for _, t := range lists {
		items := fieldByGo(t, "Items")
		var k *Kind
		if items.Type.Kind == SliceRef && items.Type.Elem.Kind == NamedRef && items.Type.Elem.Local != nil {
			k = v.Kind(items.Type.Elem.Local.Name)
			if k != nil && items.Type.Elem.Local.Version != v {
				k = nil
			}
		}
		if k == nil {
			l.errorf(items.Pos, "list %s: Items must be a slice of a kind (a +kubebuilder:object:root=true struct) of this package", t.Name)
			continue
		}
		if t.Name != k.ListName {
			l.errorf(t.Pos, "list %s: the list of kind %s must be named %s", t.Name, k.Name, k.ListName)
			continue
		}
		t.IsList = true
		k.List = t
	}
	for _, k := range v.Kinds {
		if k.List != nil {
			continue
		}
		if t := v.Type(k.ListName); t != nil {
			l.errorf(t.Pos, "type %s: the list of kind %s must embed metav1.TypeMeta and metav1.ListMeta and have Items []%s", t.Name, k.Name, k.Name)
			continue
		}
		v.Types = append(v.Types, l.generatedList(k))
	}
	sort.Slice(v.Types, func(i, j int) bool { return v.Types[i].Name < v.Types[j].Name })
}

// generatedList is the model of the <Kind>List the lists generator writes,
// with the loaded metav1.ListMeta.
func (l *loader) generatedList(k *Kind) *Type {
	return GeneratedList(k, l.external[metav1Pkg+".ListMeta"])
}

// GeneratedList is the model of the <Kind>List the lists generator writes
// for k: TypeMeta inline, ListMeta as metadata, Items []<Kind>, marked
// IsList and Generated. listMeta describes metav1.ListMeta; nil stands for
// its well-known shape. The loader adds it to Version.Types; generators
// that get a hand-built model call it for kinds without a list.
func GeneratedList(k *Kind, listMeta *External) *Type {
	name := k.ListName
	if name == "" {
		name = k.Name + "List"
	}
	t := &Type{
		Version:   k.Version,
		Name:      name,
		Kind:      StructKind,
		Doc:       name + " is a list of " + k.Name + " objects.",
		Markers:   Markers{},
		IsList:    true,
		Generated: true,
	}
	var pkg string
	if k.Version != nil {
		pkg = k.Version.Package
	}
	typeMeta := &TypeRef{Kind: NamedRef, Name: "TypeMeta", Package: metav1Pkg, External: &External{Known: "TypeMeta", Struct: true}}
	if k.Type != nil {
		t.Pos = k.Type.Pos
		for _, f := range k.Type.Fields {
			if isMeta(f, "TypeMeta") {
				typeMeta = f.Type
			}
		}
	}
	if listMeta == nil {
		listMeta = &External{Known: "ListMeta", Struct: true, HasDeepCopy: true, HasDeepCopyInto: true}
	}
	t.Fields = []*Field{
		{Parent: t, Name: "TypeMeta", Inline: true, Embedded: true, Optional: true, Markers: Markers{}, Type: typeMeta},
		{Parent: t, Name: "ListMeta", JSONName: "metadata", Embedded: true, OmitEmpty: true, Optional: true, Markers: Markers{},
			Type: &TypeRef{Kind: NamedRef, Name: "ListMeta", Package: metav1Pkg, External: listMeta}},
		{Parent: t, Name: "Items", JSONName: "items", Required: true, Markers: Markers{},
			Type: &TypeRef{Kind: SliceRef, Elem: &TypeRef{Kind: NamedRef, Name: k.Name, Package: pkg, Local: k.Type}}},
	}
	return t
}

// kind fills a Kind from its root type's markers.
func (l *loader) kind(t *Type) *Kind {
	k := &Kind{
		Version:    t.Version,
		Name:       t.Name,
		Type:       t,
		ListName:   t.Name + "List",
		Plural:     Plural(t.Name),
		Singular:   strings.ToLower(t.Name),
		Namespaced: true,
		Served:     !t.Markers.Has("kubebuilder:unservedversion"),
		NameRule:   NameDNSSubdomain,
	}
	if r, ok := first(t.Markers, "kubebuilder:resource").(map[string]any); ok {
		if p, ok := r["path"].(string); ok {
			k.Plural = p
		}
		if s, ok := r["singular"].(string); ok {
			k.Singular = s
		}
		if s, ok := r["scope"].(string); ok {
			k.Namespaced = s != "Cluster"
		}
		if s, ok := r["shortName"].([]string); ok {
			k.ShortNames = s
		}
		if s, ok := r["categories"].([]string); ok {
			k.Categories = s
		}
	}
	for _, f := range t.Fields {
		switch f.JSONName {
		case "spec":
			k.SpecField = f
		case "status":
			k.StatusField = f
		}
	}
	if t.Markers.Has("kubebuilder:subresource:status") {
		k.StatusSubresource = true
		if k.StatusField == nil {
			l.errorf(t.Markers["kubebuilder:subresource:status"][0].Pos, "kind %s: +kubebuilder:subresource:status needs a field with JSON name \"status\"", t.Name)
		}
	}
	if mvs := t.Markers["kubebuilder:subresource:scale"]; len(mvs) > 0 {
		k.Scale = l.scale(k, mvs[0])
	}
	for _, mv := range t.Markers["kubebuilder:printcolumn"] {
		m, _ := mv.Value.(map[string]any)
		pc := PrinterColumn{}
		pc.Name, _ = m["name"].(string)
		pc.Type, _ = m["type"].(string)
		pc.JSONPath, _ = m["JSONPath"].(string)
		pc.Description, _ = m["description"].(string)
		pc.Format, _ = m["format"].(string)
		if p, ok := m["priority"].(int64); ok {
			pc.Priority = int32(p)
		}
		if dynamicPath(pc.JSONPath) {
			if !strings.HasPrefix(pc.JSONPath, ".") {
				l.errorf(mv.Pos, "kind %s: printcolumn %q: JSONPath %s: must start with .", t.Name, pc.Name, pc.JSONPath)
			} else if err := tablecell.Parse(pc.Name, pc.JSONPath); err != nil {
				l.errorf(mv.Pos, "kind %s: printcolumn %q: JSONPath %s: %v", t.Name, pc.Name, pc.JSONPath, err)
			} else {
				pc.Dynamic = true
				k.PrinterColumns = append(k.PrinterColumns, pc)
			}
			continue
		}
		path, err := resolvePath(t, pc.JSONPath)
		if err != "" {
			l.errorf(mv.Pos, "kind %s: printcolumn %q: JSONPath %s: %s", t.Name, pc.Name, pc.JSONPath, err)
			continue
		}
		pc.Path = path
		if strings.Contains(pc.JSONPath, "[") {
			// An index (.spec.ports[0].port): checked against the fields
			// above, read as kube reads it, out of range included.
			pc.Path, pc.Dynamic = nil, true
		}
		k.PrinterColumns = append(k.PrinterColumns, pc)
	}
	l.selectableFields(k)
	return k
}

// dynamicPath reports a JSONPath beyond .field and [index]: a filter, a
// wildcard, a range, a union or recursive descent, which only a JSONPath
// evaluator can follow.
func dynamicPath(jp string) bool {
	return strings.ContainsAny(jp, "?*@:,") || strings.Contains(jp, "..")
}

var segRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*)((\[[^\]]*\])*)$`)

// resolvePath resolves a simple JSONPath (.spec.a.b, .spec.items[0].name)
// against t's fields, for printer columns. It returns the named fields
// (inline ones on the way left out); paths under .metadata are checked
// against ObjectMeta and return an empty path.
func resolvePath(t *Type, jp string) ([]*Field, string) {
	chain, _, msg := walkJSONPath(t, jp, true)
	if msg != "" {
		return nil, msg
	}
	var path []*Field
	for _, f := range chain {
		if !f.Inline {
			path = append(path, f)
		}
	}
	if len(path) > 0 && path[0].JSONName == "metadata" {
		return nil, ""
	}
	return path, ""
}

// walkJSONPath follows a simple JSONPath (.a.b, and with indexes .a[0].b)
// through t's fields, descending into inline (embedded) fields. It returns
// the chain of fields, the inline ones on the way included, and the type
// the path ends at, or a message saying what is wrong. Printer columns and
// selectable fields both resolve their paths with it.
func walkJSONPath(t *Type, jp string, indexes bool) (chain []*Field, end *TypeRef, msg string) {
	if !strings.HasPrefix(jp, ".") || len(jp) < 2 {
		return nil, nil, "must start with . and name a field (.spec.size)"
	}
	segs := strings.Split(jp[1:], ".")
	fields := t.Fields
	for i, s := range segs {
		m := segRE.FindStringSubmatch(s)
		if m == nil || (!indexes && m[2] != "") {
			if indexes {
				return nil, nil, "unsupported segment " + strconv.Quote(s) + " (only .field and [index] are supported)"
			}
			return nil, nil, "unsupported segment " + strconv.Quote(s) + " (only .field is supported)"
		}
		if i > 0 && fields == nil {
			return nil, nil, "segment " + strconv.Quote(s) + " is below " + strings.Join(jsonNames(chain), ".") + ", which is " + describeShape(end) + ", not a struct"
		}
		got := findJSONChain(fields, m[1])
		if got == nil {
			var names []string
			collectJSONNames(fields, &names)
			msg := "no field " + strconv.Quote(m[1])
			if c := markers.Closest(m[1], names); c != "" {
				msg += ": did you mean " + strconv.Quote(c) + "?"
			}
			return nil, nil, msg
		}
		chain = append(chain, got...)
		end = got[len(got)-1].Type
		for n := strings.Count(m[2], "["); n > 0; n-- {
			e := sliceElem(end)
			if e == nil {
				return nil, nil, "index on " + strconv.Quote(m[1]) + ", which is not a list"
			}
			end = e
		}
		fields = structFields(end)
	}
	return chain, end, ""
}

// storage decides the storage version of every kind of g.
func (l *loader) storage(g *Group) {
	byKind := map[string][]*Kind{}
	var names []string
	for _, v := range g.Versions {
		for _, k := range v.Kinds {
			if k.StoredAs != nil || l.storedElsewhere[k] {
				continue // stored by a kind of another group
			}
			if byKind[k.Name] == nil {
				names = append(names, k.Name)
			}
			byKind[k.Name] = append(byKind[k.Name], k)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		ks := byKind[n]
		var marked []*Kind
		for _, k := range ks {
			if k.Type.Markers.Has("kubebuilder:storageversion") {
				marked = append(marked, k)
			}
		}
		switch {
		case len(marked) == 1:
			marked[0].Storage = true
		case len(marked) > 1:
			var vs []string
			for _, k := range marked {
				vs = append(vs, k.Version.Name)
			}
			l.errorf(marked[1].Type.Markers["kubebuilder:storageversion"][0].Pos, "kind %s of group %s: +kubebuilder:storageversion on several versions (%s); keep it on exactly one", n, g.Name, strings.Join(vs, ", "))
		case len(ks) == 1:
			ks[0].Storage = true
		default:
			var vs []string
			for _, k := range ks {
				vs = append(vs, k.Version.Name)
			}
			l.errorf(ks[0].Type.Pos, "kind %s of group %s is in versions %s but none is the storage version: add // +kubebuilder:storageversion to the %s type of the version to store", n, g.Name, strings.Join(vs, ", "), n)
		}
		if g.Name != "" {
			for _, k := range ks {
				if !k.Served && k.Storage && len(ks) == 1 {
					l.errorf(k.Type.Pos, "kind %s of group %s: the only version is unserved", n, g.Name)
				}
			}
		}
	}
}

var versionRE = regexp.MustCompile(`^v([1-9][0-9]*)(?:(alpha|beta)([1-9][0-9]*))?$`)

// versionLess orders versions by Kubernetes priority: GA before beta before
// alpha, higher numbers first; non-Kubernetes names last, alphabetically.
func versionLess(a, b string) bool {
	ma, mb := versionRE.FindStringSubmatch(a), versionRE.FindStringSubmatch(b)
	switch {
	case ma == nil && mb == nil:
		return a < b
	case ma == nil:
		return false
	case mb == nil:
		return true
	}
	stage := func(m []string) int {
		switch m[2] {
		case "":
			return 3
		case "beta":
			return 2
		}
		return 1
	}
	if sa, sb := stage(ma), stage(mb); sa != sb {
		return sa > sb
	}
	na, _ := strconv.Atoi(ma[1])
	nb, _ := strconv.Atoi(mb[1])
	if na != nb {
		return na > nb
	}
	ra, _ := strconv.Atoi(ma[3])
	rb, _ := strconv.Atoi(mb[3])
	return ra > rb
}

// Plural returns the resource name controller-gen gives a kind without
// +kubebuilder:resource:path: the lower-cased plural of flect, the
// inflection library controller-tools uses (Policy -> policies, Gizmo ->
// gizmoes, Person -> people). A kubebuilder project's manifests, RBAC
// markers and CRD names are written against these names, so any other
// English would serve its kinds under a resource its clients do not ask for.
func Plural(kind string) string {
	return strings.ToLower(flect.Pluralize(kind))
}

// builtinPlural is the plural Kubernetes' own kinds are served under
// (gengo's rules, which kube's resources follow): Endpoints stays, Ingress
// -> ingresses, NetworkPolicy -> networkpolicies.
func builtinPlural(kind string) string {
	s := strings.ToLower(kind)
	switch {
	case s == "":
		return s
	case strings.HasSuffix(s, "s"), strings.HasSuffix(s, "x"), strings.HasSuffix(s, "z"),
		strings.HasSuffix(s, "ch"), strings.HasSuffix(s, "sh"):
		if strings.HasSuffix(s, "endpoints") {
			return s
		}
		return s + "es"
	case strings.HasSuffix(s, "y") && len(s) > 1 && !strings.ContainsRune("aeiou", rune(s[len(s)-2])):
		return s[:len(s)-1] + "ies"
	}
	return s + "s"
}

// scale checks +kubebuilder:subresource:scale: spec replicas an integer
// under .spec, status replicas an integer under .status, the selector a
// string under .status, as kube-apiserver requires of a CRD's scale.
func (l *loader) scale(k *Kind, mv MarkerValue) *Scale {
	m, _ := mv.Value.(map[string]any)
	sc := &Scale{}
	sc.SpecReplicasPath, _ = m["specpath"].(string)
	sc.StatusReplicasPath, _ = m["statuspath"].(string)
	sc.LabelSelectorPath, _ = m["selectorpath"].(string)
	if !k.StatusSubresource {
		l.errorf(mv.Pos, "kind %s: +kubebuilder:subresource:scale needs +kubebuilder:subresource:status", k.Name)
	}
	ok := true
	check := func(arg, jp, under string, want func(*TypeRef) bool, what string) []*Field {
		if jp == "" {
			return nil
		}
		if !strings.HasPrefix(jp, under+".") {
			l.errorf(mv.Pos, "kind %s: scale %s %s must be under %s", k.Name, arg, jp, under)
			ok = false
			return nil
		}
		if strings.ContainsAny(jp, "[]") {
			l.errorf(mv.Pos, "kind %s: scale %s %s: array notation is not allowed", k.Name, arg, jp)
			ok = false
			return nil
		}
		path, msg := resolvePath(k.Type, jp)
		if msg != "" {
			l.errorf(mv.Pos, "kind %s: scale %s %s: %s", k.Name, arg, jp, msg)
			ok = false
			return nil
		}
		if f := path[len(path)-1]; !want(f.Type) {
			l.errorf(mv.Pos, "kind %s: scale %s %s must be %s, not %s", k.Name, arg, jp, what, describeShape(f.Type))
			ok = false
			return nil
		}
		return path
	}
	isInt32 := func(r *TypeRef) bool {
		d := deref(r)
		for d != nil && d.Kind == NamedRef && d.Local != nil && d.Local.Underlying != nil {
			d = d.Local.Underlying
		}
		return d != nil && d.Kind == BuiltinRef && d.Name == "int32"
	}
	isString := func(r *TypeRef) bool {
		d := deref(r)
		return d != nil && d.Kind == BuiltinRef && d.Name == "string"
	}
	sc.SpecReplicas = check("specpath", sc.SpecReplicasPath, ".spec", isInt32, "an int32 (or *int32)")
	sc.StatusReplicas = check("statuspath", sc.StatusReplicasPath, ".status", isInt32, "an int32 (or *int32)")
	sc.LabelSelector = check("selectorpath", sc.LabelSelectorPath, ".status", isString, "a string (or *string)")
	if !ok {
		return nil
	}
	return sc
}
