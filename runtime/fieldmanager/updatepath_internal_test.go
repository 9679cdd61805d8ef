package fieldmanager

import (
	"fmt"
	"testing"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// TestSetCache: the cache gives each JSON its own set, decoded once, and
// holds at most maxCachedBytes of JSON.
func TestSetCache(t *testing.T) {
	var c setCache
	empty, err := typed.DeducedParseableType.FromUnstructured(map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		for i := range 7000 { // about 330 KiB of JSON
			raw := fmt.Appendf(nil, `{"f:metadata":{"f:labels":{"f:label-%06d":{}}}}`, i)
			set, ok := c.get(raw, empty)
			if !ok {
				t.Fatalf("round %d: %s refused", round, raw)
			}
			want := fieldpath.NewSet(fieldpath.MakePathOrDie("metadata", "labels", fmt.Sprintf("label-%06d", i)))
			if !set.Equals(want) {
				t.Fatalf("round %d: set of %s is %v", round, raw, set)
			}
			if c.bytes > maxCachedBytes {
				t.Fatalf("%d bytes cached", c.bytes)
			}
		}
	}
	a, _ := c.get([]byte(`{"f:a":{}}`), empty)
	b, _ := c.get([]byte(`{"f:a":{}}`), empty)
	if a != b {
		t.Errorf("the same JSON decoded twice")
	}
	if _, ok := c.get([]byte(`{"f:a": {}}`), empty); ok {
		t.Errorf("a set whose JSON does not encode back to itself accepted")
	}
	if _, ok := c.get([]byte(`"x"`), empty); ok {
		t.Errorf("a set that does not decode accepted")
	}
}
