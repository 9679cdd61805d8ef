package generated_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// Server-side apply across served versions, as kube-apiserver does it:
// every managedFields entry keeps the apiVersion it was written through,
// a write through another version converts the object to that version to
// compare, so no entry is dropped and conflicts are found across versions.

const applyPatch = "application/apply-patch+yaml"

// entries returns the managedFields of o as "manager operation apiVersion
// subresource" lines, sorted.
func entries(o obj) []string {
	var out []string
	mf, _ := get(o, "metadata", "managedFields").([]any)
	for _, e := range mf {
		s, _ := get(e, "subresource").(string)
		out = append(out, strings.TrimSpace(fmt.Sprintf("%v %v %v %s", get(e, "manager"), get(e, "operation"), get(e, "apiVersion"), s)))
	}
	sort.Strings(out)
	return out
}

func wantEntries(t *testing.T, what string, o obj, want ...string) {
	t.Helper()
	sort.Strings(want)
	if got := entries(o); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s: managedFields\n\t%s\nwant\n\t%s\nin %v", what, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"), get(o, "metadata", "managedFields"))
	}
}

// fieldsOf returns the fieldsV1 of manager's entry (operation and
// subresource as entries prints them) as JSON, or "" when there is none.
func fieldsOf(o obj, entry string) string {
	mf, _ := get(o, "metadata", "managedFields").([]any)
	for _, e := range mf {
		s, _ := get(e, "subresource").(string)
		if strings.TrimSpace(fmt.Sprintf("%v %v %v %s", get(e, "manager"), get(e, "operation"), get(e, "apiVersion"), s)) == entry {
			b, _ := json.Marshal(get(e, "fieldsV1"))
			return string(b)
		}
	}
	return ""
}

// wantConflict checks a 409 whose causes are exactly the want
// FieldManagerConflict fields, each message starting with owner, the
// owner as kube-apiserver names it: `conflict with "m"` for an applier,
// `conflict with "m" using <its apiVersion>` for an updater.
func wantConflict(t *testing.T, code int, status obj, owner string, fields ...string) {
	t.Helper()
	if code != 409 || get(status, "reason") != "Conflict" {
		t.Fatalf("want a 409 Conflict, got %d %v", code, status)
	}
	causes, _ := get(status, "details", "causes").([]any)
	var got []string
	for _, c := range causes {
		if get(c, "reason") != "FieldManagerConflict" {
			t.Errorf("cause %v: reason is not FieldManagerConflict", c)
		}
		if m, _ := get(c, "message").(string); !strings.HasPrefix(m, "conflict with "+owner) {
			t.Errorf("cause message %q does not start with %q", m, "conflict with "+owner)
		}
		got = append(got, fmt.Sprint(get(c, "field")))
	}
	sort.Strings(got)
	sort.Strings(fields)
	if strings.Join(got, " ") != strings.Join(fields, " ") {
		t.Fatalf("conflicting fields %v, want %v in %v", got, fields, status)
	}
}

func alphaShipment(name string, spec obj) obj {
	return obj{"apiVersion": "shipping.kubeforge.dev/v1alpha1", "kind": "Shipment", "metadata": obj{"name": name}, "spec": spec}
}

func v1Shipment(name string, spec obj) obj {
	return obj{"apiVersion": "shipping.kubeforge.dev/v1", "kind": "Shipment", "metadata": obj{"name": name}, "spec": spec}
}

// TestApplyAcrossShippingVersions: managers writing shipments through
// v1alpha1 and v1 keep each other's entries through apply, update (PUT),
// merge patch and status writes, and conflict across versions.
func TestApplyAcrossShippingVersions(t *testing.T) {
	base := startServer(t)
	const alpha = "shipping.kubeforge.dev/v1alpha1"
	const v1 = "shipping.kubeforge.dev/v1"

	// alice applies through v1alpha1: from, destination, urgent.
	out := mustCall(t, 201, "PATCH", base+alphaPath+"/ssa?fieldManager=alice", alphaShipment("ssa", obj{
		"from":        obj{"street": "1 Old Road", "city": "Bonn"},
		"destination": obj{"street": "2 New Road", "city": "Köln"},
		"urgent":      true,
		"parcels":     []obj{{"name": "box"}},
	}), applyPatch)
	wantEntries(t, "after alice's apply", out, "alice Apply "+alpha)

	// bob applies through v1 a field v1alpha1 does not have: alice's
	// v1alpha1 entry is kept beside bob's v1 entry.
	out = mustCall(t, 200, "PATCH", base+v1Path+"/ssa?fieldManager=bob", v1Shipment("ssa", obj{
		"notify": "ops@example.dev",
	}), applyPatch)
	wantEntries(t, "after bob's v1 apply", out, "alice Apply "+alpha, "bob Apply "+v1)
	if f := fieldsOf(out, "alice Apply "+alpha); !strings.Contains(f, `"f:from"`) || !strings.Contains(f, `"f:urgent"`) {
		t.Fatalf("alice's entry lost its v1alpha1 fields: %s", f)
	}

	// A merge patch through v1 (an update) keeps both apply entries.
	out = mustCall(t, 200, "PATCH", base+v1Path+"/ssa?fieldManager=carol", obj{"spec": obj{"carrier": "dhl"}}, "application/merge-patch+json")
	wantEntries(t, "after carol's v1 merge patch", out, "alice Apply "+alpha, "bob Apply "+v1, "carol Update "+v1)

	// dave applies through v1 the origin alice set as from through
	// v1alpha1, with another city: a conflict with alice, in her version's
	// field names.
	code, status := call(t, "PATCH", base+v1Path+"/ssa?fieldManager=dave", v1Shipment("ssa", obj{
		"origin": obj{"street": "1 Old Road", "city": "Berlin"},
	}), applyPatch)
	wantConflict(t, code, status, `"alice"`, ".spec.from.city")
	if got := get(mustCall(t, 200, "GET", base+v1Path+"/ssa", nil, ""), "spec", "origin", "city"); got != "Bonn" {
		t.Fatalf("after the conflicting apply: origin.city %v, want Bonn (nothing stored)", got)
	}
	// The same value is no conflict: dave shares the field.
	mustCall(t, 200, "PATCH", base+v1Path+"/ssa?fieldManager=dave", v1Shipment("ssa", obj{
		"origin": obj{"city": "Bonn"},
	}), applyPatch)

	// A PUT through v1alpha1 keeps every v1 entry; erin's entry is v1alpha1.
	cur := mustCall(t, 200, "GET", base+alphaPath+"/ssa", nil, "")
	cur["spec"].(obj)["destination"].(obj)["city"] = "Düsseldorf"
	out = mustCall(t, 200, "PUT", base+alphaPath+"/ssa?fieldManager=erin", cur, "")
	wantEntries(t, "after erin's v1alpha1 PUT", out, "alice Apply "+alpha, "bob Apply "+v1, "carol Update "+v1, "dave Apply "+v1, "erin Update "+alpha)

	// erin now owns destination.city (taken from alice): frank applying it
	// through v1 conflicts with erin, named in v1alpha1.
	code, status = call(t, "PATCH", base+v1Path+"/ssa?fieldManager=frank", v1Shipment("ssa", obj{
		"destination": obj{"city": "Essen"},
	}), applyPatch)
	wantConflict(t, code, status, `"erin" using `+alpha, ".spec.destination.city")

	// Status through the v1alpha1 status subresource keeps them all.
	out = mustCall(t, 200, "PATCH", base+alphaPath+"/ssa/status?fieldManager=tracker", obj{"status": obj{"phase": "InTransit"}}, "application/merge-patch+json")
	wantEntries(t, "after the v1alpha1 status patch", out, "alice Apply "+alpha, "bob Apply "+v1, "carol Update "+v1, "dave Apply "+v1, "erin Update "+alpha, "tracker Update "+alpha+" status")
	// ...and a v1 status apply conflicts with the v1alpha1 status updater.
	code, status = call(t, "PATCH", base+v1Path+"/ssa/status?fieldManager=gina", obj{
		"apiVersion": v1, "kind": "Shipment", "metadata": obj{"name": "ssa"}, "status": obj{"phase": "Delivered"},
	}, applyPatch)
	wantConflict(t, code, status, `"tracker" with subresource "status" using `+alpha, ".status.phase")

	// Entries read through the other version keep their own apiVersion.
	wantEntries(t, "read through v1", mustCall(t, 200, "GET", base+v1Path+"/ssa", nil, ""),
		"alice Apply "+alpha, "bob Apply "+v1, "carol Update "+v1, "dave Apply "+v1, "erin Update "+alpha, "tracker Update "+alpha+" status")

	// dave forces the city: alice keeps the rest of her v1alpha1 entry.
	out = mustCall(t, 200, "PATCH", base+v1Path+"/ssa?fieldManager=dave&force=true", v1Shipment("ssa", obj{
		"origin": obj{"city": "Berlin"},
	}), applyPatch)
	want(t, out, "Berlin", "spec", "origin", "city")
	if f := fieldsOf(out, "alice Apply "+alpha); strings.Contains(f, `"f:city"`) && strings.Contains(f, `"f:from":{"f:city"`) || !strings.Contains(f, `"f:street"`) || !strings.Contains(f, `"f:urgent"`) {
		t.Fatalf("after dave forced origin.city, alice's entry is %s: want from.street and urgent without from.city", f)
	}
	if f := fieldsOf(out, "dave Apply "+v1); !strings.Contains(f, `"f:origin":{"f:city"`) {
		t.Fatalf("after dave forced origin.city, dave's entry is %s", f)
	}
}

// TestApplyConversionAnnotationUnowned: the kubeforge.dev/conversion-data
// annotation a v1alpha1 client sends back is nobody's field, so changing
// v1-only fields through v1 never conflicts over it.
func TestApplyConversionAnnotationUnowned(t *testing.T) {
	base := startServer(t)
	mustCall(t, 201, "POST", base+alphaPath+"?fieldManager=creator", obj{
		"apiVersion": "shipping.kubeforge.dev/v1alpha1", "kind": "Shipment",
		"metadata": obj{"name": "ann", "annotations": obj{annotation: `{"spec":{"tags":["a"]}}`}},
		"spec": obj{
			"from":        obj{"street": "1 Old Road", "city": "Bonn"},
			"destination": obj{"street": "2 New Road", "city": "Köln"},
			"parcels":     []obj{{"name": "box"}},
		},
	}, "")
	out := mustCall(t, 200, "GET", base+v1Path+"/ann", nil, "")
	want(t, out, []string{"a"}, "spec", "tags")
	if f := fieldsOf(out, "creator Update shipping.kubeforge.dev/v1alpha1"); strings.Contains(f, annotation) {
		t.Errorf("creator owns the conversion annotation: %s", f)
	}
	out = mustCall(t, 200, "PATCH", base+v1Path+"/ann?fieldManager=tagger", v1Shipment("ann", obj{"tags": []string{"b"}}), applyPatch)
	want(t, out, []string{"a", "b"}, "spec", "tags")
	wantEntries(t, "after the v1 tags apply", out, "creator Update shipping.kubeforge.dev/v1alpha1", "tagger Apply shipping.kubeforge.dev/v1")
}

// TestApplyAcrossEventGroups: events.k8s.io/v1 and core/v1 Events are one
// object; managers of either group keep their entries and conflict across
// the groups, named in their own group's fields.
func TestApplyAcrossEventGroups(t *testing.T) {
	base := startServer(t)
	const events = "events.k8s.io/v1"

	ev := eventsEvent("ssa-ev")
	delete(ev, "series")
	out := mustCall(t, 201, "PATCH", base+eventsPath+"/ssa-ev?fieldManager=recorder", ev, applyPatch)
	wantEntries(t, "after the events.k8s.io apply", out, "recorder Apply "+events)

	// An update through core/v1 keeps the events.k8s.io/v1 entry.
	out = mustCall(t, 200, "PATCH", base+corePath+"/ssa-ev?fieldManager=labeler", obj{"metadata": obj{"labels": obj{"seen": "yes"}}}, "application/merge-patch+json")
	wantEntries(t, "after the core/v1 merge patch", out, "labeler Update v1", "recorder Apply "+events)

	// message (core) is note (events.k8s.io): a conflict with recorder.
	code, status := call(t, "PATCH", base+corePath+"/ssa-ev?fieldManager=other", obj{
		"apiVersion": "v1", "kind": "Event", "metadata": obj{"name": "ssa-ev"},
		"message": "something else",
	}, applyPatch)
	wantConflict(t, code, status, `"recorder"`, ".note")

	// A core/v1 apply of a field nobody owns keeps both entries; read
	// through events.k8s.io/v1 they keep their own apiVersion.
	mustCall(t, 200, "PATCH", base+corePath+"/ssa-ev?fieldManager=other", obj{
		"apiVersion": "v1", "kind": "Event", "metadata": obj{"name": "ssa-ev"},
		"source": obj{"component": "kubelet"},
	}, applyPatch)
	wantEntries(t, "read through events.k8s.io/v1", mustCall(t, 200, "GET", base+eventsPath+"/ssa-ev", nil, ""),
		"labeler Update v1", "other Apply v1", "recorder Apply "+events)

	// And the other way: events.k8s.io/v1 apply of deprecatedSource
	// (core's source) conflicts with the core/v1 manager.
	code, status = call(t, "PATCH", base+eventsPath+"/ssa-ev?fieldManager=recorder", obj{
		"apiVersion": events, "kind": "Event", "metadata": obj{"name": "ssa-ev"},
		"eventTime": ev["eventTime"], "reportingController": ev["reportingController"], "reportingInstance": ev["reportingInstance"],
		"action": ev["action"], "reason": ev["reason"], "type": ev["type"], "note": ev["note"], "regarding": ev["regarding"], "related": ev["related"],
		"deprecatedSource": obj{"component": "other"},
	}, applyPatch)
	wantConflict(t, code, status, `"other"`, ".source.component")

	// A PUT through events.k8s.io/v1 and a JSON patch through core/v1 keep
	// every entry too.
	cur := mustCall(t, 200, "GET", base+eventsPath+"/ssa-ev", nil, "")
	cur["metadata"].(obj)["labels"].(obj)["edited"] = "yes" // what it reports is immutable through events.k8s.io/v1
	out = mustCall(t, 200, "PUT", base+eventsPath+"/ssa-ev?fieldManager=editor", cur, "")
	wantEntries(t, "after the events.k8s.io PUT", out, "editor Update "+events, "labeler Update v1", "other Apply v1", "recorder Apply "+events)
	out = mustCall(t, 200, "PATCH", base+corePath+"/ssa-ev?fieldManager=jp", []obj{{"op": "replace", "path": "/reason", "value": "Delivered"}}, "application/json-patch+json")
	wantEntries(t, "after the core/v1 JSON patch", out, "editor Update "+events, "jp Update v1", "labeler Update v1", "other Apply v1", "recorder Apply "+events)
	// jp took reason from recorder (an update wins), named in either group.
	if f := fieldsOf(out, "recorder Apply "+events); strings.Contains(f, `"f:reason"`) || !strings.Contains(f, `"f:note"`) {
		t.Errorf("recorder's entry after jp's update of reason: %s", f)
	}
}

// TestEveryWriteKeepsEveryVersion: each kind of write through each
// shipping version adds its own entry and keeps all the others.
func TestEveryWriteKeepsEveryVersion(t *testing.T) {
	base := startServer(t)
	const alpha, v1 = "shipping.kubeforge.dev/v1alpha1", "shipping.kubeforge.dev/v1"
	mustCall(t, 201, "POST", base+alphaPath+"?fieldManager=creator", alphaShipment("every", obj{
		"from":        obj{"street": "1 Old Road", "city": "Bonn"},
		"destination": obj{"street": "2 New Road", "city": "Köln"},
		"parcels":     []obj{{"name": "box"}},
	}), "")
	have := []string{"creator Update " + alpha}

	put := func(path, manager string, edit func(obj)) obj {
		cur := mustCall(t, 200, "GET", base+path, nil, "")
		edit(cur)
		return mustCall(t, 200, "PUT", base+path+"?fieldManager="+manager, cur, "")
	}
	addParcel := func(name string) func(obj) {
		return func(o obj) {
			spec := o["spec"].(obj)
			spec["parcels"] = append(spec["parcels"].([]any), obj{"name": name, "count": 1})
		}
	}
	for _, w := range []struct {
		entry string // manager operation apiVersion [subresource]
		write func() obj
	}{
		{"apply-a Apply " + alpha, func() obj {
			return mustCall(t, 200, "PATCH", base+alphaPath+"/every?fieldManager=apply-a", alphaShipment("every", obj{"parcels": []obj{{"name": "apply-a"}}}), applyPatch)
		}},
		{"apply-1 Apply " + v1, func() obj {
			return mustCall(t, 200, "PATCH", base+v1Path+"/every?fieldManager=apply-1", v1Shipment("every", obj{"parcels": []obj{{"name": "apply-1"}}}), applyPatch)
		}},
		{"put-a Update " + alpha, func() obj { return put(alphaPath+"/every", "put-a", addParcel("put-a")) }},
		{"put-1 Update " + v1, func() obj { return put(v1Path+"/every", "put-1", addParcel("put-1")) }},
		{"merge-a Update " + alpha, func() obj {
			return mustCall(t, 200, "PATCH", base+alphaPath+"/every?fieldManager=merge-a", obj{"metadata": obj{"labels": obj{"merge-a": "x"}}}, "application/merge-patch+json")
		}},
		{"merge-1 Update " + v1, func() obj {
			return mustCall(t, 200, "PATCH", base+v1Path+"/every?fieldManager=merge-1", obj{"metadata": obj{"labels": obj{"merge-1": "x"}}}, "application/merge-patch+json")
		}},
		{"json-a Update " + alpha, func() obj {
			return mustCall(t, 200, "PATCH", base+alphaPath+"/every?fieldManager=json-a", []obj{{"op": "add", "path": "/metadata/labels/json-a", "value": "x"}}, "application/json-patch+json")
		}},
		{"json-1 Update " + v1, func() obj {
			return mustCall(t, 200, "PATCH", base+v1Path+"/every?fieldManager=json-1", []obj{{"op": "add", "path": "/metadata/labels/json-1", "value": "x"}}, "application/json-patch+json")
		}},
		{"status-a Update " + alpha + " status", func() obj {
			return mustCall(t, 200, "PATCH", base+alphaPath+"/every/status?fieldManager=status-a", obj{"status": obj{"phase": "InTransit"}}, "application/merge-patch+json")
		}},
		{"status-1 Update " + v1 + " status", func() obj {
			return mustCall(t, 200, "PATCH", base+v1Path+"/every/status?fieldManager=status-1", obj{"status": obj{"attempts": 2}}, "application/merge-patch+json")
		}},
		{"sapply-1 Apply " + v1 + " status", func() obj {
			return mustCall(t, 200, "PATCH", base+v1Path+"/every/status?fieldManager=sapply-1", obj{
				"apiVersion": v1, "kind": "Shipment", "metadata": obj{"name": "every"},
				"status": obj{"conditions": []obj{{"type": "Ready", "status": "True", "reason": "Checked", "message": "ok", "lastTransitionTime": "2026-01-01T00:00:00Z"}}},
			}, applyPatch)
		}},
		{"sput-1 Update " + v1 + " status", func() obj {
			return put(v1Path+"/every/status", "sput-1", func(o obj) { o["status"].(obj)["observedGeneration"] = 1 })
		}},
	} {
		out := w.write()
		have = append(have, w.entry)
		wantEntries(t, "after "+w.entry, out, have...)
	}
	for _, path := range []string{alphaPath, v1Path} {
		wantEntries(t, "read through "+path, mustCall(t, 200, "GET", base+path+"/every", nil, ""), have...)
	}
}
