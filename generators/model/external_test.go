package model

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/markers"
)

// writeTree writes files (slash paths relative to dir) and removes dir when
// the test ends.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	t.Cleanup(func() { os.RemoveAll(dir) })
	for name, src := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLoadExternal: declared k8s.io/api kinds are modelled from the
// declaration and the package (group from its +groupName, version from its
// directory, scope from +genclient:nonNamespaced, status when the kind has
// one), only what they reach is modelled, and k8s.io/api's markers never
// fail loading.
func TestLoadExternal(t *testing.T) {
	t.Parallel()
	writeTree(t, filepath.Join("testdata", "ext"), map[string]string{
		"types/doc.go": "// Package types.\n//\n" +
			"// +kubeforge:external:package=k8s.io/api/core/v1,kind=Namespace,shortName=ns\n" +
			"// +kubeforge:external:package=k8s.io/api/core/v1,kind=ConfigMap,plural=configmaps,categories=all\n" +
			"// +kubeforge:external:package=k8s.io/api/coordination/v1,kind=Lease,scope=Cluster\n" +
			"package types\n",
		"types/own/v1/doc.go": "// +groupName=own.example.dev\npackage v1\n",
		"types/own/v1/types.go": "package v1\n\nimport (\n\tcorev1 \"k8s.io/api/core/v1\"\n\tmetav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n)\n\n" +
			"// +kubebuilder:object:root=true\ntype Thing struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\tmetav1.ObjectMeta `json:\"metadata,omitempty\"`\n" +
			"\tRef corev1.ObjectReference `json:\"ref\"`\n}\n",
	})
	api := load(t, "testdata/ext")
	if got, want := strings.Join(groupNames(api), " "), "=v1 coordination.k8s.io=v1 own.example.dev=v1"; got != want {
		t.Fatalf("groups = %s, want %s", got, want)
	}
	core := mustVersion(t, api, "", "v1")
	if !core.External || core.Group.Short != "core" || core.Package != "k8s.io/api/core/v1" || core.GroupVersion() != "v1" {
		t.Errorf("core/v1: External %v Short %q Package %q GroupVersion %q", core.External, core.Group.Short, core.Package, core.GroupVersion())
	}
	ns, cm := core.Kind("Namespace"), core.Kind("ConfigMap")
	if ns == nil || cm == nil || len(core.Kinds) != 2 {
		t.Fatalf("core kinds = %v", core.Kinds)
	}
	if ns.Namespaced || !ns.StatusSubresource || ns.NameRule != NameDNSLabel || ns.Plural != "namespaces" ||
		strings.Join(ns.ShortNames, ",") != "ns" || ns.List == nil || ns.ListName != "NamespaceList" || !ns.Storage || !ns.Served {
		t.Errorf("Namespace = %+v", ns)
	}
	if !cm.Namespaced || cm.StatusSubresource || cm.NameRule != NameDNSSubdomain || strings.Join(cm.Categories, ",") != "all" {
		t.Errorf("ConfigMap = %+v", cm)
	}
	lease := mustVersion(t, api, "coordination.k8s.io", "v1").Kind("Lease")
	if lease == nil || lease.Namespaced || lease.Version.Group.Short != "coordination" || lease.SpecField == nil {
		t.Errorf("Lease = %+v", lease)
	}
	// Only what the kinds (and the owned Thing) reach: no Pod, no Service.
	if core.Type("Pod") != nil || core.Type("Service") != nil || core.Type("ObjectReference") == nil || core.Type("NamespaceStatus") == nil {
		var names []string
		for _, ty := range core.Types {
			names = append(names, ty.Name)
		}
		t.Errorf("core/v1 types = %s", strings.Join(names, " "))
	}
	if ref := mustField(t, mustVersion(t, api, "own.example.dev", "v1"), "Thing", "Ref"); ref.Type.Local != core.Type("ObjectReference") {
		t.Errorf("Thing.Ref = %+v, want the modelled core/v1 ObjectReference", ref.Type)
	}
	// Positions name the import path, never the module cache.
	if p := ns.Type.Pos.File; p != "k8s.io/api/core/v1/types.go" {
		t.Errorf("Namespace at %s", ns.Type.Pos)
	}
	// Field markers of k8s.io/api are read (+listType=map on conditions).
	if f := mustField(t, core, "NamespaceStatus", "Conditions"); f.ListType != "map" || strings.Join(f.ListMapKeys, ",") != "type" {
		t.Errorf("NamespaceStatus.Conditions: listType %q keys %v", f.ListType, f.ListMapKeys)
	}
	owned := api.Owned()
	if got := strings.Join(groupNames(owned), " "); got != "own.example.dev=v1" {
		t.Errorf("Owned() groups = %s", got)
	}
}

// TestLoadExternalErrors: every bad declaration is reported at its
// file:line:col.
func TestLoadExternalErrors(t *testing.T) {
	t.Parallel()
	writeTree(t, filepath.Join("testdata", "exterr"), map[string]string{
		"types/doc.go": "// Package types.\n//\n" +
			"// +kubeforge:external:package=k8s.io/api/core/v1,kind=ConfigMap\n" +
			"// +kubeforge:external:package=k8s.io/api/core/v1,kind=ConfigMap,shortName=cm\n" +
			"// +kubeforge:external:package=k8s.io/api/core/v1,kind=ConfigMapp\n" +
			"// +kubeforge:external:package=k8s.io/api/core/v1,kind=ObjectReference\n" +
			"// +kubeforge:external:package=k8s.io/api/coordination/v1,kind=Lease,scop=Cluster\n" +
			"// +kubeforge:external:package=k8s.io/api/nosuch/v1,kind=Thing\n" +
			"// +kubeforge:external:kind=Thing\n" +
			"package types\n",
		"types/own/v1/doc.go": "// +groupName=own.example.dev\n// +kubeforge:external:package=k8s.io/api/core/v1,kind=Secret\npackage v1\n",
	})
	_, err := Load("testdata/exterr", LoadOptions{})
	var list markers.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error is not a markers.ErrorList: %v", err)
	}
	want := []string{
		`types/doc.go:4:4: +kubeforge:external: kind ConfigMap of k8s.io/api/core/v1 is already declared at types/doc.go:3:4`,
		`types/doc.go:5:4: +kubeforge:external: package k8s.io/api/core/v1 has no type ConfigMapp: did you mean "ConfigMap"?`,
		`types/doc.go:6:4: +kubeforge:external: type ObjectReference of k8s.io/api/core/v1 is not a root object (a struct embedding metav1.TypeMeta and metav1.ObjectMeta)`,
		`types/doc.go:7:4: marker "kubeforge:external": unknown argument "scop": did you mean "scope"?`,
		`types/doc.go:8:4: +kubeforge:external: cannot load package k8s.io/api/nosuch/v1: no required module provides package k8s.io/api/nosuch/v1; to add it: go get k8s.io/api/nosuch/v1`,
		`types/doc.go:9:4: marker "kubeforge:external": missing required argument "package"`,
		`types/own/v1/doc.go:2:4: package types/own/v1: +kubeforge:external belongs in types/doc.go only`,
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Error())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(err.Error(), "load types from testdata/exterr: ") {
		t.Errorf("error not wrapped with the operation: %v", err)
	}
}

// TestLoadExternalStoredAs: a kind declared storedAs= another declared
// package's kind of the same name is linked to it (StoredAs, Hub) and is no
// storage version; the types root package records its hand-written
// functions only.
func TestLoadExternalStoredAs(t *testing.T) {
	t.Parallel()
	writeTree(t, filepath.Join("testdata", "storedas"), map[string]string{
		"types/doc.go": "// Package types.\n//\n" +
			"// +kubeforge:external:package=k8s.io/api/core/v1,kind=Event,shortName=ev\n" +
			"// +kubeforge:external:package=k8s.io/api/events/v1,kind=Event,shortName=ev,storedAs=k8s.io/api/core/v1\n" +
			"package types\n",
		"types/conversion.go":              "package types\n\nfunc Convert_eventsv1_Event_To_corev1_Event() {}\n\nfunc (x T) Convert_method() {}\n\ntype T int\n",
		"types/zz_generated.conversion.go": "//go:build !ignore_autogenerated\n\npackage types\n\nfunc autoConvert_eventsv1_Event_To_corev1_Event() {}\n",
		"types/conversion_test.go":         "package types\n\nfunc Convert_test() {}\n",
	})
	api := load(t, "testdata/storedas")
	core := mustVersion(t, api, "", "v1").Kind("Event")
	events := mustVersion(t, api, "events.k8s.io", "v1").Kind("Event")
	if core == nil || events == nil {
		t.Fatalf("kinds: core %v events %v", core, events)
	}
	if events.StoredAs != core || events.Storage || !events.Served || events.Hub() != core {
		t.Errorf("events.k8s.io/v1 Event: StoredAs %v Storage %v Served %v Hub %v, want stored as core/v1 Event", events.StoredAs, events.Storage, events.Served, events.Hub())
	}
	if core.StoredAs != nil || !core.Storage || core.Hub() != core {
		t.Errorf("core/v1 Event: StoredAs %v Storage %v Hub %v, want its own storage", core.StoredAs, core.Storage, core.Hub())
	}
	if g := events.Version.Group; g.StorageVersion("Event") != nil {
		t.Errorf("events.k8s.io has a storage version of Event: %v", g.StorageVersion("Event").Name)
	}
	tp := api.Types
	if tp == nil || tp.Package != api.Module+"/types" || tp.Dir != "types" || tp.Name != "types" {
		t.Fatalf("Types = %+v", tp)
	}
	var funcs []string
	for f := range tp.Funcs {
		funcs = append(funcs, f)
	}
	if strings.Join(funcs, ",") != "Convert_eventsv1_Event_To_corev1_Event" {
		t.Errorf("types root functions %v, want only the hand-written Convert_eventsv1_Event_To_corev1_Event", funcs)
	}
}

// TestLoadExternalStoredAsErrors: every bad storedAs= is reported once, at
// its declaration.
func TestLoadExternalStoredAsErrors(t *testing.T) {
	t.Parallel()
	const (
		core   = "// +kubeforge:external:package=k8s.io/api/core/v1,kind=Event\n"
		events = "// +kubeforge:external:package=k8s.io/api/events/v1,kind=Event,storedAs=k8s.io/api/core/v1\n"
	)
	for name, c := range map[string]struct {
		decls string
		want  []string
	}{
		"kind not declared": {
			"// +kubeforge:external:package=k8s.io/api/core/v1,kind=Namespace,scope=Cluster\n" +
				"// +kubeforge:external:package=k8s.io/api/core/v1,kind=ConfigMap\n" + events,
			[]string{`types/doc.go:5:4: +kubeforge:external: storedAs=k8s.io/api/core/v1: kind Event of k8s.io/api/core/v1 is not declared (declared there: ConfigMap, Namespace); a kind is stored as the kind of the same name`},
		},
		"package not declared": {
			events,
			[]string{`types/doc.go:3:4: +kubeforge:external: storedAs=k8s.io/api/core/v1: package k8s.io/api/core/v1 is not declared; add // +kubeforge:external:package=k8s.io/api/core/v1,kind=Event`},
		},
		"itself": {
			"// +kubeforge:external:package=k8s.io/api/core/v1,kind=Event,storedAs=k8s.io/api/core/v1\n",
			[]string{`types/doc.go:3:4: +kubeforge:external: kind Event of k8s.io/api/core/v1 cannot be stored as itself (storedAs=k8s.io/api/core/v1)`},
		},
		"not an import path": {
			core + "// +kubeforge:external:package=k8s.io/api/events/v1,kind=Event,storedAs=./core\n",
			[]string{`types/doc.go:4:4: +kubeforge:external: storedAs="./core" must be the import path of another declared package`},
		},
		"chain": {
			core + events + "// +kubeforge:external:package=k8s.io/api/events/v1beta1,kind=Event,storedAs=k8s.io/api/events/v1\n",
			[]string{`types/doc.go:5:4: +kubeforge:external: storedAs=k8s.io/api/events/v1: kind Event of k8s.io/api/events/v1 is itself stored as k8s.io/api/core/v1 (declared at types/doc.go:4:4); name the package that stores it`},
		},
		"same group": {
			"// +kubeforge:external:package=k8s.io/api/events/v1,kind=Event\n" +
				"// +kubeforge:external:package=k8s.io/api/events/v1beta1,kind=Event,storedAs=k8s.io/api/events/v1\n",
			[]string{`types/doc.go:4:4: +kubeforge:external: storedAs=k8s.io/api/events/v1: k8s.io/api/events/v1beta1 and k8s.io/api/events/v1 are versions of the same group "events.k8s.io"; versions of one group share a store through its storage version`},
		},
		"scope": {
			core + "// +kubeforge:external:package=k8s.io/api/events/v1,kind=Event,scope=Cluster,storedAs=k8s.io/api/core/v1\n",
			[]string{`types/doc.go:4:4: +kubeforge:external: storedAs=k8s.io/api/core/v1: kind Event is cluster-scoped in k8s.io/api/events/v1 but namespaced in k8s.io/api/core/v1`},
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join("testdata", "storedaserr-"+strings.ReplaceAll(name, " ", "-"))
			writeTree(t, dir, map[string]string{"types/doc.go": "// Package types.\n//\n" + c.decls + "package types\n"})
			_, err := Load(dir, LoadOptions{})
			var list markers.ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("error is not a markers.ErrorList: %v", err)
			}
			var got []string
			for _, e := range list {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}
