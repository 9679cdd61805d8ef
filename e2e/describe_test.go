package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// eventManifest is a core/v1 Event in default about the shipment name
// (uid), as a controller's event recorder writes it.
func eventManifest(eventName, shipment, uid, typ, reason, message string) string {
	now := time.Now().UTC().Format(time.RFC3339)
	return fmt.Sprintf(`apiVersion: v1
kind: Event
metadata:
  name: %s
  namespace: default
involvedObject:
  apiVersion: shipping.kubeforge.dev/v1
  kind: Shipment
  namespace: default
  name: %s
  uid: %q
type: %s
reason: %s
message: %s
source:
  component: dispatcher
firstTimestamp: %q
lastTimestamp: %q
count: 1
`, eventName, shipment, uid, typ, reason, message, now, now)
}

// TestKubectlDescribeShowsEvents: kubectl describe lists the events of the
// object with a field selector on involvedObject (name, namespace, kind,
// uid) and prints them under Events; events about other objects stay out.
// kubectl get selects shipments and events on their fields, and an
// unsupported label is kube-apiserver's 400.
func TestKubectlDescribeShowsEvents(t *testing.T) {
	s := sharedServer(t)
	k := newKubectl(t, s)
	dyn := s.dynamic(t).Resource(shipmentsGVR).Namespace("default")
	const name, other = "kc-describe", "kc-describe-other"
	cleanupShipment(t, dyn, name)
	cleanupShipment(t, dyn, other)
	dir := kubectlTempDir(t)
	k.ok(t, "", "create", "-f", writeFile(t, dir, "s.yaml", shipmentManifest(name, "Bonn", "carrier: acme"), 0o644))
	k.ok(t, "", "create", "-f", writeFile(t, dir, "o.yaml", shipmentManifest(other, "Bonn"), 0o644))
	uid := string(getShipment(t, k, name).GetUID())
	otherUID := string(getShipment(t, k, other).GetUID())

	events := map[string]string{
		name + ".delayed": eventManifest(name+".delayed", name, uid, "Warning", "Delayed", "stuck at the border"),
		// Same name and kind, another uid: a deleted and recreated shipment's.
		name + ".stale": eventManifest(name+".stale", name, "0000-stale", "Normal", "Stale", "about an older shipment"),
		other + ".lost": eventManifest(other+".lost", other, otherUID, "Warning", "Lost", "not our shipment"),
	}
	for ev, manifest := range events {
		k.ok(t, "", "create", "-f", writeFile(t, dir, ev+".yaml", manifest, 0o644))
		t.Cleanup(func() { k.run(t, "", "delete", "event", ev, "--ignore-not-found") })
	}
	// Through events.k8s.io/v1 as well: one store, so describe shows it.
	k.ok(t, "", "create", "-f", writeFile(t, dir, "new.yaml", fmt.Sprintf(`apiVersion: events.k8s.io/v1
kind: Event
metadata:
  name: %[1]s.dispatched
  namespace: default
eventTime: %[3]q
reportingController: kubeforge.dev/dispatcher
reportingInstance: dispatcher-1
action: Dispatch
reason: Dispatched
type: Normal
note: left the depot
regarding:
  apiVersion: shipping.kubeforge.dev/v1
  kind: Shipment
  namespace: default
  name: %[1]s
  uid: %[2]q
`, name, uid, time.Now().UTC().Format("2006-01-02T15:04:05.000000Z")), 0o644))
	t.Cleanup(func() { k.run(t, "", "delete", "events.v1.events.k8s.io", name+".dispatched", "--ignore-not-found") })

	out := k.ok(t, "", "describe", "shipment", name)
	i := strings.Index(out, "\nEvents:")
	if i < 0 {
		t.Fatalf("kubectl describe shipment %s has no Events section:\n%s", name, out)
	}
	section := out[i+1:]
	for _, re := range []string{
		`(?m)^Events:\n\s+Type\s+Reason\s+Age\s+From\s+Message\n\s+----`,
		`(?m)^\s+Warning\s+Delayed\s+\S+\s+dispatcher\s+stuck at the border$`,
		`(?m)^\s+Normal\s+Dispatched\s+\S+\s+kubeforge\.dev/dispatcher\s+left the depot$`,
	} {
		if !regexp.MustCompile(re).MatchString(section) {
			t.Errorf("kubectl describe shipment %s: Events section does not match %s:\n%s", name, re, section)
		}
	}
	for _, not := range []string{"Stale", "Lost", "not our shipment"} {
		if strings.Contains(section, not) {
			t.Errorf("kubectl describe shipment %s shows %q, an event about another object:\n%s", name, not, section)
		}
	}

	// kubectl get with field selectors.
	wantOut(t, k.ok(t, "", "get", "events", "--field-selector", "involvedObject.name="+name+",type=Warning", "-o", "name"),
		"event/"+name+".delayed\n")
	wantOut(t, k.ok(t, "", "get", "events.v1.events.k8s.io", "--field-selector", "regarding.uid="+otherUID, "-o", "name"),
		"event.events.k8s.io/"+other+".lost\n")
	wantOut(t, k.ok(t, "", "get", "shipments", "--field-selector", "spec.carrier=acme", "-o", "name"),
		"shipment.shipping.kubeforge.dev/"+name+"\n")
	wantOut(t, k.ok(t, "", "get", "shipments.v1alpha1.shipping.kubeforge.dev", "--field-selector", "spec.from.city=Bonn,metadata.name="+other, "-o", "name"),
		"shipment.shipping.kubeforge.dev/"+other+"\n")
	r := k.run(t, "", "get", "shipments", "--field-selector", "spec.priority=Normal")
	if r.code == 0 || !strings.Contains(r.stderr, "field label not supported: spec.priority") {
		t.Errorf("kubectl get shipments --field-selector spec.priority=Normal: want kube-apiserver's 400:\n%s", r)
	}
}
