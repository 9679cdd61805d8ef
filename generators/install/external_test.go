package install_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/conversion"
	"github.com/kubeforge/kubeforge/generators/deepcopy"
	"github.com/kubeforge/kubeforge/generators/defaults"
	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/install"
	"github.com/kubeforge/kubeforge/generators/internal/gentest"
	"github.com/kubeforge/kubeforge/generators/lists"
	"github.com/kubeforge/kubeforge/generators/model"
	"github.com/kubeforge/kubeforge/generators/openapi"
	"github.com/kubeforge/kubeforge/generators/register"
	"github.com/kubeforge/kubeforge/generators/routes"
	"github.com/kubeforge/kubeforge/generators/storage"
	"github.com/kubeforge/kubeforge/generators/validation"
)

// externalRoot serves k8s.io/api/core/v1 ConfigMap and
// k8s.io/api/coordination/v1 Lease, declared in its types/doc.go.
const externalRoot = "testdata/external"

func allGenerators() []genall.Generator {
	return []genall.Generator{
		deepcopy.Generator{}, lists.Generator{}, defaults.New(), validation.New(),
		register.Generator{}, openapi.Generator{}, conversion.New(), storage.New(), routes.New(), install.New(),
	}
}

// generateExternal runs every generator over the external tree.
func generateExternal(t *testing.T) map[string]string {
	t.Helper()
	api, err := model.Load(externalRoot, model.LoadOptions{})
	if err != nil {
		t.Fatalf("load %s: %v", externalRoot, err)
	}
	out := map[string]string{}
	for _, g := range allGenerators() {
		files, err := g.Generate(api)
		if err != nil {
			t.Fatalf("%s: %v", g.Name(), err)
		}
		for _, f := range files {
			if _, dup := out[f.Path]; dup {
				t.Fatalf("%s: %s written twice", g.Name(), f.Path)
			}
			out[f.Path] = string(f.Content)
		}
	}
	return out
}

// TestExternalGolden: the generated tree of served k8s.io/api kinds is the
// committed one, has no deepcopy, lists or conversion (the packages have
// their own), and carries the names Kubernetes uses.
func TestExternalGolden(t *testing.T) {
	files := generateExternal(t)
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var want []string
	for _, dir := range []string{"generated/coordination/v1", "generated/core/v1"} {
		for _, n := range []string{"defaults", "openapi", "register", "routes", "storage", "validation"} {
			want = append(want, dir+"/zz_generated."+n+".go")
		}
	}
	want = append(want, install.Path)
	if got := strings.Join(paths, "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("files:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	for _, p := range paths {
		path := filepath.Join(externalRoot, filepath.FromSlash(p))
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(files[p]), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		golden, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("read golden (run go test -update): %v", err)
		}
		if !bytes.Equal(golden, []byte(files[p])) {
			t.Errorf("%s differs from the golden (run go test -update and review the diff)", p)
		}
	}

	contains := func(path string, subs ...string) {
		t.Helper()
		for _, s := range subs {
			if !strings.Contains(files[path], s) {
				t.Errorf("%s lacks %q", path, s)
			}
		}
	}
	lacks := func(path string, subs ...string) {
		t.Helper()
		for _, s := range subs {
			if strings.Contains(files[path], s) {
				t.Errorf("%s has %q", path, s)
			}
		}
	}
	contains("generated/core/v1/zz_generated.register.go",
		"package corev1", `const GroupName = ""`, "AddToScheme = v1.AddToScheme", "SchemeBuilder = v1.SchemeBuilder",
		"var ConfigMapInfo = resource.Info{", `ShortNames: []string{"cm"}`,
		`{Name: "Data", Type: "string", Description: v1.ConfigMap{}.SwaggerDoc()["data"]}`, "PrinterColumnsWithName:",
		// ConfigMap has kube-apiserver's default field label conversion.
		"DefaultFieldLabelConversion: true")
	lacks("generated/core/v1/zz_generated.register.go", "addKnownTypes", "Subresources")
	contains("generated/coordination/v1/zz_generated.register.go",
		"package coordinationv1", `const GroupName = "coordination.k8s.io"`, "AddToScheme = v1.AddToScheme", `Plural:     "leases"`,
		`{Name: "Holder", Type: "string", Description: v1.LeaseSpec{}.SwaggerDoc()["holderIdentity"]}`)
	contains("generated/core/v1/zz_generated.routes.go",
		`Operation: "listNamespacedConfigMap"`, `Operation: "createNamespacedConfigMap"`, `Operation: "readNamespacedConfigMap"`,
		`Operation: "listConfigMapForAllNamespaces"`, `"io.k8s.api.core.v1.ConfigMap"`, `"io.k8s.api.core.v1.ConfigMapList"`,
		`ws := server.NewWebService(GroupName, "v1")`, "/api/v1")
	lacks("generated/core/v1/zz_generated.routes.go", "/status\"") // no status subresource
	contains("generated/coordination/v1/zz_generated.routes.go",
		`Operation: "listNamespacedLease"`, `Operation: "listLeaseForAllNamespaces"`, `"io.k8s.api.coordination.v1.Lease"`)
	contains("generated/core/v1/zz_generated.openapi.go", `"io.k8s.api.core.v1.ConfigMap": json.RawMessage(`)
	contains("generated/coordination/v1/zz_generated.openapi.go", `"io.k8s.api.coordination.v1.LeaseSpec": json.RawMessage(`)
	lacks("generated/coordination/v1/zz_generated.openapi.go", "dev.", "io.k8s.api.coordination.v1.coordination")
	contains("generated/core/v1/zz_generated.validation.go",
		"validate.ObjectMeta(&obj.ObjectMeta, true, apivalidation.NameIsDNSSubdomain")
	contains("generated/core/v1/zz_generated.storage.go",
		"func NewConfigMapStore(b *storage.Backend) *storage.Store[*v1.ConfigMap, *v1.ConfigMapList]",
		"oldObj.Data, newObj.Data", "oldObj.BinaryData, newObj.BinaryData", "oldObj.Immutable, newObj.Immutable")
	contains(install.Path,
		"coreConfigMapStore := corev1.NewConfigMapStore(b)", "coordinationLeaseStore := coordinationv1.NewLeaseStore(b)",
		"s.AddCollection(coreConfigMapStore)", "s.AddCollection(coordinationLeaseStore)",
		"corev1.Install(s, corev1.Stores{ConfigMap: coreConfigMapStore})", "corev1.AddToScheme(scheme)")
}

// TestExternalCompiles builds and vets the generated external tree in a
// scratch copy of the module, against the real runtime and k8s.io/api.
func TestExternalCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a scratch copy of the module")
	}
	files := generateExternal(t)
	modRoot, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := copyModule(modRoot, dir); err != nil {
		t.Fatalf("copy the module: %v", err)
	}
	tree := filepath.Join(dir, "generators", "install", externalRoot)
	if err := os.RemoveAll(filepath.Join(tree, "generated")); err != nil {
		t.Fatal(err)
	}
	for p, content := range files {
		f := filepath.Join(tree, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"build", "./generators/install/testdata/external/..."}, {"vet", "./generators/install/testdata/external/..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s in the generated tree: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// storedAsRoot declares core/v1 Event and events.k8s.io/v1 Event stored as
// core/v1 Event (+kubeforge:external storedAs=), with the hand-written
// Event conversions; the conversion generator's tests share it.
const storedAsRoot = "../conversion/testdata/storedas"

// TestStoredAs: a kind stored as another group's kind gets no store of its
// own: install hands it the other kind's store (one AddCollection), and its
// routes serve it over that store through storage.NewConverted. The whole
// generated tree compiles.
func TestStoredAs(t *testing.T) {
	api, err := model.Load(storedAsRoot, model.LoadOptions{})
	if err != nil {
		t.Fatalf("load %s: %v", storedAsRoot, err)
	}
	var all []genall.File
	files := map[string]string{}
	for _, g := range allGenerators() {
		fs, err := g.Generate(api)
		if err != nil {
			t.Fatalf("%s: %v", g.Name(), err)
		}
		for _, f := range fs {
			files[f.Path] = string(f.Content)
		}
		all = append(all, fs...)
	}
	contains := func(path string, subs ...string) {
		t.Helper()
		for _, s := range subs {
			if !strings.Contains(files[path], s) {
				t.Errorf("%s lacks %q", path, s)
			}
		}
	}
	lacks := func(path string, subs ...string) {
		t.Helper()
		for _, s := range subs {
			if strings.Contains(files[path], s) {
				t.Errorf("%s has %q", path, s)
			}
		}
	}
	contains(install.Path,
		"coreEventStore := corev1.NewEventStore(b)", "s.AddCollection(coreEventStore)",
		"corev1.Install(s, corev1.Stores{Event: coreEventStore})",
		"eventsv1.Install(s, eventsv1.Stores{Event: coreEventStore})",
		"eventsv1.AddToScheme(scheme)")
	lacks(install.Path, "eventsv1.New", "eventsEventStore")
	if n := strings.Count(files[install.Path], "AddCollection("); n != 1 {
		t.Errorf("%d AddCollection calls, want 1 (the core/v1 Event store)", n)
	}
	contains("generated/events/v1/zz_generated.routes.go",
		`corev1 "k8s.io/api/core/v1"`,
		"Event storage.Interface[*corev1.Event, *corev1.EventList]",
		"storage.NewConverted(stores.Event, EventStrategy, storage.Converter[*v1.Event, *v1.EventList, *corev1.Event, *corev1.EventList]{",
		"ToHub:       EventToHub,")
	contains("generated/events/v1/zz_generated.storage.go", "var EventStrategy = &resource.Strategy[*v1.Event, *v1.EventList]{", "converting store over v1 Event")
	lacks("generated/events/v1/zz_generated.storage.go", "NewEventStore")
	contains("generated/core/v1/zz_generated.storage.go", "func NewEventStore(b *storage.Backend) *storage.Store[*v1.Event, *v1.EventList]")
	// The version of the kind that stores it (aligned as gofmt likes).
	// The hash is kube-apiserver's for core/v1 Event (discovery of
	// events.k8s.io/v1 lists the store's kind, as on kube).
	if !regexp.MustCompile(`StorageVersion:\s+"v1",\n\s+StorageVersionHash:\s+"r2yiGXH7wu8=",\n\s+ServedVersions:\s+\[\]string\{"v1"\}`).MatchString(files["generated/events/v1/zz_generated.register.go"]) {
		t.Errorf("events.k8s.io/v1 EventInfo: want StorageVersion v1, core/v1 Event's StorageVersionHash, ServedVersions [v1]:\n%s", files["generated/events/v1/zz_generated.register.go"])
	}
	lacks("generated/core/v1/zz_generated.routes.go", "NewConverted")
	gentest.Compile(t, storedAsRoot, all)
}
