package informers_test

import (
	"flag"
	"testing"

	"github.com/kubeforge/kubeforge/generators/internal/clienttest"
	"github.com/kubeforge/kubeforge/generators/internal/gentest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden compares the output for the fleet test types with
// testdata/golden and compiles it with the other client generators' output.
func TestGolden(t *testing.T) {
	all, mine := clienttest.Run(t, "informers")
	gentest.Golden(t, mine, "testdata/golden")
	gentest.Compile(t, clienttest.Dir(), all)
}
