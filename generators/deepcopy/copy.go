package deepcopy

import (
	"errors"
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/model"
)

// class says how a value of some type is deep-copied.
type class int

const (
	// shallow values have no references: assignment is a deep copy.
	shallow class = iota
	// method values are copied by their DeepCopyInto method.
	method
	// nilable values (pointer, slice, map) are copied inline when non-nil.
	nilable
	// array values with references are copied element by element.
	array
	// object values are runtime.Object interfaces, copied by DeepCopyObject.
	object
)

// errNoDeepCopy is wrapped by every "cannot be deep-copied" error.
var errNoDeepCopy = errors.New("cannot be deep-copied")

type structState int

const (
	visiting structState = iota + 1
	isShallow
	notShallow
)

// copier classifies types and emits copy statements. It memoizes whether
// local struct types are shallow.
type copier struct {
	structs map[*model.Type]structState
}

func newCopier() *copier { return &copier{structs: map[*model.Type]structState{}} }

// External types by model.External.Known: values without references, and
// types that have a DeepCopyInto method in apimachinery.
var (
	knownShallow = map[string]bool{"TypeMeta": true, "Duration": true, "IntOrString": true}
	knownMethod  = map[string]bool{
		"Time": true, "MicroTime": true, "Quantity": true, "ObjectMeta": true,
		"ListMeta": true, "RawExtension": true, "JSON": true,
	}
	builtins = map[string]bool{
		"bool": true, "string": true, "byte": true, "rune": true,
		"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
		"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true,
		"float32": true, "float64": true, "complex64": true, "complex128": true,
	}
)

func refString(r *model.TypeRef) string {
	if r == nil {
		return "<nil>"
	}
	switch r.Kind {
	case model.BuiltinRef:
		return r.Name
	case model.NamedRef:
		if r.Package != "" {
			return r.Package + "." + r.Name
		}
		return r.Name
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
	return fmt.Sprintf("<ref kind %d>", r.Kind)
}

// classify says how to copy a value of type r. For nilable and array it also
// returns the unnamed shape to copy inline (r itself, or the underlying type
// of a named slice, map, pointer or array type).
func (c *copier) classify(r *model.TypeRef) (class, *model.TypeRef, error) {
	if r == nil {
		return 0, nil, fmt.Errorf("missing type")
	}
	switch r.Kind {
	case model.BuiltinRef:
		if builtins[r.Name] {
			return shallow, nil, nil
		}
		return 0, nil, fmt.Errorf("builtin type %q: %w", r.Name, errNoDeepCopy)
	case model.PointerRef, model.SliceRef, model.MapRef:
		if r.Elem == nil || (r.Kind == model.MapRef && r.Key == nil) {
			return 0, nil, fmt.Errorf("type %s: incomplete type reference", refString(r))
		}
		return nilable, r, nil
	case model.ArrayRef:
		ec, _, err := c.classify(r.Elem)
		if err != nil {
			return 0, nil, fmt.Errorf("array element of %s: %w", refString(r), err)
		}
		if ec == shallow {
			return shallow, nil, nil
		}
		return array, r, nil
	case model.InterfaceRef:
		return 0, nil, fmt.Errorf("interface type %s: only runtime.Object interfaces can be copied: %w", refString(r), errNoDeepCopy)
	case model.NamedRef:
		if isRuntimeObject(r) {
			return object, r, nil
		}
		if r.Local != nil {
			return c.classifyLocal(r.Local)
		}
		if r.External != nil {
			return c.classifyExternal(r)
		}
		return 0, nil, fmt.Errorf("named type %s: not resolved by the loader", refString(r))
	}
	return 0, nil, fmt.Errorf("type %s: unknown reference kind", refString(r))
}

func isRuntimeObject(r *model.TypeRef) bool {
	return r.Kind == model.NamedRef && r.Package == runtimePkg && r.Name == "Object"
}

func (c *copier) classifyLocal(t *model.Type) (class, *model.TypeRef, error) {
	if t.HasDeepCopy {
		return method, nil, nil
	}
	switch t.Kind {
	case model.StructKind:
		ok, err := c.structShallow(t)
		if err != nil {
			return 0, nil, err
		}
		if ok {
			return shallow, nil, nil
		}
		return method, nil, nil
	case model.BasicKind, model.SliceKind, model.MapKind, model.PointerKind, model.ArrayKind:
		if t.Underlying == nil {
			return 0, nil, fmt.Errorf("type %s: no underlying type", t.Name)
		}
		cl, shape, err := c.classify(t.Underlying)
		if err != nil {
			return 0, nil, fmt.Errorf("type %s: %w", t.Name, err)
		}
		return cl, shape, nil
	}
	return 0, nil, fmt.Errorf("type %s: unknown type kind %d", t.Name, t.Kind)
}

// structShallow reports whether every field of the struct is shallow.
// Recursive types are never shallow (the recursion goes through a pointer,
// slice or map).
func (c *copier) structShallow(t *model.Type) (bool, error) {
	switch c.structs[t] {
	case visiting, notShallow:
		return false, nil
	case isShallow:
		return true, nil
	}
	c.structs[t] = visiting
	ok := true
	for _, f := range t.Fields {
		cl, _, err := c.classify(f.Type)
		if err != nil {
			delete(c.structs, t)
			return false, fmt.Errorf("field %s.%s: %w", t.Name, f.Name, err)
		}
		if cl != shallow {
			ok = false
		}
	}
	if ok {
		c.structs[t] = isShallow
	} else {
		c.structs[t] = notShallow
	}
	return ok, nil
}

func (c *copier) classifyExternal(r *model.TypeRef) (class, *model.TypeRef, error) {
	e := r.External
	switch {
	case knownShallow[e.Known]:
		return shallow, nil, nil
	case knownMethod[e.Known], e.HasDeepCopyInto:
		// The type's own method knows about unexported fields too.
		return method, nil, nil
	case e.Fields != nil:
		for _, f := range e.Fields {
			cl, _, err := c.classify(f.Type)
			if err == nil && cl == shallow {
				continue
			}
			if err != nil {
				return 0, nil, fmt.Errorf("external type %s has no DeepCopyInto method: field %s: %w", refString(r), f.Name, err)
			}
			return 0, nil, fmt.Errorf("external type %s has no DeepCopyInto method and field %s holds references: %w", refString(r), f.Name, errNoDeepCopy)
		}
		return shallow, nil, nil
	case e.Underlying != nil:
		cl, shape, err := c.classify(e.Underlying)
		if err != nil {
			return 0, nil, fmt.Errorf("external type %s has no DeepCopyInto method: %w", refString(r), err)
		}
		return cl, shape, nil
	}
	return 0, nil, fmt.Errorf("external type %s has no DeepCopyInto method and its shape is unknown: %w", refString(r), errNoDeepCopy)
}

// loc is a place holding a value: val is the value, recv the expression to
// call methods on, ptr a pointer to it. Functions, because jennifer
// statements are appended to in place and must not be shared.
type loc struct {
	val, recv, ptr func() *jen.Statement
}

func fieldLoc(v, name string) loc {
	return loc{
		val:  func() *jen.Statement { return jen.Id(v).Dot(name) },
		recv: func() *jen.Statement { return jen.Id(v).Dot(name) },
		ptr:  func() *jen.Statement { return jen.Op("&").Id(v).Dot(name) },
	}
}

// pointee of the pointer variable v: **v.
func pointeeLoc(v string) loc {
	return loc{
		val:  func() *jen.Statement { return jen.Op("**").Id(v) },
		recv: func() *jen.Statement { return jen.Parens(jen.Op("*").Id(v)) },
		ptr:  func() *jen.Statement { return jen.Op("*").Id(v) },
	}
}

// element i of the slice or array pointed to by v: (*v)[i].
func elemLoc(v string) loc {
	e := func() *jen.Statement { return jen.Parens(jen.Op("*").Id(v)).Index(jen.Id("i")) }
	return loc{val: e, recv: e, ptr: func() *jen.Statement { return jen.Op("&").Add(e()) }}
}

func varLoc(v string) loc {
	return loc{
		val:  func() *jen.Statement { return jen.Id(v) },
		recv: func() *jen.Statement { return jen.Id(v) },
		ptr:  func() *jen.Statement { return jen.Op("&").Id(v) },
	}
}

func rebind(in, out loc) jen.Code {
	return jen.List(jen.Id("in"), jen.Id("out")).Op(":=").List(in.ptr(), out.ptr())
}

// field returns the statements copying one struct field, after `*out = *in`.
func (c *copier) field(f *model.Field) ([]jen.Code, error) {
	cl, _, err := c.classify(f.Type)
	if err != nil {
		return nil, err
	}
	if cl == shallow {
		if isStruct(f.Type) {
			// Covered by *out = *in; written out for the reader, as deepcopy-gen does.
			return []jen.Code{jen.Id("out").Dot(f.Name).Op("=").Id("in").Dot(f.Name)}, nil
		}
		return nil, nil
	}
	return c.descend(f.Type, fieldLoc("in", f.Name), fieldLoc("out", f.Name))
}

func isStruct(r *model.TypeRef) bool {
	if r.Kind != model.NamedRef {
		return false
	}
	if r.Local != nil {
		return r.Local.Kind == model.StructKind
	}
	return r.External != nil && (r.External.Fields != nil || knownShallow[r.External.Known] || knownMethod[r.External.Known])
}

// descend returns statements that make out a deep copy of in, both of type r.
// Before them, out holds either the zero value or a shallow copy of in.
func (c *copier) descend(r *model.TypeRef, in, out loc) ([]jen.Code, error) {
	cl, shape, err := c.classify(r)
	if err != nil {
		return nil, err
	}
	switch cl {
	case shallow:
		return []jen.Code{out.val().Op("=").Add(in.val())}, nil
	case method:
		return []jen.Code{in.recv().Dot("DeepCopyInto").Call(out.ptr())}, nil
	case nilable, object:
		inner, err := c.inner(r, shape)
		if err != nil {
			return nil, err
		}
		return []jen.Code{
			jen.If(in.val().Op("!=").Nil()).Block(append([]jen.Code{rebind(in, out)}, inner...)...),
		}, nil
	case array:
		inner, err := c.inner(r, shape)
		if err != nil {
			return nil, err
		}
		return []jen.Code{jen.Block(append([]jen.Code{rebind(in, out)}, inner...)...)}, nil
	}
	return nil, fmt.Errorf("type %s: unknown copy class %d", refString(r), cl)
}

// inner returns statements copying *in to *out, where in and out are
// pointer variables of type *r, *in is not nil, and *out is zero or a
// shallow copy of *in. shape is the unnamed form of r (or r for
// runtime.Object).
func (c *copier) inner(r, shape *model.TypeRef) ([]jen.Code, error) {
	in := func() *jen.Statement { return jen.Op("*").Id("in") }
	out := func() *jen.Statement { return jen.Op("*").Id("out") }
	if isRuntimeObject(shape) {
		return []jen.Code{out().Op("=").Parens(in()).Dot("DeepCopyObject").Call()}, nil
	}
	switch shape.Kind {
	case model.PointerRef:
		s, err := c.descend(shape.Elem, pointeeLoc("in"), pointeeLoc("out"))
		if err != nil {
			return nil, fmt.Errorf("pointer %s: %w", refString(r), err)
		}
		return append([]jen.Code{out().Op("=").New(genall.TypeCode(shape.Elem))}, s...), nil

	case model.SliceRef:
		mk := out().Op("=").Make(genall.TypeCode(r), jen.Len(in()))
		ec, _, err := c.classify(shape.Elem)
		if err != nil {
			return nil, fmt.Errorf("slice %s: %w", refString(r), err)
		}
		if ec == shallow {
			return []jen.Code{mk, jen.Copy(out(), in())}, nil
		}
		s, err := c.descend(shape.Elem, elemLoc("in"), elemLoc("out"))
		if err != nil {
			return nil, fmt.Errorf("slice %s: %w", refString(r), err)
		}
		return []jen.Code{mk, jen.For(jen.Id("i").Op(":=").Range().Add(in())).Block(s...)}, nil

	case model.ArrayRef:
		s, err := c.descend(shape.Elem, elemLoc("in"), elemLoc("out"))
		if err != nil {
			return nil, fmt.Errorf("array %s: %w", refString(r), err)
		}
		return []jen.Code{jen.For(jen.Id("i").Op(":=").Range().Add(in())).Block(s...)}, nil

	case model.MapRef:
		kc, _, err := c.classify(shape.Key)
		if err != nil {
			return nil, fmt.Errorf("map key of %s: %w", refString(r), err)
		}
		if kc != shallow {
			return nil, fmt.Errorf("map %s: keys with references: %w", refString(r), errNoDeepCopy)
		}
		vc, _, err := c.classify(shape.Elem)
		if err != nil {
			return nil, fmt.Errorf("map %s: %w", refString(r), err)
		}
		set := func(v jen.Code) jen.Code { return jen.Parens(out()).Index(jen.Id("key")).Op("=").Add(v) }
		var body []jen.Code
		if vc == shallow {
			body = []jen.Code{set(jen.Id("val"))}
		} else {
			s, err := c.descend(shape.Elem, varLoc("val"), varLoc("outVal"))
			if err != nil {
				return nil, fmt.Errorf("map %s: %w", refString(r), err)
			}
			body = append([]jen.Code{jen.Var().Id("outVal").Add(genall.TypeCode(shape.Elem))}, s...)
			body = append(body, set(jen.Id("outVal")))
		}
		return []jen.Code{
			out().Op("=").Make(genall.TypeCode(r), jen.Len(in())),
			jen.For(jen.List(jen.Id("key"), jen.Id("val")).Op(":=").Range().Add(in())).Block(body...),
		}, nil
	}
	return nil, fmt.Errorf("type %s: %w", refString(r), errNoDeepCopy)
}
