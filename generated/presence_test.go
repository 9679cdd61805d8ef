package generated_test

import (
	"net/http"
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
		"robots": 0,
		"docks":  []obj{{"id": 1, "doors": 0}, {"id": 2}, {"id": 3, "doors": nil}},
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
