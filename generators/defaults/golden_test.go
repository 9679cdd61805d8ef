package defaults

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubeforge/kubeforge/generators/model"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestGolden generates testdata/types and compares with the committed
// testdata/generated files (go test -run Golden -update rewrites them).
// The table tests in table_test.go compile and run that output.
func TestGolden(t *testing.T) {
	api, err := model.Load("testdata", model.LoadOptions{})
	if err != nil {
		t.Fatalf("load testdata: %v", err)
	}
	files, err := New().Generate(api)
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	if len(files) == 0 {
		t.Fatal("no files generated")
	}
	for _, f := range files {
		path := filepath.Join("testdata", filepath.FromSlash(f.Path))
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
			t.Fatalf("read golden (run go test -run Golden -update): %v", err)
		}
		if string(want) != string(f.Content) {
			t.Errorf("%s differs from the generated output; run go test ./generators/defaults -run Golden -update and review the diff\n--- generated:\n%s", path, f.Content)
		}
	}
}
