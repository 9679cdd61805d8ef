package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// TestKubectl drives the shared apiserver with the real kubectl (v0.37.2,
// $KUBECTL or built by hack/kubectl.sh): explain, diff, edit, wait, delete
// --wait, server-side and client-side apply, and reading through another
// version. Every subtest uses objects of its own in the default namespace.
func TestKubectl(t *testing.T) {
	s := sharedServer(t)
	k := newKubectl(t, s)
	dyn := s.dynamic(t).Resource(shipmentsGVR).Namespace("default")

	t.Run("explain shipments.spec.parcels.count shows the doc comment", func(t *testing.T) {
		for _, args := range [][]string{
			{"explain", "shipments.spec.parcels.count"},
			{"explain", "shipments.spec.parcels.count", "--api-version=shipping.kubeforge.dev/v1"},
		} {
			out := k.ok(t, "", args...)
			for _, re := range []string{
				`(?m)^GROUP:\s+shipping\.kubeforge\.dev$`,
				`(?m)^KIND:\s+Shipment$`,
				`(?m)^VERSION:\s+v1$`,
				`(?m)^FIELD: count <integer>$`,
				`(?m)^DESCRIPTION:\n\s+Count of identical parcels\.$`,
			} {
				if !regexp.MustCompile(re).MatchString(out) {
					t.Errorf("kubectl %s: output does not match %s:\n%s", strings.Join(args, " "), re, out)
				}
			}
		}
	})

	t.Run("diff exits 1 with the change, 0 when unchanged, and changes nothing", func(t *testing.T) {
		const name = "kc-diff"
		cleanupShipment(t, dyn, name)
		dir := kubectlTempDir(t)
		same := writeFile(t, dir, "same.yaml", shipmentManifest(name, "Berlin"), 0o644)
		changed := writeFile(t, dir, "changed.yaml", shipmentManifest(name, "Munich"), 0o644)
		wantOut(t, k.ok(t, "", "create", "-f", same), "shipment.shipping.kubeforge.dev/"+name+" created\n")
		before := getShipment(t, k, name)

		r := k.run(t, "", "diff", "-f", same)
		if r.code != 0 || r.stdout != "" {
			t.Errorf("diff of the unchanged manifest: want exit 0 and no output:\n%s", r)
		}

		r = k.run(t, "", "diff", "-f", changed)
		if r.code != 1 {
			t.Errorf("diff of the changed manifest: want exit 1 (differences found):\n%s", r)
		}
		for _, re := range []string{
			`(?m)^\+\+\+ .*/shipping\.kubeforge\.dev\.v1\.Shipment\.default\.` + name + `\s`,
			`(?m)^-    city: Berlin$`,
			`(?m)^\+    city: Munich$`,
		} {
			if !regexp.MustCompile(re).MatchString(r.stdout) {
				t.Errorf("diff of the changed manifest: output does not match %s:\n%s", re, r)
			}
		}
		if n := strings.Count(r.stdout, "\n+    city:"); n != 1 {
			t.Errorf("diff shows %d changed cities, want only origin.city:\n%s", n, r.stdout)
		}

		after := getShipment(t, k, name)
		if got := str(after, "spec", "origin", "city"); got != "Berlin" {
			t.Errorf("after diff: spec.origin.city = %q on the server, want Berlin (diff must use a dry run)", got)
		}
		if after.GetResourceVersion() != before.GetResourceVersion() || after.GetGeneration() != before.GetGeneration() {
			t.Errorf("after diff: resourceVersion/generation %s/%d, want unchanged %s/%d",
				after.GetResourceVersion(), after.GetGeneration(), before.GetResourceVersion(), before.GetGeneration())
		}
	})

	t.Run("edit with EDITOR changes the object and bumps generation", func(t *testing.T) {
		const name = "kc-edit"
		cleanupShipment(t, dyn, name)
		dir := kubectlTempDir(t)
		f := writeFile(t, dir, "s.yaml", shipmentManifest(name, "Berlin"), 0o644)
		k.ok(t, "", "create", "-f", f)
		before := getShipment(t, k, name)
		marker := dir + "/editor-ran"
		editor := writeFile(t, dir, "editor.sh", fmt.Sprintf(`#!/bin/sh
set -e
grep -q '^    city: London$' "$1"
sed -i 's/^    city: London$/    city: Paris/' "$1"
touch %q
`, marker), 0o755)

		r := k.withEnv("EDITOR="+editor).run(t, "", "edit", "shipment", name)
		if r.code != 0 {
			t.Fatalf("edit: want exit 0:\n%s", r)
		}
		wantOut(t, r.stdout, "shipment.shipping.kubeforge.dev/"+name+" edited\n")
		after := getShipment(t, k, name)
		if got := str(after, "spec", "destination", "city"); got != "Paris" {
			t.Errorf("after edit: spec.destination.city = %q, want Paris", got)
		}
		if got := str(after, "spec", "origin", "city"); got != "Berlin" {
			t.Errorf("after edit: spec.origin.city = %q, want Berlin (untouched)", got)
		}
		if after.GetGeneration() != before.GetGeneration()+1 {
			t.Errorf("after edit: generation %d, want %d", after.GetGeneration(), before.GetGeneration()+1)
		}
	})

	t.Run("replace --raw (a PUT as written) updates a ConfigMap without resourceVersion and refuses a Shipment without one, as kube-apiserver does", func(t *testing.T) {
		// kubectl replace without --raw fills in the current
		// resourceVersion itself; --raw sends the manifest as it is.
		const name = "kc-replace"
		dir := kubectlTempDir(t)
		cm := func(v string) string {
			return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","namespace":"default"},"data":{"k":"` + v + `"}}`
		}
		k.ok(t, "", "delete", "configmap", name, "--ignore-not-found")
		k.ok(t, "", "create", "-f", writeFile(t, dir, "cm1.json", cm("one"), 0o644))
		k.ok(t, "", "replace", "--raw", "/api/v1/namespaces/default/configmaps/"+name, "-f", writeFile(t, dir, "cm2.json", cm("two"), 0o644))
		if got := k.ok(t, "", "get", "configmap", name, "-o", "jsonpath={.data.k}|{.metadata.generation}"); got != "two|" {
			t.Errorf("after replace: data.k|generation = %q, want \"two|\" (a ConfigMap has no generation)", got)
		}

		cleanupShipment(t, dyn, name)
		k.ok(t, "", "create", "-f", writeFile(t, dir, "s1.yaml", shipmentManifest(name, "Berlin"), 0o644))
		shipment := `{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":"` + name + `","namespace":"default"},` +
			`"spec":{"origin":{"street":"Hauptstr. 1","city":"Munich"},"destination":{"street":"High St 2","city":"London"},"parcels":[{"name":"box"}]}}`
		r := k.run(t, "", "replace", "--raw", "/apis/shipping.kubeforge.dev/v1/namespaces/default/shipments/"+name,
			"-f", writeFile(t, dir, "s2.json", shipment, 0o644))
		if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "must be specified for an update") {
			t.Errorf("replace --raw of a Shipment without resourceVersion: want kube's 422 for custom resources:\n%s", r)
		}
	})

	t.Run("wait for jsonpath status.phase=Delivered set later through the status subresource", func(t *testing.T) {
		const name = "kc-wait-phase"
		cleanupShipment(t, dyn, name)
		f := writeFile(t, kubectlTempDir(t), "s.yaml", shipmentManifest(name, "Berlin"), 0o644)
		k.ok(t, "", "create", "-f", f)
		forArg := "--for=jsonpath={.status.phase}=Delivered"

		// Not met yet: a short wait times out.
		r := k.run(t, "", "wait", "shipment/"+name, forArg, "--timeout=1s")
		if r.code == 0 || !strings.Contains(r.stderr, "timed out waiting for the condition") {
			t.Fatalf("wait before the status is set: want a timeout:\n%s", r)
		}

		done := k.start(t, "wait", "shipment/"+name, forArg, "--timeout=30s")
		setLater(t, dyn, name, done, `{"status":{"phase":"Delivered"}}`)
		r = await(t, done, 30*time.Second, "wait --for=jsonpath")
		if r.code != 0 {
			t.Fatalf("wait: want exit 0:\n%s", r)
		}
		wantOut(t, r.stdout, "shipment.shipping.kubeforge.dev/"+name+" condition met\n")
	})

	t.Run("wait for condition=Ready set later in status.conditions", func(t *testing.T) {
		const name = "kc-wait-ready"
		cleanupShipment(t, dyn, name)
		f := writeFile(t, kubectlTempDir(t), "s.yaml", shipmentManifest(name, "Berlin"), 0o644)
		k.ok(t, "", "create", "-f", f)
		if _, err := dyn.Patch(ctx(t, 30*time.Second), name, types.MergePatchType,
			[]byte(readyCondition("False")), metav1.PatchOptions{}, "status"); err != nil {
			t.Fatalf("set Ready=False: %v", err)
		}

		// Ready=False is not Ready: a short wait times out.
		r := k.run(t, "", "wait", "shipment/"+name, "--for=condition=Ready", "--timeout=1s")
		if r.code == 0 || !strings.Contains(r.stderr, "timed out waiting for the condition") {
			t.Fatalf("wait while Ready=False: want a timeout:\n%s", r)
		}

		done := k.start(t, "wait", "shipment/"+name, "--for=condition=Ready", "--timeout=30s")
		setLater(t, dyn, name, done, readyCondition("True"))
		r = await(t, done, 30*time.Second, "wait --for=condition=Ready")
		if r.code != 0 {
			t.Fatalf("wait: want exit 0:\n%s", r)
		}
		wantOut(t, r.stdout, "shipment.shipping.kubeforge.dev/"+name+" condition met\n")
	})

	t.Run("delete --wait blocks on a finalizer until it is removed", func(t *testing.T) {
		const name = "kc-delete"
		cleanupShipment(t, dyn, name)
		m := strings.Replace(shipmentManifest(name, "Berlin"), "  namespace: default\n",
			"  namespace: default\n  finalizers:\n  - kubeforge.dev/hold\n", 1)
		f := writeFile(t, kubectlTempDir(t), "s.yaml", m, 0o644)
		k.ok(t, "", "create", "-f", f)

		done := k.start(t, "delete", "shipment", name, "--wait=true", "--timeout=30s")
		eventually(t, 20*time.Second, "deletionTimestamp set by kubectl delete", func() error {
			u, err := dyn.Get(ctx(t, 10*time.Second), name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if u.GetDeletionTimestamp() == nil {
				return fmt.Errorf("no deletionTimestamp yet")
			}
			return nil
		})
		time.Sleep(time.Second)
		select {
		case r := <-done:
			t.Fatalf("delete --wait returned while the finalizer still holds the object:\n%s", r)
		default:
		}

		// another actor (a controller) removes its finalizer
		c := ctx(t, 30*time.Second)
		errc := make(chan error, 1)
		go func() {
			_, err := dyn.Patch(c, name, types.MergePatchType,
				[]byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
			errc <- err
		}()
		if err := <-errc; err != nil {
			t.Fatalf("remove the finalizer: %v", err)
		}
		r := await(t, done, 30*time.Second, "delete --wait")
		if r.code != 0 {
			t.Fatalf("delete --wait: want exit 0:\n%s", r)
		}
		if !regexp.MustCompile(`^shipment\.shipping\.kubeforge\.dev "` + name + `" deleted`).MatchString(r.stdout) {
			t.Errorf("delete --wait: unexpected output:\n%s", r)
		}
		r = k.run(t, "", "get", "shipment", name)
		if r.code == 0 || !strings.Contains(r.stderr, `(NotFound)`) {
			t.Errorf("get after delete --wait: want NotFound:\n%s", r)
		}
	})

	t.Run("apply --server-side: conflict with another manager, then --force-conflicts takes ownership", func(t *testing.T) {
		const name = "kc-ssa"
		cleanupShipment(t, dyn, name)
		dir := kubectlTempDir(t)
		f := writeFile(t, dir, "s.yaml", shipmentManifest(name, "Berlin"), 0o644)

		wantOut(t, k.ok(t, "", "apply", "--server-side", "--field-manager=a", "-f", f),
			"shipment.shipping.kubeforge.dev/"+name+" serverside-applied\n")
		u := getShipment(t, k, name)
		if got := str(u, "spec", "origin", "city"); got != "Berlin" {
			t.Fatalf("after apply: spec.origin.city = %q, want Berlin", got)
		}
		wantOwner(t, u, "a", "Apply", true, "f:spec", "f:origin", "f:city")
		wantOwner(t, u, "a", "Apply", true, "f:spec", "f:parcels", `k:{"name":"box"}`, "f:weight")

		// another manager changes a field a owns
		k.ok(t, "", "patch", "shipment", name, "--type=merge", "--field-manager=b",
			"-p", `{"spec":{"origin":{"city":"Hamburg"}}}`)
		wantOwner(t, getShipment(t, k, name), "b", "Update", true, "f:spec", "f:origin", "f:city")

		r := k.run(t, "", "apply", "--server-side", "--field-manager=a", "-f", f)
		if r.code == 0 {
			t.Fatalf("apply by a without --force-conflicts: want a conflict:\n%s", r)
		}
		for _, want := range []string{"conflict", `conflict with "b"`, ".spec.origin.city"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("apply conflict: stderr lacks %q:\n%s", want, r)
			}
		}
		if got := str(getShipment(t, k, name), "spec", "origin", "city"); got != "Hamburg" {
			t.Errorf("after the conflicting apply: spec.origin.city = %q, want Hamburg (nothing stored)", got)
		}

		wantOut(t, k.ok(t, "", "apply", "--server-side", "--field-manager=a", "--force-conflicts", "-f", f),
			"shipment.shipping.kubeforge.dev/"+name+" serverside-applied\n")
		u = getShipment(t, k, name)
		if got := str(u, "spec", "origin", "city"); got != "Berlin" {
			t.Errorf("after --force-conflicts: spec.origin.city = %q, want Berlin", got)
		}
		wantOwner(t, u, "a", "Apply", true, "f:spec", "f:origin", "f:city")
		wantOwner(t, u, "b", "Update", false, "f:spec", "f:origin", "f:city")
	})

	t.Run("apply --server-side --dry-run=server returns the result and stores nothing", func(t *testing.T) {
		const name = "kc-ssa-dry"
		cleanupShipment(t, dyn, name)
		dir := kubectlTempDir(t)
		f := writeFile(t, dir, "s.yaml", shipmentManifest(name, "Berlin"), 0o644)
		changed := writeFile(t, dir, "changed.yaml", shipmentManifest(name, "Munich"), 0o644)

		// dry run of a create: nothing is created
		wantOut(t, k.ok(t, "", "apply", "--server-side", "--field-manager=a", "--dry-run=server", "-f", f),
			"shipment.shipping.kubeforge.dev/"+name+" serverside-applied (server dry run)\n")
		if r := k.run(t, "", "get", "shipment", name); r.code == 0 || !strings.Contains(r.stderr, "(NotFound)") {
			t.Fatalf("after a dry-run apply that would create: want NotFound:\n%s", r)
		}

		k.ok(t, "", "apply", "--server-side", "--field-manager=a", "-f", f)
		before := getShipment(t, k, name)
		out := k.ok(t, "", "apply", "--server-side", "--field-manager=a", "--dry-run=server", "-f", changed,
			"-o", "jsonpath={.spec.origin.city} {.spec.priority}")
		wantOut(t, out, "Munich Normal")
		after := getShipment(t, k, name)
		if got := str(after, "spec", "origin", "city"); got != "Berlin" {
			t.Errorf("after a dry-run apply: spec.origin.city = %q, want Berlin", got)
		}
		if after.GetResourceVersion() != before.GetResourceVersion() {
			t.Errorf("after a dry-run apply: resourceVersion %s, want unchanged %s", after.GetResourceVersion(), before.GetResourceVersion())
		}
	})

	t.Run("client-side apply: unchanged on repeat, a removed field is removed on the server", func(t *testing.T) {
		const name = "kc-apply"
		cleanupShipment(t, dyn, name)
		dir := kubectlTempDir(t)
		withCarrier := writeFile(t, dir, "with.yaml", shipmentManifest(name, "Berlin", "carrier: dhl"), 0o644)
		without := writeFile(t, dir, "without.yaml", shipmentManifest(name, "Berlin"), 0o644)
		const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

		wantOut(t, k.ok(t, "", "apply", "-f", withCarrier), "shipment.shipping.kubeforge.dev/"+name+" created\n")
		u := getShipment(t, k, name)
		if got := str(u, "spec", "carrier"); got != "dhl" {
			t.Fatalf("after apply: spec.carrier = %q, want dhl", got)
		}
		if la := u.GetAnnotations()[lastApplied]; !strings.Contains(la, `"carrier":"dhl"`) {
			t.Errorf("after apply: %s = %q, want the applied manifest with the carrier", lastApplied, la)
		}

		wantOut(t, k.ok(t, "", "apply", "-f", withCarrier), "shipment.shipping.kubeforge.dev/"+name+" unchanged\n")
		if got := getShipment(t, k, name).GetResourceVersion(); got != u.GetResourceVersion() {
			t.Errorf("after an unchanged apply: resourceVersion %s, want %s", got, u.GetResourceVersion())
		}

		wantOut(t, k.ok(t, "", "apply", "-f", without), "shipment.shipping.kubeforge.dev/"+name+" configured\n")
		u = getShipment(t, k, name)
		if v, found, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "carrier"); found {
			t.Errorf("after applying without carrier: spec.carrier = %v, want it removed", v)
		}
		if got := str(u, "spec", "origin", "city"); got != "Berlin" {
			t.Errorf("after applying without carrier: spec.origin.city = %q, want Berlin", got)
		}
		if la := u.GetAnnotations()[lastApplied]; la == "" || strings.Contains(la, "carrier") {
			t.Errorf("after applying without carrier: %s = %q, want the new manifest", lastApplied, la)
		}

		wantOut(t, k.ok(t, "", "apply", "-f", without), "shipment.shipping.kubeforge.dev/"+name+" unchanged\n")
	})

	t.Run("get through v1alpha1 converts a v1 object (origin -> from)", func(t *testing.T) {
		const name = "kc-v1alpha1"
		cleanupShipment(t, dyn, name)
		f := writeFile(t, kubectlTempDir(t), "s.yaml", shipmentManifest(name, "Berlin", "priority: Urgent"), 0o644)
		k.ok(t, "", "create", "-f", f)

		out := k.ok(t, "", "get", "shipments.v1alpha1.shipping.kubeforge.dev", name, "-o", "yaml")
		for _, re := range []string{
			`(?m)^apiVersion: shipping\.kubeforge\.dev/v1alpha1$`,
			`(?m)^kind: Shipment$`,
			`(?m)^  name: ` + name + `$`,
			`(?m)^  from:\n(    \S.*\n)*?    city: Berlin$`,
			`(?m)^  destination:\n(    \S.*\n)*?    city: London$`,
			`(?m)^  urgent: true$`,
		} {
			if !regexp.MustCompile(re).MatchString(out) {
				t.Errorf("v1alpha1 yaml does not match %s:\n%s", re, out)
			}
		}
		for _, re := range []string{`(?m)^  origin:`, `(?m)^  priority:`} {
			if regexp.MustCompile(re).MatchString(out) {
				t.Errorf("v1alpha1 yaml has the v1 field %s:\n%s", re, out)
			}
		}
		// reading through v1alpha1 does not change the stored v1 object
		u := getShipment(t, k, name)
		if got := str(u, "spec", "origin", "city") + " " + str(u, "spec", "priority"); got != "Berlin Urgent" {
			t.Errorf("v1 after the v1alpha1 read: origin.city, priority = %q, want \"Berlin Urgent\"", got)
		}
	})
}

// shipmentManifest is a v1 Shipment in the default namespace that applies
// cleanly: every list item carries its defaults (count: 1), so client-side
// apply of the same manifest is "unchanged". extraSpec lines go under spec.
func shipmentManifest(name, originCity string, extraSpec ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: shipping.kubeforge.dev/v1
kind: Shipment
metadata:
  name: %s
  namespace: default
spec:
  origin:
    street: Hauptstr. 1
    city: %s
  destination:
    street: High St 2
    city: London
    country: GB
  parcels:
  - name: box
    weight: "2500"
    count: 1
`, name, originCity)
	for _, l := range extraSpec {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// readyCondition is a status merge patch setting the Ready condition.
func readyCondition(status string) string {
	return fmt.Sprintf(`{"status":{"conditions":[{"type":"Ready","status":%q,"reason":"Checked","message":"set by the e2e test","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`, status)
}

// setLater checks that the background kubectl (done) is still waiting, then,
// from another goroutine after a delay, patches the status subresource of
// name with patch; it fails the test if kubectl returned early or the patch
// fails.
func setLater(t *testing.T, dyn dynamic.ResourceInterface, name string, done <-chan result, patch string) {
	t.Helper()
	c := ctx(t, 30*time.Second)
	errc := make(chan error, 1)
	go func() {
		time.Sleep(1500 * time.Millisecond)
		select {
		case r := <-done:
			errc <- fmt.Errorf("kubectl returned before the status was set:\n%s", r)
			return
		default:
		}
		_, err := dyn.Patch(c, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "status")
		if err != nil {
			err = fmt.Errorf("patch status: %w", err)
		}
		errc <- err
	}()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// getShipment reads a shipment in default through kubectl, managed fields
// included.
func getShipment(t *testing.T, k *kubectl, name string) *unstructured.Unstructured {
	t.Helper()
	out := k.ok(t, "", "get", "shipment", name, "-o", "json", "--show-managed-fields")
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON([]byte(out)); err != nil {
		t.Fatalf("decode kubectl get -o json: %v\n%s", err, out)
	}
	return u
}

func str(u *unstructured.Unstructured, path ...string) string {
	v, _, _ := unstructured.NestedString(u.Object, path...)
	return v
}

func wantOut(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("kubectl output = %q, want %q", got, want)
	}
}

// wantOwner checks whether manager (with operation) owns the field at path
// in u's managedFields (FieldsV1 keys such as "f:spec").
func wantOwner(t *testing.T, u *unstructured.Unstructured, manager, operation string, owns bool, path ...string) {
	t.Helper()
	found := false
	for _, e := range u.GetManagedFields() {
		if e.Manager != manager || string(e.Operation) != operation || e.FieldsV1 == nil {
			continue
		}
		var set map[string]any
		if err := json.Unmarshal(e.FieldsV1.Raw, &set); err != nil {
			t.Fatalf("managedFields of %s: %v", manager, err)
		}
		if _, ok, _ := unstructured.NestedFieldNoCopy(set, path...); ok {
			found = true
		}
	}
	if found != owns {
		mf, _ := json.MarshalIndent(u.GetManagedFields(), "", "  ")
		t.Errorf("managedFields: %s (%s) owns %s = %v, want %v:\n%s", manager, operation, strings.Join(path, "."), found, owns, mf)
	}
}

// cleanupShipment removes the test's shipment when the test ends (whatever
// finalizers it has), so the test can run again on the same server.
func cleanupShipment(t *testing.T, dyn dynamic.ResourceInterface, name string) {
	t.Helper()
	t.Cleanup(func() {
		c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = dyn.Patch(c, name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		if err := dyn.Delete(c, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("clean up shipment %s: %v", name, err)
		}
	})
}
