package openapi

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kubeforge/kubeforge/generators/genall"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestGolden(t *testing.T) {
	files, err := Generator{}.Generate(acceptanceAPI())
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != "generated/acceptance/v1/"+FileName {
		t.Fatalf("files: %+v", files)
	}
	for _, f := range files {
		checkGolden(t, f)
	}
	again, err := Generator{}.Generate(acceptanceAPI())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(files, again) {
		t.Error("output is not deterministic")
	}
}

func checkGolden(t *testing.T, f genall.File) {
	t.Helper()
	path := filepath.Join("testdata", filepath.FromSlash(f.Path))
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, f.Content, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run go test -update): %v", err)
	}
	if !bytes.Equal(f.Content, want) {
		t.Errorf("%s differs from the golden; run go test ./generators/openapi -update and review the diff", f.Path)
	}
}
