package deepcopy

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/lists"
	"github.com/kubeforge/kubeforge/generators/model"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var shapes struct {
	once sync.Once
	api  *model.API
	err  error
}

// loadShapes loads testdata/shapes once per test binary (the loader takes
// seconds). Generators do not modify the model.
func loadShapes(t *testing.T) *model.API {
	t.Helper()
	shapes.once.Do(func() { shapes.api, shapes.err = model.Load("testdata/shapes", model.LoadOptions{}) })
	if shapes.err != nil {
		t.Fatalf("load testdata/shapes: %v", shapes.err)
	}
	return shapes.api
}

// TestGolden generates deepcopy and lists for testdata/shapes, compares with
// the committed files (go test -run TestGolden -update rewrites them) and
// compiles the package with them.
func TestGolden(t *testing.T) {
	api := loadShapes(t)
	var files []genall.File
	for _, g := range []genall.Generator{lists.Generator{}, Generator{}} {
		fs, err := g.Generate(api)
		if err != nil {
			t.Fatalf("%s: %v", g.Name(), err)
		}
		files = append(files, fs...)
	}
	want := []string{"types/shapes/v1/zz_generated.lists.go", "types/shapes/v1/zz_generated.deepcopy.go"}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("files = %v, want %v", got, want)
	}
	for _, f := range files {
		p := filepath.Join("testdata/shapes", filepath.FromSlash(f.Path))
		if *update {
			if err := os.WriteFile(p, f.Content, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("read golden (run go test -update): %v", err)
		}
		if !bytes.Equal(old, f.Content) {
			t.Errorf("%s differs from the golden file; run go test ./generators/deepcopy -run TestGolden -update and review the diff.\ngot:\n%s", p, f.Content)
		}
	}
	compile(t, "./testdata/shapes/types/shapes/v1")
}

// compile runs go vet (which type-checks) on the packages.
func compile(t *testing.T, pkgs ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("compiling goldens needs the go command")
	}
	cmd := exec.Command("go", append([]string{"vet"}, pkgs...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go vet %v: %v\n%s", pkgs, err, out)
	}
}

// TestRealTypes generates deepcopy and lists for the project's types/ tree
// and compares with the files there (-update writes them), so the property
// tests in ./proptest run against code this generator wrote.
func TestRealTypes(t *testing.T) {
	api, err := model.Load("../..", model.LoadOptions{})
	if err != nil {
		t.Fatalf("load types: %v", err)
	}
	var files []genall.File
	for _, g := range []genall.Generator{lists.Generator{}, Generator{}} {
		fs, err := g.Generate(api)
		if err != nil {
			t.Fatalf("%s: %v", g.Name(), err)
		}
		files = append(files, fs...)
	}
	paths := map[string]bool{}
	for _, f := range files {
		paths[f.Path] = true
		p := filepath.Join("../..", filepath.FromSlash(f.Path))
		if *update {
			if err := os.WriteFile(p, f.Content, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("read %s (run go test -update): %v", f.Path, err)
		}
		if !bytes.Equal(old, f.Content) {
			t.Errorf("%s is stale; run go test ./generators/deepcopy -run TestRealTypes -update", f.Path)
		}
	}
	for _, want := range []string{
		"types/infra/v1/zz_generated.lists.go",
		"types/infra/v1/zz_generated.deepcopy.go",
		"types/shipping/v1/zz_generated.deepcopy.go",
		"types/shipping/v1alpha1/zz_generated.deepcopy.go",
	} {
		if !paths[want] {
			t.Errorf("no %s generated", want)
		}
	}
	if paths["types/shipping/v1/zz_generated.lists.go"] {
		t.Errorf("shipping/v1 writes ShipmentList by hand, yet a lists file was generated")
	}
}
