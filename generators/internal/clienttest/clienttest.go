// Package clienttest runs the four Go client generators over one test
// types tree (testdata/types/fleet: a namespaced kind with status and
// scale in two versions, a cluster-scoped kind without status) for their
// golden tests, with deepcopy and lists so the output compiles.
package clienttest

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/kubeforge/kubeforge/generators/applyconfig"
	"github.com/kubeforge/kubeforge/generators/clientset"
	"github.com/kubeforge/kubeforge/generators/deepcopy"
	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/informers"
	"github.com/kubeforge/kubeforge/generators/internal/gentest"
	"github.com/kubeforge/kubeforge/generators/listers"
	"github.com/kubeforge/kubeforge/generators/lists"
)

// Dir is the input tree.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata")
}

// Run generates the input tree with every client generator and returns
// all files (to compile) and those of the generator named own (to compare
// with its goldens).
func Run(t *testing.T, own string) (all, mine []genall.File) {
	t.Helper()
	api := gentest.Load(t, Dir())
	for _, g := range []genall.Generator{deepcopy.Generator{}, lists.Generator{}, clientset.Generator{}, listers.Generator{}, informers.Generator{}, applyconfig.Generator{}} {
		files, err := g.Generate(api)
		if err != nil {
			t.Fatalf("generate %s: %v", g.Name(), err)
		}
		all = append(all, files...)
		if g.Name() == own {
			mine = files
		}
	}
	if len(mine) == 0 {
		t.Fatalf("generator %s wrote nothing", own)
	}
	return all, mine
}
