package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/markers"
	"github.com/kubeforge/kubeforge/generators/model"
)

// tempModuleDir makes <module root>/_gentest_<random> (ignored by ./...,
// resolves dependencies through the main go.mod) and removes it afterwards.
func tempModuleDir(t testing.TB) string {
	t.Helper()
	root, err := model.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(root, "_gentest_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGenerateTwiceVerifyStale: generation is byte-identical across runs
// (for every generator in Generators), -verify reports stale, changed and
// missing files with the command to run, and a normal run repairs them.
func TestGenerateTwiceVerifyStale(t *testing.T) {
	root := tempModuleDir(t)
	copyTree(t, "../../types", filepath.Join(root, "types"))

	first, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != len(second) {
		t.Fatalf("runs produced %d and %d files", len(first), len(second))
	}
	for i := range first {
		if first[i].Path != second[i].Path || !bytes.Equal(first[i].Content, second[i].Content) {
			t.Errorf("run 2 differs in %s", first[i].Path)
		}
	}
	seen := map[string]bool{}
	for _, f := range first {
		seen[f.Path] = true
	}
	for _, p := range []string{MarkersDocPath, "generated/shipping/v1/zz_generated.register.go", "types/shipping/v1/zz_generated.deepcopy.go"} {
		if !seen[p] {
			t.Errorf("output lacks %s", p)
		}
	}
	if _, err := genall.Write(root, first, genall.WriteOptions{}); err != nil {
		t.Fatal(err)
	}

	// Make the tree stale three ways.
	stale := "generated/shipping/v1/zz_generated.removed.go"
	os.WriteFile(filepath.Join(root, stale), []byte("package shippingv1\n"), 0o644)
	edited := "generated/shipping/v1/zz_generated.register.go"
	os.WriteFile(filepath.Join(root, edited), []byte("package shippingv1\n// edited by hand\n"), 0o644)
	os.Remove(filepath.Join(root, MarkersDocPath))

	var out, errb bytes.Buffer
	if code := Main([]string{"-root", root, "-verify"}, &out, &errb); code != 1 {
		t.Fatalf("-verify exit %d, stderr:\n%s", code, errb.String())
	}
	for _, want := range []string{"  " + MarkersDocPath + "\n", "  " + edited + "\n", "  " + stale + "\n", "run: go generate ./..."} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("-verify output lacks %q:\n%s", want, errb.String())
		}
	}

	out.Reset()
	errb.Reset()
	if code := Main([]string{"-root", root, "-v"}, &out, &errb); code != 0 {
		t.Fatalf("gen exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "3 changed") {
		t.Errorf("gen -v: %s", out.String())
	}
	if _, err := os.Stat(filepath.Join(root, stale)); !os.IsNotExist(err) {
		t.Error("stale file not removed")
	}
	doc, err := os.ReadFile(filepath.Join(root, MarkersDocPath))
	if err != nil || !bytes.Equal(doc, markers.Builtin().Markdown()) {
		t.Errorf("docs/markers.md not rewritten from the registry: %v", err)
	}
}

func TestInputErrorsExitNonZero(t *testing.T) {
	var out, errb bytes.Buffer
	code := Main([]string{"-root", "../../generators/model/testdata/bad"}, &out, &errb)
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	msg := errb.String()
	if !strings.Contains(msg, "\ntypes/bad/v1/types.go:42:5: unknown marker \"optinal\": did you mean \"optional\"?\n") ||
		!strings.Contains(msg, "gen: 13 error(s)") {
		t.Errorf("stderr:\n%s", msg)
	}
}

func TestMarkersAndUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main([]string{"markers"}, &out, &errb); code != 0 || !bytes.Equal(out.Bytes(), markers.Builtin().Markdown()) {
		t.Errorf("gen markers: exit %d, %d bytes", code, out.Len())
	}
	if code := Main([]string{"bogus"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "usage: gen") {
		t.Errorf("gen bogus: exit %d, %s", code, errb.String())
	}
	if code := Main([]string{"-nope"}, &out, &errb); code != 2 {
		t.Errorf("gen -nope: exit %d", code)
	}
}

// benchGenerate is the full load+generate on the types tree under root.
// Synthetic benchmarks (100 kinds, ...) write a tree into tempModuleDir(b)
// and call it.
func benchGenerate(b *testing.B, root string) {
	b.Helper()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Generate(root); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerate loads the shipped types and runs every generator.
func BenchmarkGenerate(b *testing.B) { benchGenerate(b, "../..") }
