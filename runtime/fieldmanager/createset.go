package fieldmanager

import (
	"encoding/base64"
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/kubeforge/kubeforge/runtime/jsonencode"
	"github.com/kubeforge/kubeforge/runtime/jsonfields"
)

// The set a create's manager owns is what structured-merge-diff's
// Compare of the live (empty) object and the new one reports as added
// or modified. Compare zips the two objects through structured-merge-diff's
// reflection, allocating values per field and looking fields up by name;
// createFields walks the two Go values directly, with a plan compiled once
// per Go type and schema type, and gives the same set, or reports that it
// cannot (anything Compare would refuse, and the few shapes it does not
// follow itself), in which case the field manager's own Update runs.
// comparison is the same walk for an update: added, modified and removed
// fields, as Compare reports them.
//
// Values are classified exactly as structured-merge-diff's reflection
// classifies them (value.valueReflect.reuse): a type that converts itself
// (json.Marshaler, ToUnstructured) is the unstructured value its
// conversion gives, a pointer is null or what it points to (one level), a
// struct is a map of its fields (value.TypeReflectEntryOf's JSON names,
// inlined structs and omission rules), a nil map or slice is null, a byte
// slice a string, the rest scalars. Compare's walk (typed.compareWalker)
// is followed step by step: deduced atoms, leaves (atomic and empty
// containers, scalars, compared as value.Equals compares them), map zips
// and keyed lists and sets by path element (items of the two lists
// matched by it, duplicates handled as visitListItems handles them).

// cmpNode is the plan of one Go type under one schema type.
type cmpNode struct {
	t    reflect.Type
	atom smdschema.Atom
	cls  cmpClass

	// clsConverted
	entry *value.TypeReflectCacheEntry
	// clsPointer: the pointed-to type, under the same schema type
	elem *cmpNode
	// clsStruct
	fields []cmpField
	// clsMap: the element type under the map's element type, and under
	// each declared field's type
	mapElem   *cmpNode
	mapFields map[string]*cmpNode
	// clsList: the element type under the list's element type
	listElem *cmpNode
	// keyNames: the key fields' plans of a keyed list's items (by key)
	keyFields []cmpKey
}

type cmpField struct {
	fe    *value.FieldCacheEntry
	name  *string // JsonName, shared by every path through it
	child *cmpNode
	// crZero: a struct field with omitempty of a custom resource's type,
	// absent when zero as in the JSON the kind is written as
	// (jsonencode.CustomResource), where Go writes it.
	crZero bool
	// crNull: a field of a custom resource's type that is not +nullable,
	// absent when Go holds a null there, as kube prunes such nulls.
	crNull bool
}

// omits reports whether the field is absent from the object fv is read
// from: omitted by structured-merge-diff's reflection (encoding/json's
// omitempty), or a custom resource's zero struct or null.
func (f *cmpField) omits(fv reflect.Value) bool {
	return f.fe.CanOmit(fv) || f.crZero && fv.IsZero() || f.crNull && isNull(fv)
}

// isNull: Go writes v as null (a nil pointer, slice, map or interface, a
// zero metav1.Time or MicroTime).
func isNull(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return v.IsNil()
	}
	if t := v.Type(); t == metaTimeType || t == microTimeType {
		return v.IsZero()
	}
	return false
}

var (
	metaTimeType  = reflect.TypeFor[metav1.Time]()
	microTimeType = reflect.TypeFor[metav1.MicroTime]()
)

type cmpKey struct {
	name string
	def  any // the schema's default, nil when none
}

type cmpClass int

const (
	clsConverted cmpClass = iota
	clsPointer
	clsStruct
	clsMap
	clsList
	clsBytes
	clsString
	clsBool
	clsInt
	clsUint
	clsFloat
)

type planKey struct {
	t  reflect.Type
	tr string
}

// planner compiles plans; a type the walk does not follow fails the plan.
type planner struct {
	s     *smdschema.Schema
	nodes map[planKey]*cmpNode
	cr    bool // t is a custom resource's type
}

func compilePlan(t reflect.Type, s *smdschema.Schema, tr smdschema.TypeRef, cr bool) (n *cmpNode, err error) {
	p := &planner{s: s, nodes: map[planKey]*cmpNode{}, cr: cr}
	defer func() {
		if r := recover(); r != nil {
			n, err = nil, fmt.Errorf("plan %v: %v", t, r)
		}
	}()
	return p.plan(t, tr)
}

func (p *planner) plan(t reflect.Type, tr smdschema.TypeRef) (*cmpNode, error) {
	key := planKey{t, refKey(tr)}
	if n, ok := p.nodes[key]; ok {
		return n, nil
	}
	a, ok := p.s.Resolve(tr)
	if !ok {
		return nil, fmt.Errorf("no schema type for %v", t)
	}
	if a.Map == nil && a.List == nil && a.Scalar == nil {
		return nil, fmt.Errorf("empty atom for %v", t)
	}
	n := &cmpNode{t: t, atom: a}
	p.nodes[key] = n
	e := value.TypeReflectEntryOf(t)
	if e.CanConvertToUnstructured() {
		n.cls, n.entry = clsConverted, e
		return n, nil
	}
	var err error
	switch t.Kind() {
	case reflect.Pointer:
		if t.Elem().Kind() == reflect.Pointer || t.Elem().Kind() == reflect.Interface {
			return nil, fmt.Errorf("pointer to %v", t.Elem())
		}
		n.cls = clsPointer
		n.elem, err = p.plan(t.Elem(), tr)
	case reflect.Struct:
		n.cls = clsStruct
		if a.Map == nil {
			return nil, fmt.Errorf("struct %v under a non-map type", t)
		}
		omitEmpty, keepsNull := map[string]bool{}, map[string]bool{}
		for _, f := range jsonfields.Of(t) {
			omitEmpty[f.Name] = f.OmitEmpty
			keepsNull[f.Name] = jsonencode.KeepsNull(t, f.Index)
		}
		for _, fe := range e.OrderedFields() {
			ft := fe.GetFrom(reflect.New(t).Elem()).Type()
			ftr := a.Map.ElementType
			if sf, ok := a.Map.FindField(fe.JsonName); ok {
				ftr = sf.Type
			}
			child, err := p.plan(ft, ftr)
			if err != nil {
				return nil, err
			}
			name := fe.JsonName
			n.fields = append(n.fields, cmpField{fe: fe, name: &name, child: child,
				crZero: p.cr && omitEmpty[name] && ft.Kind() == reflect.Struct,
				crNull: p.cr && !keepsNull[name]})
		}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("map key %v", t.Key())
		}
		if a.Map == nil {
			return nil, fmt.Errorf("map %v under a non-map type", t)
		}
		n.cls = clsMap
		if (a.Map.ElementType != smdschema.TypeRef{}) {
			if n.mapElem, err = p.plan(t.Elem(), a.Map.ElementType); err != nil {
				return nil, err
			}
		}
		n.mapFields = map[string]*cmpNode{}
		for _, sf := range a.Map.Fields {
			if n.mapFields[sf.Name], err = p.plan(t.Elem(), sf.Type); err != nil {
				return nil, err
			}
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			n.cls = clsBytes
			break
		}
		n.cls = clsList
		if a.List == nil {
			return nil, fmt.Errorf("slice %v under a non-list type", t)
		}
		if n.listElem, err = p.plan(t.Elem(), a.List.ElementType); err != nil {
			return nil, err
		}
		if len(a.List.Keys) > 0 {
			ea, ok := p.s.Resolve(a.List.ElementType)
			if !ok || ea.Map == nil {
				return nil, fmt.Errorf("keyed list of %v without map items", t.Elem())
			}
			for _, k := range a.List.Keys {
				f, _ := ea.Map.FindField(k)
				n.keyFields = append(n.keyFields, cmpKey{name: k, def: f.Default})
			}
		}
	case reflect.String:
		n.cls = clsString
	case reflect.Bool:
		n.cls = clsBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n.cls = clsInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32:
		n.cls = clsUint
	case reflect.Float32, reflect.Float64:
		n.cls = clsFloat
	default:
		return nil, fmt.Errorf("kind %v of %v", t.Kind(), t)
	}
	if err != nil {
		return nil, err
	}
	return n, nil
}

// valKind is what structured-merge-diff's reflection makes of a value.
type valKind uint8

const (
	vAbsent valKind = iota // omitted field, missing map key, no item
	vNull
	vMap // a struct (n.cls == clsStruct) or a Go map (clsMap)
	vList
	vString
	vInt
	vFloat
	vBool
)

// cval is one side of a comparison: the value and the plan of its type
// (for maps and lists).
type cval struct {
	k   valKind
	n   *cmpNode      // the plan of rv's type (after any pointer)
	rv  reflect.Value // maps and lists
	s   string
	i   int64
	f   float64
	b   bool
	num bool // k == vInt or vFloat
}

// errNotFollowed: the walk met something it does not follow, or that
// Compare refuses; the caller falls back to structured-merge-diff.
var errNotFollowed = fmt.Errorf("not followed")

// classify is valueReflect.reuse: the value of rv (of n's type).
func classify(n *cmpNode, rv reflect.Value) (cval, error) {
	switch n.cls {
	case clsConverted:
		var u any
		if n.t == intOrStringType {
			v := intOrStringValue(rv)
			u = v.Unstructured()
		} else {
			var err error
			if u, err = n.entry.ToUnstructured(rv); err != nil {
				return cval{}, errNotFollowed
			}
		}
		switch x := u.(type) {
		case nil:
			return cval{k: vNull}, nil
		case string:
			return cval{k: vString, s: x}, nil
		case bool:
			return cval{k: vBool, b: x}, nil
		case int64:
			return cval{k: vInt, i: x, num: true}, nil
		case float64:
			return cval{k: vFloat, f: x, num: true}, nil
		}
		return cval{}, errNotFollowed // maps, lists: not followed
	case clsPointer:
		if rv.IsNil() {
			return cval{k: vNull}, nil
		}
		return classify(n.elem, rv.Elem())
	case clsStruct:
		return cval{k: vMap, n: n, rv: rv}, nil
	case clsMap:
		if rv.IsNil() {
			return cval{k: vNull}, nil
		}
		return cval{k: vMap, n: n, rv: rv}, nil
	case clsList:
		if rv.IsNil() {
			return cval{k: vNull}, nil
		}
		return cval{k: vList, n: n, rv: rv}, nil
	case clsBytes:
		if rv.IsNil() {
			return cval{k: vNull}, nil
		}
		return cval{k: vString, s: base64.StdEncoding.EncodeToString(rv.Bytes())}, nil
	case clsString:
		return cval{k: vString, s: rv.String()}, nil
	case clsBool:
		return cval{k: vBool, b: rv.Bool()}, nil
	case clsInt:
		return cval{k: vInt, i: rv.Int(), num: true}, nil
	case clsUint:
		return cval{k: vInt, i: int64(rv.Uint()), num: true}, nil
	case clsFloat:
		return cval{k: vFloat, f: rv.Float(), num: true}, nil
	}
	return cval{}, errNotFollowed
}

func (v cval) isScalar() bool { return v.k >= vString }

// cmpWalker collects what Compare reports as added, modified and
// removed. A create's walk puts added and modified fields in one
// fieldsTree and keeps no removed ones: its manager owns nothing before.
type cmpWalker struct {
	path     fieldpath.Path
	tree     *fieldsTree // a create's; nil: added and modified go to the sets
	added    *fieldpath.Set
	modified *fieldpath.Set
	removed  *fieldpath.Set // nil: removed fields are not kept
	// emptyLive compares a create of a custom resource as kube-apiserver
	// does: its live object is an unstructured one holding apiVersion and
	// kind alone, so a struct the new object holds at its root (spec) is
	// added with its own entry ("f:spec": {".": {}, ...}), where the zero
	// Go object holds an empty spec already. A root struct the new object
	// leaves empty (the status a create resets) is absent from both, as
	// from the custom resource's JSON.
	emptyLive bool
}

// insert records p as Compare's added (or modified, when modified):
// to the tree of a create, to its set otherwise.
func (w *cmpWalker) insert(p fieldpath.Path, modified bool) {
	switch {
	case w.tree != nil:
		w.tree.insert(p)
	case modified:
		w.modified.Insert(p)
	default:
		w.added.Insert(p)
	}
}

func (w *cmpWalker) insertRemoved(p fieldpath.Path) {
	if w.removed != nil {
		w.removed.Insert(p)
	}
}

// deduce is typed.deduceAtom.
func deduce(a smdschema.Atom, v cval) smdschema.Atom {
	switch {
	case v.k == vAbsent:
	case v.isScalar():
		if a.Scalar != nil {
			return smdschema.Atom{Scalar: a.Scalar}
		}
	case v.k == vList:
		if a.List != nil {
			return smdschema.Atom{List: a.List}
		}
	case v.k == vMap:
		if a.Map != nil {
			return smdschema.Atom{Map: a.Map}
		}
	}
	return a
}

func sameAtom(a, b smdschema.Atom) bool {
	return a.Scalar == b.Scalar && a.List == b.List && a.Map == b.Map
}

// compare is compareWalker.compare at w.path, under the schema atom of
// node (l and r are of node's Go type, or absent).
func (w *cmpWalker) compare(a smdschema.Atom, l, r cval) error {
	al, ar := deduce(a, l), deduce(a, r)
	var leaf bool
	var err error
	switch {
	case r.k == vAbsent:
		leaf, err = w.handle(al, l, r)
	case l.k == vAbsent || sameAtom(al, ar):
		leaf, err = w.handle(ar, l, r)
	default:
		// Compare handles both atoms, the first on a copy of its
		// walker; what they insert goes to the same sets.
		if _, err = w.handle(al, l, r); err == nil {
			leaf, err = w.handle(ar, l, r)
		}
	}
	if err != nil {
		return err
	}
	if !leaf {
		switch {
		case l.k == vAbsent:
			w.insert(w.path, false)
		case r.k == vAbsent:
			w.insertRemoved(w.path)
		}
	}
	return nil
}

// handle is handleAtom; leaf reports whether doLeaf ran.
func (w *cmpWalker) handle(a smdschema.Atom, l, r cval) (leaf bool, err error) {
	switch {
	case a.Map != nil:
		return w.doMap(a.Map, l, r)
	case a.Scalar != nil:
		// doScalar: an error only when neither side is a valid scalar.
		if !scalarFitsVal(*a.Scalar, l) && !scalarFitsVal(*a.Scalar, r) {
			return false, errNotFollowed
		}
		return true, w.doLeaf(l, r)
	case a.List != nil:
		return w.doList(a.List, l, r)
	}
	return false, errNotFollowed
}

// scalarFitsVal is validateScalar without error: absent and null fit.
func scalarFitsVal(t smdschema.Scalar, v cval) bool {
	switch v.k {
	case vAbsent, vNull:
		return true
	}
	switch t {
	case smdschema.Numeric:
		return v.num
	case smdschema.String:
		return v.k == vString
	case smdschema.Boolean:
		return v.k == vBool
	case smdschema.Untyped:
		return v.isScalar()
	}
	return false
}

// doLeaf inserts the path when the field was added or changed.
func (w *cmpWalker) doLeaf(l, r cval) error {
	switch {
	case l.k == vAbsent:
		w.insert(w.path, false)
	case r.k == vAbsent:
		w.insertRemoved(w.path)
	default:
		eq, err := valuesEqual(l, r)
		if err != nil {
			return err
		}
		if !eq {
			w.insert(w.path, true)
		}
	}
	return nil
}

// valuesEqual is value.Equals: scalars by JSON value (an int equals the
// float of the same value), lists as listsEqual, maps (structs without
// their omitted fields) key by key.
func valuesEqual(l, r cval) (bool, error) {
	if l.k == vFloat || r.k == vFloat {
		if !l.num || !r.num {
			return false, nil
		}
		return l.float() == r.float(), nil
	}
	if l.k == vInt || r.k == vInt {
		return l.k == r.k && l.i == r.i, nil
	}
	if l.k == vString || r.k == vString {
		return l.k == r.k && l.s == r.s, nil
	}
	if l.k == vBool || r.k == vBool {
		return l.k == r.k && l.b == r.b, nil
	}
	if l.k == vList || r.k == vList {
		if l.k != r.k {
			return false, nil
		}
		return listsEqual(l, r)
	}
	if l.k == vMap || r.k == vMap {
		if l.k != r.k {
			return false, nil
		}
		return mapsEqual(l, r)
	}
	return l.k == r.k, nil // both null
}

// listsEqual: structured-merge-diff's reflected lists of one Go type
// are equal when reflect.DeepEqual says so (listReflect.EqualsUsing),
// not item by item: nil and empty slices inside differ, as do
// IntOrStrings that differ only in the unused half.
func listsEqual(l, r cval) (bool, error) {
	if l.n.t != r.n.t {
		return false, errNotFollowed
	}
	return reflect.DeepEqual(l.rv.Interface(), r.rv.Interface()), nil
}

// mapsEqual compares two maps of the same Go type (both structs or both
// Go maps: the two sides of a comparison share their type).
func mapsEqual(l, r cval) (bool, error) {
	if l.n.cls != r.n.cls || l.n.t != r.n.t {
		return false, errNotFollowed
	}
	if l.n.cls == clsStruct {
		for i := range l.n.fields {
			f := &l.n.fields[i]
			lf, rf := f.fe.GetFrom(l.rv), f.fe.GetFrom(r.rv)
			lo, ro := f.omits(lf), f.omits(rf)
			if lo || ro {
				if lo != ro {
					return false, nil
				}
				continue
			}
			lv, err := classify(f.child, lf)
			if err != nil {
				return false, err
			}
			rv, err := classify(f.child, rf)
			if err != nil {
				return false, err
			}
			if eq, err := valuesEqual(lv, rv); err != nil || !eq {
				return false, err
			}
		}
		return true, nil
	}
	if l.rv.Len() != r.rv.Len() {
		return false, nil
	}
	it := r.rv.MapRange()
	for it.Next() {
		x := l.rv.MapIndex(it.Key())
		if !x.IsValid() {
			return false, nil
		}
		en := l.n.elemNode(it.Key().String())
		if en == nil {
			return false, errNotFollowed
		}
		lv, err := classify(en, x)
		if err != nil {
			return false, err
		}
		rv, err := classify(en, it.Value())
		if err != nil {
			return false, err
		}
		if eq, err := valuesEqual(lv, rv); err != nil || !eq {
			return false, err
		}
	}
	return true, nil
}

// elemNode is the plan of a Go map's value at key.
func (n *cmpNode) elemNode(key string) *cmpNode {
	if c, ok := n.mapFields[key]; ok {
		return c
	}
	return n.mapElem
}

func (v cval) float() float64 {
	if v.k == vFloat {
		return v.f
	}
	return float64(v.i)
}

// mapEmpty is Map.Empty: no field that is not omitted, or no key.
func mapEmpty(v cval) (bool, error) {
	if v.n.cls == clsMap {
		return v.rv.Len() == 0, nil
	}
	for _, f := range v.n.fields {
		if !f.omits(f.fe.GetFrom(v.rv)) {
			return false, nil
		}
	}
	return true, nil
}

func (w *cmpWalker) doMap(m *smdschema.Map, l, r cval) (bool, error) {
	// derefMap: a value that is not a map is no map.
	lm, rm := l.k == vMap, r.k == vMap
	if (l.k != vAbsent && l.k != vNull && !lm) || (r.k != vAbsent && r.k != vNull && !rm) {
		return false, errNotFollowed
	}
	le, re := true, true
	var err error
	if lm {
		if le, err = mapEmpty(l); err != nil {
			return false, err
		}
	}
	if rm {
		if re, err = mapEmpty(r); err != nil {
			return false, err
		}
	}
	if m.ElementRelationship == smdschema.Atomic || le && re {
		return true, w.doLeaf(l, r)
	}
	return false, w.visitMap(l, r)
}

// visitMap zips the two maps (one may be null or absent) and compares
// each key's values.
func (w *cmpWalker) visitMap(l, r cval) error {
	var n *cmpNode
	switch {
	case l.k == vMap:
		n = l.n
	default:
		n = r.n
	}
	if n.cls == clsStruct {
		root := w.emptyLive && len(w.path) == 0
		for i := range n.fields {
			f := &n.fields[i]
			lv, rv := cval{}, cval{}
			var err error
			if root && *f.name != "apiVersion" && *f.name != "kind" {
				if r.k == vMap {
					if fv := f.fe.GetFrom(r.rv); !f.omits(fv) {
						if rv, err = classify(f.child, fv); err != nil {
							return err
						}
					}
				}
				if rv.k == vMap {
					if empty, err := mapEmpty(rv); err != nil {
						return err
					} else if empty {
						continue
					}
				}
				if rv.k == vAbsent {
					continue
				}
				if err := w.descend(fieldpath.PathElement{FieldName: f.name}, f.child.atom, cval{}, rv); err != nil {
					return err
				}
				continue
			}
			if l.k == vMap {
				if fv := f.fe.GetFrom(l.rv); !f.omits(fv) {
					if lv, err = classify(f.child, fv); err != nil {
						return err
					}
				}
			}
			if r.k == vMap {
				if fv := f.fe.GetFrom(r.rv); !f.omits(fv) {
					if rv, err = classify(f.child, fv); err != nil {
						return err
					}
				}
			}
			if lv.k == vAbsent && rv.k == vAbsent {
				continue
			}
			if err := w.descend(fieldpath.PathElement{FieldName: f.name}, f.child.atom, lv, rv); err != nil {
				return err
			}
		}
		return nil
	}
	// A Go map: every key of either side.
	visit := func(key string, en *cmpNode, lv, rv cval) error {
		k := key
		return w.descend(fieldpath.PathElement{FieldName: &k}, en.atom, lv, rv)
	}
	if r.k == vMap {
		it := r.rv.MapRange()
		for it.Next() {
			key := it.Key().String()
			en := n.elemNode(key)
			if en == nil {
				return errNotFollowed
			}
			rv, err := classify(en, it.Value())
			if err != nil {
				return err
			}
			lv := cval{}
			if l.k == vMap {
				if x := l.rv.MapIndex(it.Key()); x.IsValid() {
					if lv, err = classify(en, x); err != nil {
						return err
					}
				}
			}
			if err := visit(key, en, lv, rv); err != nil {
				return err
			}
		}
	}
	if l.k == vMap {
		it := l.rv.MapRange()
		for it.Next() {
			if r.k == vMap && r.rv.MapIndex(it.Key()).IsValid() {
				continue
			}
			key := it.Key().String()
			en := n.elemNode(key)
			if en == nil {
				return errNotFollowed
			}
			lv, err := classify(en, it.Value())
			if err != nil {
				return err
			}
			if err := visit(key, en, lv, cval{}); err != nil {
				return err
			}
		}
	}
	return nil
}

// descend compares a child at w.path + pe.
func (w *cmpWalker) descend(pe fieldpath.PathElement, a smdschema.Atom, l, r cval) error {
	w.path = append(w.path, pe)
	err := w.compare(a, l, r)
	w.path = w.path[:len(w.path)-1]
	return err
}

func (w *cmpWalker) doList(t *smdschema.List, l, r cval) (bool, error) {
	ll, rl := l.k == vList, r.k == vList
	if (l.k != vAbsent && l.k != vNull && !ll) || (r.k != vAbsent && r.k != vNull && !rl) {
		return false, errNotFollowed
	}
	lEmpty := !ll || l.rv.Len() == 0
	rEmpty := !rl || r.rv.Len() == 0
	if t.ElementRelationship == smdschema.Atomic || lEmpty && rEmpty {
		return true, w.doLeaf(l, r)
	}
	if t.ElementRelationship != smdschema.Associative {
		return false, errNotFollowed
	}
	return false, w.visitItems(t, l, r)
}

// itemGroup is the items of both lists that give one path element: how
// many on each side, and the first of each.
type itemGroup struct {
	pe     fieldpath.PathElement
	lc, rc int
	l, r   cval
}

// visitItems is visitListItems: items are matched by path element (keys
// or value); a element given by one item or none on each side is
// compared item to item; one given by two or more items on a side is
// compared as a whole: modified when both sides have several and they
// differ, added (or removed) when only the new (or live) list has
// several, its single item on the other side compared with nothing.
func (w *cmpWalker) visitItems(t *smdschema.List, l, r cval) error {
	n := l.n
	if l.k != vList {
		n = r.n
	}
	ln, rn := 0, 0
	if l.k == vList {
		ln = l.rv.Len()
	}
	if r.k == vList {
		rn = r.rv.Len()
	}
	groups := make([]itemGroup, 0, max(ln, rn))
	index := fieldpath.MakePathElementMap(max(ln, rn))
	for side, length := range [2]int{ln, rn} {
		list := l.rv
		if side == 1 {
			list = r.rv
		}
		for i := 0; i < length; i++ {
			v, err := classify(n.listElem, list.Index(i))
			if err != nil {
				return err
			}
			pe, err := w.itemElement(t, n, v)
			if err != nil {
				return err
			}
			gi := len(groups)
			if at, ok := index.Get(pe); ok {
				gi = at.(int)
			} else {
				index.Insert(pe, gi)
				groups = append(groups, itemGroup{pe: pe})
			}
			g := &groups[gi]
			if side == 0 {
				if g.lc == 0 {
					g.l = v
				}
				g.lc++
			} else {
				if g.rc == 0 {
					g.r = v
				}
				g.rc++
			}
		}
	}
	for gi := range groups {
		g := &groups[gi]
		switch {
		case g.lc <= 1 && g.rc <= 1:
			if err := w.descend(g.pe, n.listElem.atom, g.l, g.r); err != nil {
				return err
			}
		case g.lc >= 2 && g.rc >= 2:
			eq, err := w.groupsEqual(t, n, l, r, g.pe)
			if err != nil {
				return err
			}
			if !eq {
				w.insertAt(g.pe, true)
			}
		case g.lc >= 2:
			if g.rc != 0 {
				if err := w.descend(g.pe, n.listElem.atom, cval{}, g.r); err != nil {
					return err
				}
			}
			if w.removed != nil {
				w.path = append(w.path, g.pe)
				w.removed.Insert(w.path)
				w.path = w.path[:len(w.path)-1]
			}
		default:
			if g.lc != 0 {
				if err := w.descend(g.pe, n.listElem.atom, g.l, cval{}); err != nil {
					return err
				}
			}
			w.insertAt(g.pe, false)
		}
	}
	return nil
}

// insertAt inserts w.path + pe as added (or modified).
func (w *cmpWalker) insertAt(pe fieldpath.PathElement, modified bool) {
	w.path = append(w.path, pe)
	w.insert(w.path, modified)
	w.path = w.path[:len(w.path)-1]
}

// groupsEqual: the items of the live list that give pe equal those of
// the new list, in order. (Rare: their path elements are found again.)
func (w *cmpWalker) groupsEqual(t *smdschema.List, n *cmpNode, l, r cval, pe fieldpath.PathElement) (bool, error) {
	items := func(list reflect.Value) ([]cval, error) {
		var out []cval
		for i := 0; i < list.Len(); i++ {
			v, err := classify(n.listElem, list.Index(i))
			if err != nil {
				return nil, err
			}
			ipe, err := w.itemElement(t, n, v)
			if err != nil {
				return nil, err
			}
			if ipe.Equals(pe) {
				out = append(out, v)
			}
		}
		return out, nil
	}
	li, err := items(l.rv)
	if err != nil {
		return false, err
	}
	ri, err := items(r.rv)
	if err != nil || len(li) != len(ri) {
		return false, err
	}
	for i := range li {
		if eq, err := valuesEqual(li[i], ri[i]); err != nil || !eq {
			return false, err
		}
	}
	return true, nil
}

// itemElement is listItemToPathElement; its errors are not followed.
func (w *cmpWalker) itemElement(t *smdschema.List, n *cmpNode, v cval) (fieldpath.PathElement, error) {
	if len(t.Keys) == 0 {
		if !v.isScalar() {
			return fieldpath.PathElement{}, errNotFollowed
		}
		sv := v.value()
		return fieldpath.PathElement{Value: &sv}, nil
	}
	if v.k != vMap {
		return fieldpath.PathElement{}, errNotFollowed
	}
	keys := make(value.FieldList, 0, len(n.keyFields))
	for _, k := range n.keyFields {
		kv, ok, err := mapGet(v, k.name)
		if err != nil {
			return fieldpath.PathElement{}, err
		}
		switch {
		case ok:
			if !kv.isScalar() && kv.k != vNull {
				return fieldpath.PathElement{}, errNotFollowed
			}
			keys = append(keys, value.Field{Name: k.name, Value: kv.value()})
		case k.def != nil:
			keys = append(keys, value.Field{Name: k.name, Value: value.NewValueInterface(k.def)})
		}
	}
	if len(keys) == 0 {
		return fieldpath.PathElement{}, errNotFollowed
	}
	keys.Sort()
	return fieldpath.PathElement{Key: &keys}, nil
}

// mapGet is Map.Get of a struct or Go map value.
func mapGet(v cval, name string) (cval, bool, error) {
	n := v.n
	if n.cls == clsStruct {
		for i := range n.fields {
			f := &n.fields[i]
			if *f.name != name {
				continue
			}
			fv := f.fe.GetFrom(v.rv)
			if f.omits(fv) {
				return cval{}, false, nil
			}
			c, err := classify(f.child, fv)
			return c, err == nil, err
		}
		return cval{}, false, nil
	}
	x := v.rv.MapIndex(reflect.ValueOf(name).Convert(n.t.Key()))
	if !x.IsValid() {
		return cval{}, false, nil
	}
	en, ok := n.mapFields[name]
	if !ok {
		en = n.mapElem
	}
	if en == nil {
		return cval{}, false, errNotFollowed
	}
	c, err := classify(en, x)
	return c, err == nil, err
}

// value is the scalar (or null) as a structured-merge-diff value, for a
// path element.
func (v cval) value() value.Value {
	switch v.k {
	case vString:
		return value.NewValueInterface(v.s)
	case vInt:
		return value.NewValueInterface(v.i)
	case vFloat:
		return value.NewValueInterface(v.f)
	case vBool:
		return value.NewValueInterface(v.b)
	}
	return value.NewValueInterface(nil)
}

// createFields inserts Compare(live, obj)'s added and modified fields
// (both pointers to root's Go type) into tree, or fails with
// errNotFollowed.
func createFields(tree *fieldsTree, root *cmpNode, live, obj reflect.Value, emptyLive bool) error {
	w := cmpWalker{path: make(fieldpath.Path, 0, 8), tree: tree, emptyLive: emptyLive}
	return w.walk(root, live, obj)
}

// comparison is Compare(live, obj) (both pointers to root's Go type), or
// errNotFollowed.
func comparison(root *cmpNode, live, obj reflect.Value) (added, modified, removed *fieldpath.Set, err error) {
	w := cmpWalker{path: make(fieldpath.Path, 0, 8), added: fieldpath.NewSet(), modified: fieldpath.NewSet(), removed: fieldpath.NewSet()}
	if err := w.walk(root, live, obj); err != nil {
		return nil, nil, nil, err
	}
	return w.added, w.modified, w.removed, nil
}

func (w *cmpWalker) walk(root *cmpNode, live, obj reflect.Value) error {
	l, err := classify(root, live)
	if err != nil {
		return err
	}
	r, err := classify(root, obj)
	if err != nil {
		return err
	}
	return w.compare(root.atom, l, r)
}
