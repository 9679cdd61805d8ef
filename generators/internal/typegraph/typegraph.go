// Package typegraph walks the named struct types reachable from the kinds of
// a group-version, for generators that emit one function per struct type
// (defaults, validation). Each type becomes a Node with the name of its
// generated function and whether its package declares a hand-written hook.
package typegraph

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kubeforge/kubeforge/generators/model"
)

// MaxDepth bounds the nesting of type references the walk follows.
const MaxDepth = 32

// Node is a named struct type that gets its own generated function.
type Node struct {
	Key    string // import path + "." + name
	Pkg    string
	Name   string
	Fn     string // generated function name
	Fields []*model.Field
	Hook   bool // the package declares <hook prefix><Name>
}

// Graph is the set of struct types reachable from the kinds of one version,
// in discovery order, and which of them need a generated function.
type Graph struct {
	Nodes map[string]*Node
	Order []*Node
	// Needs holds the keys of the nodes that need a function (see Grow).
	Needs map[string]bool

	v          *model.Version
	fnPrefix   string
	hookPrefix string
}

// Build walks every named struct type reachable from the kinds of v. Node
// functions are named fnPrefix+Type ("setDefaults_Shipment"), or with the
// group, version or package of a type from elsewhere; a local type's hook
// is hookPrefix+Type ("SetDefaults_Shipment") in its own package.
func Build(v *model.Version, fnPrefix, hookPrefix string) (*Graph, error) {
	g := &Graph{
		Nodes: map[string]*Node{}, Needs: map[string]bool{},
		v: v, fnPrefix: fnPrefix, hookPrefix: hookPrefix,
	}
	for _, k := range v.Kinds {
		if k.Type == nil {
			return nil, fmt.Errorf("kind %s: no type in the model", k.Name)
		}
		if err := g.addType(v.Package, k.Type.Name, k.Type.Fields, k.Type.Version, 0); err != nil {
			return nil, fmt.Errorf("kind %s: %w", k.Name, err)
		}
	}
	return g, nil
}

// Grow marks the nodes that need a function: those with a hook, and those
// for which has reports something to emit. has may consult Needs (a field
// of a needed struct type has something to emit), so Grow repeats until
// nothing changes.
func (g *Graph) Grow(has func(*Node) (bool, error)) error {
	for changed := true; changed; {
		changed = false
		for _, n := range g.Order {
			if g.Needs[n.Key] {
				continue
			}
			ok, err := has(n)
			if err != nil {
				return err
			}
			if n.Hook || ok {
				g.Needs[n.Key] = true
				changed = true
			}
		}
	}
	return nil
}

// Struct returns the node of a named struct type, or nil.
func (g *Graph) Struct(r *model.TypeRef) *Node {
	if _, ok := StructFields(r); !ok {
		return nil
	}
	return g.Nodes[r.Package+"."+r.Name]
}

// StructFields returns the fields of a named struct type (local, or
// external and not one of the well-known opaque types).
func StructFields(r *model.TypeRef) ([]*model.Field, bool) {
	if r == nil || r.Kind != model.NamedRef {
		return nil, false
	}
	if r.Local != nil && r.Local.Kind == model.StructKind {
		return r.Local.Fields, true
	}
	if r.External != nil && r.External.Known == "" && r.External.Fields != nil {
		return r.External.Fields, true
	}
	return nil, false
}

func (g *Graph) funcName(pkg, name string, local *model.Version) string {
	if pkg == g.v.Package {
		return g.fnPrefix + name
	}
	if local != nil {
		return g.fnPrefix + local.Group.Short + local.Name + "_" + name
	}
	parts := strings.Split(pkg, "/")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return g.fnPrefix + sanitize(strings.Join(parts, "_")) + "_" + name
}

func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteRune('_')
		}
	}
	return b.String()
}

func (g *Graph) addType(pkg, name string, fields []*model.Field, local *model.Version, depth int) error {
	key := pkg + "." + name
	if _, ok := g.Nodes[key]; ok {
		return nil
	}
	n := &Node{Key: key, Pkg: pkg, Name: name, Fn: g.funcName(pkg, name, local), Fields: fields}
	if local != nil {
		n.Hook = local.Funcs[g.hookPrefix+name]
	}
	g.Nodes[key] = n
	g.Order = append(g.Order, n)
	for _, f := range fields {
		if err := g.addRef(f.Type, depth+1); err != nil {
			return fmt.Errorf("field %s.%s: %w", name, f.Name, err)
		}
	}
	return nil
}

func (g *Graph) addRef(r *model.TypeRef, depth int) error {
	if r == nil {
		return nil
	}
	if depth > MaxDepth {
		return fmt.Errorf("type nesting deeper than %d", MaxDepth)
	}
	switch r.Kind {
	case model.PointerRef, model.SliceRef, model.ArrayRef, model.MapRef:
		return g.addRef(r.Elem, depth+1)
	case model.NamedRef:
		if t := r.Local; t != nil {
			if t.Kind == model.StructKind {
				return g.addType(r.Package, r.Name, t.Fields, t.Version, depth)
			}
			return g.addRef(t.Underlying, depth+1)
		}
		if e := r.External; e != nil && e.Known == "" {
			if e.Fields != nil {
				return g.addType(r.Package, r.Name, e.Fields, nil, depth)
			}
			return g.addRef(e.Underlying, depth+1)
		}
	}
	return nil
}

// Reaches reports whether a value of type r holds, through pointers,
// slices, arrays, maps and named non-struct types, a struct type whose
// node's key is in marked.
func (g *Graph) Reaches(r *model.TypeRef, marked map[string]bool) bool {
	return g.reaches(r, marked, 0)
}

func (g *Graph) reaches(r *model.TypeRef, marked map[string]bool, depth int) bool {
	if r == nil || depth > MaxDepth {
		return false
	}
	switch r.Kind {
	case model.PointerRef, model.SliceRef, model.ArrayRef, model.MapRef:
		return g.reaches(r.Elem, marked, depth+1)
	case model.NamedRef:
		if n := g.Struct(r); n != nil {
			return marked[n.Key]
		}
		if t := r.Local; t != nil && t.Underlying != nil {
			return g.reaches(t.Underlying, marked, depth+1)
		}
	}
	return false
}

// Mark grows marked, a set of node keys, to every needed node with a field
// for which own reports true, or whose fields reach a marked node, until
// nothing changes. Metadata fields (TypeMeta, ObjectMeta, ListMeta) are
// passed over.
func (g *Graph) Mark(marked map[string]bool, own func(*model.Field) bool) {
	for changed := true; changed; {
		changed = false
		for _, n := range g.Order {
			if marked[n.Key] || !g.Needs[n.Key] {
				continue
			}
			for _, f := range n.Fields {
				if f.Type != nil && f.Type.External != nil {
					switch f.Type.External.Known {
					case "TypeMeta", "ObjectMeta", "ListMeta":
						continue
					}
				}
				if own(f) || g.Reaches(f.Type, marked) {
					marked[n.Key] = true
					changed = true
					break
				}
			}
		}
	}
}

// Names hands out the variable names of one generated function: Fresh
// returns base, then base2, base3, ... so that sibling blocks each
// declare their own.
type Names map[string]int

// Fresh is a name not yet handed out, made from base.
func (n Names) Fresh(base string) string {
	n[base]++
	if c := n[base]; c > 1 {
		return base + strconv.Itoa(c)
	}
	return base
}
