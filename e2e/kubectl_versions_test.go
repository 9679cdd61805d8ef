package e2e

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestKubectlApplyAcrossVersions: kubectl apply --server-side of a
// v1alpha1 manifest, then of v1 manifests, behaves as against
// kube-apiserver: every managedFields entry keeps the version it was
// applied through, conflicts are found across versions and named in the
// owner's version, and a manager that applies through another version
// moves its entry to that version.
func TestKubectlApplyAcrossVersions(t *testing.T) {
	s := sharedServer(t)
	k := newKubectl(t, s)
	dyn := s.dynamic(t).Resource(shipmentsGVR).Namespace("default")
	const name = "kc-ssa-versions"
	const alpha, v1 = "shipping.kubeforge.dev/v1alpha1", "shipping.kubeforge.dev/v1"
	cleanupShipment(t, dyn, name)
	dir := kubectlTempDir(t)

	alphaManifest := writeFile(t, dir, "alpha.yaml", fmt.Sprintf(`apiVersion: %s
kind: Shipment
metadata:
  name: %s
  namespace: default
spec:
  urgent: true
  from:
    street: Hauptstr. 1
    city: Berlin
  destination:
    street: High St 2
    city: London
  parcels:
  - name: box
`, alpha, name), 0o644)
	wantOut(t, k.ok(t, "", "apply", "--server-side", "--field-manager=a", "-f", alphaManifest),
		"shipment.shipping.kubeforge.dev/"+name+" serverside-applied\n")

	// b applies a v1-only field through v1: a's v1alpha1 entry stays.
	notify := writeFile(t, dir, "notify.yaml", v1Partial(name, "notify: ops@example.dev"), 0o644)
	wantOut(t, k.ok(t, "", "apply", "--server-side", "--field-manager=b", "-f", notify),
		"shipment.shipping.kubeforge.dev/"+name+" serverside-applied\n")
	wantVersions(t, getShipment(t, k, name), "a Apply "+alpha, "b Apply "+v1)
	// Read through v1alpha1, the entries keep their own apiVersion.
	wantVersions(t, getAlphaShipment(t, k, name), "a Apply "+alpha, "b Apply "+v1)
	wantOwner(t, getShipment(t, k, name), "a", "Apply", true, "f:spec", "f:from", "f:city")

	// c applies through v1 the origin a set as from: a conflict with a,
	// in v1alpha1's field name; nothing is stored.
	origin := writeFile(t, dir, "origin.yaml", v1Partial(name, "origin:", "  street: Hauptstr. 1", "  city: Hamburg"), 0o644)
	r := k.run(t, "", "apply", "--server-side", "--field-manager=c", "-f", origin)
	if r.code == 0 {
		t.Fatalf("apply of origin.city by c: want a conflict with a's v1alpha1 from.city:\n%s", r)
	}
	for _, want := range []string{`conflict with "a"`, ".spec.from.city"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("conflict: stderr lacks %q:\n%s", want, r)
		}
	}
	if got := str(getShipment(t, k, name), "spec", "origin", "city"); got != "Berlin" {
		t.Errorf("after the conflicting apply: origin.city = %q, want Berlin", got)
	}

	// kubectl edits through v1alpha1 (a merge patch, an update): kept too.
	k.ok(t, "", "patch", "shipments.v1alpha1.shipping.kubeforge.dev", name, "--type=merge", "--field-manager=d",
		"-p", `{"spec":{"destination":{"city":"Leeds"}}}`)
	wantVersions(t, getShipment(t, k, name), "a Apply "+alpha, "b Apply "+v1, "d Update "+alpha)

	// a applies the same object as a v1 manifest: its entry moves to v1,
	// in v1's field names, and nobody else's entry changes.
	v1Manifest := writeFile(t, dir, "v1.yaml", fmt.Sprintf(`apiVersion: %s
kind: Shipment
metadata:
  name: %s
  namespace: default
spec:
  priority: Urgent
  origin:
    street: Hauptstr. 1
    city: Berlin
  destination:
    street: High St 2
  parcels:
  - name: box
`, v1, name), 0o644)
	wantOut(t, k.ok(t, "", "apply", "--server-side", "--field-manager=a", "-f", v1Manifest),
		"shipment.shipping.kubeforge.dev/"+name+" serverside-applied\n")
	u := getShipment(t, k, name)
	wantVersions(t, u, "a Apply "+v1, "b Apply "+v1, "d Update "+alpha)
	wantOwner(t, u, "a", "Apply", true, "f:spec", "f:origin", "f:city")
	wantOwner(t, u, "a", "Apply", true, "f:spec", "f:priority")
	wantOwner(t, u, "a", "Apply", false, "f:spec", "f:from")
	if got := str(u, "spec", "origin", "city") + " " + str(u, "spec", "priority") + " " + str(u, "spec", "destination", "city"); got != "Berlin Urgent Leeds" {
		t.Errorf("after a's v1 apply: origin.city, priority, destination.city = %q, want \"Berlin Urgent Leeds\"", got)
	}

	// c's origin now conflicts with a in v1's name.
	r = k.run(t, "", "apply", "--server-side", "--field-manager=c", "-f", origin)
	if r.code == 0 || !strings.Contains(r.stderr, `conflict with "a"`) || !strings.Contains(r.stderr, ".spec.origin.city") {
		t.Fatalf("apply of origin.city by c after a's v1 apply: want a conflict with a's .spec.origin.city:\n%s", r)
	}
	// ... and --force-conflicts takes it, a keeping the rest.
	k.ok(t, "", "apply", "--server-side", "--field-manager=c", "--force-conflicts", "-f", origin)
	u = getShipment(t, k, name)
	wantVersions(t, u, "a Apply "+v1, "b Apply "+v1, "c Apply "+v1, "d Update "+alpha)
	wantOwner(t, u, "a", "Apply", false, "f:spec", "f:origin", "f:city")
	wantOwner(t, u, "a", "Apply", true, "f:spec", "f:origin", "f:street")
	wantOwner(t, u, "c", "Apply", true, "f:spec", "f:origin", "f:city")
}

// v1Partial is a v1 apply configuration of the shipment with the given
// spec lines.
func v1Partial(name string, spec ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: shipping.kubeforge.dev/v1\nkind: Shipment\nmetadata:\n  name: %s\n  namespace: default\nspec:\n", name)
	for _, l := range spec {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// getAlphaShipment reads a shipment in default through v1alpha1, managed
// fields included.
func getAlphaShipment(t *testing.T, k *kubectl, name string) *unstructured.Unstructured {
	t.Helper()
	out := k.ok(t, "", "get", "shipments.v1alpha1.shipping.kubeforge.dev", name, "-o", "json", "--show-managed-fields")
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON([]byte(out)); err != nil {
		t.Fatalf("decode kubectl get -o json: %v\n%s", err, out)
	}
	if u.GetAPIVersion() != "shipping.kubeforge.dev/v1alpha1" {
		t.Fatalf("kubectl get shipments.v1alpha1...: apiVersion %s", u.GetAPIVersion())
	}
	return u
}

// wantVersions checks u's managedFields are exactly want, each "manager
// operation apiVersion".
func wantVersions(t *testing.T, u *unstructured.Unstructured, want ...string) {
	t.Helper()
	var got []string
	for _, e := range u.GetManagedFields() {
		got = append(got, fmt.Sprintf("%s %s %s", e.Manager, e.Operation, e.APIVersion))
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("managedFields of %s:\n\t%s\nwant\n\t%s", u.GetName(), strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}
