package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// kubeControllerManagerPath is the kube-controller-manager binary:
// $KUBE_CONTROLLER_MANAGER, else the one ../hack/kube-controller-manager.sh
// builds once per machine.
func kubeControllerManagerPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("KUBE_CONTROLLER_MANAGER"); p != "" {
		return p
	}
	script, err := filepath.Abs(filepath.Join("..", "hack", "kube-controller-manager.sh"))
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command("bash", script)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hack/kube-controller-manager.sh: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// startGarbageCollector runs kube-controller-manager with only its garbage
// collector against the main cluster (as its admin); it stops with the
// test. It returns the process's log.
func (mc *mainCluster) startGarbageCollector(t *testing.T) *syncWriter {
	t.Helper()
	bin := kubeControllerManagerPath(t)
	log := &syncWriter{w: &bytes.Buffer{}}
	cmd := exec.Command(bin,
		"--kubeconfig="+mc.kubeconfig,
		"--controllers=garbage-collector-controller",
		"--leader-elect=false",
		"--secure-port=0",
		"--concurrent-gc-syncs=5",
		"--v=2",
	)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start kube-controller-manager: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	// Its garbage collector runs once every resource monitor, ours
	// included (discovered through the aggregated APIServices), has synced.
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(log.String(), "all resource monitors have synced") {
		select {
		case err := <-done:
			t.Fatalf("kube-controller-manager exited: %v\n%s", err, tail(log.String(), 8000))
		case <-time.After(250 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("kube-controller-manager's garbage collector not synced after 2 minutes\n%s", tail(log.String(), 8000))
		}
	}
	return log
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.String()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "...\n" + s[len(s)-n:]
	}
	return s
}

// ownedShipmentManifest is a Shipment in ns owned by the given owners
// (kind/name/uid[/block]).
func ownedShipmentManifest(ns, name string, owners ...[4]string) string {
	m := strings.Replace(shipmentManifest(name, "Berlin"), "namespace: default", "namespace: "+ns, 1)
	if len(owners) == 0 {
		return m
	}
	var b strings.Builder
	b.WriteString("  ownerReferences:\n")
	for _, o := range owners {
		fmt.Fprintf(&b, "  - {apiVersion: shipping.kubeforge.dev/v1, kind: %s, name: %s, uid: %s, blockOwnerDeletion: %s}\n", o[0], o[1], o[2], o[3])
	}
	return strings.Replace(m, "  namespace: "+ns+"\n", "  namespace: "+ns+"\n"+b.String(), 1)
}

// testMainClusterGarbageCollector: behind a cluster no collector runs in
// the server; kube-controller-manager's collects our kinds, relying on the
// store's half (the finalizers a propagation policy adds) being exactly
// kube-apiserver's: background, foreground, orphan, and a dependent of
// another group (a ConfigMap of the main cluster owned by a Shipment).
func testMainClusterGarbageCollector(t *testing.T, mc *mainCluster, k *kubectl) {
	kcmLog := mc.startGarbageCollector(t)
	defer func() {
		if t.Failed() {
			t.Logf("kube-controller-manager:\n%s", tail(kcmLog.String(), 12000))
		}
	}()
	const ns = "agg-gc"
	k.ok(t, "", "create", "namespace", ns)
	uid := func(kind, name string) string {
		return k.ok(t, "", "get", kind, name, "-n", ns, "-o", "jsonpath={.metadata.uid}")
	}
	gone := func(kind, name string, d time.Duration) {
		t.Helper()
		err := waitFor(t.Context(), d, func() error {
			r := k.run(t, "", "get", kind, name, "-n", ns, "-o", "jsonpath={.metadata.finalizers} {.metadata.deletionTimestamp}")
			if r.code != 0 && strings.Contains(r.stderr, "NotFound") {
				return nil
			}
			return fmt.Errorf("%s %s still there: %s", kind, name, r)
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	// Background: the dependent Shipment and ConfigMap go.
	k.ok(t, ownedShipmentManifest(ns, "bg-owner"), "create", "-f", "-")
	owner := uid("shipment", "bg-owner")
	k.ok(t, ownedShipmentManifest(ns, "bg-dep", [4]string{"Shipment", "bg-owner", owner, "false"}), "create", "-f", "-")
	k.ok(t, fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: bg-cm
  namespace: %s
  ownerReferences:
  - {apiVersion: shipping.kubeforge.dev/v1, kind: Shipment, name: bg-owner, uid: %s}
`, ns, owner), "create", "-f", "-")
	k.ok(t, "", "delete", "shipment", "bg-owner", "-n", ns)
	gone("shipment", "bg-dep", 60*time.Second)
	gone("configmap", "bg-cm", 60*time.Second)

	// Foreground: the owner waits with foregroundDeletion while a blocking
	// dependent held by its own finalizer exists.
	k.ok(t, ownedShipmentManifest(ns, "fg-owner"), "create", "-f", "-")
	owner = uid("shipment", "fg-owner")
	held := strings.Replace(ownedShipmentManifest(ns, "fg-dep", [4]string{"Shipment", "fg-owner", owner, "true"}),
		"  ownerReferences:", "  finalizers: [example.dev/hold]\n  ownerReferences:", 1)
	k.ok(t, held, "create", "-f", "-")
	k.ok(t, "", "delete", "shipment", "fg-owner", "-n", ns, "--cascade=foreground", "--wait=false")
	err := waitFor(t.Context(), 60*time.Second, func() error {
		dt := k.ok(t, "", "get", "shipment", "fg-dep", "-n", ns, "-o", "jsonpath={.metadata.deletionTimestamp}")
		if dt == "" {
			return fmt.Errorf("the blocking dependent is not being deleted")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := k.ok(t, "", "get", "shipment", "fg-owner", "-n", ns, "-o", "jsonpath={.metadata.finalizers}"); !strings.Contains(got, "foregroundDeletion") {
		t.Fatalf("the owner while its blocking dependent remains: finalizers %q", got)
	}
	k.ok(t, "", "patch", "shipment", "fg-dep", "-n", ns, "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)
	gone("shipment", "fg-owner", 60*time.Second)

	// Orphan: the owner goes, the dependent stays without the reference.
	k.ok(t, ownedShipmentManifest(ns, "or-owner"), "create", "-f", "-")
	owner = uid("shipment", "or-owner")
	k.ok(t, ownedShipmentManifest(ns, "or-dep", [4]string{"Shipment", "or-owner", owner, "true"}), "create", "-f", "-")
	k.ok(t, "", "delete", "shipment", "or-owner", "-n", ns, "--cascade=orphan", "--timeout=60s")
	gone("shipment", "or-owner", 60*time.Second)
	if refs := k.ok(t, "", "get", "shipment", "or-dep", "-n", ns, "-o", "jsonpath={.metadata.ownerReferences}"); refs != "" {
		t.Fatalf("the orphan keeps references: %s", refs)
	}
}
