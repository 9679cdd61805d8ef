package generated_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestExplicitZerosKept: a +kubebuilder:default on a field without
// omitempty (Warehouse.spec.robots, docks[].doors, openingHours[].staffed)
// applies where the request's JSON has no key, or null, and an explicit
// zero is kept, as kube-apiserver's structural defaulting of a custom
// resource does: through a create, a read, an update, merge and JSON
// patches, server-side apply and a YAML body.
func TestExplicitZerosKept(t *testing.T) {
	base := startServer(t)
	path := base + "/apis/infra.kubeforge.dev/v1/warehouses"
	hours := func(staffed ...bool) obj {
		h := obj{"open": "08:00", "close": "18:00"}
		if len(staffed) > 0 {
			h["staffed"] = staffed[0]
		}
		return h
	}
	warehouse := func(name string, spec obj) obj {
		spec["region"] = "eu"
		return obj{"apiVersion": "infra.kubeforge.dev/v1", "kind": "Warehouse", "metadata": obj{"name": name}, "spec": spec}
	}
	check := func(what string, o obj, robots int, doors []int, staffed map[string]bool) {
		t.Helper()
		want(t, o, robots, "spec", "robots")
		for i, d := range doors {
			want(t, o, d, "spec", "docks", i, "doors")
		}
		for day, s := range staffed {
			want(t, o, s, "spec", "openingHours", day, "staffed")
		}
		if t.Failed() {
			t.Fatalf("%s", what)
		}
	}

	zeros := mustCall(t, http.StatusCreated, "POST", path, warehouse("zeros", obj{
		"robots":       0,
		"docks":        []obj{{"id": 1, "doors": 0}, {"id": 2}, {"id": 3, "doors": nil}},
		"openingHours": obj{"mon": hours(false), "tue": hours(), "wed": hours(true)},
	}), "")
	check("create with explicit zeros", zeros, 0, []int{0, 1, 1}, map[string]bool{"mon": false, "tue": true, "wed": true})
	check("read back", mustCall(t, http.StatusOK, "GET", path+"/zeros", nil, ""), 0, []int{0, 1, 1}, map[string]bool{"mon": false, "tue": true})

	absent := mustCall(t, http.StatusCreated, "POST", path, warehouse("absent", obj{"robots": nil}), "")
	check("create without them", absent, 2, nil, nil)

	// A merge patch leaves the rest as stored: the zeros stay.
	patched := mustCall(t, http.StatusOK, "PATCH", path+"/zeros", obj{"spec": obj{"region": "us"}}, "application/merge-patch+json")
	check("merge patch of another field", patched, 0, []int{0, 1}, map[string]bool{"mon": false})
	// Removing the key is asking for the default.
	patched = mustCall(t, http.StatusOK, "PATCH", path+"/zeros", []obj{{"op": "remove", "path": "/spec/robots"}, {"op": "remove", "path": "/spec/docks/0/doors"}}, "application/json-patch+json")
	check("JSON patch removing them", patched, 2, []int{1}, nil)
	patched = mustCall(t, http.StatusOK, "PATCH", path+"/zeros", obj{"spec": obj{"robots": 0}}, "application/merge-patch+json")
	check("merge patch setting 0", patched, 0, nil, nil)

	// An update sends the whole object: an absent key is defaulted.
	upd := warehouse("absent", obj{"robots": 0, "openingHours": obj{"sun": hours(false)}})
	upd["metadata"].(obj)["resourceVersion"] = get(absent, "metadata", "resourceVersion")
	check("update to zeros", mustCall(t, http.StatusOK, "PUT", path+"/absent", upd, ""), 0, nil, map[string]bool{"sun": false})
	cur := mustCall(t, http.StatusOK, "GET", path+"/absent", nil, "")
	delete(cur["spec"].(obj), "robots")
	check("update without the key", mustCall(t, http.StatusOK, "PUT", path+"/absent", cur, ""), 2, nil, map[string]bool{"sun": false})

	// Server-side apply, creating and then updating.
	applyPath := path + "/applied?fieldManager=test"
	applied := mustCall(t, http.StatusCreated, "PATCH", applyPath, warehouse("applied", obj{
		"robots": 0, "docks": []obj{{"id": 1, "doors": 0}, {"id": 2}},
	}), "application/apply-patch+yaml")
	check("apply creating with zeros", applied, 0, []int{0, 1}, nil)
	applied = mustCall(t, http.StatusOK, "PATCH", applyPath, warehouse("applied", obj{
		"robots": 0, "docks": []obj{{"id": 1, "doors": 0}, {"id": 2}, {"id": 3}},
	}), "application/apply-patch+yaml")
	check("apply adding an item", applied, 0, []int{0, 1, 1}, nil)
	applied = mustCall(t, http.StatusCreated, "PATCH", path+"/applied2?fieldManager=test", warehouse("applied2", obj{}), "application/apply-patch+yaml")
	check("apply creating without them", applied, 2, nil, nil)

	// YAML, as kubectl sends it.
	code, out := callRaw(t, "POST", path, "apiVersion: infra.kubeforge.dev/v1\nkind: Warehouse\nmetadata:\n  name: yaml\nspec:\n  region: eu\n  robots: 0\n  docks:\n  - id: 1\n    doors: 0\n", "application/yaml")
	if code != http.StatusCreated {
		t.Fatalf("YAML create: %d %v", code, out)
	}
	check("YAML create", out, 0, []int{0}, nil)

	// The list and a watch's replay read the stored zeros too.
	list := mustCall(t, http.StatusOK, "GET", path, nil, "")
	for _, item := range list["items"].([]any) {
		if get(item, "metadata", "name") == "yaml" {
			check("list", item.(obj), 0, []int{0}, nil)
		}
	}
}

// TestRequiredMeansSent: a required field is missing when the request's
// JSON has no key for it (or null), as kube-apiserver checks a custom
// resource's required properties: an explicit "" or 0 in a field without
// omitempty is a value, judged by the field's other markers, and [] is a
// list, judged by minItems. Through a create, an update and a merge patch,
// in v1 and through the v1alpha1 view.
func TestRequiredMeansSent(t *testing.T) {
	base := startServer(t)
	path := base + "/apis/infra.kubeforge.dev/v1/warehouses"
	causes := func(st obj) []string {
		var out []string
		for _, c := range get(st, "details", "causes").([]any) {
			out = append(out, get(c, "field").(string)+" "+get(c, "reason").(string))
		}
		return out
	}
	invalid := func(what string, code int, st obj, want ...string) {
		t.Helper()
		if code != http.StatusUnprocessableEntity {
			t.Fatalf("%s: %d %v, want 422", what, code, st)
		}
		if got := causes(st); !jsonEqual(got, want) {
			t.Errorf("%s: causes %v, want %v (%v)", what, got, want, st["message"])
		}
	}
	wh := func(name string, spec obj) obj {
		return obj{"apiVersion": "infra.kubeforge.dev/v1", "kind": "Warehouse", "metadata": obj{"name": name}, "spec": spec}
	}

	code, st := call(t, "POST", path, wh("a", obj{"docks": []obj{{"doors": 2}}, "openingHours": obj{"mon": obj{"open": "", "close": nil}}}), "")
	invalid("absent, null and zero", code, st,
		"spec.region FieldValueRequired",
		"spec.docks[0].id FieldValueRequired",
		"spec.openingHours.mon.open FieldValueInvalid",
		"spec.openingHours.mon.close FieldValueRequired")
	code, st = call(t, "POST", path, wh("b", obj{"region": "", "docks": []obj{{"id": 0}}}), "")
	invalid("an empty region, a zero id", code, st, "spec.region FieldValueInvalid", "spec.docks[0].id FieldValueInvalid")
	mustCall(t, http.StatusNotFound, "GET", path+"/a", nil, "")

	// Street has no other marker: "" is accepted, as in a CRD; absent is not.
	shipments := base + "/apis/shipping.kubeforge.dev/v1/namespaces/default/shipments"
	s := shipment("s1", "Bonn", nil)
	s["spec"].(obj)["origin"].(obj)["street"] = ""
	created := mustCall(t, http.StatusCreated, "POST", shipments, s, "")
	want(t, created, "", "spec", "origin", "street")
	delete(s["spec"].(obj)["origin"].(obj), "street")
	s["metadata"].(obj)["name"] = "s2"
	code, st = call(t, "POST", shipments, s, "")
	invalid("an absent street", code, st, "spec.origin.street FieldValueRequired")

	// Server-side apply that creates reads its configuration.
	s = shipment("s4", "Bonn", nil)
	s["spec"].(obj)["origin"].(obj)["street"] = ""
	applied := mustCall(t, http.StatusCreated, "PATCH", shipments+"/s4?fieldManager=test", s, "application/apply-patch+yaml")
	want(t, applied, "", "spec", "origin", "street")

	// [] is a list: minItems judges it.
	s = shipment("s3", "Bonn", nil)
	s["spec"].(obj)["parcels"] = []obj{}
	code, st = call(t, "POST", shipments, s, "")
	invalid("no parcels", code, st, "spec.parcels FieldValueInvalid")

	// An update and a merge patch see what they send (a value an update
	// leaves as it was is not judged again: kube's ratcheting).
	code, st = call(t, "PATCH", shipments+"/s1", obj{"spec": obj{"destination": obj{"street": nil}}}, "application/merge-patch+json")
	invalid("a merge patch removing a street", code, st, "spec.destination.street FieldValueRequired")
	patched := mustCall(t, http.StatusOK, "PATCH", shipments+"/s1", obj{"spec": obj{"destination": obj{"street": ""}}}, "application/merge-patch+json")
	want(t, patched, "", "spec", "destination", "street")
	created = mustCall(t, http.StatusOK, "PATCH", shipments+"/s1", obj{"spec": obj{"destination": obj{"street": "2 New Road"}}}, "application/merge-patch+json")
	created["spec"].(obj)["destination"].(obj)["street"] = ""
	updated := mustCall(t, http.StatusOK, "PUT", shipments+"/s1", created, "")
	want(t, updated, "", "spec", "destination", "street")
	cur := mustCall(t, http.StatusOK, "GET", shipments+"/s1", nil, "")
	cur["spec"].(obj)["origin"].(obj)["street"] = "3 Any Road"
	delete(cur["spec"].(obj)["destination"].(obj), "street")
	code, st = call(t, "PUT", shipments+"/s1", cur, "")
	if code != http.StatusOK {
		t.Errorf("an update leaving an empty street out: %d %v (unchanged, ratcheted)", code, st)
	}
}

// TestExplicitZerosValidated: a zero the request's JSON holds in an
// omitempty field without a default (postalCode: "", notify: "") is
// checked against the field's markers, as kube-apiserver checks a custom
// resource's JSON; the same object without those keys, as Go clients send
// it, is valid. (An update ratchets such an error away: the stored object,
// from Go, cannot tell the zero it held from an absent key.)
func TestExplicitZerosValidated(t *testing.T) {
	base := startServer(t)
	for _, tc := range []struct {
		name    string
		set     func(spec obj)
		message string
	}{
		{"postal", func(spec obj) { spec["origin"].(obj)["postalCode"] = "" }, `spec.origin.postalCode: Invalid value: "": spec.origin.postalCode in body should match '^[A-Z0-9 -]{3,10}$'`},
		{"notify", func(spec obj) { spec["notify"] = "" }, `spec.notify: Invalid value: "": spec.notify in body must be of type email: ""`},
	} {
		s := shipment("zero-"+tc.name, "Bonn", nil)
		tc.set(s["spec"].(obj))
		code, body := call(t, "POST", base+v1Path, s, "")
		if msg, _ := body["message"].(string); code != http.StatusUnprocessableEntity || !strings.Contains(msg, tc.message) {
			t.Errorf("%s: got %d %v, want 422 with %q", tc.name, code, body, tc.message)
		}
	}
	created := mustCall(t, http.StatusCreated, "POST", base+v1Path, shipment("zero-absent", "Bonn", nil), "")
	// A zero its markers allow passes.
	status := obj{"apiVersion": "shipping.kubeforge.dev/v1", "kind": "Shipment", "metadata": created["metadata"],
		"spec": created["spec"], "status": obj{"attempts": 0}}
	mustCall(t, http.StatusOK, "PUT", base+v1Path+"/zero-absent/status", status, "")
}
