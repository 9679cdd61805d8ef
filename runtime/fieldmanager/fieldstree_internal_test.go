package fieldmanager

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// TestFieldsTreeMatchesSet: random paths (field names with bytes JSON
// escapes, invalid UTF-8, HTML characters and line separators; keys,
// values and indexes; repeated, in any order, prefixes inserted before
// and after what they hold), filtered by random reset and strip sets,
// give byte for byte the JSON of the fieldpath.Set the create path used
// to build: set.RecursiveDifference(reset).Difference(strip).ToJSON().
func TestFieldsTreeMatchesSet(t *testing.T) {
	names := []string{"a", "b", "spec", "metadata", "f", "", "a\"b", "back\\slash", "tab\there", "nl\n", "\x01",
		"<&>", "ü", "\u2028", "a\xffb", "\xc3", "k:x", ".", "a.b", "{}"}
	r := rand.New(rand.NewPCG(1, 2))
	pe := func() fieldpath.PathElement {
		switch r.IntN(8) {
		case 0:
			v := value.NewValueInterface(names[r.IntN(len(names))])
			if r.IntN(2) == 0 {
				v = value.NewValueInterface(int64(r.IntN(3)))
			}
			return fieldpath.PathElement{Value: &v}
		case 1:
			keys := value.FieldList{{Name: names[r.IntN(len(names))], Value: value.NewValueInterface(names[r.IntN(len(names))])}}
			if r.IntN(2) == 0 {
				keys = append(keys, value.Field{Name: "port", Value: value.NewValueInterface(int64(r.IntN(3)))})
			}
			return fieldpath.PathElement{Key: &keys}
		case 2:
			i := r.IntN(3)
			return fieldpath.PathElement{Index: &i}
		}
		name := names[r.IntN(len(names))]
		return fieldpath.PathElement{FieldName: &name}
	}
	path := func(max int) fieldpath.Path {
		p := make(fieldpath.Path, 1+r.IntN(max))
		for i := range p {
			p[i] = pe()
		}
		return p
	}
	for round := range 3000 {
		var paths []fieldpath.Path
		for range r.IntN(30) {
			p := path(4)
			paths = append(paths, p)
			if r.IntN(3) == 0 { // a prefix, as the walk inserts parents
				paths = append(paths, p[:1+r.IntN(len(p))])
			}
			if r.IntN(4) == 0 && len(paths) > 1 { // again, elsewhere
				paths = append(paths, paths[r.IntN(len(paths)-1)])
			}
		}
		var reset, strip *fieldpath.Set
		if r.IntN(2) == 0 {
			reset = fieldpath.NewSet()
			for range 1 + r.IntN(3) {
				if r.IntN(2) == 0 && len(paths) > 0 {
					p := paths[r.IntN(len(paths))]
					reset.Insert(p[:1+r.IntN(len(p))])
				} else {
					reset.Insert(path(2))
				}
			}
		}
		if r.IntN(2) == 0 {
			strip = stripSet
			if r.IntN(2) == 0 && len(paths) > 0 {
				strip = fieldpath.NewSet(paths[r.IntN(len(paths))])
			}
		}

		tree := getFieldsTree(reset, strip) // pooled: a used tree must come back empty
		set := fieldpath.NewSet()
		for _, p := range paths {
			tree.insert(p)
			set.Insert(p)
		}
		if reset != nil {
			set = fieldpath.NewExcludeSetFilter(reset).Filter(set)
		}
		if strip != nil {
			set = set.Difference(strip)
		}
		want, err := set.ToJSON()
		if err != nil {
			t.Fatal(err)
		}
		got, err := tree.appendJSON(nil)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("round %d: paths %v, reset %v, strip %v:\n tree %s\n  set %s", round, paths, reset, strip, got, want)
		}
		if tree.empty() != set.Empty() {
			t.Fatalf("round %d: tree empty %v, set empty %v", round, tree.empty(), set.Empty())
		}
		putFieldsTree(tree)
	}
}

// BenchmarkFieldsTree is a Shipment's create set: the tree against the
// fieldpath.Set, its filters and ToJSON.
func BenchmarkFieldsTree(b *testing.B) {
	var paths []fieldpath.Path
	for _, s := range []string{
		"metadata.labels.bench", "metadata.labels", "spec.priority", "spec.origin.street", "spec.origin.city",
		"spec.origin", "spec.destination.street", "spec.destination.city", "spec.destination.country",
		"spec.destination", "spec.tags", "spec", "status",
	} {
		paths = append(paths, fieldpath.MakePathOrDie(toParts(s)...))
	}
	reset := fieldpath.NewSet(fieldpath.MakePathOrDie("status"))
	b.Run("tree", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tree := getFieldsTree(reset, stripSet)
			for _, p := range paths {
				tree.insert(p)
			}
			if _, err := tree.appendJSON(make([]byte, 0, 512)); err != nil {
				b.Fatal(err)
			}
			putFieldsTree(tree)
		}
	})
	b.Run("set", func(b *testing.B) {
		b.ReportAllocs()
		filter := fieldpath.NewExcludeSetFilter(reset)
		for b.Loop() {
			set := fieldpath.NewSet()
			for _, p := range paths {
				set.Insert(p)
			}
			if _, err := filter.Filter(set).Difference(stripSet).ToJSON(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func toParts(s string) []any {
	var out []any
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '.' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}
