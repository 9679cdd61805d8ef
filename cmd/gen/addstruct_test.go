package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/model"
)

// truckTypes is the new kind a user adds: one struct plus markers, and no
// hand-written list, deepcopy, defaults, validation or registration.
const truckTypes = `package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// TruckSpec describes a truck.
type TruckSpec struct {
	// Plate is the licence plate.
	// +kubebuilder:validation:Pattern=` + "`^[A-Z0-9-]+$`" + `
	// +required
	Plate string ` + "`json:\"plate\"`" + `

	// Axles of the truck.
	// +kubebuilder:validation:Minimum=2
	// +kubebuilder:default=2
	// +optional
	Axles int32 ` + "`json:\"axles,omitempty\"`" + `

	// Depots the truck may visit.
	// +listType=set
	// +optional
	Depots []string ` + "`json:\"depots,omitempty\"`" + `
}

// Truck is a vehicle that moves shipments between warehouses.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=trk
type Truck struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `

	Spec TruckSpec ` + "`json:\"spec,omitempty\"`" + `
}
`

// checkProgram runs inside the copy and proves, at run time, that the new
// kind deep-copies, defaults, validates and is registered and served.
const checkProgram = `package main

import (
	"fmt"
	"os"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"MODULE/generated"
	infrav1gen "MODULE/generated/infra/v1"
	infrav1 "MODULE/types/infra/v1"
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

func main() {
	obj := &infrav1.Truck{ObjectMeta: metav1.ObjectMeta{Name: "t1"}, Spec: infrav1.TruckSpec{Plate: "B-KF-1", Depots: []string{"north"}}}

	cp := obj.DeepCopy()
	cp.Spec.Depots[0] = "south"
	if obj.Spec.Depots[0] != "north" {
		fail("deepcopy shares the depots slice")
	}
	var _ runtime.Object = &infrav1.TruckList{} // generated list, generated DeepCopyObject

	infrav1gen.SetObjectDefaults_Truck(obj)
	if obj.Spec.Axles != 2 {
		fail("default axles: got %d, want 2", obj.Spec.Axles)
	}
	if errs := infrav1gen.ValidateTruck(obj); len(errs) != 0 {
		fail("valid truck rejected: %v", errs)
	}
	bad := obj.DeepCopy()
	bad.Spec.Plate = "lower case"
	bad.Spec.Axles = 1
	bad.Spec.Depots = []string{"a", "a"}
	var paths []string
	for _, e := range infrav1gen.ValidateTruck(bad) {
		paths = append(paths, e.Field)
	}
	if got := strings.Join(paths, ","); got != "spec.plate,spec.axles,spec.depots[1]" {
		fail("validation errors at %q, want spec.plate,spec.axles,spec.depots[1]", got)
	}

	scheme := runtime.NewScheme()
	if err := generated.AddToScheme(scheme); err != nil {
		fail("add to scheme: %v", err)
	}
	gvks, _, err := scheme.ObjectKinds(&infrav1.Truck{})
	if err != nil || len(gvks) != 1 || gvks[0].Group != "infra.kubeforge.dev" || gvks[0].Kind != "Truck" {
		fail("scheme kinds of Truck: %v %v", gvks, err)
	}
	found := false
	for _, r := range infrav1gen.Resources {
		if r.Plural == "trucks" && !r.Namespaced && len(r.ShortNames) == 1 && r.ShortNames[0] == "trk" {
			found = true
		}
	}
	if !found {
		fail("trucks missing from the resource table")
	}
	fmt.Println("truck ok")
}
`

// TestAddAStruct is the product's promise: write one struct with markers,
// generate, build, and the kind works. It copies the infra group into a
// temporary tree, adds a kind, runs the generator, builds everything it
// produced (storage and routes included) and runs a program against it.
func TestAddAStruct(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated tree")
	}
	root, err := model.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := tempModuleDir(t)
	copyTree(t, filepath.Join(root, "types", "infra"), filepath.Join(dir, "types", "infra"))
	for _, f := range mustGlob(t, filepath.Join(dir, "types", "infra", "v1", "zz_generated.*.go")) {
		os.Remove(f) // start from hand-written files only, as a user would
	}
	write(t, filepath.Join(dir, "types", "infra", "v1", "truck_types.go"), truckTypes)

	var stdout, stderr bytes.Buffer
	if code := Main([]string{"-root", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("gen exited %d:\n%s%s", code, stdout.String(), stderr.String())
	}
	for _, want := range []string{
		"types/infra/v1/zz_generated.deepcopy.go",
		"types/infra/v1/zz_generated.lists.go",
		"generated/infra/v1/zz_generated.storage.go",
		"generated/infra/v1/zz_generated.routes.go",
		"generated/zz_generated.install.go",
	} {
		if _, err := os.Stat(filepath.Join(dir, want)); err != nil {
			t.Errorf("generator did not write %s", want)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "generated/infra/v1/zz_generated.routes.go"))
	if err != nil || !strings.Contains(string(data), `"/trucks/{name}"`) {
		t.Errorf("routes for trucks not generated")
	}

	modPath, _, err := model.ModulePath(dir)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "check", "main.go"), strings.ReplaceAll(checkProgram, "MODULE", modPath))
	rel, _ := filepath.Rel(root, dir)
	run(t, root, "go", "build", "./"+filepath.ToSlash(rel)+"/...")
	out := run(t, root, "go", "run", "./"+filepath.ToSlash(rel)+"/check")
	if !strings.Contains(out, "truck ok") {
		t.Fatalf("check program: %s", out)
	}
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
