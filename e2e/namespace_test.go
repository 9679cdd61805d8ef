package e2e

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// namespacedShipmentManifest is a valid Shipment in namespace ns.
func namespacedShipmentManifest(ns, name string) string {
	return strings.Replace(shipmentManifest(name, "Berlin"), "  namespace: default\n", "  namespace: "+ns+"\n", 1)
}

// TestNamespaceLifecycleKubectl drives namespaces with the real kubectl: the
// built-in namespaces exist, a created namespace is listed and holds a
// shipment, deleting it (kubectl waits) removes its contents and then the
// namespace, and nothing can be created in a namespace that does not exist.
func TestNamespaceLifecycleKubectl(t *testing.T) {
	s := sharedServer(t)
	k := newKubectl(t, s)
	const ns = "ns-lifecycle"
	t.Cleanup(func() {
		if t.Failed() {
			k.run(t, "", "delete", "namespace", ns, "--ignore-not-found", "--wait=false")
		}
	})
	dir := kubectlTempDir(t)

	wantOut(t, k.ok(t, "", "create", "namespace", ns), "namespace/"+ns+" created\n")

	out := k.ok(t, "", "get", "ns")
	for _, name := range []string{"default", "kube-system", "kube-public", ns} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\s`).MatchString(out) {
			t.Errorf("kubectl get ns: namespace %s not listed:\n%s", name, out)
		}
	}
	// kube-apiserver's columns for namespaces: NAME STATUS AGE.
	if !regexp.MustCompile(`^NAME\s+STATUS\s+AGE\n`).MatchString(out) {
		t.Errorf("kubectl get ns: want kube-apiserver's NAME STATUS AGE columns:\n%s", out)
	} else {
		for _, name := range []string{"default", "kube-system", "kube-public", ns} {
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\s+Active\s+\S+$`).MatchString(out) {
				t.Errorf("kubectl get ns: namespace %s not shown Active:\n%s", name, out)
			}
		}
	}
	wantOut(t, k.ok(t, "", "get", "namespace", ns, "-o", "jsonpath={.status.phase}"), "Active")

	manifest := writeFile(t, dir, "in-ns.yaml", namespacedShipmentManifest(ns, "parcel"), 0o644)
	wantOut(t, k.ok(t, "", "create", "-f", manifest), "shipment.shipping.kubeforge.dev/parcel created\n")
	wantOut(t, k.ok(t, "", "get", "shipments", "-n", ns, "-o", "name"), "shipment.shipping.kubeforge.dev/parcel\n")

	// kubectl delete waits until the namespace is gone; the namespace's
	// contents go first.
	began := time.Now()
	r := k.run(t, "", "delete", "namespace", ns, "--timeout=45s")
	if r.code != 0 || !regexp.MustCompile(`^namespace "`+ns+`" deleted\b`).MatchString(r.stdout) {
		t.Fatalf("kubectl delete namespace: want exit 0 and `namespace %q deleted`:\n%s", ns, r)
	}
	t.Logf("kubectl delete namespace %s took %s", ns, time.Since(began).Round(time.Millisecond))
	r = k.run(t, "", "get", "namespace", ns)
	if want := `Error from server (NotFound): namespaces "` + ns + `" not found`; r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("kubectl get namespace after the delete: want exit 1 and %q:\n%s", want, r)
	}
	dyn := s.dynamic(t).Resource(shipmentsGVR)
	if _, err := dyn.Namespace(ns).Get(ctx(t, 10*time.Second), "parcel", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("shipment %s/parcel after its namespace was deleted: want NotFound, got %v", ns, err)
	}
	all, err := dyn.List(ctx(t, 10*time.Second), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list shipments in all namespaces: %v", err)
	}
	for _, item := range all.Items {
		if item.GetNamespace() == ns {
			t.Errorf("shipment %s/%s outlived its namespace", ns, item.GetName())
		}
	}

	// A shipment in a namespace that does not exist: 404 namespaces "nope".
	missing := writeFile(t, dir, "missing-ns.yaml", namespacedShipmentManifest("nope", "lost"), 0o644)
	r = k.run(t, "", "create", "-f", missing)
	if want := `namespaces "nope" not found`; r.code != 1 || !strings.Contains(r.stderr, "Error from server (NotFound)") || !strings.Contains(r.stderr, want) {
		t.Errorf("kubectl create in a missing namespace: want exit 1, NotFound and %q:\n%s", want, r)
	}
	u := shipment("nope", "lost-dynamic", nil)
	_, err = dyn.Namespace("nope").Create(ctx(t, 10*time.Second), u, metav1.CreateOptions{})
	var status apierrors.APIStatus
	switch {
	case !apierrors.IsNotFound(err):
		t.Errorf("create through client-go in a missing namespace: want NotFound, got %v", err)
	case err.Error() != `namespaces "nope" not found`:
		t.Errorf("create in a missing namespace: message %q, want %q", err.Error(), `namespaces "nope" not found`)
	case !errors.As(err, &status) || status.Status().Details == nil || status.Status().Details.Kind != "namespaces" || status.Status().Details.Name != "nope":
		t.Errorf("create in a missing namespace: status details %s, want kind namespaces name nope", fmtDetails(status))
	}
	for _, name := range []string{"lost", "lost-dynamic"} {
		if _, err := dyn.Namespace("nope").Get(ctx(t, 10*time.Second), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("shipment nope/%s: want NotFound, got %v", name, err)
		}
	}
}

func fmtDetails(s apierrors.APIStatus) string {
	if s == nil || s.Status().Details == nil {
		return "<none>"
	}
	d := s.Status().Details
	return fmt.Sprintf("{group %q kind %q name %q}", d.Group, d.Kind, d.Name)
}
