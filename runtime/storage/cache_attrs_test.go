package storage

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// randomPairs returns a map of n pairs of arbitrary strings: empty ones,
// NUL and high bytes, and some longer than a one-byte length prefix.
func randomPairs(r *rand.Rand, n int) map[string]string {
	str := func() string {
		var b strings.Builder
		size := r.IntN(6)
		if r.IntN(5) == 0 {
			size = 100 + r.IntN(300)
		}
		for range size {
			b.WriteByte(byte(r.IntN(256)))
		}
		return b.String()
	}
	m := map[string]string{}
	for range n {
		m[str()] = str()
	}
	return m
}

func TestAttrsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		m := randomPairs(r, r.IntN(12))
		a := makeAttrs(m)
		if !a.valid() {
			t.Fatalf("case %d: a set (even empty) is valid", i)
		}
		got := map[string]string{}
		var order []string
		a.each(func(k, v string) bool {
			got[k] = v
			order = append(order, k)
			return true
		})
		if !maps.Equal(got, m) || !slices.IsSorted(order) || a.len() != len(m) {
			t.Fatalf("case %d: each gave %q in order %q, want %q", i, got, order, m)
		}
		for k, v := range m {
			if gv, ok := a.Lookup(k); !ok || gv != v || !a.Has(k) || a.Get(k) != v {
				t.Fatalf("case %d: Lookup(%q) = %q, %v; want %q", i, k, gv, ok, v)
			}
			if _, ok := m[k+"\xff"]; !ok && a.Has(k+"\xff") {
				t.Fatalf("case %d: Has(%q) of a missing key", i, k+"\xff")
			}
		}
		if again := makeAttrs(maps.Clone(m)); again != a {
			t.Fatalf("case %d: equal sets are not one interned value", i)
		}
	}
	var none attrs
	if none.valid() || none.Has("") || none.len() != 0 || makeAttrs(nil).valid() {
		t.Fatal("no set has no pairs and is not valid")
	}
	if makeAttrs(map[string]string{"a": "1"}) == makeAttrs(map[string]string{"a": "2"}) {
		t.Fatal("different sets share a value")
	}
}

// A label selector matches attrs as it matches the map.
func TestAttrsSelectors(t *testing.T) {
	m := map[string]string{"app": "web", "tier": "front", "env": ""}
	a := makeAttrs(m)
	for _, sel := range []string{"app=web", "app!=web", "app in (web,db)", "tier notin (front)", "env", "!env", "missing", "!missing", "app=web,tier=back", "env="} {
		s, err := labels.Parse(sel)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := s.Matches(a), s.Matches(labels.Set(m)); got != want {
			t.Errorf("%q: matches attrs %v, the map %v", sel, got, want)
		}
	}
}

// An entry's fields answer as the kind's set, whether metadata.name and
// metadata.namespace are the entry's own or not.
func TestEntryFields(t *testing.T) {
	cases := []map[string]string{
		{"metadata.name": "n", "metadata.namespace": "ns", "spec.node": "a"},
		{"metadata.name": "other", "metadata.namespace": "ns", "spec.node": "a"},
		{"spec.node": "a"},
		{},
	}
	for i, m := range cases {
		f := makeEntryFields(m, "n", "ns").set("n", "ns")
		for _, k := range []string{"metadata.name", "metadata.namespace", "spec.node", "spec.other"} {
			if f.Has(k) != fields.Set(m).Has(k) || f.Get(k) != fields.Set(m).Get(k) {
				t.Errorf("case %d: %s = %q (%v), want %q", i, k, f.Get(k), f.Has(k), m[k])
			}
		}
		got := map[string]string{}
		f.each(func(k, v string) bool { got[k] = v; return true })
		if !maps.Equal(got, m) {
			t.Errorf("case %d: each gave %v, want %v", i, got, m)
		}
		for _, sel := range []string{"metadata.name=n", "metadata.namespace!=ns", "spec.node=a", "spec.other="} {
			s := fields.ParseSelectorOrDie(sel)
			if s.Matches(f) != s.Matches(fields.Set(m)) {
				t.Errorf("case %d: %q matches %v", i, sel, s.Matches(f))
			}
		}
	}
	if makeEntryFields(nil, "n", "ns").rest.valid() {
		t.Error("no set is not valid")
	}
	// Objects of one shape share the interned rest.
	a := makeEntryFields(map[string]string{"metadata.name": "a", "spec.node": "x"}, "a", "")
	b := makeEntryFields(map[string]string{"metadata.name": "b", "spec.node": "x"}, "b", "")
	if a.rest != b.rest {
		t.Error("the rest of two objects' fields is not shared")
	}
}
