package install_test

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kubeforge/kubeforge/generators/conversion"
	"github.com/kubeforge/kubeforge/generators/deepcopy"
	"github.com/kubeforge/kubeforge/generators/defaults"
	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/install"
	"github.com/kubeforge/kubeforge/generators/lists"
	"github.com/kubeforge/kubeforge/generators/model"
	"github.com/kubeforge/kubeforge/generators/openapi"
	"github.com/kubeforge/kubeforge/generators/register"
	"github.com/kubeforge/kubeforge/generators/routes"
	"github.com/kubeforge/kubeforge/generators/storage"
	"github.com/kubeforge/kubeforge/generators/validation"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// root is the testdata tree shared by the storage, routes and install
// golden tests: types/fleet/{v1,v1beta1} and types/sites/v1.
const root = "testdata/api"

var (
	loadOnce sync.Once
	loaded   *model.API
	loadErr  error
)

func load(t *testing.T) *model.API {
	t.Helper()
	loadOnce.Do(func() { loaded, loadErr = model.Load(root, model.LoadOptions{}) })
	if loadErr != nil {
		t.Fatalf("load %s: %v", root, loadErr)
	}
	return loaded
}

// golden compares the generator's files with the committed ones under root
// (or rewrites them with -update).
func golden(t *testing.T, g genall.Generator, api *model.API) []genall.File {
	t.Helper()
	files, err := g.Generate(api)
	if err != nil {
		t.Fatalf("%s: %v", g.Name(), err)
	}
	for _, f := range files {
		path := filepath.Join(root, filepath.FromSlash(f.Path))
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, f.Content, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: read golden (run go test -update): %v", g.Name(), err)
		}
		if !bytes.Equal(want, f.Content) {
			t.Errorf("%s: %s differs from the golden (run go test -update and review the diff)", g.Name(), f.Path)
		}
	}
	return files
}

func TestInstallGolden(t *testing.T) {
	api := load(t)
	files := golden(t, install.New(), api)
	if len(files) != 1 || files[0].Path != install.Path {
		t.Fatalf("files %v, want only %s", files, install.Path)
	}
	src := string(files[0].Content)
	// Served group-versions in sorted order, the spoke fleet v1beta1 too,
	// over the one Truck store built from the storage version v1.
	iFleet := strings.Index(src, "fleetv1.Install(s, fleetv1.Stores{")
	iBeta := strings.Index(src, "fleetv1beta1.Install(s, fleetv1beta1.Stores{Truck: fleetTruckStore})")
	iSites := strings.Index(src, "sitesv1.Install(s, sitesv1.Stores{")
	if iFleet < 0 || iBeta < 0 || iSites < 0 || iFleet > iBeta || iBeta > iSites {
		t.Errorf("Install must call fleetv1.Install, fleetv1beta1.Install then sitesv1.Install:\n%s", src)
	}
	if n := strings.Count(src, "NewTruckStore(b)"); n != 1 {
		t.Errorf("Install builds the Truck store %d times, want once (shared by v1 and v1beta1):\n%s", n, src)
	}
	if strings.Contains(src, "fleetv1beta1.NewTruckStore") {
		t.Errorf("the Truck store must come from its storage version v1:\n%s", src)
	}
	// The spoke's conversions go to the server, for server-side apply.
	if n := strings.Count(src, "s.AddConversions("); n != 1 || !strings.Contains(src, "s.AddConversions(fleetv1beta1.Conversions()...)") {
		t.Errorf("Install must add the conversions of fleet v1beta1, and only those:\n%s", src)
	}
	if !strings.Contains(src, "fleetv1beta1.AddToScheme(scheme)") {
		t.Errorf("AddToScheme must register every group-version, including fleet v1beta1")
	}
}

func TestStorageGolden(t *testing.T) {
	api := load(t)
	files := golden(t, storage.New(), api)
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	want := "generated/fleet/v1/zz_generated.storage.go generated/fleet/v1beta1/zz_generated.storage.go generated/sites/v1/zz_generated.storage.go"
	if got := strings.Join(paths, " "); got != want {
		t.Errorf("storage files %q, want %q (every served version)", got, want)
	}
	for _, f := range files {
		src := string(f.Content)
		hasStore := strings.Contains(src, "func NewTruckStore(")
		switch f.Path {
		case "generated/fleet/v1/zz_generated.storage.go":
			if !hasStore {
				t.Errorf("%s: the storage version must expose NewTruckStore", f.Path)
			}
		case "generated/fleet/v1beta1/zz_generated.storage.go":
			if hasStore || !strings.Contains(src, "var TruckStrategy = &resource.Strategy[*v1beta1.Truck, *v1beta1.TruckList]") {
				t.Errorf("%s: the spoke needs its own TruckStrategy over v1beta1 types and no store:\n%s", f.Path, src)
			}
			if strings.Contains(src, "ResetStatus") {
				t.Errorf("%s: v1beta1 Truck has no status subresource, its strategy must not reset status", f.Path)
			}
		}
	}
}

func TestRoutesGolden(t *testing.T) {
	api := load(t)
	files := golden(t, routes.New(), api)
	if len(files) != 3 {
		t.Fatalf("%d routes files, want 3 (every served version)", len(files))
	}
	for _, f := range files {
		src := string(f.Content)
		converted := strings.Contains(src, "storage.NewConverted(stores.Truck, TruckStrategy")
		if want := f.Path == "generated/fleet/v1beta1/zz_generated.routes.go"; converted != want {
			t.Errorf("%s: serves Truck through storage.NewConverted = %v, want %v:\n%s", f.Path, converted, want, src)
		}
		if strings.Contains(src, "storage.NewStore(") {
			t.Errorf("%s: Install must not build a store (generated.Install builds one per kind)", f.Path)
		}
	}
}

// TestGoldenCompiles generates the whole tree (every generator, the goldens
// above included) into a scratch copy of the module and builds and vets it:
// the goldens compile against the real runtime and the other generators'
// output.
func TestGoldenCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a scratch copy of the module")
	}
	api := load(t)
	modRoot, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := copyModule(modRoot, dir); err != nil {
		t.Fatalf("copy the module: %v", err)
	}
	tree := filepath.Join(dir, "generators", "install", root)
	gens := []genall.Generator{
		deepcopy.Generator{}, lists.Generator{}, defaults.New(), validation.New(),
		register.Generator{}, openapi.Generator{}, conversion.New(), storage.New(), routes.New(), install.New(),
	}
	for _, g := range gens {
		files, err := g.Generate(api)
		if err != nil {
			t.Fatalf("%s: %v", g.Name(), err)
		}
		for _, f := range files {
			p := filepath.Join(tree, filepath.FromSlash(f.Path))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, args := range [][]string{{"build", "./generators/install/testdata/api/..."}, {"vet", "./generators/install/testdata/api/..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s in the generated tree: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// copyModule copies the module's files (not .git, e2e or data directories).
func copyModule(from, to string) error {
	return filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "e2e", ".data", "node_modules":
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
}
