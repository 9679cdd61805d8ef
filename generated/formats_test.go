package generated_test

import (
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestFormatsAgree: a user's kind reads the same as compact JSON,
// indented JSON (?pretty=true) and YAML, as kube-apiserver writes a
// custom resource: no null and no empty status in any of them.
func TestFormatsAgree(t *testing.T) {
	base := startServer(t)
	mustCall(t, http.StatusCreated, "POST", base+v1Path, v1Shipment("formats", obj{
		"origin": obj{"street": "1 Old Road", "city": "Bonn"}, "destination": obj{"street": "2 New Road", "city": "Köln"},
		"parcels": []any{obj{"name": "box"}},
	}), "")
	read := func(query, accept string) (string, map[string]any) {
		req, err := http.NewRequest(http.MethodGet, base+v1Path+"/formats"+query, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s as %s: %d %s", query, accept, resp.StatusCode, body)
		}
		var m map[string]any
		if err := yaml.Unmarshal(body, &m); err != nil {
			t.Fatalf("GET %s as %s: %v: %s", query, accept, err, body)
		}
		return string(body), m
	}
	compact, want := read("", "application/json")
	if strings.Contains(compact, "null") || strings.Contains(compact, `"status"`) || strings.Contains(compact, `"weight"`) {
		t.Errorf("a null, status or zero weight written: %s", compact)
	}
	pretty, got := read("?pretty=true", "application/json")
	if !reflect.DeepEqual(got, want) || !strings.Contains(pretty, "\n  \"metadata\": {") {
		t.Errorf("indented JSON:\n%s\nwant the same as %s", pretty, compact)
	}
	y, got := read("", "application/yaml")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("YAML:\n%s\nwant the same as %s", y, compact)
	}
}

// TestUpdateIgnoresStatus: a PUT of the main resource that carries a
// status (as JavaScript's and Python's clients send back what they read,
// edited) is validated with the current object's status, which the
// strategy keeps: the status it sent is not checked, and not stored.
func TestUpdateIgnoresStatus(t *testing.T) {
	base := startServer(t)
	created := mustCall(t, http.StatusCreated, "POST", base+v1Path, v1Shipment("keeps-status", obj{
		"origin": obj{"street": "1 Old Road", "city": "Bonn"}, "destination": obj{"street": "2 New Road", "city": "Köln"},
		"parcels": []any{obj{"name": "box"}},
	}), "")
	created["status"] = obj{"phase": "Lost"}
	spec(created)["carrier"] = "dhl"
	got := mustCall(t, http.StatusOK, "PUT", base+v1Path+"/keeps-status", created, "")
	if _, ok := got["status"]; ok || spec(got)["carrier"] != "dhl" {
		t.Errorf("a PUT with a status: %v", got)
	}
	// Through the converted version too.
	alpha := mustCall(t, http.StatusOK, "GET", base+alphaPath+"/keeps-status", nil, "")
	alpha["status"] = obj{"phase": "Lost"}
	spec(alpha)["destination"].(obj)["city"] = "Bonn"
	got = mustCall(t, http.StatusOK, "PUT", base+alphaPath+"/keeps-status", alpha, "")
	if _, ok := got["status"]; ok || spec(got)["destination"].(obj)["city"] != "Bonn" {
		t.Errorf("a v1alpha1 PUT with a status: %v", got)
	}
}
