package generated_test

import (
	"fmt"
	"net/http"
	"testing"
)

// TestItemsMarkersServed: the +kubebuilder:validation:items:* markers of
// Warehouse.spec.gates are enforced by the served API as kube-apiserver
// enforces a CRD's items schema (a 422 naming each bad item by its index,
// nothing stored), and published under items in the served OpenAPI.
func TestItemsMarkersServed(t *testing.T) {
	base := startServer(t)
	path := base + "/apis/infra.kubeforge.dev/v1/warehouses"
	warehouse := func(name string, gates ...string) obj {
		return obj{"apiVersion": "infra.kubeforge.dev/v1", "kind": "Warehouse",
			"metadata": obj{"name": name}, "spec": obj{"region": "eu", "gates": gates}}
	}
	created := mustCall(t, http.StatusCreated, "POST", path, warehouse("good", "north", "south-1"), "")
	want(t, created, []any{"north", "south-1"}, "spec", "gates")

	code, st := call(t, "POST", path, warehouse("bad", "north", "South", "far-too-long", "x"), "")
	if code != http.StatusUnprocessableEntity {
		t.Fatalf("create with bad gates: %d %v, want 422", code, st)
	}
	var got []string
	causes, _ := get(st, "details", "causes").([]any)
	for _, c := range causes {
		got = append(got, fmt.Sprint(get(c, "field"), " ", get(c, "reason")))
	}
	wantCauses := []string{"spec.gates[1] FieldValueInvalid", "spec.gates[2] FieldValueTooLong"}
	if fmt.Sprint(got) != fmt.Sprint(wantCauses) {
		t.Errorf("causes = %v, want %v (message %v)", got, wantCauses, st["message"])
	}
	if msg := fmt.Sprint(st["message"]); msg != `Warehouse.infra.kubeforge.dev "bad" is invalid: [spec.gates[1]: Invalid value: "South": spec.gates[1] in body should match '^[a-z][a-z0-9-]*$', spec.gates[2]: Too long: may not be more than 8 bytes]` {
		t.Errorf("message = %s", msg)
	}
	mustCall(t, http.StatusNotFound, "GET", path+"/bad", nil, "")
	if code, st := call(t, "POST", path, warehouse("empty", ""), ""); code != http.StatusUnprocessableEntity || get(st, "details", "causes", 0, "field") != "spec.gates[0]" {
		t.Errorf("an empty gate: %d %v, want 422 at spec.gates[0]", code, st)
	}

	doc := mustCall(t, http.StatusOK, "GET", base+"/openapi/v3/apis/infra.kubeforge.dev/v1", nil, "")
	gates := get(doc, "components", "schemas", "dev.kubeforge.infra.v1.WarehouseSpec", "properties", "gates")
	want(t, obj{"g": gates}, obj{"maxLength": 8, "minLength": 1, "pattern": "^[a-z][a-z0-9-]*$", "type": "string"}, "g", "items")
	want(t, obj{"g": gates}, []any{"north", "south-1"}, "g", "example")
}
