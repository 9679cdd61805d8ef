package builtinfields_test

import (
	"flag"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/kubeforge/kubeforge/generators/builtinfields"
	"github.com/kubeforge/kubeforge/generators/defaults"
	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/internal/builtintest"
	gencoordinationv1 "github.com/kubeforge/kubeforge/generators/internal/builtintest/testdata/golden/generated/coordination/v1"
	gencorev1 "github.com/kubeforge/kubeforge/generators/internal/builtintest/testdata/golden/generated/core/v1"
	geneventsv1 "github.com/kubeforge/kubeforge/generators/internal/builtintest/testdata/golden/generated/events/v1"
	"github.com/kubeforge/kubeforge/generators/internal/gentest"
	"github.com/kubeforge/kubeforge/generators/model"
	"github.com/kubeforge/kubeforge/generators/register"
	"github.com/kubeforge/kubeforge/generators/storage"
	"github.com/kubeforge/kubeforge/generators/validation"
	"github.com/kubeforge/kubeforge/runtime/resource"
)

var update = flag.Bool("update", false, "rewrite the golden files under "+builtintest.GoldenDir)

// generate runs the generators a strategy needs (defaults, validation,
// register, storage) over the shared types in generators/internal/builtintest/testdata.
func generate(t *testing.T) []genall.File {
	t.Helper()
	api := gentest.Load(t, builtintest.Dir)
	var files []genall.File
	for _, g := range []genall.Generator{defaults.New(), validation.New(), register.Generator{}, storage.New()} {
		out, err := g.Generate(api)
		if err != nil {
			t.Fatalf("%s: %v", g.Name(), err)
		}
		files = append(files, out...)
	}
	return files
}

// TestGolden: the generated tree is the committed one under builtintest.GoldenDir
// (go test -update rewrites it) and compiles; the tests below run it.
func TestGolden(t *testing.T) {
	files := generate(t)
	gentest.Golden(t, files, builtintest.GoldenDir)
	for _, f := range files {
		src := string(f.Content)
		if strings.Contains(src, "configMapSelectableFields") || strings.Contains(src, "leaseSelectableFields") {
			t.Errorf("%s: a kind without a table got a SelectableFields function", f.Path)
		}
	}
	if !gentest.Updating() {
		gentest.Compile(t, builtintest.Dir, files)
	}
}

// TestLabels: the Info rows list kube-apiserver's labels; kinds without a
// table have its default field label conversion.
func TestLabels(t *testing.T) {
	for _, tc := range []struct {
		info *resource.Info
		want string
	}{
		{&gencorev1.EventInfo, "involvedObject.apiVersion involvedObject.fieldPath involvedObject.kind involvedObject.name involvedObject.namespace involvedObject.resourceVersion involvedObject.uid metadata.name metadata.namespace reason reportingComponent source type"},
		{&geneventsv1.EventInfo, "metadata.name metadata.namespace reason regarding.apiVersion regarding.fieldPath regarding.kind regarding.name regarding.namespace regarding.resourceVersion regarding.uid reportingController source type"},
		{&gencorev1.NamespaceInfo, "metadata.name status.phase"},
		{&gencorev1.SecretInfo, "metadata.name metadata.namespace type"},
		{&gencorev1.ServiceInfo, "metadata.name metadata.namespace spec.clusterIP spec.type"},
		{&gencorev1.ConfigMapInfo, "metadata.name metadata.namespace"},
		{&gencoordinationv1.LeaseInfo, "metadata.name metadata.namespace"},
	} {
		if got := strings.Join(tc.info.FieldLabels(), " "); got != tc.want {
			t.Errorf("%s %s labels:\n%s\nwant:\n%s", tc.info.Group, tc.info.Kind, got, tc.want)
		}
	}
	for _, info := range []*resource.Info{&gencorev1.ConfigMapInfo, &gencoordinationv1.LeaseInfo} {
		if !info.DefaultFieldLabelConversion || len(info.SelectableFields) != 0 {
			t.Errorf("%s: want kube-apiserver's default field label conversion, got %+v", info.Kind, info)
		}
		if err := info.CheckFieldLabel("spec.x"); err == nil || err.Error() != `"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"` {
			t.Errorf("%s: CheckFieldLabel(spec.x) = %v", info.Kind, err)
		}
	}
	if err := gencorev1.NamespaceInfo.CheckFieldLabel("metadata.namespace"); err == nil || err.Error() != "field label not supported: metadata.namespace" {
		t.Errorf("Namespace: CheckFieldLabel(metadata.namespace) = %v", err)
	}
	if err := geneventsv1.EventInfo.CheckFieldLabel("involvedObject.name"); err == nil || err.Error() != "field label not supported: involvedObject.name" {
		t.Errorf("events.k8s.io Event: CheckFieldLabel(involvedObject.name) = %v", err)
	}
}

func same(t *testing.T, what string, got, want fields.Set) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	}
}

// TestValues runs the generated field sets on the cases kube-apiserver's
// ToSelectableFields distinguishes.
func TestValues(t *testing.T) {
	ref := corev1.ObjectReference{Kind: "Shipment", Namespace: "ns", Name: "s1", UID: "u-1", APIVersion: "shipping.kubeforge.dev/v1", ResourceVersion: "42", FieldPath: "spec.parcels[0]"}
	meta := metav1.ObjectMeta{Name: "s1.17", Namespace: "ns"}

	same(t, "core/v1 event", gencorev1.EventStrategy.SelectableFields(&corev1.Event{
		ObjectMeta: meta, InvolvedObject: ref, Reason: "Delayed", Type: corev1.EventTypeWarning,
		Source: corev1.EventSource{Component: "dispatcher", Host: "node-1"}, ReportingController: "kubeforge.dev/dispatcher",
	}), fields.Set{
		"metadata.name": "s1.17", "metadata.namespace": "ns",
		"involvedObject.kind": "Shipment", "involvedObject.namespace": "ns", "involvedObject.name": "s1",
		"involvedObject.uid": "u-1", "involvedObject.apiVersion": "shipping.kubeforge.dev/v1",
		"involvedObject.resourceVersion": "42", "involvedObject.fieldPath": "spec.parcels[0]",
		"reason": "Delayed", "reportingComponent": "kubeforge.dev/dispatcher", "source": "dispatcher", "type": "Warning",
	})
	// Without a source component the source is the reporting controller.
	same(t, "core/v1 event without source", gencorev1.EventStrategy.SelectableFields(&corev1.Event{
		ObjectMeta: meta, ReportingController: "kubeforge.dev/dispatcher",
	}), fields.Set{
		"metadata.name": "s1.17", "metadata.namespace": "ns",
		"involvedObject.kind": "", "involvedObject.namespace": "", "involvedObject.name": "",
		"involvedObject.uid": "", "involvedObject.apiVersion": "",
		"involvedObject.resourceVersion": "", "involvedObject.fieldPath": "",
		"reason": "", "reportingComponent": "kubeforge.dev/dispatcher", "source": "kubeforge.dev/dispatcher", "type": "",
	})

	same(t, "events.k8s.io/v1 event", geneventsv1.EventStrategy.SelectableFields(&eventsv1.Event{
		ObjectMeta: meta, Regarding: ref, Reason: "Delayed", Type: corev1.EventTypeNormal,
		DeprecatedSource: corev1.EventSource{Component: "dispatcher"}, ReportingController: "kubeforge.dev/dispatcher",
	}), fields.Set{
		"metadata.name": "s1.17", "metadata.namespace": "ns",
		"regarding.kind": "Shipment", "regarding.namespace": "ns", "regarding.name": "s1",
		"regarding.uid": "u-1", "regarding.apiVersion": "shipping.kubeforge.dev/v1",
		"regarding.resourceVersion": "42", "regarding.fieldPath": "spec.parcels[0]",
		"reason": "Delayed", "reportingController": "kubeforge.dev/dispatcher", "source": "dispatcher", "type": "Normal",
	})

	same(t, "namespace", gencorev1.NamespaceStrategy.SelectableFields(&corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: "prod"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating},
	}), fields.Set{"metadata.name": "prod", "status.phase": "Terminating"})
	same(t, "secret", gencorev1.SecretStrategy.SelectableFields(&corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "tls", Namespace: "ns"}, Type: corev1.SecretTypeTLS,
	}), fields.Set{"metadata.name": "tls", "metadata.namespace": "ns", "type": "kubernetes.io/tls"})
	same(t, "service", gencorev1.ServiceStrategy.SelectableFields(&corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"}, Spec: corev1.ServiceSpec{ClusterIP: "10.0.0.1", Type: corev1.ServiceTypeClusterIP},
	}), fields.Set{"metadata.name": "web", "metadata.namespace": "ns", "spec.clusterIP": "10.0.0.1", "spec.type": "ClusterIP"})

	if gencorev1.ConfigMapStrategy.SelectableFields != nil || gencoordinationv1.LeaseStrategy.SelectableFields != nil {
		t.Error("kinds without a table must select on metadata only (nil SelectableFields)")
	}
}

// TestTables: every table's fields are sorted and unique, and read fields
// the loaded kinds have (a k8s.io/api change that drops one fails For).
func TestTables(t *testing.T) {
	api := gentest.Load(t, builtintest.Dir)
	kinds := map[string]*model.Kind{}
	for _, g := range api.Groups {
		for _, v := range g.Versions {
			for _, k := range v.Kinds {
				kinds[v.Package+" "+k.Name] = k
			}
		}
	}
	for _, tab := range builtinfields.Tables() {
		k := kinds[tab.Package+" "+tab.Kind]
		if k == nil {
			t.Errorf(builtintest.Dir+"/types/doc.go does not declare %s %s", tab.Package, tab.Kind)
			continue
		}
		got, err := builtinfields.For(k)
		if err != nil || got != tab {
			t.Errorf("For(%s %s) = %v, %v", tab.Package, tab.Kind, got, err)
		}
		labels := tab.Labels()
		for i, f := range tab.Fields {
			if f.Label != labels[i] || (i > 0 && labels[i-1] == f.Label) {
				t.Errorf("%s %s: fields not sorted or not unique at %s", tab.Package, tab.Kind, f.Label)
			}
		}
	}
	// A kind lacking a field the table reads fails with the field's name.
	broken := *kinds["k8s.io/api/core/v1 Namespace"]
	broken.Type = &model.Type{Name: "Namespace", Fields: []*model.Field{{Name: "Spec"}}}
	if _, err := builtinfields.For(&broken); err == nil || !strings.Contains(err.Error(), "reads Status.Phase: no field Status") {
		t.Errorf("For(Namespace without Status) = %v", err)
	}
}
