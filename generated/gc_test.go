package generated_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

const (
	shipmentsPath  = "/apis/shipping.kubeforge.dev/v1/namespaces/default/shipments"
	configMapsPath = "/api/v1/namespaces/default/configmaps"
)

func configMap(name string, owners ...obj) obj {
	meta := obj{"name": name}
	if len(owners) > 0 {
		meta["ownerReferences"] = owners
	}
	return obj{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": obj{"a": "b"}}
}

func finalizers(o obj) []string {
	var out []string
	fs, _ := get(o, "metadata", "finalizers").([]any)
	for _, f := range fs {
		out = append(out, f.(string))
	}
	return out
}

// TestOwnerReferencesValidated: every write of every kind validates
// metadata.ownerReferences as kube-apiserver does (apimachinery's
// ValidateOwnerReferences): a 422 naming the field.
func TestOwnerReferencesValidated(t *testing.T) {
	base := startServer(t)
	owner := mustCall(t, 201, "POST", base+shipmentsPath, shipment("owner", "Bonn", nil), "")
	uid := get(owner, "metadata", "uid").(string)
	ref := func(mod func(obj)) obj {
		r := obj{"apiVersion": "shipping.kubeforge.dev/v1", "kind": "Shipment", "name": "owner", "uid": uid}
		if mod != nil {
			mod(r)
		}
		return r
	}
	for _, tc := range []struct {
		name  string
		refs  []obj
		field string
		msg   string
	}{
		{"no uid", []obj{ref(func(r obj) { delete(r, "uid") })}, "metadata.ownerReferences[0].uid", "must not be empty"},
		{"no apiVersion", []obj{ref(func(r obj) { delete(r, "apiVersion") })}, "metadata.ownerReferences[0].apiVersion", "must not be empty"},
		{"bad apiVersion", []obj{ref(func(r obj) { r["apiVersion"] = "a/b/c" })}, "metadata.ownerReferences[0].apiVersion", "must be <group>/<version> or <version>"},
		{"no kind", []obj{ref(func(r obj) { delete(r, "kind") })}, "metadata.ownerReferences[0].kind", "must not be empty"},
		{"no name", []obj{ref(func(r obj) { delete(r, "name") })}, "metadata.ownerReferences[0].name", "must not be empty"},
		{"two controllers", []obj{ref(func(r obj) { r["controller"] = true }), ref(func(r obj) { r["controller"] = true; r["uid"] = "other"; r["name"] = "b" })}, "metadata.ownerReferences", "Only one reference can have Controller set to true"},
		{"an Event", []obj{ref(func(r obj) { r["kind"] = "Event"; r["apiVersion"] = "v1" })}, "metadata.ownerReferences[0]", "is disallowed from being an owner"},
	} {
		for _, path := range []string{configMapsPath, shipmentsPath} {
			var body obj
			if path == configMapsPath {
				body = configMap("cm-"+strings.ReplaceAll(strings.ToLower(tc.name), " ", "-"), tc.refs...)
			} else {
				body = shipment("s-"+strings.ReplaceAll(strings.ToLower(tc.name), " ", "-"), "Bonn", nil)
				body["metadata"].(obj)["ownerReferences"] = tc.refs
			}
			code, out := call(t, "POST", base+path, body, "")
			cause, _ := get(out, "details", "causes", 0).(obj)
			if code != http.StatusUnprocessableEntity || cause["field"] != tc.field || !strings.Contains(cause["message"].(string), tc.msg) {
				t.Errorf("create %s with %s: %d %v, want 422 on %s", path, tc.name, code, out, tc.field)
			}
		}
	}
	// An update too.
	mustCall(t, 201, "POST", base+configMapsPath, configMap("fine", ref(nil)), "")
	code, out := call(t, "PATCH", base+configMapsPath+"/fine", obj{"metadata": obj{"ownerReferences": []obj{ref(func(r obj) { r["uid"] = "" })}}}, "application/merge-patch+json")
	if code != http.StatusUnprocessableEntity || get(out, "details", "causes", 0, "field") != "metadata.ownerReferences[0].uid" {
		t.Errorf("patch an empty uid: %d %v", code, out)
	}
}

// TestDeletePropagationHTTP: propagationPolicy and orphanDependents from
// the query and the body, as kube-apiserver answers them.
func TestDeletePropagationHTTP(t *testing.T) {
	base := startServer(t)
	a := shipment("a", "Bonn", nil)
	a["metadata"].(obj)["finalizers"] = []string{"example.dev/hold"}
	mustCall(t, 201, "POST", base+shipmentsPath, a, "")
	code, out := call(t, "DELETE", base+shipmentsPath+"/a?propagationPolicy=Orphan&orphanDependents=true", nil, "")
	if code != http.StatusUnprocessableEntity || get(out, "details", "kind") != "DeleteOptions" {
		t.Errorf("both options: %d %v, want 422 on DeleteOptions", code, out)
	}
	// Foreground from the body: 200 with the object, marked.
	out = mustCall(t, 200, "DELETE", base+shipmentsPath+"/a", obj{"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Foreground"}, "")
	if !slices.Equal(finalizers(out), []string{"example.dev/hold", "foregroundDeletion"}) || get(out, "metadata", "deletionTimestamp") == nil {
		t.Errorf("foreground delete: %v", out["metadata"])
	}
	// orphanDependents=false on an object held by a finalizer: 202.
	// orphanDependents=false means background: foregroundDeletion goes,
	// the object stays for its other finalizer, and the answer is a 202.
	out = mustCall(t, 202, "DELETE", base+shipmentsPath+"/a?orphanDependents=false", nil, "")
	if !slices.Equal(finalizers(out), []string{"example.dev/hold"}) {
		t.Errorf("background after foreground: %v", out["metadata"])
	}
	mustCall(t, 200, "PATCH", base+shipmentsPath+"/a", obj{"metadata": obj{"finalizers": nil}}, "application/merge-patch+json")
	mustCall(t, 404, "GET", base+shipmentsPath+"/a", nil, "")

	// Events never get the collector's finalizers (kube: Unsupported).
	mustCall(t, 201, "POST", base+corePath, coreEvent("ev"), "")
	out = mustCall(t, 200, "DELETE", base+corePath+"/ev?propagationPolicy=Orphan", nil, "")
	if out["kind"] != "Status" || out["status"] != "Success" {
		t.Errorf("orphan delete of an Event: %v, want deleted", out)
	}
}
