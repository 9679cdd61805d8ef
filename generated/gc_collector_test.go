package generated_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/kubeforge/kubeforge/runtime/server"
)

// ownerRef is an owner reference to o.
func ownerRef(o obj, block bool) obj {
	return obj{"apiVersion": o["apiVersion"], "kind": o["kind"], "name": get(o, "metadata", "name"), "uid": get(o, "metadata", "uid"), "blockOwnerDeletion": block}
}

func goneWithin(t *testing.T, url string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		code, out := call(t, "GET", url, nil, "")
		if code == http.StatusNotFound {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still there after %s: %d %v", url, d, code, out["metadata"])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func stays(t *testing.T, url string, d time.Duration) obj {
	t.Helper()
	time.Sleep(d)
	return mustCall(t, 200, "GET", url, nil, "")
}

func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestGarbageCollector: the standalone server's collector, with
// kube-controller-manager's semantics.
func TestGarbageCollector(t *testing.T) {
	s := startServerWith(t, serverConfigForGC())
	base := s.URL()
	ship := func(name string) obj {
		return mustCall(t, 201, "POST", base+shipmentsPath, shipment(name, "Bonn", nil), "")
	}
	cm := func(name string, owners ...obj) obj {
		return mustCall(t, 201, "POST", base+configMapsPath, configMap(name, owners...), "")
	}

	t.Run("background", func(t *testing.T) {
		owner := ship("bg")
		for i := range 3 {
			cm(fmt.Sprintf("bg-%d", i), ownerRef(owner, false))
		}
		mustCall(t, 200, "DELETE", base+shipmentsPath+"/bg", nil, "")
		for i := range 3 {
			goneWithin(t, base+configMapsPath+fmt.Sprintf("/bg-%d", i), 20*time.Second)
		}
	})

	t.Run("foreground waits for a blocking dependent with its own finalizer", func(t *testing.T) {
		owner := ship("fg")
		held := configMap("fg-held", ownerRef(owner, true))
		held["metadata"].(obj)["finalizers"] = []string{"example.dev/hold"}
		mustCall(t, 201, "POST", base+configMapsPath, held, "")
		cm("fg-free", ownerRef(owner, false))
		out := mustCall(t, 200, "DELETE", base+shipmentsPath+"/fg?propagationPolicy=Foreground", nil, "")
		if !slices.Equal(finalizers(out), []string{"foregroundDeletion"}) {
			t.Fatalf("owner after a foreground delete: %v", out["metadata"])
		}
		goneWithin(t, base+configMapsPath+"/fg-free", 20*time.Second)
		eventually(t, 20*time.Second, "the blocking dependent is being deleted", func() bool {
			return get(mustCall(t, 200, "GET", base+configMapsPath+"/fg-held", nil, ""), "metadata", "deletionTimestamp") != nil
		})
		o := stays(t, base+shipmentsPath+"/fg", time.Second)
		if !slices.Equal(finalizers(o), []string{"foregroundDeletion"}) {
			t.Fatalf("owner while a blocking dependent remains: %v", o["metadata"])
		}
		mustCall(t, 200, "PATCH", base+configMapsPath+"/fg-held", obj{"metadata": obj{"finalizers": nil}}, "application/merge-patch+json")
		goneWithin(t, base+shipmentsPath+"/fg", 20*time.Second)
	})

	t.Run("orphan", func(t *testing.T) {
		owner := ship("or")
		other := ship("or-other")
		cm("or-dep", ownerRef(owner, true), ownerRef(other, false))
		mustCall(t, 200, "DELETE", base+shipmentsPath+"/or?propagationPolicy=Orphan", nil, "")
		goneWithin(t, base+shipmentsPath+"/or", 20*time.Second)
		dep := stays(t, base+configMapsPath+"/or-dep", 500*time.Millisecond)
		refs, _ := get(dep, "metadata", "ownerReferences").([]any)
		if len(refs) != 1 || get(refs[0], "name") != "or-other" {
			t.Fatalf("orphaned dependent's references: %v", refs)
		}
	})

	t.Run("two owners", func(t *testing.T) {
		a, b := ship("two-a"), ship("two-b")
		cm("two-dep", ownerRef(a, false), ownerRef(b, false))
		mustCall(t, 200, "DELETE", base+shipmentsPath+"/two-a", nil, "")
		stays(t, base+configMapsPath+"/two-dep", 2*time.Second)
		mustCall(t, 200, "DELETE", base+shipmentsPath+"/two-b", nil, "")
		goneWithin(t, base+configMapsPath+"/two-dep", 20*time.Second)
	})

	t.Run("dangling", func(t *testing.T) {
		cm("dangling", obj{"apiVersion": "shipping.kubeforge.dev/v1", "kind": "Shipment", "name": "nobody", "uid": "6a3f0b52-0000-4000-8000-000000000000"})
		goneWithin(t, base+configMapsPath+"/dangling", 20*time.Second)
		// Same name, other uid: dangling too (owners are checked by uid).
		ship("renamed")
		cm("stale", obj{"apiVersion": "shipping.kubeforge.dev/v1", "kind": "Shipment", "name": "renamed", "uid": "6a3f0b52-0000-4000-8000-000000000001"})
		goneWithin(t, base+configMapsPath+"/stale", 20*time.Second)
	})

	t.Run("a cluster-scoped owner of a namespaced dependent", func(t *testing.T) {
		cr := mustCall(t, 201, "POST", base+"/apis/rbac.authorization.k8s.io/v1/clusterroles", obj{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": obj{"name": "gc-owner"}}, "")
		cm("cr-dep", ownerRef(cr, false))
		stays(t, base+configMapsPath+"/cr-dep", time.Second)
		mustCall(t, 200, "DELETE", base+"/apis/rbac.authorization.k8s.io/v1/clusterroles/gc-owner", nil, "")
		goneWithin(t, base+configMapsPath+"/cr-dep", 20*time.Second)
	})

	t.Run("a namespaced owner of a cluster-scoped dependent is invalid and left alone", func(t *testing.T) {
		owner := ship("ns-owner")
		mustCall(t, 201, "POST", base+"/api/v1/namespaces", obj{"apiVersion": "v1", "kind": "Namespace", "metadata": obj{"name": "gc-bad-ref", "ownerReferences": []obj{ownerRef(owner, false)}}}, "")
		stays(t, base+"/api/v1/namespaces/gc-bad-ref", 2*time.Second)
	})

	t.Run("owner in another namespace", func(t *testing.T) {
		mustCall(t, 201, "POST", base+"/api/v1/namespaces", obj{"apiVersion": "v1", "kind": "Namespace", "metadata": obj{"name": "gc-other"}}, "")
		owner := ship("elsewhere")
		dep := configMap("cross-ns", ownerRef(owner, false))
		mustCall(t, 201, "POST", base+"/api/v1/namespaces/gc-other/configmaps", dep, "")
		// Looked up in the dependent's namespace, the owner is absent.
		goneWithin(t, base+"/api/v1/namespaces/gc-other/configmaps/cross-ns", 20*time.Second)
	})

	t.Run("a chain collected in the foreground", func(t *testing.T) {
		top := ship("chain-top")
		mid := cm("chain-mid", ownerRef(top, true))
		cm("chain-leaf", ownerRef(mid, true))
		mustCall(t, 200, "DELETE", base+shipmentsPath+"/chain-top?propagationPolicy=Foreground", nil, "")
		goneWithin(t, base+shipmentsPath+"/chain-top", 20*time.Second)
		goneWithin(t, base+configMapsPath+"/chain-mid", time.Second)
		goneWithin(t, base+configMapsPath+"/chain-leaf", time.Second)
	})

	if st := s.GarbageCollector().Stats(); st.Deletions == 0 {
		t.Errorf("stats: %+v", st)
	}
}

func serverConfigForGC() server.Config { return server.Config{} }
