package genall

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/model"
)

func writeFile(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func exists(root, rel string) bool {
	_, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil
}

func TestWrite(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "types/a/v1/types.go", "package v1\n")
	writeFile(t, root, "types/a/v1/zz_generated.old.go", "package v1\n")
	writeFile(t, root, "generated/gone/v1/zz_generated.x.go", "package gonev1\n")
	writeFile(t, root, "generated/a/v1/zz_generated.same.go", "package av1\n\nvar X = 1\n")
	files := []File{
		{Path: "generated/a/v1/zz_generated.same.go", Content: []byte("package av1\nvar X = 1\n")}, // formats to the file on disk
		{Path: "generated/a/v1/zz_generated.new.go", Content: []byte("package av1\nvar  Y=2\n")},
		{Path: "docs/markers.md", Content: []byte("# Markers\n")},
	}

	// Verify: nothing written, everything listed.
	changed, err := Write(root, files, WriteOptions{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"docs/markers.md", "generated/a/v1/zz_generated.new.go", "generated/gone/v1/zz_generated.x.go", "types/a/v1/zz_generated.old.go"}
	if !reflect.DeepEqual(changed, want) {
		t.Errorf("verify changed = %v, want %v", changed, want)
	}
	if exists(root, "generated/a/v1/zz_generated.new.go") || !exists(root, "types/a/v1/zz_generated.old.go") {
		t.Error("verify mode wrote or removed files")
	}

	// Write.
	changed, err = Write(root, files, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(changed, want) {
		t.Errorf("changed = %v, want %v", changed, want)
	}
	got, _ := os.ReadFile(filepath.Join(root, "generated/a/v1/zz_generated.new.go"))
	if string(got) != "package av1\n\nvar Y = 2\n" {
		t.Errorf("not formatted: %q", got)
	}
	if exists(root, "types/a/v1/zz_generated.old.go") || exists(root, "generated/gone") || !exists(root, "types/a/v1/types.go") {
		t.Error("stale files or empty generated dirs not removed, or a hand-written file removed")
	}

	// Second run: nothing changes.
	changed, err = Write(root, files, WriteOptions{})
	if err != nil || len(changed) != 0 {
		t.Errorf("second write changed %v, %v", changed, err)
	}
	changed, err = Write(root, files, WriteOptions{Verify: true})
	if err != nil || len(changed) != 0 {
		t.Errorf("verify after write: %v, %v", changed, err)
	}
}

func TestWriteFormatErrorWritesNothing(t *testing.T) {
	root := t.TempDir()
	files := []File{
		{Path: "generated/a/v1/zz_generated.ok.go", Content: []byte("package av1\n")},
		{Path: "generated/a/v1/zz_generated.bad.go", Content: []byte("package av1\n\nfunc F() {\n\treturn 1 +\n}\n\nvar Z = 3\n")},
	}
	_, err := Write(root, files, WriteOptions{})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{"format generated/a/v1/zz_generated.bad.go:", ">    5 | }", "     3 | func F() {"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if exists(root, "generated") {
		t.Error("something was written although a file failed to format")
	}
}

type gen struct {
	name  string
	files []File
	err   error
}

func (g gen) Name() string                        { return g.name }
func (g gen) Generate(*model.API) ([]File, error) { return g.files, g.err }

func TestRun(t *testing.T) {
	files, err := Run(&model.API{}, []Generator{
		gen{name: "b", files: []File{{Path: "z.go"}, {Path: "a.go"}}},
		gen{name: "c", files: []File{{Path: "m.go"}}},
	})
	if err != nil || len(files) != 3 || files[0].Path != "a.go" || files[2].Path != "z.go" {
		t.Errorf("Run = %v, %v", files, err)
	}
	boom := errors.New("boom")
	_, err = Run(&model.API{}, []Generator{
		gen{name: "x", err: boom},
		gen{name: "y", files: []File{{Path: "a.go"}}},
		gen{name: "z", files: []File{{Path: "a.go"}}},
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "generator x: boom") ||
		!strings.Contains(err.Error(), "generator z: file a.go is also written by generator y") {
		t.Errorf("Run errors = %v", err)
	}
}

func TestGroupImports(t *testing.T) {
	in := "package p\n\nimport (\n\t\"time\"\n\tv1 \"example.com/x/v1\"\n\t\"strings\"\n\tmetav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n)\n\nvar _ = 1\n"
	want := "package p\n\nimport (\n\t\"time\"\n\t\"strings\"\n\n\tv1 \"example.com/x/v1\"\n\tmetav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n)\n\nvar _ = 1\n"
	if got := string(groupImports([]byte(in))); got != want {
		t.Errorf("groupImports:\n%s\nwant:\n%s", got, want)
	}
	for _, same := range []string{
		"package p\n\nimport \"time\"\n",
		"package p\n\nimport (\n\t\"time\"\n\t\"strings\"\n)\n",
		"package p\n\nimport (\n\t// why\n\t\"time\"\n\tv1 \"example.com/x/v1\"\n)\n",
	} {
		if got := string(groupImports([]byte(same))); got != same {
			t.Errorf("groupImports changed %q to %q", same, got)
		}
	}
}
