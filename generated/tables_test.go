package generated_test

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	shippingcols "github.com/kubeforge/kubeforge/generated/shipping/v1"
	shippingtypes "github.com/kubeforge/kubeforge/types/shipping/v1"
)

const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io"

// getTable reads url as a meta.k8s.io/v1 Table, as kubectl get does.
func getTable(t *testing.T, url string) metav1.Table {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", tableAccept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s as Table: %d %s", url, resp.StatusCode, raw)
	}
	var table metav1.Table
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatalf("GET %s: decode Table: %v: %s", url, err, raw)
	}
	return table
}

// column is what a test expects of one column definition.
type column struct {
	name     string
	typ      string
	priority int32
	format   string
}

func checkColumns(t *testing.T, what string, table metav1.Table, want []column) {
	t.Helper()
	got := table.ColumnDefinitions
	if len(got) != len(want) {
		t.Fatalf("%s: %d columns %+v, want %d %+v", what, len(got), got, len(want), want)
	}
	for i, w := range want {
		g := got[i]
		if g.Name != w.name || g.Type != w.typ || g.Priority != w.priority || g.Format != w.format {
			t.Errorf("%s: column %d = {%s %s priority %d format %q}, want {%s %s priority %d format %q}",
				what, i, g.Name, g.Type, g.Priority, g.Format, w.name, w.typ, w.priority, w.format)
		}
		if g.Description == "" {
			t.Errorf("%s: column %q has no description", what, g.Name)
		}
	}
}

// rowOf returns the cells of the row whose object (metadata) is named name.
func rowOf(t *testing.T, what string, table metav1.Table, name string) []any {
	t.Helper()
	for _, r := range table.Rows {
		var m metav1.PartialObjectMetadata
		if err := json.Unmarshal(r.Object.Raw, &m); err != nil {
			t.Fatalf("%s: row object: %v: %s", what, err, r.Object.Raw)
		}
		if m.Name == name {
			return r.Cells
		}
	}
	t.Fatalf("%s: no row for %s among %d rows", what, name, len(table.Rows))
	return nil
}

// checkCells compares cells with want; a *regexp.Regexp matches a string cell.
func checkCells(t *testing.T, what string, got []any, want ...any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: cells %#v, want %d cells %#v", what, got, len(want), want)
	}
	for i, w := range want {
		if re, ok := w.(*regexp.Regexp); ok {
			if s, ok := got[i].(string); !ok || !re.MatchString(s) {
				t.Errorf("%s: cell %d = %#v, want a match of %s", what, i, got[i], re)
			}
			continue
		}
		if !jsonEqual(got[i], w) {
			t.Errorf("%s: cell %d = %#v, want %#v", what, i, got[i], w)
		}
	}
}

// ago is a timestamp d before now, plus 30 s so that the age the server
// computes and the one the test computes fall in the same minute.
func ago(d time.Duration) time.Time {
	return time.Now().Add(-d - 30*time.Second).UTC().Truncate(time.Second)
}

func ageOf(ts time.Time) string { return duration.HumanDuration(time.Since(ts)) }

var (
	eventColumns = []column{
		{"Last Seen", "string", 0, ""},
		{"Type", "string", 0, ""},
		{"Reason", "string", 0, ""},
		{"Object", "string", 0, ""},
		{"Subobject", "string", 1, ""},
		{"Source", "string", 1, ""},
		{"Message", "string", 0, ""},
		{"First Seen", "string", 1, ""},
		{"Count", "string", 1, ""},
		{"Name", "string", 1, "name"},
	}
	justNow = regexp.MustCompile(`^[0-9]+s$`)
)

// TestBuiltinTables: the built-in kinds print kube-apiserver's columns and
// cells (kubectl get shows the priority-0 ones, -o wide all of them).
func TestBuiltinTables(t *testing.T) {
	base := startServer(t)
	const ns = "tables"

	// Namespace: NAME STATUS AGE.
	mustCall(t, 201, "POST", base+"/api/v1/namespaces", obj{"metadata": obj{"name": ns}}, "")
	nsTable := getTable(t, base+"/api/v1/namespaces")
	checkColumns(t, "namespaces", nsTable, []column{{"Name", "string", 0, "name"}, {"Status", "string", 0, ""}, {"Age", "string", 0, ""}})
	checkCells(t, "namespace "+ns, rowOf(t, "namespaces", nsTable, ns), ns, "Active", justNow)
	one := getTable(t, base+"/api/v1/namespaces/"+ns)
	checkColumns(t, "namespace "+ns, one, []column{{"Name", "string", 0, "name"}, {"Status", "string", 0, ""}, {"Age", "string", 0, ""}})
	checkCells(t, "namespace "+ns+" (get)", rowOf(t, "namespace", one, ns), ns, "Active", justNow)

	// Lease: NAME HOLDER AGE; no holder is an empty cell.
	leases := base + "/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases"
	mustCall(t, 201, "POST", leases, obj{"metadata": obj{"name": "held"}, "spec": obj{"holderIdentity": "replica-1_abc"}}, "")
	mustCall(t, 201, "POST", leases, obj{"metadata": obj{"name": "free"}, "spec": obj{}}, "")
	leaseTable := getTable(t, leases)
	checkColumns(t, "leases", leaseTable, []column{{"Name", "string", 0, "name"}, {"Holder", "string", 0, ""}, {"Age", "string", 0, ""}})
	checkCells(t, "lease held", rowOf(t, "leases", leaseTable, "held"), "held", "replica-1_abc", justNow)
	checkCells(t, "lease free", rowOf(t, "leases", leaseTable, "free"), "free", "", justNow)

	// core/v1 Event with the deprecated-style fields: count, first and last
	// timestamps, source; the message is trimmed.
	first, last := ago(5*time.Hour), ago(time.Hour)
	coreEvents := base + "/api/v1/namespaces/" + ns + "/events"
	mustCall(t, 201, "POST", coreEvents, obj{
		"metadata":       obj{"name": "web-0.started"},
		"involvedObject": obj{"kind": "Pod", "namespace": ns, "name": "web-0", "fieldPath": "spec.containers{app}"},
		"reason":         "Started", "message": "  Started container app\n", "type": "Normal",
		"source":         obj{"component": "kubelet", "host": "node-1"},
		"firstTimestamp": first, "lastTimestamp": last, "count": 4,
	}, "")
	// ... and one written the events.k8s.io way through core/v1: eventTime,
	// a series, reporting controller and instance, an object without name.
	eventTime, observed := ago(2*time.Hour), ago(10*time.Minute)
	mustCall(t, 201, "POST", coreEvents, obj{
		"metadata":       obj{"name": "node.rebooted"},
		"involvedObject": obj{"kind": "Node", "namespace": ns}, // kube: an event with eventTime about an object without namespace is in "default" or "kube-system"
		"reason":         "Rebooted", "message": "node rebooted", "type": "Warning",
		"eventTime":          metav1.NewMicroTime(eventTime),
		"series":             obj{"count": 7, "lastObservedTime": metav1.NewMicroTime(observed)},
		"reportingComponent": "node-controller",
		"reportingInstance":  "cm-1",
		"action":             "Reboot",
	}, "")
	coreTable := getTable(t, coreEvents)
	checkColumns(t, "core/v1 events", coreTable, eventColumns)
	checkCells(t, "core/v1 event web-0.started", rowOf(t, "core/v1 events", coreTable, "web-0.started"),
		ageOf(last), "Normal", "Started", "pod/web-0", "spec.containers{app}", "kubelet, node-1",
		"Started container app", ageOf(first), 4, "web-0.started")
	checkCells(t, "core/v1 event node.rebooted", rowOf(t, "core/v1 events", coreTable, "node.rebooted"),
		ageOf(observed), "Warning", "Rebooted", "node", "", "node-controller, cm-1",
		"node rebooted", ageOf(eventTime), 7, "node.rebooted")

	// events.k8s.io/v1 Event: the same table over regarding, note and the
	// deprecated* fields; a singleton without series or count counts 1.
	newEvents := base + "/apis/events.k8s.io/v1/namespaces/" + ns + "/events"
	single := ago(3 * time.Hour)
	mustCall(t, 201, "POST", newEvents, obj{
		"metadata":  obj{"name": "lease.elected"},
		"eventTime": metav1.NewMicroTime(single),
		"regarding": obj{"kind": "Lease", "namespace": ns, "name": "held"},
		"reason":    "LeaderElection", "note": "replica-1 became leader", "type": "Normal",
		"action":              "Elect",
		"reportingController": "example.dev/controller",
		"reportingInstance":   "replica-1",
	}, "")
	// Written through core/v1: events.k8s.io/v1 refuses the deprecated
	// fields on create, as kube-apiserver does.
	mustCall(t, 201, "POST", coreEvents, obj{
		"metadata":       obj{"name": "lease.renewed"},
		"eventTime":      metav1.NewMicroTime(eventTime),
		"series":         obj{"count": 3, "lastObservedTime": metav1.NewMicroTime(observed)},
		"involvedObject": obj{"kind": "Lease", "namespace": ns, "name": "held", "fieldPath": "spec.holderIdentity"},
		"reason":         "Renewed", "message": "renewed", "type": "Normal", "action": "Renew",
		"reportingComponent": "example.dev/controller",
		"reportingInstance":  "replica-1",
		"source":             obj{"component": "old-controller"},
		"firstTimestamp":     first,
	}, "")
	newTable := getTable(t, newEvents)
	checkColumns(t, "events.k8s.io/v1 events", newTable, eventColumns)
	checkCells(t, "events.k8s.io/v1 event lease.elected", rowOf(t, "events.k8s.io/v1 events", newTable, "lease.elected"),
		ageOf(single), "Normal", "LeaderElection", "lease/held", "", "example.dev/controller, replica-1",
		"replica-1 became leader", ageOf(single), 1, "lease.elected")
	checkCells(t, "events.k8s.io/v1 event lease.renewed", rowOf(t, "events.k8s.io/v1 events", newTable, "lease.renewed"),
		ageOf(observed), "Normal", "Renewed", "lease/held", "spec.holderIdentity", "old-controller, replica-1",
		"renewed", ageOf(first), 3, "lease.renewed")

	// events.k8s.io/v1 and core/v1 serve one store: each event is in both
	// tables with the same cells, as in kube-apiserver.
	checkCells(t, "core/v1 event web-0.started through events.k8s.io/v1", rowOf(t, "events.k8s.io/v1 events", newTable, "web-0.started"),
		rowOf(t, "core/v1 events", coreTable, "web-0.started")...)
	checkCells(t, "core/v1 event node.rebooted through events.k8s.io/v1", rowOf(t, "events.k8s.io/v1 events", newTable, "node.rebooted"),
		rowOf(t, "core/v1 events", coreTable, "node.rebooted")...)
	coreAgain := getTable(t, coreEvents)
	checkCells(t, "events.k8s.io/v1 event lease.renewed through core/v1", rowOf(t, "core/v1 events", coreAgain, "lease.renewed"),
		rowOf(t, "events.k8s.io/v1 events", newTable, "lease.renewed")...)

	// A single object is the same one-row table.
	oneEvent := getTable(t, newEvents+"/lease.elected")
	checkColumns(t, "events.k8s.io/v1 event (get)", oneEvent, eventColumns)
	if len(oneEvent.Rows) != 1 {
		t.Fatalf("events.k8s.io/v1 event (get): %d rows", len(oneEvent.Rows))
	}
}

// TestPrinterCellsOfOmittedZeros: a column whose field has omitempty and
// is zero is null, as kube-apiserver's column of a custom resource
// evaluated on its JSON (kubectl prints <none>); a field without omitempty
// prints its zero ("").
func TestPrinterCellsOfOmittedZeros(t *testing.T) {
	cells := shippingcols.ShipmentStrategy.PrinterCells(&shippingtypes.Shipment{})
	if len(cells) != 6 || cells[0] != nil || cells[1] != "" || cells[2] != nil || cells[3] != nil || cells[4] != nil {
		t.Errorf("cells of an empty Shipment (priority, destination city, phase, carrier, ready, age): %#v", cells)
	}
	carrier := "dhl"
	cells = shippingcols.ShipmentStrategy.PrinterCells(&shippingtypes.Shipment{
		Spec: shippingtypes.ShipmentSpec{Priority: "Low", Carrier: &carrier, Destination: shippingtypes.Address{City: "Paris"}},
		Status: shippingtypes.ShipmentStatus{Phase: "Lost", Conditions: []metav1.Condition{
			{Type: "Delivered", Status: "False"}, {Type: "Ready", Status: "True"}}},
	})
	// Ready is kubebuilder's usual column, a JSONPath filter evaluated as
	// kube-apiserver evaluates it.
	if cells[0] != "Low" || cells[1] != "Paris" || cells[2] != "Lost" || cells[3] != "dhl" || cells[4] != "True" {
		t.Errorf("cells of a Shipment: %#v", cells)
	}
}
