package register

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/model"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// testModule is the import path of testdata/, which is a directory of this
// module: the goldens under testdata/generated compile against the types
// under testdata/types.
const testModule = "github.com/kubeforge/kubeforge/generators/register/testdata"

// acceptanceAPI hand-builds the model the loader produces for
// testdata/types/acceptance (a copy of the shared acceptance types).
func acceptanceAPI() *model.API {
	api := &model.API{Module: testModule}
	g := &model.Group{Name: "acceptance.example.dev", Short: "acceptance"}
	api.Groups = []*model.Group{g}
	v1 := &model.Version{Group: g, Name: "v1", PackageName: "v1"}
	v1a1 := &model.Version{Group: g, Name: "v1alpha1", PackageName: "v1alpha1"}
	g.Versions = []*model.Version{v1, v1a1}
	for _, v := range g.Versions {
		v.Dir = "types/acceptance/" + v.Name
		v.Package = testModule + "/" + v.Dir
	}
	gadget := func(v *model.Version, storage bool) *model.Kind {
		return &model.Kind{
			Version: v, Name: "Gadget", ListName: "GadgetList",
			Plural: "gadgets", Singular: "gadget", Namespaced: true,
			ShortNames: []string{"gd"}, Categories: []string{"all"},
			StatusSubresource: true, Storage: storage, Served: true,
		}
	}
	g1 := gadget(v1, true)
	g1.PrinterColumns = []model.PrinterColumn{
		{Name: "Size", Type: "string", JSONPath: ".spec.size"},
		{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"},
		{Name: "Phase", Type: "string", JSONPath: ".status.phase"},
		{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
	}
	zone := &model.Kind{
		Version: v1, Name: "Zone", ListName: "ZoneList", Plural: "zones", Singular: "zone",
		ShortNames: []string{"zn"}, Storage: true, Served: true,
	}
	v1.Kinds = []*model.Kind{g1, zone}
	v1a1.Kinds = []*model.Kind{gadget(v1a1, false)}
	return api
}

func TestGolden(t *testing.T) {
	files, err := Generator{}.Generate(acceptanceAPI())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"generated/acceptance/v1/" + FileName,
		"generated/acceptance/v1alpha1/" + FileName,
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("paths: got %v, want %v", got, want)
	}
	for _, f := range files {
		checkGolden(t, f)
		if !bytes.HasPrefix(f.Content, []byte("//go:build "+genall.BuildTag+"\n\n// "+genall.Header)) {
			t.Errorf("%s: missing header", f.Path)
		}
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
		t.Errorf("%s differs from the golden; run go test ./generators/register -update and review the diff\n--- got:\n%s", f.Path, f.Content)
	}
}

func TestServedVersions(t *testing.T) {
	g := &model.Group{Name: "x.example.dev", Short: "x"}
	mk := func(name string, storage, served bool) *model.Version {
		v := &model.Version{Group: g, Name: name}
		v.Kinds = []*model.Kind{{Version: v, Name: "Thing", Storage: storage, Served: served}}
		return v
	}
	// Sorted by priority, as the loader leaves them.
	g.Versions = []*model.Version{
		mk("v1", false, true),
		mk("v1beta2", false, false),
		mk("v1beta1", true, true),
		mk("v1alpha1", false, true),
	}
	if got, want := ServedVersions(g, "Thing"), []string{"v1beta1", "v1", "v1alpha1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ServedVersions = %v, want %v", got, want)
	}
	if got := ServedVersions(g, "Other"); len(got) != 0 {
		t.Errorf("ServedVersions of a missing kind = %v", got)
	}
}

func TestNoStorageVersion(t *testing.T) {
	api := acceptanceAPI()
	for _, v := range api.Groups[0].Versions {
		for _, k := range v.Kinds {
			if k.Name == "Gadget" {
				k.Storage = false
			}
		}
	}
	_, err := Generator{}.Generate(api)
	if err == nil || !strings.Contains(err.Error(), "storage version of Gadget") {
		t.Fatalf("want a storage version error, got %v", err)
	}
}
