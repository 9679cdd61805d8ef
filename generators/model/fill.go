package model

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/constant"
	goparser "go/parser"
	"go/token"
	"go/types"
	"reflect"
	"sort"
	"strings"

	"github.com/kubeforge/kubeforge/generators/markers"
)

const (
	metav1Pkg       = "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcePkg     = "k8s.io/apimachinery/pkg/api/resource"
	intstrPkg       = "k8s.io/apimachinery/pkg/util/intstr"
	runtimePkg      = "k8s.io/apimachinery/pkg/runtime"
	apiextV1Pkg     = "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextV1beta1   = "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	apiextInternal  = "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	knownObjectMeta = "ObjectMeta"
)

// knownTypes maps "<import path>.<Name>" to External.Known.
var knownTypes = map[string]string{
	metav1Pkg + ".Time":          "Time",
	metav1Pkg + ".MicroTime":     "MicroTime",
	metav1Pkg + ".Duration":      "Duration",
	metav1Pkg + ".ObjectMeta":    "ObjectMeta",
	metav1Pkg + ".ListMeta":      "ListMeta",
	metav1Pkg + ".TypeMeta":      "TypeMeta",
	resourcePkg + ".Quantity":    "Quantity",
	intstrPkg + ".IntOrString":   "IntOrString",
	runtimePkg + ".RawExtension": "RawExtension",
	apiextV1Pkg + ".JSON":        "JSON",
	apiextV1beta1 + ".JSON":      "JSON",
	apiextInternal + ".JSON":     "JSON",
}

// opaqueKnown are well-known types with a special JSON form: no Fields.
var opaqueKnown = map[string]bool{
	"Time": true, "MicroTime": true, "Duration": true, "Quantity": true,
	"IntOrString": true, "RawExtension": true, "JSON": true,
}

// ref converts a go/types type use into a TypeRef. pos is used for errors.
func (l *loader) ref(t types.Type, pos Position, subject string) *TypeRef {
	if t == nil {
		l.errorf(pos, "%s: unresolved type", subject)
		return &TypeRef{Kind: BuiltinRef, Name: "invalid type"}
	}
	t = types.Unalias(t)
	if n, ok := t.(*types.Named); ok {
		obj := n.Obj()
		if obj.Pkg() == nil { // error
			return l.shape(n.Underlying(), pos, subject)
		}
		pkgPath := obj.Pkg().Path()
		r := &TypeRef{Kind: NamedRef, Name: obj.Name(), Package: pkgPath}
		if v := l.locals[pkgPath]; v != nil {
			r.Package = v.Package
			r.Local = v.Type(obj.Name())
			if r.Local == nil {
				l.errorf(pos, "%s: type %s.%s not found", subject, v.Dir, obj.Name())
			}
		} else {
			r.External = l.externalOf(n)
		}
		return r
	}
	return l.shape(t, pos, subject)
}

// shape converts an unnamed go/types type (or the underlying shape of a
// named pointer or array type).
func (l *loader) shape(t types.Type, pos Position, subject string) *TypeRef {
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		return l.ref(t, pos, subject)
	case *types.Basic:
		if t.Kind() == types.Invalid || t.Info()&types.IsUntyped != 0 || t.Kind() == types.UnsafePointer {
			break
		}
		return &TypeRef{Kind: BuiltinRef, Name: t.Name()}
	case *types.Pointer:
		return &TypeRef{Kind: PointerRef, Elem: l.ref(t.Elem(), pos, subject)}
	case *types.Slice:
		return &TypeRef{Kind: SliceRef, Elem: l.ref(t.Elem(), pos, subject)}
	case *types.Array:
		return &TypeRef{Kind: ArrayRef, Elem: l.ref(t.Elem(), pos, subject), Len: t.Len()}
	case *types.Map:
		return &TypeRef{Kind: MapRef, Key: l.ref(t.Key(), pos, subject), Elem: l.ref(t.Elem(), pos, subject)}
	case *types.Interface:
		return &TypeRef{Kind: InterfaceRef, Name: "interface{}"}
	case *types.Struct:
		l.errorf(pos, "%s: anonymous struct types are not supported; declare a named type", subject)
		return &TypeRef{Kind: BuiltinRef, Name: t.String()}
	}
	name := types.TypeString(t, nil)
	l.errorf(pos, "%s: unsupported or unresolved type %q (does it compile?)", subject, name)
	return &TypeRef{Kind: BuiltinRef, Name: name}
}

// externalOf describes a named type declared outside the types packages,
// from export data (fields, tags, methods) and, when its source file is
// readable, its doc comments and field markers.
func (l *loader) externalOf(n *types.Named) *External {
	obj := n.Obj()
	key := obj.Pkg().Path() + "." + obj.Name()
	if e, ok := l.external[key]; ok {
		return e
	}
	e := &External{Known: knownTypes[key]}
	l.external[key] = e
	for i := 0; i < n.NumMethods(); i++ {
		switch n.Method(i).Name() {
		case "DeepCopyInto":
			e.HasDeepCopyInto = true
		case "DeepCopy":
			e.HasDeepCopy = true
		}
	}
	e.Doc = docLines(l.sourceComment(obj.Pos()))
	pos := Position{File: obj.Pkg().Path()}
	l.depPkgs[obj.Pkg().Path()] = obj.Pkg()
	switch u := n.Underlying().(type) {
	case *types.Struct:
		e.Struct = true
		if opaqueKnown[e.Known] {
			return e
		}
		for i := 0; i < u.NumFields(); i++ {
			m := u.Field(i)
			comment := l.sourceComment(m.Pos())
			f := &Field{Name: m.Name(), Embedded: m.Embedded(), Doc: docLines(comment)}
			parseTag(f, u.Tag(i))
			var lines []markers.Line
			for _, c := range comment {
				lines = append(lines, markers.Line{Text: "// " + c, Pos: pos})
			}
			ms, _ := l.reg.ParseBlock(lines, markers.FieldTarget) // lenient: not our input
			f.Markers = Markers{}
			for _, mk := range ms {
				f.Markers[mk.Name] = append(f.Markers[mk.Name], MarkerValue{Value: mk.Value, Pos: mk.Pos})
			}
			f.Type = l.ref(m.Type(), pos, "field "+obj.Name()+"."+m.Name())
			f.Validation = validationFrom(f.Markers)
			l.checkValidation(&f.Validation, f.Markers, "field "+obj.Name()+"."+m.Name())
			f.Default = l.defaultOf(f.Markers, f.Type, f.Validation, "field "+obj.Name()+"."+m.Name())
			setRequired(f, false)
			if lt, ok := first(f.Markers, "listType").(string); ok {
				f.ListType = lt
			}
			for _, mv := range f.Markers["listMapKey"] {
				if s, ok := mv.Value.(string); ok {
					f.ListMapKeys = append(f.ListMapKeys, s)
				}
			}
			e.Fields = append(e.Fields, f)
		}
	default:
		e.Underlying = l.shape(u, pos, "type "+key)
	}
	return e
}

// sourceComment returns the lines of the comment group ending on the line
// before pos in pos's source file (an object's doc comment), or nil when the
// file is not readable. Export data keeps positions, not comments.
func (l *loader) sourceComment(pos token.Pos) []string {
	if !pos.IsValid() {
		return nil
	}
	p := l.fset.Position(pos)
	if p.Filename == "" || p.Line <= 1 {
		return nil
	}
	f, ok := l.extFiles[p.Filename]
	if !ok {
		if l.extFiles == nil {
			l.extFiles, l.extFset = map[string]*ast.File{}, token.NewFileSet()
		}
		f, _ = goparser.ParseFile(l.extFset, p.Filename, nil, goparser.ParseComments|goparser.SkipObjectResolution)
		l.extFiles[p.Filename] = f // nil when unreadable: no docs
	}
	if f == nil {
		return nil
	}
	for _, c := range f.Comments {
		if line := l.extFset.Position(c.End()).Line; line == p.Line-1 {
			return splitLines(c.Text())
		} else if line >= p.Line {
			break
		}
	}
	return nil
}

// splitLines splits comment text into lines like gengo did: the trailing
// newline of CommentGroup.Text does not make an empty last line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func docLines(lines []string) string {
	var out []string
	for _, s := range lines {
		if strings.HasPrefix(strings.TrimSpace(s), "+") {
			continue
		}
		out = append(out, s)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

func first(ms Markers, name string) any {
	if v := ms[name]; len(v) > 0 {
		return v[0].Value
	}
	return nil
}

// parseTag fills JSONName, Inline, OmitEmpty, PatchStrategy and
// PatchMergeKey from the struct tag.
func parseTag(f *Field, tags string) {
	st := reflect.StructTag(tags)
	f.PatchStrategy = st.Get("patchStrategy")
	f.PatchMergeKey = st.Get("patchMergeKey")
	tag, ok := st.Lookup("json")
	if !ok {
		if f.Embedded {
			f.Inline = true // encoding/json promotes untagged embedded fields
		} else {
			f.JSONName = f.Name
		}
		return
	}
	parts := strings.Split(tag, ",")
	f.JSONName = parts[0]
	for _, o := range parts[1:] {
		switch o {
		case "inline":
			f.Inline = true
		case "omitempty", "omitzero":
			f.OmitEmpty = true
		}
	}
	if f.JSONName == "" && (f.Inline || f.Embedded) {
		f.Inline = true
	} else if f.JSONName == "" {
		f.JSONName = f.Name
	}
	if f.Inline {
		f.JSONName = ""
	}
}

// setRequired applies Kubernetes' rule: +required wins, then +optional, then
// "required unless omitempty" (or the package default).
func setRequired(f *Field, pkgOptional bool) {
	req := f.Markers.Has("required") || f.Markers.Has("kubebuilder:validation:Required")
	opt := f.Markers.Has("optional") || f.Markers.Has("kubebuilder:validation:Optional")
	switch {
	case f.Inline || f.JSONName == "-":
		f.Required, f.Optional = false, true
	case req:
		f.Required, f.Optional = true, false
	case opt:
		f.Required, f.Optional = false, true
	case pkgOptional:
		f.Required, f.Optional = false, true
	default:
		f.Required = !f.OmitEmpty
		f.Optional = !f.Required
	}
}

// fillType fills the shape and fields of a local type.
func (l *loader) fillType(pi *pkgInfo, t *Type) {
	tn := l.namedOf(pi, t.Name)
	subject := "type " + t.Name
	if tn == nil {
		l.errorf(t.Pos, "%s: not found by the type checker", subject)
		return
	}
	ts := pi.specs[t.Name]
	if ts.spec.TypeParams != nil {
		l.errorf(t.Pos, "%s: generic types are not supported in API types", subject)
		return
	}
	if ts.spec.Assign.IsValid() || tn.IsAlias() {
		l.errorf(t.Pos, "%s: type aliases are not supported in API types; declare a named type", subject)
		return
	}
	switch u := tn.Type().Underlying().(type) {
	case *types.Struct:
		t.Kind = StructKind
		st, ok := ts.spec.Type.(*ast.StructType)
		if !ok {
			// type A B where B is a struct: fields come from B.
			for i := 0; i < u.NumFields(); i++ {
				m := u.Field(i)
				f := &Field{Parent: t, Name: m.Name(), Embedded: m.Embedded(), Pos: t.Pos, Markers: Markers{}}
				parseTag(f, u.Tag(i))
				f.Type = l.ref(m.Type(), t.Pos, "field "+t.Name+"."+m.Name())
				t.Fields = append(t.Fields, f)
			}
			break
		}
		l.fillFields(pi, t, st, u)
	case *types.Basic, *types.Slice, *types.Map:
		switch u.(type) {
		case *types.Slice:
			t.Kind = SliceKind
		case *types.Map:
			t.Kind = MapKind
		default:
			t.Kind = BasicKind
		}
		t.Underlying = l.ref(u, t.Pos, subject)
	case *types.Pointer:
		t.Kind = PointerKind
		t.Underlying = l.shape(u, t.Pos, subject)
	case *types.Array:
		t.Kind = ArrayKind
		t.Underlying = l.shape(u, t.Pos, subject)
	default:
		l.errorf(t.Pos, "%s: unsupported kind of type for an API type (%s)", subject, kindName(u))
	}
	t.Validation = validationFrom(t.Markers)
	l.checkValidation(&t.Validation, t.Markers, subject)
	l.enumFromConstants(pi, t)
}

// kindName names the kind of an unsupported underlying type in errors.
func kindName(u types.Type) string {
	switch u.(type) {
	case *types.Interface:
		return "Interface"
	case *types.Chan:
		return "Chan"
	case *types.Signature:
		return "Func"
	}
	return "Unsupported"
}

func (l *loader) fillFields(pi *pkgInfo, t *Type, st *ast.StructType, gt *types.Struct) {
	file := pi.specs[t.Name].file
	i := 0
	for _, af := range st.Fields.List {
		names := af.Names
		embedded := len(names) == 0
		lines, extra := l.blocks(file, af.Doc, af.Pos(), pi.trailer)
		count := len(names)
		if embedded {
			count = 1
		}
		for n := 0; n < count; n++ {
			if i >= gt.NumFields() {
				l.errorf(t.Pos, "type %s: fields do not match the type checker's view", t.Name)
				return
			}
			m, tag := gt.Field(i), gt.Tag(i)
			i++
			pos := l.position(af.Type.Pos())
			if !embedded {
				pos = l.position(names[n].Pos())
			}
			f := &Field{
				Parent:   t,
				Name:     m.Name(),
				Embedded: embedded,
				Doc:      docText(extra, af.Doc),
				Pos:      pos,
			}
			if n == 0 {
				f.Markers = l.parseMarkers(lines, markers.FieldTarget)
			} else {
				f.Markers = t.Fields[len(t.Fields)-1].Markers
			}
			parseTag(f, tag)
			f.Type = l.ref(m.Type(), pos, "field "+t.Name+"."+m.Name())
			setRequired(f, pi.pkgOpt && !pi.pkgReq)
			if f.Markers.Has("required") && f.Markers.Has("optional") {
				l.errorf(pos, "field %s.%s: both +required and +optional", t.Name, f.Name)
			}
			t.Fields = append(t.Fields, f)
		}
	}
}

// enumFromConstants fills the enum of a +enum string type from its typed
// constants.
func (l *loader) enumFromConstants(pi *pkgInfo, t *Type) {
	if !t.Markers.Has("enum") || len(t.Validation.Enum) > 0 {
		return
	}
	tn := l.namedOf(pi, t.Name)
	if tn == nil {
		return
	}
	scope := pi.tpkg.Scope()
	var vals []any
	for _, n := range scope.Names() { // sorted
		c, ok := scope.Lookup(n).(*types.Const)
		if !ok || c.Val().Kind() == constant.Unknown {
			continue
		}
		if nt, ok := types.Unalias(c.Type()).(*types.Named); !ok || nt.Obj() != tn {
			continue
		}
		val := c.Val().String()
		if c.Val().Kind() == constant.String {
			val = constant.StringVal(c.Val())
		}
		if t.Underlying != nil && jsonShape(t.Underlying) == "string" {
			vals = append(vals, val)
		} else {
			vals = append(vals, json.Number(val))
		}
	}
	if len(vals) == 0 {
		l.errorf(t.Pos, "type %s: +enum but no typed constants of the type are declared", t.Name)
	}
	sort.Slice(vals, func(i, j int) bool { return fmt.Sprint(vals[i]) < fmt.Sprint(vals[j]) })
	t.Validation.Enum = vals
}
