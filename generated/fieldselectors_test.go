package generated_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// sel is a fieldSelector query: sel("spec.carrier=acme") is
// ?fieldSelector=spec.carrier%3Dacme.
func sel(s string) string { return "?fieldSelector=" + url.QueryEscape(s) }

// listNames lists url and returns the names, comma-separated.
func listNames(t *testing.T, url string) string {
	t.Helper()
	return strings.Join(names(mustCall(t, 200, "GET", url, nil, "")), ",")
}

// badSelector checks that url is a 400 Bad Request with kube-apiserver's
// message.
func badSelector(t *testing.T, url, message string) {
	t.Helper()
	code, out := call(t, "GET", url, nil, "")
	if code != http.StatusBadRequest || get(out, "reason") != "BadRequest" || get(out, "message") != message {
		t.Errorf("GET %s: %d %v, want 400 BadRequest %q", url, code, out, message)
	}
	if code, out := call(t, "GET", url+"&watch=1", nil, ""); code != http.StatusBadRequest || get(out, "message") != message {
		t.Errorf("watch %s: %d %v, want 400 %q", url, code, out, message)
	}
}

// nextIs reads the next watch event and checks its type and object name.
func nextIs(t *testing.T, ch <-chan event, typ, name string) obj {
	t.Helper()
	ev := nextEvent(t, ch)
	if ev.Type != typ || get(ev.Object, "metadata", "name") != name {
		t.Fatalf("watch event %s %v, want %s %s", ev.Type, get(ev.Object, "metadata", "name"), typ, name)
	}
	return ev.Object
}

func shipment(name, city string, carrier any) obj {
	spec := obj{
		"origin":      obj{"street": "1 Old Road", "city": city},
		"destination": obj{"street": "2 New Road", "city": "Köln"},
		"parcels":     []obj{{"name": "box"}},
	}
	if carrier != nil {
		spec["carrier"] = carrier
	}
	return obj{"apiVersion": "shipping.kubeforge.dev/v1", "kind": "Shipment", "metadata": obj{"name": name}, "spec": spec}
}

// TestShipmentFieldSelectors: list, paginate and watch shipments on their
// +kubebuilder:selectablefield fields; v1alpha1 selects on its own fields
// (spec.from.city where v1 has spec.origin.city), converted per object.
func TestShipmentFieldSelectors(t *testing.T) {
	base := startServer(t)
	mustCall(t, 201, "POST", base+v1Path, shipment("s1", "Bonn", "acme"), "")
	mustCall(t, 201, "POST", base+v1Path, shipment("s2", "Köln", nil), "")
	mustCall(t, 201, "POST", base+v1Path, shipment("s3", "Bonn", "dhl"), "")
	mustCall(t, 200, "PATCH", base+v1Path+"/s1/status", obj{"status": obj{"phase": "InTransit"}}, "application/merge-patch+json")

	for _, c := range []struct{ path, selector, want string }{
		{v1Path, "spec.carrier=acme", "s1"},
		{v1Path, "spec.carrier==acme", "s1"},
		{v1Path, "spec.carrier!=acme", "s2,s3"},
		{v1Path, "spec.carrier=", "s2"}, // no carrier: ""
		{v1Path, "spec.origin.city=Bonn", "s1,s3"},
		{v1Path, "spec.origin.city=Bonn,spec.carrier=dhl", "s3"},
		{v1Path, "status.phase=InTransit", "s1"},
		{v1Path, "status.phase=", "s2,s3"},
		{v1Path, "metadata.name=s2,spec.origin.city=Köln", "s2"},
		{v1Path, "spec.carrier=ups", ""},
		{alphaPath, "spec.from.city=Bonn", "s1,s3"},
		{alphaPath, "spec.from.city=Köln,metadata.namespace=default", "s2"},
		{alphaPath, "status.phase=InTransit", "s1"},
		{"/apis/shipping.kubeforge.dev/v1/shipments", "spec.origin.city=Bonn", "s1,s3"},
	} {
		if got := listNames(t, base+c.path+sel(c.selector)); got != c.want {
			t.Errorf("list %s?fieldSelector=%s: %q, want %q", c.path, c.selector, got, c.want)
		}
	}

	// Unsupported labels: kube-apiserver's 400 for custom resources. Each
	// version has its own labels.
	badSelector(t, base+v1Path+sel("spec.priority=Normal"), "field label not supported: spec.priority")
	badSelector(t, base+v1Path+sel("spec.from.city=Bonn"), "field label not supported: spec.from.city")
	badSelector(t, base+alphaPath+sel("spec.origin.city=Bonn"), "field label not supported: spec.origin.city")
	badSelector(t, base+alphaPath+sel("spec.carrier=acme"), "field label not supported: spec.carrier")

	// Pagination: every page holds matching objects only, continuing at
	// the revision of the first.
	for _, p := range []string{v1Path, alphaPath} {
		label := "spec.origin.city=Bonn"
		if p == alphaPath {
			label = "spec.from.city=Bonn"
		}
		page := mustCall(t, 200, "GET", base+p+sel(label)+"&limit=1", nil, "")
		cont, _ := get(page, "metadata", "continue").(string)
		if got := strings.Join(names(page), ","); got != "s1" || cont == "" {
			t.Fatalf("%s first page: %q continue %q, want s1 and a token", p, got, cont)
		}
		page = mustCall(t, 200, "GET", base+p+sel(label)+"&limit=1&continue="+url.QueryEscape(cont), nil, "")
		if got := strings.Join(names(page), ","); got != "s3" {
			t.Errorf("%s second page: %q, want s3", p, got)
		}
		if c, _ := get(page, "metadata", "continue").(string); c != "" {
			t.Errorf("%s second page continues with %q, want the end", p, c)
		}
	}

	// Watch: objects that start matching are ADDED, those that stop are
	// DELETED, deleted ones are DELETED with their last state.
	acme := watch(t, base+v1Path+sel("spec.carrier=acme"))
	nextIs(t, acme, "ADDED", "s1") // the current state first
	koeln := watch(t, base+alphaPath+sel("spec.from.city=Köln"))
	nextIs(t, koeln, "ADDED", "s2")

	mustCall(t, 200, "PATCH", base+v1Path+"/s2", obj{"spec": obj{"carrier": "acme"}}, "application/merge-patch+json")
	nextIs(t, acme, "ADDED", "s2")
	if o := nextIs(t, koeln, "MODIFIED", "s2"); get(o, "apiVersion") != "shipping.kubeforge.dev/v1alpha1" {
		t.Errorf("v1alpha1 watch object %v", o)
	}
	mustCall(t, 200, "PATCH", base+v1Path+"/s1", obj{"spec": obj{"carrier": "dhl"}}, "application/merge-patch+json")
	if o := nextIs(t, acme, "DELETED", "s1"); get(o, "spec", "carrier") != "acme" {
		t.Errorf("DELETED of an object that stopped matching carries %v, want its last matching state", get(o, "spec", "carrier"))
	}
	mustCall(t, 200, "PATCH", base+v1Path+"/s3", obj{"spec": obj{"origin": obj{"city": "Köln"}}}, "application/merge-patch+json")
	nextIs(t, koeln, "ADDED", "s3")
	mustCall(t, 200, "DELETE", base+v1Path+"/s2", nil, "")
	nextIs(t, acme, "DELETED", "s2")
	if o := nextIs(t, koeln, "DELETED", "s2"); get(o, "spec", "from", "city") != "Köln" {
		t.Errorf("v1alpha1 DELETED object %v", o)
	}

	// deletecollection selects the same way, through a converted version too.
	out := mustCall(t, 200, "DELETE", base+alphaPath+sel("spec.from.city=Köln"), nil, "")
	if got := strings.Join(names(out), ","); got != "s3" {
		t.Errorf("deletecollection spec.from.city=Köln deleted %q, want s3", got)
	}
	nextIs(t, koeln, "DELETED", "s3")
	if got := listNames(t, base+v1Path); got != "s1" {
		t.Errorf("shipments left: %q, want s1", got)
	}
}

// TestEventFieldSelectors: core/v1 Events select on kube-apiserver's labels
// (involvedObject.*, reason, source, type, reportingComponent), exactly as
// kubectl describe lists an object's events; events.k8s.io/v1 Events, served
// over the same store, on theirs (regarding.*, reportingController).
func TestEventFieldSelectors(t *testing.T) {
	base := startServer(t)
	s1 := mustCall(t, 201, "POST", base+v1Path, shipment("s1", "Bonn", "acme"), "")
	uid := get(s1, "metadata", "uid").(string)

	about := coreEvent("s1.delayed")
	about["involvedObject"] = obj{"apiVersion": "shipping.kubeforge.dev/v1", "kind": "Shipment", "namespace": "default", "name": "s1", "uid": uid}
	about["reason"], about["type"], about["message"] = "Delayed", "Warning", "stuck at the border"
	mustCall(t, 201, "POST", base+corePath, about, "")
	mustCall(t, 201, "POST", base+corePath, coreEvent("lock.elected"), "") // about a Lease, source shipper
	other := eventsEvent("s2.dispatched")
	other["regarding"] = obj{"apiVersion": "shipping.kubeforge.dev/v1", "kind": "Shipment", "namespace": "default", "name": "s2", "uid": "u-2"}
	mustCall(t, 201, "POST", base+eventsPath, other, "") // no deprecatedSource: source is the reporting controller

	// kubectl describe shipment s1 lists the events of the object like this.
	describe := "involvedObject.name=s1,involvedObject.namespace=default,involvedObject.kind=Shipment,involvedObject.uid=" + uid
	for _, c := range []struct{ path, selector, want string }{
		{corePath, describe, "s1.delayed"},
		{corePath, "involvedObject.kind=Shipment", "s1.delayed,s2.dispatched"},
		{corePath, "involvedObject.kind=Lease,involvedObject.name=lock", "lock.elected"},
		{corePath, "involvedObject.apiVersion=shipping.kubeforge.dev/v1,reason!=Delayed", "s2.dispatched"},
		{corePath, "type=Warning", "s1.delayed"},
		{corePath, "source=shipper", "lock.elected,s1.delayed"},
		{corePath, "source=example.dev/shipper", "s2.dispatched"},
		{corePath, "reportingComponent=example.dev/shipper", "s2.dispatched"},
		{corePath, "involvedObject.uid=u-2", "s2.dispatched"},
		{eventsPath, "regarding.name=s1,regarding.kind=Shipment", "s1.delayed"},
		{eventsPath, "regarding.uid=" + uid, "s1.delayed"},
		{eventsPath, "reportingController=shipper", "lock.elected,s1.delayed"},
		{eventsPath, "source=example.dev/shipper,type=Normal", "s2.dispatched"},
		{"/api/v1/events", "involvedObject.name=s2", "s2.dispatched"},
		{"/apis/events.k8s.io/v1/events", "regarding.name=s2", "s2.dispatched"},
	} {
		if got := listNames(t, base+c.path+sel(c.selector)); got != c.want {
			t.Errorf("list %s?fieldSelector=%s: %q, want %q", c.path, c.selector, got, c.want)
		}
	}
	badSelector(t, base+corePath+sel("regarding.name=s1"), "field label not supported: regarding.name")
	badSelector(t, base+eventsPath+sel("involvedObject.name=s1"), "field label not supported: involvedObject.name")
	badSelector(t, base+eventsPath+sel("note=x"), "field label not supported: note")

	// Watches in both forms, each on its own labels.
	core := watch(t, base+corePath+sel("involvedObject.name=s1"))
	nextIs(t, core, "ADDED", "s1.delayed")
	events := watch(t, base+eventsPath+sel("regarding.name=s1"))
	if o := nextIs(t, events, "ADDED", "s1.delayed"); get(o, "note") != "stuck at the border" {
		t.Errorf("events.k8s.io/v1 watch object %v", o)
	}
	again := eventsEvent("s1.arrived")
	again["regarding"] = obj{"kind": "Shipment", "namespace": "default", "name": "s1", "uid": uid}
	mustCall(t, 201, "POST", base+eventsPath, again, "")
	mustCall(t, 201, "POST", base+corePath, coreEvent("lock.renewed"), "") // matches neither watch
	nextIs(t, core, "ADDED", "s1.arrived")
	nextIs(t, events, "ADDED", "s1.arrived")
	mustCall(t, 200, "DELETE", base+corePath+"/s1.delayed", nil, "")
	nextIs(t, core, "DELETED", "s1.delayed")
	if o := nextIs(t, events, "DELETED", "s1.delayed"); get(o, "regarding", "name") != "s1" {
		t.Errorf("events.k8s.io/v1 DELETED object %v", o)
	}

	// deletecollection through events.k8s.io/v1 on its own labels.
	out := mustCall(t, 200, "DELETE", base+eventsPath+sel("regarding.kind=Lease"), nil, "")
	if got := strings.Join(names(out), ","); got != "lock.elected,lock.renewed" {
		t.Errorf("deletecollection regarding.kind=Lease deleted %q", got)
	}
	if got := listNames(t, base+corePath); got != "s1.arrived,s2.dispatched" {
		t.Errorf("events left: %q", got)
	}
}

// TestBuiltinFieldSelectors: Namespaces select on status.phase and not on
// metadata.namespace; a built-in kind without selectable fields of its own
// (Lease) answers kube-apiserver's default conversion message.
func TestBuiltinFieldSelectors(t *testing.T) {
	base := startServer(t)
	if got := listNames(t, base+"/api/v1/namespaces"+sel("status.phase=Active,metadata.name=default")); got != "default" {
		t.Errorf("namespaces status.phase=Active,metadata.name=default: %q", got)
	}
	if got := listNames(t, base+"/api/v1/namespaces"+sel("status.phase=Terminating")); got != "" {
		t.Errorf("namespaces status.phase=Terminating: %q", got)
	}
	badSelector(t, base+"/api/v1/namespaces"+sel("metadata.namespace=default"), "field label not supported: metadata.namespace")
	badSelector(t, base+"/apis/coordination.k8s.io/v1/namespaces/default/leases"+sel("spec.holderIdentity=a"),
		`"spec.holderIdentity" is not a known field selector: only "metadata.name", "metadata.namespace"`)
	if got := listNames(t, base+"/apis/coordination.k8s.io/v1/namespaces/default/leases"+sel("metadata.namespace=default")); got != "" {
		t.Errorf("leases metadata.namespace=default: %q", got)
	}
}
