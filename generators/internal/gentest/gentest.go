// Package gentest holds the helpers every generator's golden tests share.
//
// Layout: a generator's testdata/ directory is laid out like a module root,
// with input types under testdata/types/<group>/<version>/ and expected
// outputs under a golden directory (for example testdata/golden/), each at
// the path the generator writes ("generated/acme/v1/zz_generated.x.go").
//
// Module path: testdata has no go.mod. model.Load derives the module path
// from the enclosing module plus the directory's relative path
// (github.com/kubeforge/kubeforge/generators/x/testdata), so generated
// imports resolve inside the main module and need no network.
//
//	func TestGolden(t *testing.T) {
//		api := gentest.Load(t, "testdata")
//		files, err := Generator{}.Generate(api)
//		if err != nil { t.Fatal(err) }
//		gentest.Golden(t, files, "testdata/golden")
//		gentest.Compile(t, "testdata", files)
//	}
//
// Updating goldens: Golden rewrites them when the test binary's -update flag
// is true (each test package declares `var update = flag.Bool("update", ...)`;
// gentest looks the flag up by name at call time, so it never collides), or
// when KUBEFORGE_UPDATE_GOLDEN=1 is set:
//
//	go test ./generators/x -run TestGolden -update
package gentest

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/model"
)

// Load loads the types tree under dir (dir/types/<group>/<version>) and
// fails the test on any error.
func Load(t testing.TB, dir string) *model.API {
	t.Helper()
	api, err := model.Load(dir, model.LoadOptions{})
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
	return api
}

// LoadError loads dir and returns the error, failing the test when loading
// succeeds. Use it for bad-input tests.
func LoadError(t testing.TB, dir string) error {
	t.Helper()
	_, err := model.Load(dir, model.LoadOptions{})
	if err == nil {
		t.Fatalf("load %s: expected an error, got none", dir)
	}
	return err
}

// Updating reports whether goldens should be rewritten: the -update flag (if
// the test package declared one) or KUBEFORGE_UPDATE_GOLDEN=1.
func Updating() bool {
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		return true
	}
	return os.Getenv("KUBEFORGE_UPDATE_GOLDEN") == "1"
}

// Golden compares files (formatted as the writer formats them) with the
// files under goldenDir, by path. Extra golden files fail the test too. With
// -update it rewrites goldenDir to match instead.
func Golden(t testing.TB, files []genall.File, goldenDir string) {
	t.Helper()
	formatted, err := genall.Format(files)
	if err != nil {
		t.Fatalf("golden: %v", err)
	}
	want := map[string]bool{}
	for _, f := range formatted {
		want[f.Path] = true
	}
	existing := goldenFiles(t, goldenDir)
	if Updating() {
		for _, p := range existing {
			if !want[p] {
				if err := os.Remove(filepath.Join(goldenDir, filepath.FromSlash(p))); err != nil {
					t.Fatalf("golden: remove %s: %v", p, err)
				}
			}
		}
		for _, f := range formatted {
			abs := filepath.Join(goldenDir, filepath.FromSlash(f.Path))
			if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
				t.Fatalf("golden: %v", err)
			}
			if err := os.WriteFile(abs, f.Content, 0o644); err != nil {
				t.Fatalf("golden: %v", err)
			}
		}
		return
	}
	for _, p := range existing {
		if !want[p] {
			t.Errorf("golden: %s/%s is not generated any more (rerun with -update)", goldenDir, p)
		}
	}
	for _, f := range formatted {
		gold, err := os.ReadFile(filepath.Join(goldenDir, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Errorf("golden: %s: missing golden file (rerun with -update): %v", f.Path, err)
			continue
		}
		if !bytes.Equal(gold, f.Content) {
			t.Errorf("golden: %s differs from %s (rerun with -update):\n%s", f.Path, goldenDir, Diff(gold, f.Content))
		}
	}
}

func goldenFiles(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if !d.IsDir() {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("golden: list %s: %v", dir, err)
	}
	sort.Strings(out)
	return out
}

// Diff shows the first differing line of want and got with a few lines of
// context (enough to find the change; run -update and git diff for more).
func Diff(want, got []byte) string {
	wl := strings.Split(string(want), "\n")
	gl := strings.Split(string(got), "\n")
	i := 0
	for i < len(wl) && i < len(gl) && wl[i] == gl[i] {
		i++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "first difference at line %d\n", i+1)
	for n := max(0, i-3); n < min(len(wl), i+4); n++ {
		fmt.Fprintf(&b, "  want %4d | %s\n", n+1, wl[n])
	}
	for n := max(0, i-3); n < min(len(gl), i+4); n++ {
		fmt.Fprintf(&b, "  got  %4d | %s\n", n+1, gl[n])
	}
	return b.String()
}

// Compile proves that files compile together with the input types under
// inputRoot. It copies inputRoot's .go files (types/ and generated/) and the
// formatted files into a fresh <main module root>/_gentest_<random>/
// directory, rewrites the input's import path prefix to the copy's, runs
// `go build` on every package there, and removes the directory. Directories
// starting with _ are ignored by ./... patterns, so a leftover never breaks
// the module; the module's own go.mod resolves every dependency offline.
func Compile(t testing.TB, inputRoot string, files []genall.File) {
	t.Helper()
	formatted, err := genall.Format(files)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	inputMod, modRoot, err := model.ModulePath(inputRoot)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	tmp, err := os.MkdirTemp(modRoot, "_gentest_")
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	rel, err := filepath.Rel(modRoot, tmp)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	mainMod, _, err := model.ModulePath(modRoot)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	tmpMod := mainMod + "/" + filepath.ToSlash(rel)
	rewrite := func(b []byte) []byte {
		return bytes.ReplaceAll(b, []byte(`"`+inputMod+`/`), []byte(`"`+tmpMod+`/`))
	}
	out := map[string][]byte{}
	for _, sub := range []string{"types", "generated"} {
		base := filepath.Join(inputRoot, sub)
		_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			r, err := filepath.Rel(inputRoot, p)
			if err != nil {
				return err
			}
			out[filepath.ToSlash(r)] = data
			return nil
		})
	}
	for _, f := range formatted {
		out[f.Path] = f.Content
	}
	dirs := map[string]bool{}
	for p, data := range out {
		if !strings.HasSuffix(p, ".go") {
			continue
		}
		abs := filepath.Join(tmp, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatalf("compile: %v", err)
		}
		if err := os.WriteFile(abs, rewrite(data), 0o644); err != nil {
			t.Fatalf("compile: %v", err)
		}
		dirs["./"+path.Dir(p)] = true
	}
	if len(dirs) == 0 {
		t.Fatalf("compile: no Go files under %s", inputRoot)
	}
	var pkgs []string
	for d := range dirs {
		pkgs = append(pkgs, d)
	}
	sort.Strings(pkgs)
	cmd := exec.Command("go", append([]string{"build"}, pkgs...)...)
	cmd.Dir = tmp
	if outb, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("compile: go build %s in %s: %v\n%s", strings.Join(pkgs, " "), tmp, err, outb)
	}
}

// TempModuleDir creates an empty directory <main module root>/_gentest_<random>
// and removes it when the test ends. A types tree written there loads with
// model.Load (module path: the main module's plus the directory name) and
// resolves every dependency offline; ./... patterns ignore it. Use it for
// tests that write (cmd/gen -verify) and for synthetic benchmarks.
func TempModuleDir(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("temp module dir: %v", err)
	}
	root, err := model.FindRoot(wd)
	if err != nil {
		t.Fatalf("temp module dir: %v", err)
	}
	dir, err := os.MkdirTemp(root, "_gentest_")
	if err != nil {
		t.Fatalf("temp module dir: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// CopyDir copies the files under src into dst (created as needed).
func CopyDir(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s to %s: %v", src, dst, err)
	}
}
