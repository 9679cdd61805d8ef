package conversion

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/deepcopy"
	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/internal/gentest"
	"github.com/kubeforge/kubeforge/generators/lists"
	"github.com/kubeforge/kubeforge/generators/model"
)

var update = flag.Bool("update", false, "rewrite the generated files under testdata/ and the project's conversion files")

// inPlace compares files with the ones on disk under root (-update writes
// them). The trees keep generated code beside its input so the round-trip
// tests in this directory compile and run it.
func inPlace(t *testing.T, root string, files []genall.File) {
	t.Helper()
	formatted, err := genall.Format(files)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range formatted {
		p := filepath.Join(root, filepath.FromSlash(f.Path))
		if gentest.Updating() {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Content, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%s: %v (run go test ./generators/conversion -update)", p, err)
			continue
		}
		if !bytes.Equal(old, f.Content) {
			t.Errorf("%s is stale (run go test ./generators/conversion -update):\n%s", p, gentest.Diff(old, f.Content))
		}
	}
}

func paths(files []genall.File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}

// TestAcceptanceTree: the acceptance group's v1alpha1 is a strict subset of
// v1 with the same names, so it converts with no hand-written code. Golden
// files live beside the input (testdata/accept) and are compiled.
func TestAcceptanceTree(t *testing.T) {
	api := gentest.Load(t, "testdata/accept")
	conv, err := New().Generate(api)
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	want := []string{
		"types/acceptance/v1alpha1/zz_generated.conversion.go",
		"generated/acceptance/v1alpha1/zz_generated.conversion.go",
	}
	if got := paths(conv); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("files = %v, want %v", got, want)
	}
	var all []genall.File
	for _, g := range []genall.Generator{lists.Generator{}, deepcopy.Generator{}} {
		fs, err := g.Generate(api)
		if err != nil {
			t.Fatalf("%s: %v", g.Name(), err)
		}
		all = append(all, fs...)
	}
	all = append(all, conv...)
	inPlace(t, "testdata/accept", all)
	gentest.Compile(t, "testdata/accept", all)
}

// TestShippingTree checks the project's own conversion files are what the
// generator writes, so the round-trip tests run this generator's output.
func TestShippingTree(t *testing.T) {
	api := gentest.Load(t, "../..")
	files, err := New().Generate(api)
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	got := strings.Join(paths(files), ",")
	for _, want := range []string{
		"types/shipping/v1alpha1/zz_generated.conversion.go", "generated/shipping/v1alpha1/zz_generated.conversion.go",
		// events.k8s.io/v1 Event is stored as core/v1 Event (storedAs=).
		"generated/events/v1/zz_generated.conversion.go", "types/zz_generated.conversion.go",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %s generated (got %s)", want, got)
		}
	}
	for _, hub := range []string{"types/shipping/v1/", "generated/shipping/v1/", "generated/core/v1/"} {
		if strings.Contains(got, hub) {
			t.Errorf("files generated for a hub version (%s): %s", hub, got)
		}
	}
	inPlace(t, "../..", files)

	// Conversions gives the server each served spoke kind with its hub.
	for _, f := range files {
		if f.Path != "generated/shipping/v1alpha1/zz_generated.conversion.go" {
			continue
		}
		src := string(f.Content)
		for _, want := range []string{
			"func Conversions() []fieldmanager.Conversion {",
			"fieldmanager.NewConversion(",
			"Version: \"v1alpha1\"", "Version: \"v1\"",
			"ShipmentToHub,", "ShipmentFromHub,",
		} {
			if !strings.Contains(src, want) {
				t.Errorf("%s lacks %q", f.Path, want)
			}
		}
	}
}

// TestMissingFunctions: shipping without types/shipping/v1alpha1/conversion.go
// fails, naming every function to write, with its signature and file.
func TestMissingFunctions(t *testing.T) {
	api := gentest.Load(t, "testdata/nohand")
	files, err := New().Generate(api)
	if err == nil {
		t.Fatalf("generate succeeded with %v; want an error", paths(files))
	}
	var me *MissingError
	if !errors.As(err, &me) {
		t.Fatalf("error %T %v is not a *MissingError", err, err)
	}
	want := []string{
		`types/shipping/v1alpha1/types.go:42:2: cannot convert field ShipmentSpec.Urgent (json "urgent") to v1: no field "urgent" in v1.ShipmentSpec
types/shipping/v1alpha1/types.go:46:2: cannot convert field ShipmentSpec.From (json "from") to v1: no field "from" in v1.ShipmentSpec; write
	func Convert_v1alpha1_ShipmentSpec_To_v1_ShipmentSpec(in *v1alpha1.ShipmentSpec, out *v1.ShipmentSpec) error
  in types/shipping/v1alpha1/conversion.go (call the generated autoConvert_v1alpha1_ShipmentSpec_To_v1_ShipmentSpec for the other fields)`,
		`types/shipping/v1alpha1/types.go:42:2: cannot fill field ShipmentSpec.Urgent (json "urgent") from v1: no field "urgent" in v1.ShipmentSpec
types/shipping/v1alpha1/types.go:46:2: cannot fill field ShipmentSpec.From (json "from") from v1: no field "from" in v1.ShipmentSpec; write
	func Convert_v1_ShipmentSpec_To_v1alpha1_ShipmentSpec(in *v1.ShipmentSpec, out *v1alpha1.ShipmentSpec) error
  in types/shipping/v1alpha1/conversion.go (call the generated autoConvert_v1_ShipmentSpec_To_v1alpha1_ShipmentSpec for the other fields)`,
	}
	if len(me.Problems) != len(want) {
		t.Fatalf("problems:\n%s\nwant %d", strings.Join(me.Problems, "\n---\n"), len(want))
	}
	for i := range want {
		if me.Problems[i] != want[i] {
			t.Errorf("problem %d:\n%s\nwant:\n%s", i, me.Problems[i], want[i])
		}
	}
	if !strings.HasPrefix(err.Error(), "generate conversion: 2 function(s) must be written by hand:\n") {
		t.Errorf("error = %q", err)
	}
}

// TestHubPackageFunction: a hand-written Convert_ in the hub package cannot
// be called (import cycle); generation says where to move it.
func TestHubPackageFunction(t *testing.T) {
	api := gentest.Load(t, "testdata/accept")
	hub := api.Groups[0].Versions[0]
	if hub.Name != "v1" {
		t.Fatalf("first version %s, want v1", hub.Name)
	}
	hub.Funcs["Convert_v1alpha1_GadgetSpec_To_v1_GadgetSpec"] = true
	defer delete(hub.Funcs, "Convert_v1alpha1_GadgetSpec_To_v1_GadgetSpec")
	_, err := New().Generate(api)
	if err == nil || !strings.Contains(err.Error(), "hand-written Convert_v1alpha1_GadgetSpec_To_v1_GadgetSpec is declared in the hub package") ||
		!strings.Contains(err.Error(), "move it to types/acceptance/v1alpha1/conversion.go") {
		t.Fatalf("error = %v", err)
	}
}

// TestIncompatibleType: a same-named field whose type changed needs
// hand-written code in both directions.
func TestIncompatibleType(t *testing.T) {
	api := gentest.Load(t, "testdata/accept")
	spoke := api.Groups[0].Versions[1]
	st := spoke.Type("GadgetSpec")
	var replicas *model.Field
	for _, f := range st.Fields {
		if f.JSONName == "replicas" {
			replicas = f
		}
	}
	old := replicas.Type
	replicas.Type = &model.TypeRef{Kind: model.BuiltinRef, Name: "string"}
	defer func() { replicas.Type = old }()
	_, err := New().Generate(api)
	var me *MissingError
	if !errors.As(err, &me) || len(me.Problems) != 2 {
		t.Fatalf("error = %v, want 2 missing functions", err)
	}
	for _, want := range []string{
		`cannot convert field GadgetSpec.Replicas (json "replicas") to v1: v1alpha1 type string, v1 type *int32; write
	func Convert_v1alpha1_GadgetSpec_To_v1_GadgetSpec(in *v1alpha1.GadgetSpec, out *v1.GadgetSpec) error`,
		`cannot convert field GadgetSpec.Replicas (json "replicas") to v1alpha1: v1alpha1 type string, v1 type *int32; write
	func Convert_v1_GadgetSpec_To_v1alpha1_GadgetSpec(in *v1.GadgetSpec, out *v1alpha1.GadgetSpec) error`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// TestStoredAsTree: events.k8s.io/v1 Event stored as core/v1 Event
// (+kubeforge:external storedAs=). The field-by-field functions go into the
// types root package beside the hand-written Event conversions (which are
// not generated again); the kind-level functions into
// generated/events/v1. Golden files live beside the input and compile.
func TestStoredAsTree(t *testing.T) {
	api := gentest.Load(t, "testdata/storedas")
	files, err := New().Generate(api)
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	want := []string{"generated/events/v1/zz_generated.conversion.go", "types/zz_generated.conversion.go"}
	if got := paths(files); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("files = %v, want %v", got, want)
	}
	typesFile, generatedFile := string(files[1].Content), string(files[0].Content)
	for _, s := range []string{
		"package types",
		`corev1 "k8s.io/api/core/v1"`, `eventsv1 "k8s.io/api/events/v1"`,
		"func autoConvert_eventsv1_Event_To_corev1_Event(in *eventsv1.Event, out *corev1.Event) error",
		"func autoConvert_corev1_Event_To_eventsv1_Event(in *corev1.Event, out *eventsv1.Event) error",
		"func Convert_eventsv1_EventSeries_To_corev1_EventSeries(in *eventsv1.EventSeries, out *corev1.EventSeries) error",
		"func Convert_corev1_EventList_To_eventsv1_EventList(in *corev1.EventList, out *eventsv1.EventList) error",
	} {
		if !strings.Contains(typesFile, s) {
			t.Errorf("types/zz_generated.conversion.go lacks %q", s)
		}
	}
	for _, s := range []string{"func Convert_eventsv1_Event_To_corev1_Event(", "func Convert_corev1_Event_To_eventsv1_Event("} {
		if strings.Contains(typesFile, s) {
			t.Errorf("types/zz_generated.conversion.go generates the hand-written %s", s)
		}
	}
	for _, s := range []string{
		"package eventsv1",
		"func EventToHub(in *eventsv1.Event) (*corev1.Event, error)",
		"func EventFromHub(in *corev1.Event) (*eventsv1.Event, error)",
		"func EventListFromHub(in *corev1.EventList) (*eventsv1.EventList, error)",
		"types.Convert_eventsv1_Event_To_corev1_Event(in, out)",
		`out.APIVersion, out.Kind = "v1", "Event"`,
		`out.APIVersion, out.Kind = "events.k8s.io/v1", "Event"`,
		"func RegisterConversions(s *runtime.Scheme) error",
	} {
		if !strings.Contains(generatedFile, s) {
			t.Errorf("generated/events/v1/zz_generated.conversion.go lacks %q", s)
		}
	}
	inPlace(t, "testdata/storedas", files)
	gentest.Compile(t, "testdata/storedas", files)
}

// TestStoredAsMissingFunctions: without the hand-written Event conversions
// generation fails, naming both functions with their exact signatures, the
// file and the imports.
func TestStoredAsMissingFunctions(t *testing.T) {
	api := gentest.Load(t, "testdata/nohandstoredas")
	files, err := New().Generate(api)
	var me *MissingError
	if !errors.As(err, &me) {
		t.Fatalf("generate: %v (files %v), want a *MissingError", err, paths(files))
	}
	if len(me.Problems) != 2 {
		t.Fatalf("problems:\n%s\nwant 2", strings.Join(me.Problems, "\n---\n"))
	}
	for i, want := range []struct{ field, tail string }{
		{`k8s.io/api/events/v1/types.go:69:2: cannot convert field Event.Regarding (json "regarding") to corev1: no field "regarding" in corev1.Event`, `; write
	func Convert_eventsv1_Event_To_corev1_Event(in *eventsv1.Event, out *corev1.Event) error
  in types/conversion.go (package types, importing eventsv1 "k8s.io/api/events/v1" and corev1 "k8s.io/api/core/v1"; call the generated autoConvert_eventsv1_Event_To_corev1_Event for the other fields)`},
		{`k8s.io/api/events/v1/types.go:69:2: cannot fill field Event.Regarding (json "regarding") from corev1: no field "regarding" in corev1.Event`, `; write
	func Convert_corev1_Event_To_eventsv1_Event(in *corev1.Event, out *eventsv1.Event) error
  in types/conversion.go (package types, importing corev1 "k8s.io/api/core/v1" and eventsv1 "k8s.io/api/events/v1"; call the generated autoConvert_corev1_Event_To_eventsv1_Event for the other fields)`},
	} {
		p := me.Problems[i]
		if !strings.Contains(p, want.field) || !strings.HasSuffix(p, want.tail) {
			t.Errorf("problem %d:\n%s\nwant a line %q and the ending\n%s", i, p, want.field, want.tail)
		}
		for _, f := range []string{"reportingController", "note", "deprecatedSource", "deprecatedFirstTimestamp", "deprecatedLastTimestamp", "deprecatedCount"} {
			if !strings.Contains(p, `(json "`+f+`")`) {
				t.Errorf("problem %d does not name field %s:\n%s", i, f, p)
			}
		}
	}
}
