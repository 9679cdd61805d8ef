package model

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"reflect"
	"sort"
	"strings"

	"github.com/kubeforge/kubeforge/generators/markers"
	gengo "k8s.io/gengo/v2/types"
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

// ref converts a gengo type use into a TypeRef. pos is used for errors.
func (l *loader) ref(gt *gengo.Type, pos Position, subject string) *TypeRef {
	if gt == nil {
		l.errorf(pos, "%s: unresolved type", subject)
		return &TypeRef{Kind: BuiltinRef, Name: "invalid type"}
	}
	if gt.Name.Package != "" {
		r := &TypeRef{Kind: NamedRef, Name: gt.Name.Name, Package: gt.Name.Package}
		if v := l.locals[gt.Name.Package]; v != nil {
			r.Local = v.Type(gt.Name.Name)
			if r.Local == nil {
				l.errorf(pos, "%s: type %s.%s not found", subject, v.Dir, gt.Name.Name)
			}
		} else {
			r.External = l.externalOf(gt)
		}
		return r
	}
	return l.shape(gt, pos, subject)
}

// shape converts an unnamed gengo type (or the flattened shape of a named
// pointer or array type).
func (l *loader) shape(gt *gengo.Type, pos Position, subject string) *TypeRef {
	switch gt.Kind {
	case gengo.Builtin:
		return &TypeRef{Kind: BuiltinRef, Name: gt.Name.Name}
	case gengo.Pointer:
		return &TypeRef{Kind: PointerRef, Elem: l.ref(gt.Elem, pos, subject)}
	case gengo.Slice:
		return &TypeRef{Kind: SliceRef, Elem: l.ref(gt.Elem, pos, subject)}
	case gengo.Array:
		return &TypeRef{Kind: ArrayRef, Elem: l.ref(gt.Elem, pos, subject), Len: gt.Len}
	case gengo.Map:
		return &TypeRef{Kind: MapRef, Key: l.ref(gt.Key, pos, subject), Elem: l.ref(gt.Elem, pos, subject)}
	case gengo.Interface:
		return &TypeRef{Kind: InterfaceRef, Name: "interface{}"}
	case gengo.Alias:
		return l.ref(gt.Underlying, pos, subject)
	case gengo.Struct:
		l.errorf(pos, "%s: anonymous struct types are not supported; declare a named type", subject)
	default:
		l.errorf(pos, "%s: unsupported or unresolved type %q (does it compile?)", subject, gt.Name.Name)
	}
	return &TypeRef{Kind: BuiltinRef, Name: gt.Name.Name}
}

// externalOf describes a named type declared outside the types packages.
func (l *loader) externalOf(gt *gengo.Type) *External {
	key := gt.Name.Package + "." + gt.Name.Name
	if e, ok := l.external[key]; ok {
		return e
	}
	e := &External{Known: knownTypes[key]}
	l.external[key] = e
	if gt.Methods != nil {
		e.HasDeepCopyInto = gt.Methods["DeepCopyInto"] != nil
		e.HasDeepCopy = gt.Methods["DeepCopy"] != nil
	}
	e.Doc = docLines(gt.CommentLines)
	pos := Position{File: gt.Name.Package}
	switch gt.Kind {
	case gengo.Struct:
		e.Struct = true
		if opaqueKnown[e.Known] {
			return e
		}
		for _, m := range gt.Members {
			f := &Field{Name: m.Name, Embedded: m.Embedded, Doc: docLines(m.CommentLines)}
			parseTag(f, m.Tags)
			var lines []markers.Line
			for _, c := range m.CommentLines {
				lines = append(lines, markers.Line{Text: "// " + c, Pos: markers.Position(pos)})
			}
			ms, _ := l.reg.ParseBlock(lines, markers.FieldTarget) // lenient: not our input
			f.Markers = Markers{}
			for _, mk := range ms {
				f.Markers[mk.Name] = append(f.Markers[mk.Name], MarkerValue{Value: mk.Value})
			}
			f.Type = l.ref(m.Type, pos, "field "+gt.Name.Name+"."+m.Name)
			f.Validation = validationFrom(f.Markers)
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
	case gengo.Alias:
		e.Underlying = l.ref(gt.Underlying, pos, "type "+key)
	default:
		e.Underlying = l.shape(gt, pos, "type "+key)
	}
	return e
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

// parseTag fills JSONName, Inline, OmitEmpty from the struct tag.
func parseTag(f *Field, tags string) {
	tag, ok := reflect.StructTag(tags).Lookup("json")
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
	gt := l.gengoType(pi, t.Name)
	subject := "type " + t.Name
	if gt == nil {
		l.errorf(t.Pos, "%s: not found by the type checker", subject)
		return
	}
	ts := pi.specs[t.Name]
	if ts.spec.TypeParams != nil {
		l.errorf(t.Pos, "%s: generic types are not supported in API types", subject)
		return
	}
	if ts.spec.Assign.IsValid() {
		l.errorf(t.Pos, "%s: type aliases are not supported in API types; declare a named type", subject)
		return
	}
	switch gt.Kind {
	case gengo.Struct:
		t.Kind = StructKind
		st, ok := ts.spec.Type.(*ast.StructType)
		if !ok {
			// type A B where B is a struct: fields come from B.
			t.Kind = StructKind
			for _, m := range gt.Members {
				f := &Field{Parent: t, Name: m.Name, Embedded: m.Embedded, Pos: t.Pos, Markers: Markers{}}
				parseTag(f, m.Tags)
				f.Type = l.ref(m.Type, t.Pos, "field "+t.Name+"."+m.Name)
				t.Fields = append(t.Fields, f)
			}
			break
		}
		l.fillFields(pi, t, st, gt)
	case gengo.Alias:
		u := gt.Underlying
		switch {
		case u == nil:
			l.errorf(t.Pos, "%s: unresolved underlying type", subject)
		case u.Kind == gengo.Slice:
			t.Kind = SliceKind
		case u.Kind == gengo.Map:
			t.Kind = MapKind
		default:
			t.Kind = BasicKind
		}
		t.Underlying = l.ref(u, t.Pos, subject)
	case gengo.Pointer:
		t.Kind = PointerKind
		t.Underlying = l.shape(gt, t.Pos, subject)
	case gengo.Array:
		t.Kind = ArrayKind
		t.Underlying = l.shape(gt, t.Pos, subject)
	default:
		l.errorf(t.Pos, "%s: unsupported kind of type for an API type (%s)", subject, gt.Kind)
	}
	t.Validation = validationFrom(t.Markers)
	l.enumFromConstants(pi, t)
}

func (l *loader) fillFields(pi *pkgInfo, t *Type, st *ast.StructType, gt *gengo.Type) {
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
			if i >= len(gt.Members) {
				l.errorf(t.Pos, "type %s: fields do not match the type checker's view", t.Name)
				return
			}
			m := gt.Members[i]
			i++
			pos := l.position(af.Type.Pos())
			if !embedded {
				pos = l.position(names[n].Pos())
			}
			f := &Field{
				Parent:   t,
				Name:     m.Name,
				Embedded: embedded,
				Doc:      docText(extra, af.Doc),
				Pos:      pos,
			}
			if n == 0 {
				f.Markers = l.parseMarkers(lines, markers.FieldTarget)
			} else {
				f.Markers = t.Fields[len(t.Fields)-1].Markers
			}
			parseTag(f, m.Tags)
			f.Type = l.ref(m.Type, pos, "field "+t.Name+"."+m.Name)
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
	var names []string
	for n := range pi.gpkg.Constants {
		names = append(names, n)
	}
	sort.Strings(names)
	var vals []any
	for _, n := range names {
		c := pi.gpkg.Constants[n]
		if c.Underlying == nil || c.Underlying.Name.Name != t.Name || c.Underlying.Name.Package != pi.v.Package || c.ConstValue == nil {
			continue
		}
		if t.Underlying != nil && jsonShape(t.Underlying) == "string" {
			vals = append(vals, *c.ConstValue)
		} else {
			vals = append(vals, json.Number(*c.ConstValue))
		}
	}
	if len(vals) == 0 {
		l.errorf(t.Pos, "type %s: +enum but no typed constants of the type are declared", t.Name)
	}
	sort.Slice(vals, func(i, j int) bool { return fmt.Sprint(vals[i]) < fmt.Sprint(vals[j]) })
	t.Validation.Enum = vals
}
