package generated_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kubeforge/kubeforge/runtime/server"
)

// events.k8s.io/v1 Event is stored as core/v1 Event (+kubeforge:external
// storedAs= in types/doc.go): one store, two views.
const (
	corePath   = "/api/v1/namespaces/default/events"
	eventsPath = "/apis/events.k8s.io/v1/namespaces/default/events"
)

// eventsEvent is an events.k8s.io/v1 Event as controller-runtime's
// recorder writes it.
func eventsEvent(name string) obj {
	return obj{
		"apiVersion": "events.k8s.io/v1", "kind": "Event",
		"metadata":            obj{"name": name, "namespace": "default", "labels": obj{"via": "events"}},
		"eventTime":           "2026-01-02T03:04:05.123456Z",
		"series":              obj{"count": 2, "lastObservedTime": "2026-01-02T03:05:06.654321Z"},
		"reportingController": "example.dev/shipper",
		"reportingInstance":   "shipper-1",
		"action":              "Dispatch",
		"reason":              "Dispatched",
		"type":                "Normal",
		"note":                "shipment first is in transit",
		"regarding":           obj{"apiVersion": "shipping.kubeforge.dev/v1", "kind": "Shipment", "namespace": "default", "name": "first", "uid": "u-1"},
		"related":             obj{"kind": "Pod", "namespace": "default", "name": "p"},
	}
}

// coreEvent is a core/v1 Event as client-go's legacy recorder (and
// leader election) writes it.
func coreEvent(name string) obj {
	return obj{
		"apiVersion": "v1", "kind": "Event",
		"metadata":           obj{"name": name, "namespace": "default", "labels": obj{"via": "core"}},
		"involvedObject":     obj{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "namespace": "default", "name": "lock"},
		"reason":             "LeaderElection",
		"message":            "a became leader",
		"source":             obj{"component": "shipper", "host": "node-1"},
		"firstTimestamp":     "2026-01-02T03:04:05Z",
		"lastTimestamp":      "2026-01-02T03:06:07Z",
		"count":              3,
		"type":               "Normal",
		"reportingComponent": "shipper",
		"reportingInstance":  "node-1",
	}
}

func names(list obj) []string {
	var out []string
	items, _ := list["items"].([]any)
	for _, it := range items {
		if n, ok := get(it, "metadata", "name").(string); ok {
			out = append(out, n)
		}
	}
	return out
}

func noConversionData(t *testing.T, o obj) {
	t.Helper()
	if a, ok := get(o, "metadata", "annotations").(obj); ok && a[annotation] != nil {
		t.Errorf("%s shows through %v: %v", annotation, o["apiVersion"], a)
	}
}

// TestEventsOneStore: an Event written through either group is the same
// object through the other (get, list, selectors, watch, update, delete),
// converted field by field as kube-apiserver does.
func TestEventsOneStore(t *testing.T) {
	base := startServer(t)
	coreWatch := watch(t, base+corePath)
	eventsWatch := watch(t, base+eventsPath)

	// Written through events.k8s.io/v1, read through core/v1.
	created := mustCall(t, 201, "POST", base+eventsPath, eventsEvent("e1"), "")
	want(t, created, "events.k8s.io/v1", "apiVersion")
	want(t, created, "shipment first is in transit", "note")
	core := mustCall(t, 200, "GET", base+corePath+"/e1", nil, "")
	for _, c := range []struct {
		value any
		path  []any
	}{
		{"v1", []any{"apiVersion"}},
		{"Event", []any{"kind"}},
		{get(created, "metadata", "uid"), []any{"metadata", "uid"}},
		{get(created, "metadata", "resourceVersion"), []any{"metadata", "resourceVersion"}},
		{"Shipment", []any{"involvedObject", "kind"}},
		{"first", []any{"involvedObject", "name"}},
		{"u-1", []any{"involvedObject", "uid"}},
		{"shipment first is in transit", []any{"message"}},
		{"example.dev/shipper", []any{"reportingComponent"}},
		{"shipper-1", []any{"reportingInstance"}},
		{"Dispatch", []any{"action"}},
		{"Dispatched", []any{"reason"}},
		{"Normal", []any{"type"}},
		{"2026-01-02T03:04:05.123456Z", []any{"eventTime"}},
		{2, []any{"series", "count"}},
		{"2026-01-02T03:05:06.654321Z", []any{"series", "lastObservedTime"}},
		{"p", []any{"related", "name"}},
	} {
		want(t, core, c.value, c.path...)
	}
	noConversionData(t, core)
	if ev := nextEvent(t, coreWatch); ev.Type != "ADDED" || get(ev.Object, "apiVersion") != "v1" || get(ev.Object, "message") != "shipment first is in transit" {
		t.Errorf("core/v1 watch: %s %v", ev.Type, ev.Object)
	}
	if ev := nextEvent(t, eventsWatch); ev.Type != "ADDED" || get(ev.Object, "apiVersion") != "events.k8s.io/v1" || get(ev.Object, "note") != "shipment first is in transit" {
		t.Errorf("events.k8s.io/v1 watch: %s %v", ev.Type, ev.Object)
	}

	// Written through core/v1, read through events.k8s.io/v1.
	mustCall(t, 201, "POST", base+corePath, coreEvent("e2"), "")
	ev := mustCall(t, 200, "GET", base+eventsPath+"/e2", nil, "")
	for _, c := range []struct {
		value any
		path  []any
	}{
		{"events.k8s.io/v1", []any{"apiVersion"}},
		{"Event", []any{"kind"}},
		{"Lease", []any{"regarding", "kind"}},
		{"lock", []any{"regarding", "name"}},
		{"a became leader", []any{"note"}},
		{"shipper", []any{"deprecatedSource", "component"}},
		{"node-1", []any{"deprecatedSource", "host"}},
		{"2026-01-02T03:04:05Z", []any{"deprecatedFirstTimestamp"}},
		{"2026-01-02T03:06:07Z", []any{"deprecatedLastTimestamp"}},
		{3, []any{"deprecatedCount"}},
		{"shipper", []any{"reportingController"}},
		{"node-1", []any{"reportingInstance"}},
		{"LeaderElection", []any{"reason"}},
	} {
		want(t, ev, c.value, c.path...)
	}
	noConversionData(t, ev)
	if e := nextEvent(t, eventsWatch); e.Type != "ADDED" || get(e.Object, "apiVersion") != "events.k8s.io/v1" || get(e.Object, "note") != "a became leader" {
		t.Errorf("events.k8s.io/v1 watch of a core/v1 write: %s %v", e.Type, e.Object)
	}
	if e := nextEvent(t, coreWatch); e.Type != "ADDED" || get(e.Object, "message") != "a became leader" {
		t.Errorf("core/v1 watch: %s %v", e.Type, e.Object)
	}

	// Lists and selectors through both.
	for _, p := range []string{corePath, eventsPath} {
		list := mustCall(t, 200, "GET", base+p, nil, "")
		if got := strings.Join(names(list), ","); got != "e1,e2" {
			t.Errorf("list %s: %s, want e1,e2", p, got)
		}
		for sel, wantNames := range map[string]string{
			"fieldSelector=metadata.name%3De2":       "e2",
			"fieldSelector=metadata.name%21%3De2":    "e1",
			"labelSelector=via%3Devents":             "e1",
			"labelSelector=via%3Dcore":               "e2",
			"fieldSelector=metadata.namespace%3Dnot": "",
		} {
			list := mustCall(t, 200, "GET", base+p+"?"+sel, nil, "")
			if got := strings.Join(names(list), ","); got != wantNames {
				t.Errorf("list %s?%s: %q, want %q", p, sel, got, wantNames)
			}
		}
	}
	all := mustCall(t, 200, "GET", base+"/apis/events.k8s.io/v1/events", nil, "")
	want(t, all, "EventList", "kind")
	want(t, all, "events.k8s.io/v1", "apiVersion")
	if got := strings.Join(names(all), ","); got != "e1,e2" {
		t.Errorf("list events.k8s.io/v1 events in all namespaces: %s", got)
	}

	// An update through one group is seen through the other, and by both
	// watches in their own form.
	// (A note cannot change through events.k8s.io/v1: kube's
	// ValidateEventUpdate; a series and labels can.)
	mustCall(t, 200, "PATCH", base+eventsPath+"/e1", obj{"metadata": obj{"labels": obj{"state": "delivered"}}, "series": obj{"count": 3}}, "application/merge-patch+json")
	core = mustCall(t, 200, "GET", base+corePath+"/e1", nil, "")
	want(t, core, "delivered", "metadata", "labels", "state")
	want(t, core, 3, "series", "count")
	if e := nextEvent(t, coreWatch); e.Type != "MODIFIED" || get(e.Object, "series", "count") != float64(3) {
		t.Errorf("core/v1 watch of an events.k8s.io/v1 patch: %s %v", e.Type, e.Object)
	}
	if e := nextEvent(t, eventsWatch); e.Type != "MODIFIED" || get(e.Object, "series", "count") != float64(3) {
		t.Errorf("events.k8s.io/v1 watch: %s %v", e.Type, e.Object)
	}
	core["message"] = "returned"
	core["count"] = 4
	mustCall(t, 200, "PUT", base+corePath+"/e1", core, "")
	ev = mustCall(t, 200, "GET", base+eventsPath+"/e1", nil, "")
	want(t, ev, "returned", "note")
	want(t, ev, 4, "deprecatedCount")
	want(t, ev, "example.dev/shipper", "reportingController")
	nextEvent(t, coreWatch)
	nextEvent(t, eventsWatch)

	// Deleted through core/v1: gone through both, DELETED in each form.
	mustCall(t, 200, "DELETE", base+corePath+"/e1", nil, "")
	if code, _ := call(t, "GET", base+eventsPath+"/e1", nil, ""); code != http.StatusNotFound {
		t.Errorf("get deleted e1 through events.k8s.io/v1: %d, want 404", code)
	}
	if e := nextEvent(t, eventsWatch); e.Type != "DELETED" || get(e.Object, "apiVersion") != "events.k8s.io/v1" || get(e.Object, "note") != "returned" {
		t.Errorf("events.k8s.io/v1 watch of a core/v1 delete: %s %v", e.Type, e.Object)
	}
	if e := nextEvent(t, coreWatch); e.Type != "DELETED" {
		t.Errorf("core/v1 watch: %s %v", e.Type, e.Object)
	}
	// A name taken through one group is taken through the other.
	if code, out := call(t, "POST", base+eventsPath, eventsEvent("e2"), ""); code != http.StatusConflict {
		t.Errorf("create e2 through events.k8s.io/v1 over the core/v1 one: %d %v, want 409", code, out)
	}
}

// TestEventsValidation: a write through events.k8s.io/v1 is validated in
// that form (field paths of the request) and as the stored core/v1 Event;
// its 422 names the stored kind, core Event, as kube-apiserver's does.
func TestEventsValidation(t *testing.T) {
	base := startServer(t)
	bad := eventsEvent("no-time")
	delete(bad, "eventTime")
	code, out := call(t, "POST", base+eventsPath, bad, "")
	if code != http.StatusUnprocessableEntity || get(out, "details", "causes", 0, "field") != "eventTime" || get(out, "details", "kind") != "Event" || get(out, "details", "group") != nil {
		t.Errorf("create without eventTime: %d %v, want 422 on eventTime of the core Event", code, out)
	}
	bad = eventsEvent("Bad_Name")
	if code, out := call(t, "POST", base+eventsPath, bad, ""); code != http.StatusUnprocessableEntity || get(out, "details", "causes", 0, "field") != "metadata.name" {
		t.Errorf("create with a bad name: %d %v, want 422 on metadata.name", code, out)
	}
	for _, p := range []string{corePath, eventsPath} {
		if list := mustCall(t, 200, "GET", base+p, nil, ""); len(names(list)) != 0 {
			t.Errorf("%s after rejected writes: %v", p, names(list))
		}
	}
	// An Event written through core/v1 without an eventTime can be updated
	// through core/v1; through events.k8s.io/v1 what it reports is
	// immutable, and an eventTime would make it a new-style event, which
	// needs an action.
	mustCall(t, 201, "POST", base+corePath, coreEvent("legacy"), "")
	mustCall(t, 200, "PATCH", base+corePath+"/legacy", obj{"count": 4}, "application/merge-patch+json")
	if code, out := call(t, "PATCH", base+eventsPath+"/legacy", obj{"note": "x"}, "application/merge-patch+json"); code != http.StatusUnprocessableEntity || get(out, "details", "causes", 0, "field") != "message" {
		t.Errorf("patch a core/v1 Event's note through events.k8s.io/v1: %d %v, want 422 on message (immutable)", code, out)
	}
	code, out = call(t, "PATCH", base+eventsPath+"/legacy", obj{"note": "x", "eventTime": "2026-01-02T03:04:05.000000Z"}, "application/merge-patch+json")
	if code != http.StatusUnprocessableEntity || !hasCause(out, "action", "FieldValueRequired") || !hasCause(out, "message", "FieldValueInvalid") || !hasCause(out, "eventTime", "FieldValueInvalid") {
		t.Errorf("patch a legacy core/v1 Event through events.k8s.io/v1 with an eventTime: %d %v, want 422 on action (required), message and eventTime (immutable)", code, out)
	}
	// Its labels can change through events.k8s.io/v1: the create-only
	// rules (deprecated fields unset) do not apply to an update.
	mustCall(t, 200, "PATCH", base+eventsPath+"/legacy", obj{"metadata": obj{"labels": obj{"seen": "yes"}}}, "application/merge-patch+json")
	want(t, mustCall(t, 200, "GET", base+corePath+"/legacy", nil, ""), "a became leader", "message")
}

// hasCause reports whether Status out has a cause of type reason on field.
func hasCause(out obj, field, reason string) bool {
	causes, _ := get(out, "details", "causes").([]any)
	for _, c := range causes {
		if get(c, "field") == field && get(c, "reason") == reason {
			return true
		}
	}
	return false
}

// TestEventsKubeValidation: kube-apiserver's hand-written Event validation
// (ValidateEventCreate), by the version written through: core/v1 gets the
// legacy checks only, with names that need only be path segments (as
// client-go's recorder names events about RBAC objects); events.k8s.io/v1
// the strict ones too. Each refused write stores nothing.
func TestEventsKubeValidation(t *testing.T) {
	base := startServer(t)
	ok := coreEvent("system:node:a.17f3a")
	mustCall(t, 201, "POST", base+corePath, ok, "")
	want(t, mustCall(t, 200, "GET", base+eventsPath+"/system:node:a.17f3a", nil, ""), "lock", "regarding", "name")

	cluster := coreEvent("cluster-scoped")
	cluster["involvedObject"] = obj{"kind": "Node", "name": "n1"}
	mustCall(t, 201, "POST", base+corePath, cluster, "") // no namespace: "default" will do

	for _, c := range []struct {
		name, path string
		body       obj
		field      string
		reason     string
	}{
		{"core: involved object elsewhere", corePath, with(coreEvent("elsewhere"), "involvedObject", obj{"kind": "Pod", "namespace": "other", "name": "p"}), "involvedObject.namespace", "FieldValueInvalid"},
		{"core: name with a slash", corePath, coreEvent("a%2Fb"), "", ""},
		{"core: new-style without action", corePath, with(coreEvent("no-action"), "eventTime", "2026-01-02T03:04:05.000000Z"), "action", "FieldValueRequired"},
		{"core: new-style reporter not a qualified name", corePath, with(with(coreEvent("bad-reporter"), "eventTime", "2026-01-02T03:04:05.000000Z"), "reportingComponent", "not a name!"), "reportingComponent", "FieldValueInvalid"},
		{"events: type", eventsPath, with(eventsEvent("bad-type"), "type", "Bogus"), "type", "FieldValueInvalid"},
		{"events: series of one", eventsPath, with(eventsEvent("one"), "series", obj{"count": 1, "lastObservedTime": "2026-01-02T03:05:06.654321Z"}), "series.count", "FieldValueInvalid"},
		{"events: deprecated count", eventsPath, with(eventsEvent("counted"), "deprecatedCount", 3), "count", "FieldValueInvalid"},
		{"events: deprecated source", eventsPath, with(eventsEvent("sourced"), "deprecatedSource", obj{"component": "x"}), "source", "FieldValueInvalid"},
		{"events: no reporting controller", eventsPath, with(eventsEvent("anon"), "reportingController", ""), "reportingController", "FieldValueRequired"},
		{"events: long reason", eventsPath, with(eventsEvent("long"), "reason", strings.Repeat("r", 129)), "reason", "FieldValueInvalid"},
		{"events: long note", eventsPath, with(eventsEvent("note"), "note", strings.Repeat("n", 1025)), "message", "FieldValueInvalid"},
		{"events: regarding elsewhere in a namespace", eventsPath, with(eventsEvent("cluster"), "regarding", obj{"kind": "Node", "name": "n1"}), "", ""},
		{"events: name not a DNS subdomain", eventsPath, eventsEvent("system:x"), "metadata.name", "FieldValueInvalid"},
	} {
		name := get(c.body, "metadata", "name").(string)
		code, out := call(t, "POST", base+c.path, c.body, "")
		switch {
		case c.name == "core: name with a slash":
			if code < 400 || code >= 500 {
				t.Errorf("%s: %d %v, want a 4xx", c.name, code, out)
			}
			continue
		case c.field == "": // accepted by kube
			if code != http.StatusCreated {
				t.Errorf("%s: %d %v, want 201", c.name, code, out)
			}
			continue
		}
		if code != http.StatusUnprocessableEntity || !hasCause(out, c.field, c.reason) {
			t.Errorf("%s: %d %v, want 422 with %s on %s", c.name, code, out, c.reason, c.field)
		}
		if code, _ := call(t, "GET", base+corePath+"/"+name, nil, ""); code != http.StatusNotFound {
			t.Errorf("%s: refused event %s is stored (%d)", c.name, name, code)
		}
	}
}

// TestEventsKubeUpdateValidation: an update through events.k8s.io/v1 is
// validated as kube's ValidateEventUpdate does: what the event reports is
// immutable (eventTime to the microsecond), a changed series is checked,
// labels and the series may change.
func TestEventsKubeUpdateValidation(t *testing.T) {
	base := startServer(t)
	mustCall(t, 201, "POST", base+eventsPath, eventsEvent("e"), "")
	merge := "application/merge-patch+json"
	mustCall(t, 200, "PATCH", base+eventsPath+"/e", obj{"metadata": obj{"labels": obj{"x": "y"}}, "series": obj{"count": 5}}, merge)
	mustCall(t, 200, "PATCH", base+eventsPath+"/e", obj{"eventTime": "2026-01-02T03:04:05.123456Z"}, merge)
	for _, c := range []struct {
		patch obj
		field string
	}{
		{obj{"note": "changed"}, "message"},
		{obj{"reason": "Other"}, "reason"},
		{obj{"type": "Warning"}, "type"},
		{obj{"action": "Other"}, "action"},
		{obj{"regarding": obj{"name": "second"}}, "involvedObject"},
		{obj{"related": nil}, "related"},
		{obj{"reportingInstance": "shipper-2"}, "reportingInstance"},
		{obj{"eventTime": "2026-01-02T03:04:06.123456Z"}, "eventTime"},
		{obj{"series": obj{"count": 1}}, "series.count"},
	} {
		code, out := call(t, "PATCH", base+eventsPath+"/e", c.patch, merge)
		if code != http.StatusUnprocessableEntity || !hasCause(out, c.field, "FieldValueInvalid") {
			t.Errorf("patch %v: %d %v, want 422 on %s", c.patch, code, out, c.field)
		}
	}
	ev := mustCall(t, 200, "GET", base+eventsPath+"/e", nil, "")
	want(t, ev, "shipment first is in transit", "note")
	want(t, ev, 5, "series", "count")
	// Through core/v1 the legacy rules only: the message may change.
	mustCall(t, 200, "PATCH", base+corePath+"/e", obj{"message": "changed"}, merge)
}

// with sets key of o to v and returns o.
func with(o obj, key string, v any) obj {
	o[key] = v
	return o
}

// TestEventsTTL: the --event-ttl lease is the store's (core/v1 events), so
// an Event written through events.k8s.io/v1 gets it too, under the one
// /registry/events/<namespace>/<name> key.
func TestEventsTTL(t *testing.T) {
	s := startServerWith(t, server.Config{EventTTL: 30 * time.Minute})
	base := s.URL()
	mustCall(t, 201, "POST", base+eventsPath, eventsEvent("via-events"), "")
	mustCall(t, 201, "POST", base+corePath, coreEvent("via-core"), "")
	c, prefix := s.Backend().Client(), s.Backend().Prefix()
	ctx := context.Background()
	for _, name := range []string{"via-events", "via-core"} {
		resp, err := c.Get(ctx, prefix+"/events/default/"+name)
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("get key of event %s: %v %v", name, resp, err)
		}
		if !strings.Contains(string(resp.Kvs[0].Value), `"kind":"Event","apiVersion":"v1"`) {
			t.Errorf("event %s stored as %s, want a core/v1 Event", name, resp.Kvs[0].Value)
		}
		lease := clientv3.LeaseID(resp.Kvs[0].Lease)
		if lease == clientv3.NoLease {
			t.Errorf("event %s stored without a lease", name)
			continue
		}
		ttl, err := c.TimeToLive(ctx, lease)
		if err != nil || ttl.GrantedTTL != 30*60+60 {
			t.Errorf("event %s lease %x: granted %v %v, want 1860 s (30 min plus a minute of lease reuse)", name, lease, ttl.GrantedTTL, err)
		}
	}
	resp, err := c.Get(ctx, prefix+"/events.k8s.io/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil || resp.Count != 0 {
		t.Errorf("keys under %s/events.k8s.io/: %v %v, want none", prefix, resp, err)
	}
}
