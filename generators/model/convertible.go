package model

import (
	"go/types"
	"strings"
)

// crConversionPkg is controller-runtime's package of the Hub and
// Convertible interfaces a kubebuilder project implements.
const crConversionPkg = "sigs.k8s.io/controller-runtime/pkg/conversion"

// convertibles finds the kinds converted by controller-runtime's methods
// (Kind.IsConversionHub, Kind.Convertible) and checks them: exact
// signatures, both methods on a spoke, Hub() on the storage version, and a
// hub with Hub() behind every Convertible spoke. Go/types decides, so a
// method of the right name but another signature is an error at its
// position rather than silently a kind without conversion.
func (l *loader) convertibles() {
	for _, pi := range l.pkgs {
		if pi.v.External {
			continue
		}
		for _, k := range pi.v.Kinds {
			l.convertibleKind(pi, k)
		}
	}
	for _, g := range l.api.Groups {
		for _, v := range g.Versions {
			for _, k := range v.Kinds {
				l.checkConvertible(k)
			}
		}
	}
}

// convertibleKind reads the Hub, ConvertTo and ConvertFrom methods of k.
func (l *loader) convertibleKind(pi *pkgInfo, k *Kind) {
	tn := l.namedOf(pi, k.Name)
	if tn == nil {
		return
	}
	named, ok := tn.Type().(*types.Named)
	if !ok {
		return
	}
	var to, from *types.Func
	for i := 0; i < named.NumMethods(); i++ {
		m := named.Method(i)
		sig := m.Type().(*types.Signature)
		pos := l.position(m.Pos())
		switch m.Name() {
		case "Hub":
			if !pointerRecv(sig) || sig.Params().Len() != 0 || sig.Results().Len() != 0 {
				l.errorf(pos, "kind %s: method Hub has signature %s; controller-runtime's conversion.Hub needs func (*%s) Hub()", k.Name, sigString(m), k.Name)
				continue
			}
			k.IsConversionHub = true
		case "ConvertTo", "ConvertFrom":
			param := "dst"
			if m.Name() == "ConvertFrom" {
				param = "src"
				from = m
			} else {
				to = m
			}
			if !convertSignature(sig) {
				l.errorf(pos, "kind %s: method %s has signature %s; controller-runtime's conversion.Convertible needs func (*%s) %s(%s conversion.Hub) error, conversion being %q", k.Name, m.Name(), sigString(m), k.Name, m.Name(), param, crConversionPkg)
			}
		}
	}
	switch {
	case to != nil && from != nil:
		k.Convertible = convertSignature(to.Type().(*types.Signature)) && convertSignature(from.Type().(*types.Signature))
	case to != nil:
		l.errorf(l.position(to.Pos()), "kind %s: ConvertTo without ConvertFrom; conversion.Convertible needs both: write func (*%s) ConvertFrom(src conversion.Hub) error", k.Name, k.Name)
	case from != nil:
		l.errorf(l.position(from.Pos()), "kind %s: ConvertFrom without ConvertTo; conversion.Convertible needs both: write func (*%s) ConvertTo(dst conversion.Hub) error", k.Name, k.Name)
	}
	if k.Convertible && k.IsConversionHub {
		l.errorf(l.position(to.Pos()), "kind %s of %s: both a conversion hub (Hub()) and Convertible (ConvertTo/ConvertFrom); a version is one or the other", k.Name, k.Version.GroupVersion())
		k.Convertible = false
	}
}

// checkConvertible checks k against its hub once every version is read.
func (l *loader) checkConvertible(k *Kind) {
	switch {
	case k.IsConversionHub && !k.Storage && k.StoredAs == nil:
		st := k.Hub()
		where := "no version is"
		if st != nil {
			where = st.Version.Name + " is"
		}
		l.errorf(k.Type.Pos, "kind %s: %s declares Hub() (the conversion hub) but %s the storage version; kubeforge converts through the storage version: mark the %s %s +kubebuilder:storageversion", k.Name, k.Version.GroupVersion(), where, k.Version.Name, k.Name)
	case k.Convertible && k.Storage:
		l.errorf(k.Type.Pos, "kind %s: %s is the storage version (the hub) but declares ConvertTo/ConvertFrom; the hub declares func (*%s) Hub() instead", k.Name, k.Version.GroupVersion(), k.Name)
	case k.Convertible:
		hk := k.Hub()
		if hk != nil && !hk.IsConversionHub {
			l.errorf(k.Type.Pos, "kind %s: %s converts by ConvertTo/ConvertFrom (conversion.Convertible), but its hub %s %s (%s) has no Hub() method: write func (*%s) Hub() {} in %s", k.Name, k.Version.GroupVersion(), hk.Version.GroupVersion(), hk.Name, hk.Type.Pos, hk.Name, hk.Version.Dir)
		}
	}
}

func pointerRecv(sig *types.Signature) bool {
	r := sig.Recv()
	if r == nil {
		return false
	}
	_, ok := r.Type().(*types.Pointer)
	return ok
}

// convertSignature reports whether sig is func (*T) (conversion.Hub) error.
func convertSignature(sig *types.Signature) bool {
	if !pointerRecv(sig) || sig.Params().Len() != 1 || sig.Results().Len() != 1 || sig.Variadic() {
		return false
	}
	p, ok := types.Unalias(sig.Params().At(0).Type()).(*types.Named)
	if !ok || p.Obj().Pkg() == nil || p.Obj().Pkg().Path() != crConversionPkg || p.Obj().Name() != "Hub" {
		return false
	}
	return types.Identical(sig.Results().At(0).Type(), types.Universe.Lookup("error").Type())
}

// sigString writes a method's signature with package names, not paths.
func sigString(m *types.Func) string {
	s := types.TypeString(m.Type(), func(p *types.Package) string { return p.Name() })
	return strings.Replace(s, "func(", "func "+m.Name()+"(", 1)
}
