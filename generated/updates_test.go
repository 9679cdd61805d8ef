package generated_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestPutStrategies: a PUT without resourceVersion and a PUT of a missing
// object behave per kind as kube-apiserver's strategies say
// (generators/builtinstrategy): a ConfigMap, Secret or RoleBinding takes an
// unconditional update; a Lease, an admission policy and a custom
// resource refuse it with 422; a Lease, an Event or a Role is created by
// a PUT (201, with managedFields of an Update), a ConfigMap or a custom
// resource is not (404). A ConfigMap has no generation; a webhook
// configuration and a custom resource start at 1.
func TestPutStrategies(t *testing.T) {
	base := startServer(t)
	cms := base + "/api/v1/namespaces/default/configmaps"
	leases := base + "/apis/coordination.k8s.io/v1/namespaces/default/leases"
	roles := base + "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles"
	shipments := base + "/apis/shipping.kubeforge.dev/v1/namespaces/default/shipments"

	cm := func(v string) obj {
		return obj{"apiVersion": "v1", "kind": "ConfigMap", "metadata": obj{"name": "c1"}, "data": obj{"k": v}}
	}
	created := mustCall(t, http.StatusCreated, "POST", cms, cm("1"), "")
	got := mustCall(t, http.StatusOK, "PUT", cms+"/c1", cm("2"), "")
	if get(got, "data", "k") != "2" || get(got, "metadata", "resourceVersion") == get(created, "metadata", "resourceVersion") {
		t.Errorf("unconditional ConfigMap update = %v, want data.k 2 at a new resourceVersion", got)
	}
	// A ConfigMap's strategy leaves metadata.generation alone.
	if g := get(got, "metadata", "generation"); g != nil || get(created, "metadata", "generation") != nil {
		t.Errorf("ConfigMap generation = %v after create, %v after update; want none", get(created, "metadata", "generation"), g)
	}
	stale := cm("3")
	stale["metadata"].(obj)["resourceVersion"] = get(created, "metadata", "resourceVersion")
	if code, out := call(t, "PUT", cms+"/c1", stale, ""); code != http.StatusConflict {
		t.Errorf("ConfigMap update at a stale resourceVersion: %d %v, want 409", code, out)
	}
	missing := cm("1")
	missing["metadata"].(obj)["name"] = "c2"
	if code, out := call(t, "PUT", cms+"/c2", missing, ""); code != http.StatusNotFound {
		t.Errorf("PUT of a missing ConfigMap: %d %v, want 404", code, out)
	}

	lease := func(holder string) obj {
		return obj{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": obj{"name": "l1", "resourceVersion": "12345"},
			"spec": obj{"holderIdentity": holder}}
	}
	got = mustCall(t, http.StatusCreated, "PUT", leases+"/l1", lease("a"), "")
	if get(got, "spec", "holderIdentity") != "a" || get(got, "metadata", "managedFields", 0, "operation") != "Update" {
		t.Errorf("Lease created by PUT = %v, want holder a, managedFields of an Update", got)
	}
	noRV := lease("b")
	delete(noRV["metadata"].(obj), "resourceVersion")
	code, out := call(t, "PUT", leases+"/l1", noRV, "")
	if msg, _ := out["message"].(string); code != http.StatusUnprocessableEntity || !strings.Contains(msg, "must be specified for an update") {
		t.Errorf("Lease update without resourceVersion: %d %v, want 422", code, out)
	}

	role := obj{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": obj{"name": "r1"},
		"rules": []any{obj{"apiGroups": []any{""}, "resources": []any{"pods"}, "verbs": []any{"get"}}}}
	mustCall(t, http.StatusCreated, "PUT", roles+"/r1", role, "")
	mustCall(t, http.StatusOK, "PUT", roles+"/r1", role, "")

	// Webhook configurations track it, as custom resources do.
	hooks := base + "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
	hook := obj{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration", "metadata": obj{"name": "h1"}}
	if g := get(mustCall(t, http.StatusCreated, "POST", hooks, hook, ""), "metadata", "generation"); g != float64(1) {
		t.Errorf("webhook configuration generation = %v, want 1", g)
	}

	shipment := obj{"apiVersion": "shipping.kubeforge.dev/v1", "kind": "Shipment", "metadata": obj{"name": "s1"},
		"spec": obj{
			"origin":      obj{"street": "1 Old Road", "city": "Bonn"},
			"destination": obj{"street": "2 New Road", "city": "Köln"},
			"parcels":     []obj{{"name": "box"}},
		}}
	if code, out := call(t, "PUT", shipments+"/s1", shipment, ""); code != http.StatusNotFound {
		t.Errorf("PUT of a missing custom resource: %d %v, want 404", code, out)
	}
	if g := get(mustCall(t, http.StatusCreated, "POST", shipments, shipment, ""), "metadata", "generation"); g != float64(1) {
		t.Errorf("custom resource generation = %v, want 1", g)
	}
	if code, out := call(t, "PUT", shipments+"/s1", shipment, ""); code != http.StatusUnprocessableEntity {
		t.Errorf("custom resource update without resourceVersion: %d %v, want 422", code, out)
	}
}
