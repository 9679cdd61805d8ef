package main

import (
	"bytes"
	"fmt"
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
	os.WriteFile(filepath.Join(root, stale), []byte("// "+genall.Header+"\n\npackage shippingv1\n"), 0o644)
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
		!strings.Contains(msg, "gen: 33 error(s)") {
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

// writeSyntheticTypes writes types/synth/v1 with n kinds under root: each
// with spec and status, validation/default/list markers, a printer column,
// a nested struct, a list-map of structs and metav1.Conditions.
func writeSyntheticTypes(b testing.TB, root string, n int) {
	b.Helper()
	dir := filepath.Join(root, "types", "synth", "v1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	doc := "// Package v1 holds synthetic benchmark kinds.\n// +groupName=synth.example.dev\npackage v1\n"
	if err := os.WriteFile(filepath.Join(dir, "doc.go"), []byte(doc), 0o644); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		k := fmt.Sprintf("Kind%03d", i)
		src := strings.ReplaceAll(syntheticKind, "KIND", k)
		if err := os.WriteFile(filepath.Join(dir, strings.ToLower(k)+"_types.go"), []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

const syntheticKind = `package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// KIND is a synthetic kind.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Size",type=integer,JSONPath=` + "`.spec.size`" + `
type KIND struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `

	Spec KINDSpec ` + "`json:\"spec,omitempty\"`" + `
	// +optional
	Status KINDStatus ` + "`json:\"status,omitempty\"`" + `
}

// KINDSpec is the desired state.
type KINDSpec struct {
	// Size is how many.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:default=3
	// +optional
	Size int32 ` + "`json:\"size,omitempty\"`" + `
	// Name is a DNS label.
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=` + "`^[a-z0-9-]+$`" + `
	Name string ` + "`json:\"name\"`" + `
	// Mode picks a mode.
	// +kubebuilder:validation:Enum=fast;slow
	// +kubebuilder:default=fast
	// +optional
	Mode string ` + "`json:\"mode,omitempty\"`" + `
	// Nested settings.
	// +optional
	Nested KINDNested ` + "`json:\"nested,omitempty\"`" + `
	// Ports by name.
	// +listType=map
	// +listMapKey=name
	// +optional
	Ports []KINDPort ` + "`json:\"ports,omitempty\"`" + `
}

// KINDNested is a nested struct.
type KINDNested struct {
	// +optional
	Labels map[string]string ` + "`json:\"labels,omitempty\"`" + `
	// +optional
	Ref *string ` + "`json:\"ref,omitempty\"`" + `
}

// KINDPort is one named port.
type KINDPort struct {
	Name string ` + "`json:\"name\"`" + `
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 ` + "`json:\"port\"`" + `
}

// KINDStatus is the observed state.
type KINDStatus struct {
	// +optional
	ObservedGeneration int64 ` + "`json:\"observedGeneration,omitempty\"`" + `
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition ` + "`json:\"conditions,omitempty\"`" + `
}
`

func benchSynthetic(b *testing.B, n int) {
	root := tempModuleDir(b)
	writeSyntheticTypes(b, root, n)
	if _, err := Generate(root); err != nil { // warm the build cache
		b.Fatal(err)
	}
	benchGenerate(b, root)
}

// BenchmarkGenerateSynthetic25/50/100 load and generate n synthetic kinds:
// time and memory should grow linearly with n.
func BenchmarkGenerateSynthetic25(b *testing.B)  { benchSynthetic(b, 25) }
func BenchmarkGenerateSynthetic50(b *testing.B)  { benchSynthetic(b, 50) }
func BenchmarkGenerateSynthetic100(b *testing.B) { benchSynthetic(b, 100) }

// TestSyntheticTypesGenerate keeps the synthetic benchmark input valid.
func TestSyntheticTypesGenerate(t *testing.T) {
	root := tempModuleDir(t)
	writeSyntheticTypes(t, root, 3)
	files, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no output")
	}
}
