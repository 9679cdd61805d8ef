package fieldmanager

import (
	"slices"
	"sync"

	jsoniter "github.com/json-iterator/go"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// fieldsTree is the set of a create's manager, built as compareSet walks
// and written as FieldsV1 without going through a fieldpath.Set: the
// set's sorted inserts, the reset filter's and the metadata strip's
// copies and its JSON stream were half of a create's managedFields cost.
//
// Both filters decide each path on its own (the reset filter is a
// RecursiveDifference: a path goes when it or a prefix of it is in the
// reset set; the strip is a Difference: a path goes when it is in the
// strip set), so a path is checked once, when inserted, and what the
// tree holds is what set.Filter(...).Difference(stripSet) holds. The
// JSON is Set.ToJSON's, byte for byte: children sorted by
// PathElement.Compare, a member with children marked by ".", keys
// written by jsoniter's WriteString.
type fieldsTree struct {
	reset   *fieldpath.Set // paths in or under these are left out; nil: none
	strip   *fieldpath.Set // paths in these are left out; nil: none
	nodes   []ftNode       // nodes[0] is the root; children are linked, not sliced
	scratch []int32        // settle's
}

// ftNode is one path element of the tree, with its children as a linked
// list in insertion order (until written; an element may repeat).
type ftNode struct {
	pe          fieldpath.PathElement
	member      bool
	first, last int32 // children; 0: none
	next        int32 // the next sibling; 0: none
}

func newFieldsTree(reset, strip *fieldpath.Set) *fieldsTree {
	return &fieldsTree{reset: reset, strip: strip, nodes: make([]ftNode, 1, 48)}
}

// trees keeps emptied trees: a create's nodes are a few kilobytes.
var trees = sync.Pool{New: func() any { return newFieldsTree(nil, nil) }}

// getFieldsTree is an empty tree with these filters, from the pool.
func getFieldsTree(reset, strip *fieldpath.Set) *fieldsTree {
	t := trees.Get().(*fieldsTree)
	t.reset, t.strip = reset, strip
	return t
}

// putFieldsTree empties t (its elements point into objects) and pools it.
func putFieldsTree(t *fieldsTree) {
	if cap(t.nodes) > 1024 {
		return
	}
	clear(t.nodes)
	t.nodes = t.nodes[:1]
	t.reset, t.strip = nil, nil
	trees.Put(t)
}

// insert adds p, unless a filter leaves it out. The walk inserts depth
// first, so the path's ancestors are almost always the last children at
// their levels: only the last child is looked at, and a child inserted
// again elsewhere is merged when written.
func (t *fieldsTree) insert(p fieldpath.Path) {
	if len(p) == 0 || t.left(p) {
		return
	}
	n := int32(0)
	for _, pe := range p {
		if l := t.nodes[n].last; l != 0 && t.nodes[l].pe.Equals(pe) {
			n = l
			continue
		}
		c := int32(len(t.nodes))
		t.nodes = append(t.nodes, ftNode{pe: pe})
		if l := t.nodes[n].last; l != 0 {
			t.nodes[l].next = c
		} else {
			t.nodes[n].first = c
		}
		t.nodes[n].last = c
		n = c
	}
	t.nodes[n].member = true
}

// left reports whether a filter leaves p out.
func (t *fieldsTree) left(p fieldpath.Path) bool {
	if t.strip != nil && t.strip.Has(p) {
		return true
	}
	s := t.reset
	for _, pe := range p {
		if s == nil {
			return false
		}
		if s.Members.Has(pe) {
			return true
		}
		if s, _ = s.Children.Get(pe); s == nil {
			return false
		}
	}
	return false
}

func (t *fieldsTree) empty() bool { return t.nodes[0].first == 0 }

// appendJSON appends the tree as Set.ToJSON writes it, or fails where
// ToJSON fails (an element it cannot serialize).
func (t *fieldsTree) appendJSON(b []byte) ([]byte, error) {
	return t.appendNode(b, 0, false)
}

func (t *fieldsTree) appendNode(b []byte, n int32, self bool) ([]byte, error) {
	t.settle(n)
	b = append(b, '{')
	if self && t.nodes[n].first != 0 {
		b = append(b, `".":{}`...)
	}
	var err error
	for k := t.nodes[n].first; k != 0; k = t.nodes[k].next {
		if k != t.nodes[n].first || self {
			b = append(b, ',')
		}
		if b, err = appendElementKey(b, t.nodes[k].pe); err != nil {
			return nil, err
		}
		b = append(b, ':')
		if t.nodes[k].first == 0 {
			b = append(b, "{}"...)
			continue
		}
		if b, err = t.appendNode(b, k, t.nodes[k].member); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// settle sorts node n's children and merges those of one element (the
// second one's member mark and children go to the first).
func (t *fieldsTree) settle(n int32) {
	sorted := true // and no element twice
	for k := t.nodes[n].first; k != 0 && sorted; k = t.nodes[k].next {
		if next := t.nodes[k].next; next != 0 && t.nodes[k].pe.Compare(t.nodes[next].pe) >= 0 {
			sorted = false
		}
	}
	if sorted {
		return
	}
	kids := t.scratch[:0]
	for k := t.nodes[n].first; k != 0; k = t.nodes[k].next {
		kids = append(kids, k)
	}
	slices.SortStableFunc(kids, func(a, b int32) int { return t.nodes[a].pe.Compare(t.nodes[b].pe) })
	out := kids[:0]
	for _, k := range kids {
		if last := len(out) - 1; last >= 0 && t.nodes[out[last]].pe.Equals(t.nodes[k].pe) {
			into, from := &t.nodes[out[last]], &t.nodes[k]
			into.member = into.member || from.member
			if from.first != 0 {
				if into.last != 0 {
					t.nodes[into.last].next = from.first
				} else {
					into.first = from.first
				}
				into.last = from.last
			}
			continue
		}
		out = append(out, k)
	}
	t.nodes[n].first, t.nodes[n].last = out[0], out[len(out)-1]
	for i, k := range out {
		t.nodes[k].next = 0
		if i+1 < len(out) {
			t.nodes[k].next = out[i+1]
		}
	}
	t.scratch = kids[:0]
}

// appendElementKey writes pe as a JSON object key: the element's
// serialization (fieldpath.SerializePathElement) as jsoniter's
// WriteString quotes it. A field name without a byte WriteString
// escapes is written directly.
func appendElementKey(b []byte, pe fieldpath.PathElement) ([]byte, error) {
	if pe.FieldName != nil && plainKey(*pe.FieldName) {
		b = append(b, `"f:`...)
		b = append(b, *pe.FieldName...)
		return append(b, '"'), nil
	}
	s, err := fieldpath.SerializePathElement(pe)
	if err != nil {
		return nil, err
	}
	stream := jsoniter.ConfigCompatibleWithStandardLibrary.BorrowStream(nil)
	defer jsoniter.ConfigCompatibleWithStandardLibrary.ReturnStream(stream)
	stream.WriteString(s)
	return append(b, stream.Buffer()...), nil
}

// plainKey: jsoniter's WriteString copies every byte of s as it is.
func plainKey(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= 31 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
