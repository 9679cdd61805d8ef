package gentest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/genall"
)

func TestGoldenAndCompile(t *testing.T) {
	api := Load(t, "../../model/testdata/acceptance")
	if len(api.Groups) != 1 || api.Groups[0].Short != "acceptance" {
		t.Fatalf("groups = %v", api.Groups)
	}
	v := api.Groups[0].Versions[0]
	pkg, dir, name := genall.GeneratedPackage(api, v)
	src := "package " + name + "\n\nimport types \"" + v.Package + "\"\n\n// Kinds lists the kinds.\nvar Kinds = []any{&types.Gadget{}, &types.Zone{}}\n"
	files := []genall.File{{Path: dir + "/zz_generated.kinds.go", Content: []byte(src)}}
	_ = pkg

	golden := t.TempDir()
	t.Setenv("KUBEFORGE_UPDATE_GOLDEN", "1")
	Golden(t, files, golden)
	t.Setenv("KUBEFORGE_UPDATE_GOLDEN", "")
	Golden(t, files, golden) // matches what was just written
	got, err := os.ReadFile(filepath.Join(golden, dir, "zz_generated.kinds.go"))
	if err != nil || !strings.Contains(string(got), "var Kinds") {
		t.Fatalf("golden file: %v %q", err, got)
	}

	// The acceptance types need their deepcopy to compile (Gadget must be
	// a runtime.Object only when registered; here plain use suffices).
	Compile(t, "../../model/testdata/acceptance", files)
}

func TestDiff(t *testing.T) {
	d := Diff([]byte("a\nb\nc\n"), []byte("a\nB\nc\n"))
	if !strings.Contains(d, "first difference at line 2") || !strings.Contains(d, "want    2 | b") || !strings.Contains(d, "got     2 | B") {
		t.Errorf("Diff = %s", d)
	}
}

type fakeT struct {
	testing.TB
	errs []string
}

func (f *fakeT) Helper()                        {}
func (f *fakeT) Errorf(format string, a ...any) { f.errs = append(f.errs, format) }
func (f *fakeT) Fatalf(format string, a ...any) { f.errs = append(f.errs, format) }

func TestGoldenDetectsDrift(t *testing.T) {
	golden := t.TempDir()
	if err := os.MkdirAll(filepath.Join(golden, "generated"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(golden, "generated", "a.go"), []byte("package a\n\nvar X = 1\n"), 0o644)
	os.WriteFile(filepath.Join(golden, "generated", "old.go"), []byte("package a\n"), 0o644)
	ft := &fakeT{TB: t}
	Golden(ft, []genall.File{{Path: "generated/a.go", Content: []byte("package a\nvar X = 2\n")}}, golden)
	if len(ft.errs) != 2 {
		t.Errorf("want 2 failures (changed, extra golden), got %q", ft.errs)
	}
}
