package builtinprinters_test

import (
	"flag"
	"regexp"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/kubeforge/kubeforge/generators/builtinprinters"
	"github.com/kubeforge/kubeforge/generators/defaults"
	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/internal/builtintest"
	gencoordinationv1 "github.com/kubeforge/kubeforge/generators/internal/builtintest/testdata/golden/generated/coordination/v1"
	gencorev1 "github.com/kubeforge/kubeforge/generators/internal/builtintest/testdata/golden/generated/core/v1"
	geneventsv1 "github.com/kubeforge/kubeforge/generators/internal/builtintest/testdata/golden/generated/events/v1"
	genrbacv1 "github.com/kubeforge/kubeforge/generators/internal/builtintest/testdata/golden/generated/rbac/v1"
	"github.com/kubeforge/kubeforge/generators/internal/gentest"
	"github.com/kubeforge/kubeforge/generators/model"
	"github.com/kubeforge/kubeforge/generators/register"
	"github.com/kubeforge/kubeforge/generators/storage"
	"github.com/kubeforge/kubeforge/generators/validation"
	"github.com/kubeforge/kubeforge/runtime/resource"
)

var update = flag.Bool("update", false, "rewrite the golden files under "+builtintest.GoldenDir)

// generate runs the generators whose output a strategy needs (defaults,
// validation, register, storage) over the types shared with the
// builtinfields tests (builtintest.Dir): every kind with a table, and
// Service, which has none.
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

// TestGolden: the generated tree is the committed one under
// builtintest.GoldenDir (go test -update rewrites it) and compiles; the tests
// below run it.
func TestGolden(t *testing.T) {
	files := generate(t)
	gentest.Golden(t, files, builtintest.GoldenDir)
	byPath := map[string]string{}
	for _, f := range files {
		byPath[f.Path] = string(f.Content)
	}
	// gofmt aligns the values of a composite literal: compare with single spaces.
	oneSpace := regexp.MustCompile(`: +`)
	reg := oneSpace.ReplaceAllString(byPath["generated/core/v1/"+register.FileName], ": ")
	stor := oneSpace.ReplaceAllString(byPath["generated/core/v1/"+storage.FileName], ": ")
	for _, s := range []string{
		`{Name: "Status", Type: "string", Description: "The status of the namespace"}`,
		`{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"], Priority: 1}`,
		"PrinterColumnsWithName: true",
	} {
		if !strings.Contains(reg, s) {
			t.Errorf("core/v1 register lacks %q", s)
		}
	}
	for _, s := range []string{
		"PrinterCells: namespacePrinterCells,", "PrinterCells: eventPrinterCells,",
		"PrinterCells: configMapPrinterCells,", "PrinterCells: secretPrinterCells,",
		"func printerAge(t time.Time) string {",
	} {
		if !strings.Contains(stor, s) {
			t.Errorf("core/v1 storage lacks %q", s)
		}
	}
	if n := strings.Count(stor, "func printerAge("); n != 1 {
		t.Errorf("core/v1 storage has %d printerAge helpers, want 1", n)
	}
	if strings.Contains(stor, "servicePrinterCells") {
		t.Error("Service has no table but got printer cells")
	}
	if !gentest.Updating() {
		gentest.Compile(t, builtintest.Dir, files)
	}
}

// The Info rows: kube-apiserver's columns, the name column included; a kind
// without a table keeps the runtime's default (no printer columns).
func TestColumns(t *testing.T) {
	names := func(info *resource.Info) string {
		var out []string
		for _, c := range info.PrinterColumns {
			n := c.Name
			if c.Priority > 0 {
				n += "*"
			}
			if c.Description == "" {
				t.Errorf("%s: column %q has no description", info.Kind, c.Name)
			}
			out = append(out, n)
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct {
		info *resource.Info
		want string
	}{
		{&gencorev1.NamespaceInfo, "Name,Status,Age"},
		{&gencorev1.ConfigMapInfo, "Name,Data,Age"},
		{&gencorev1.SecretInfo, "Name,Type,Data,Age"},
		{&gencorev1.EventInfo, "Last Seen,Type,Reason,Object,Subobject*,Source*,Message,First Seen*,Count*,Name*"},
		{&geneventsv1.EventInfo, "Last Seen,Type,Reason,Object,Subobject*,Source*,Message,First Seen*,Count*,Name*"},
		{&gencoordinationv1.LeaseInfo, "Name,Holder,Age"},
		{&gencorev1.ServiceAccountInfo, "Name,Age"},
		{&genrbacv1.RoleBindingInfo, "Name,Role,Age,Users*,Groups*,ServiceAccounts*"},
		{&genrbacv1.ClusterRoleBindingInfo, "Name,Role,Age,Users*,Groups*,ServiceAccounts*"},
	} {
		if got := names(tc.info); got != tc.want {
			t.Errorf("%s %s columns %s, want %s", tc.info.Group, tc.info.Kind, got, tc.want)
		}
		if !tc.info.PrinterColumnsWithName {
			t.Errorf("%s %s: PrinterColumnsWithName is false", tc.info.Group, tc.info.Kind)
		}
	}
	if len(gencorev1.ServiceInfo.PrinterColumns) != 0 || gencorev1.ServiceInfo.PrinterColumnsWithName || gencorev1.ServiceStrategy.PrinterCells != nil {
		t.Errorf("Service has no table: %+v", gencorev1.ServiceInfo)
	}
}

func ago(d time.Duration) metav1.Time {
	return metav1.NewTime(time.Now().Add(-d - 30*time.Second))
}

func age(ts metav1.Time) string { return duration.HumanDuration(time.Since(ts.Time)) }

// cells compares a row with want, cell by cell; a *regexp.Regexp matches a
// string cell.
func cells(t *testing.T, what string, got []any, want ...any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d cells %#v, want %d %#v", what, len(got), got, len(want), want)
	}
	for i := range want {
		if re, ok := want[i].(*regexp.Regexp); ok {
			if s, ok := got[i].(string); !ok || !re.MatchString(s) {
				t.Errorf("%s: cell %d = %#v, want a match of %s", what, i, got[i], re)
			}
			continue
		}
		if got[i] != want[i] {
			t.Errorf("%s: cell %d = %#v (%T), want %#v (%T)", what, i, got[i], got[i], want[i], want[i])
		}
	}
}

// TestCells runs the generated cells (typed values, before the runtime
// turns them into JSON) on the cases kube-apiserver's printers distinguish.
func TestCells(t *testing.T) {
	created := ago(3 * time.Hour)
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, CreationTimestamp: created} }

	cells(t, "namespace", gencorev1.NamespaceStrategy.PrinterCells(&corev1.Namespace{
		ObjectMeta: meta("prod"), Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating},
	}), "prod", "Terminating", age(created))
	cells(t, "namespace without creationTimestamp", gencorev1.NamespaceStrategy.PrinterCells(&corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: "new"},
	}), "new", "", "<unknown>")

	cells(t, "configmap", gencorev1.ConfigMapStrategy.PrinterCells(&corev1.ConfigMap{
		ObjectMeta: meta("cfg"), Data: map[string]string{"a": "1", "b": "2"}, BinaryData: map[string][]byte{"c": {1}},
	}), "cfg", int64(3), age(created))
	cells(t, "secret", gencorev1.SecretStrategy.PrinterCells(&corev1.Secret{
		ObjectMeta: meta("tls"), Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.crt": nil, "tls.key": nil},
	}), "tls", "kubernetes.io/tls", int64(2), age(created))

	holder := "replica-1_1234"
	cells(t, "lease", gencoordinationv1.LeaseStrategy.PrinterCells(&coordinationv1.Lease{
		ObjectMeta: meta("leader"), Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder},
	}), "leader", holder, age(created))
	cells(t, "lease without holder", gencoordinationv1.LeaseStrategy.PrinterCells(&coordinationv1.Lease{
		ObjectMeta: meta("free"),
	}), "free", "", age(created))

	cells(t, "serviceaccount", gencorev1.ServiceAccountStrategy.PrinterCells(&corev1.ServiceAccount{ObjectMeta: meta("robot")}),
		"robot", age(created))
	subjects := []rbacv1.Subject{
		{Kind: rbacv1.UserKind, Name: "alice"}, {Kind: rbacv1.GroupKind, Name: "devs"}, {Kind: rbacv1.UserKind, Name: "bob"},
		{Kind: rbacv1.ServiceAccountKind, Name: "robot", Namespace: "team-a"}, {Kind: "Other", Name: "x"},
	}
	cells(t, "rolebinding", genrbacv1.RoleBindingStrategy.PrinterCells(&rbacv1.RoleBinding{
		ObjectMeta: meta("rb"), RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"}, Subjects: subjects,
	}), "rb", "ClusterRole/view", age(created), "alice, bob", "devs", "team-a/robot")
	cells(t, "clusterrolebinding without subjects", genrbacv1.ClusterRoleBindingStrategy.PrinterCells(&rbacv1.ClusterRoleBinding{
		ObjectMeta: meta("crb"), RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "admin"},
	}), "crb", "ClusterRole/admin", age(created), "", "", "")

	first, last, observed := ago(5*time.Hour), ago(time.Hour), ago(10*time.Minute)
	eventTime := metav1.NewMicroTime(ago(2 * time.Hour).Time)

	// core/v1: counted event with source and both timestamps.
	cells(t, "core/v1 event", gencorev1.EventStrategy.PrinterCells(&corev1.Event{
		ObjectMeta:     meta("web-0.1"),
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web-0", FieldPath: "spec.containers{app}"},
		Reason:         "BackOff", Message: "\tBack-off restarting failed container \n", Type: corev1.EventTypeWarning,
		Source:         corev1.EventSource{Component: "kubelet", Host: "node-1"},
		FirstTimestamp: first, LastTimestamp: last, Count: 12,
	}), age(last), "Warning", "BackOff", "pod/web-0", "spec.containers{app}", "kubelet, node-1",
		"Back-off restarting failed container", age(first), int64(12), "web-0.1")
	// core/v1: no lastTimestamp (LAST SEEN is FIRST SEEN), no host, no name.
	cells(t, "core/v1 event without lastTimestamp", gencorev1.EventStrategy.PrinterCells(&corev1.Event{
		ObjectMeta:     meta("node.1"),
		InvolvedObject: corev1.ObjectReference{Kind: "Node"},
		Source:         corev1.EventSource{Component: "kubelet"},
		FirstTimestamp: first, Count: 1,
	}), age(first), "", "", "node", "", "kubelet", "", age(first), int64(1), "node.1")
	// core/v1 written by an events.k8s.io client: eventTime, series,
	// reporting controller and instance.
	cells(t, "core/v1 event with a series", gencorev1.EventStrategy.PrinterCells(&corev1.Event{
		ObjectMeta:          meta("lease.1"),
		InvolvedObject:      corev1.ObjectReference{Kind: "Lease", Name: "leader"},
		EventTime:           eventTime,
		Series:              &corev1.EventSeries{Count: 5, LastObservedTime: metav1.NewMicroTime(observed.Time)},
		ReportingController: "example.dev/ctrl", ReportingInstance: "ctrl-1",
	}), age(observed), "", "", "lease/leader", "", "example.dev/ctrl, ctrl-1", "", age(metav1.Time(eventTime)), int64(5), "lease.1")
	// No time at all.
	cells(t, "core/v1 event without times", gencorev1.EventStrategy.PrinterCells(&corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: "bare"},
	}), "<unknown>", "", "", "", "", "", "", "<unknown>", int64(1), "bare")

	// events.k8s.io/v1: regarding, note, deprecated* fields.
	cells(t, "events.k8s.io/v1 singleton", geneventsv1.EventStrategy.PrinterCells(&eventsv1.Event{
		ObjectMeta: meta("lease.2"), EventTime: eventTime,
		Regarding: corev1.ObjectReference{Kind: "Lease", Name: "leader"},
		Reason:    "LeaderElection", Note: "replica-1 became leader", Type: corev1.EventTypeNormal,
		ReportingController: "example.dev/ctrl", ReportingInstance: "ctrl-1",
	}), age(metav1.Time(eventTime)), "Normal", "LeaderElection", "lease/leader", "", "example.dev/ctrl, ctrl-1",
		"replica-1 became leader", age(metav1.Time(eventTime)), int64(1), "lease.2")
	cells(t, "events.k8s.io/v1 with deprecated fields and a series", geneventsv1.EventStrategy.PrinterCells(&eventsv1.Event{
		ObjectMeta: meta("pod.3"), EventTime: eventTime,
		Series:    &eventsv1.EventSeries{Count: 9, LastObservedTime: metav1.NewMicroTime(observed.Time)},
		Regarding: corev1.ObjectReference{Kind: "Pod", Name: "web-1", FieldPath: "spec.containers{sidecar}"},
		Note:      "pulled", Type: corev1.EventTypeNormal, Reason: "Pulled",
		DeprecatedSource:         corev1.EventSource{Component: "kubelet", Host: "node-2"},
		DeprecatedFirstTimestamp: first, DeprecatedLastTimestamp: last, DeprecatedCount: 2,
		ReportingController: "ignored-when-source-is-set",
	}), age(observed), "Normal", "Pulled", "pod/web-1", "spec.containers{sidecar}", "kubelet, node-2",
		"pulled", age(first), int64(9), "pod.3")
	cells(t, "events.k8s.io/v1 counted without series", geneventsv1.EventStrategy.PrinterCells(&eventsv1.Event{
		ObjectMeta: meta("pod.4"), Regarding: corev1.ObjectReference{Kind: "Pod", Name: "web-2"},
		DeprecatedFirstTimestamp: first, DeprecatedLastTimestamp: last, DeprecatedCount: 6,
	}), age(last), "", "", "pod/web-2", "", "", "", age(first), int64(6), "pod.4")
}

// TestFor: tables apply to external kinds only, never over printcolumn
// markers, and a field the table reads must exist.
func TestFor(t *testing.T) {
	strType := &model.TypeRef{Kind: model.BuiltinRef, Name: "string"}
	status := &model.Type{Name: "NamespaceStatus", Fields: []*model.Field{{Name: "Phase", Type: strType}}}
	nsType := &model.Type{Name: "Namespace", Fields: []*model.Field{
		{Name: "Status", Type: &model.TypeRef{Kind: model.NamedRef, Name: "NamespaceStatus", Local: status}},
	}}
	external := &model.Version{Name: "v1", Package: "k8s.io/api/core/v1", External: true}
	kind := func(v *model.Version, name string, typ *model.Type) *model.Kind {
		return &model.Kind{Version: v, Name: name, Type: typ}
	}

	if tb, err := builtinprinters.For(kind(external, "Namespace", nsType)); err != nil || tb == nil || tb.Kind != "Namespace" {
		t.Errorf("external Namespace: %v, %v", tb, err)
	}
	local := &model.Version{Name: "v1", Package: "k8s.io/api/core/v1"}
	if tb, err := builtinprinters.For(kind(local, "Namespace", nsType)); err != nil || tb != nil {
		t.Errorf("a package of this module gets no built-in table: %v, %v", tb, err)
	}
	withColumns := kind(external, "Namespace", nsType)
	withColumns.PrinterColumns = []model.PrinterColumn{{Name: "Phase", Type: "string", JSONPath: ".status.phase"}}
	if tb, err := builtinprinters.For(withColumns); err != nil || tb != nil {
		t.Errorf("printcolumn markers win: %v, %v", tb, err)
	}
	if tb, err := builtinprinters.For(kind(external, "Service", nsType)); err != nil || tb != nil {
		t.Errorf("a kind without a table: %v, %v", tb, err)
	}

	noPhase := &model.Type{Name: "Namespace", Fields: []*model.Field{
		{Name: "Status", Type: &model.TypeRef{Kind: model.NamedRef, Name: "NamespaceStatus", Local: &model.Type{Name: "NamespaceStatus"}}},
	}}
	_, err := builtinprinters.For(kind(external, "Namespace", noPhase))
	if err == nil || !strings.Contains(err.Error(), "k8s.io/api/core/v1 Namespace reads Status.Phase: no field Status.Phase") {
		t.Errorf("missing field: %v", err)
	}
	scalar := &model.Type{Name: "Namespace", Fields: []*model.Field{{Name: "Status", Type: strType}}}
	if _, err := builtinprinters.For(kind(external, "Namespace", scalar)); err == nil || !strings.Contains(err.Error(), "field Status is not a struct") {
		t.Errorf("scalar on the path: %v", err)
	}
}

// TestTables: every table has the name column once, with format name, and
// unique column names; the packages and kinds are the documented ones.
func TestTables(t *testing.T) {
	var keys []string
	for _, tb := range builtinprinters.Tables() {
		keys = append(keys, tb.Package+" "+tb.Kind)
		seen := map[string]bool{}
		names := 0
		for _, c := range tb.Columns {
			if seen[c.Name] {
				t.Errorf("%s %s: column %q twice", tb.Package, tb.Kind, c.Name)
			}
			seen[c.Name] = true
			if c.Format == "name" {
				names++
				if c.Name != "Name" {
					t.Errorf("%s %s: name column called %q", tb.Package, tb.Kind, c.Name)
				}
			}
			if c.Description == nil {
				t.Errorf("%s %s: column %q has no description", tb.Package, tb.Kind, c.Name)
			}
		}
		if names != 1 {
			t.Errorf("%s %s: %d name columns", tb.Package, tb.Kind, names)
		}
	}
	want := "k8s.io/api/coordination/v1 Lease|k8s.io/api/core/v1 ConfigMap|k8s.io/api/core/v1 Event|" +
		"k8s.io/api/core/v1 Namespace|k8s.io/api/core/v1 Secret|k8s.io/api/core/v1 ServiceAccount|k8s.io/api/events/v1 Event|" +
		"k8s.io/api/rbac/v1 ClusterRoleBinding|k8s.io/api/rbac/v1 RoleBinding"
	if got := strings.Join(keys, "|"); got != want {
		t.Errorf("tables %s, want %s", got, want)
	}
}
