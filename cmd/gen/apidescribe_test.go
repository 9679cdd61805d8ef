package main

import (
	"context"
	"fmt"
	"go/types"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// loadTyped type-checks the packages matching patterns in dir (their
// dependencies from export data).
func loadTyped(ctx context.Context, dir string, patterns ...string) ([]*types.Package, error) {
	cfg := &packages.Config{Context: ctx, Dir: dir, Mode: packages.NeedName | packages.NeedTypes}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("load %v: %w", patterns, err)
	}
	var out []*types.Package
	var errs []string
	for _, p := range pkgs {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
		out = append(out, p.Types)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("type-check %v:\n%s", patterns, strings.Join(errs, "\n"))
	}
	return out, nil
}

// describe is an exported declaration as the API a caller compiles
// against: kind, type, and for named types the exported fields (with
// tags), interface methods and method set, parameter names left out.
func describe(obj types.Object) string {
	switch o := obj.(type) {
	case *types.Const:
		return "const " + o.Name() + " " + typeStr(o.Type())
	case *types.Var:
		return "var " + o.Name() + " " + typeStr(o.Type())
	case *types.Func:
		return "func " + o.Name() + sigStr(o.Type().(*types.Signature))
	case *types.TypeName:
		if o.IsAlias() {
			return "type " + o.Name() + " = " + typeStr(types.Unalias(o.Type()))
		}
		s := "type " + o.Name() + " " + underlying(o.Type().Underlying())
		var methods []string
		ms := types.NewMethodSet(types.NewPointer(o.Type()))
		for i := 0; i < ms.Len(); i++ {
			if m := ms.At(i).Obj(); m.Exported() {
				methods = append(methods, m.Name()+sigStr(m.Type().(*types.Signature)))
			}
		}
		sort.Strings(methods)
		if _, isIface := o.Type().Underlying().(*types.Interface); len(methods) > 0 && !isIface {
			s += " methods{" + strings.Join(methods, "; ") + "}"
		}
		return s
	}
	return obj.String()
}

func underlying(t types.Type) string {
	switch u := t.(type) {
	case *types.Struct:
		var fields []string
		for i := 0; i < u.NumFields(); i++ {
			f := u.Field(i)
			if !f.Exported() && !f.Embedded() {
				continue
			}
			name := f.Name()
			if f.Embedded() {
				name = "embedded"
			}
			fields = append(fields, fmt.Sprintf("%s %s `%s`", name, typeStr(f.Type()), u.Tag(i)))
		}
		return "struct{" + strings.Join(fields, "; ") + "}"
	case *types.Interface:
		var methods []string
		for i := 0; i < u.NumMethods(); i++ {
			m := u.Method(i)
			methods = append(methods, m.Name()+sigStr(m.Type().(*types.Signature)))
		}
		sort.Strings(methods)
		return "interface{" + strings.Join(methods, "; ") + "}"
	}
	return typeStr(t)
}

func qualifier(p *types.Package) string { return p.Path() }

func typeStr(t types.Type) string {
	if s, ok := t.(*types.Signature); ok {
		return "func" + sigStr(s)
	}
	return types.TypeString(t, qualifier)
}

// sigStr is a signature without parameter names.
func sigStr(s *types.Signature) string {
	tuple := func(t *types.Tuple, variadic bool) string {
		var parts []string
		for i := 0; i < t.Len(); i++ {
			typ := t.At(i).Type()
			if variadic && i == t.Len()-1 {
				parts = append(parts, "..."+typeStr(typ.(*types.Slice).Elem()))
				continue
			}
			parts = append(parts, typeStr(typ))
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return tuple(s.Params(), s.Variadic()) + " " + tuple(s.Results(), false)
}
