package e2e

import (
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubeforge/kubeforge/runtime/pki"
)

// The names deploy/ uses for this module (generators/deploy.NamesFor).
const (
	aggNamespace = "kubeforge-system"
	aggService   = "kubeforge-apiserver"
)

// TestAggregated runs cmd/apiserver behind a real kube-apiserver as an
// aggregated API server, as a cluster would: the apiserver's identity and
// RBAC in the main cluster come from the generated deploy/ manifests, it
// reaches the main cluster with its ServiceAccount's token, and the main
// cluster reaches it through an ExternalName Service to localhost and one
// APIService per group-version (deploy/base/apiservices.yaml with the port
// and caBundle filled in). Everything after that goes through the main
// apiserver with kubectl.
func TestAggregated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs kube-apiserver")
	}
	mc := startMainCluster(t)
	k := mc.kubectl(t)

	// The apiserver's identity and permissions, from the generated manifests.
	k.ok(t, "", "apply", "-f", "../deploy/base/namespace.yaml", "-f", "../deploy/base/rbac.yaml")
	token := strings.TrimSpace(k.ok(t, "", "create", "token", aggService, "-n", aggNamespace, "--duration", "2h"))
	saKubeconfig := filepath.Join(mc.dir, "apiserver.kubeconfig")
	writeKubeconfigFile(t, saKubeconfig, mc.url, mc.caPEM, nil, nil, token)

	s := newServer(t, "--mode", "aggregated", "--kubeconfig", saKubeconfig,
		"--tls-san", aggService+"."+aggNamespace+".svc")
	caBundle, err := os.ReadFile(filepath.Join(s.dataDir, "pki", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	gen, err := os.ReadFile("../deploy/base/apiservices.yaml")
	if err != nil {
		t.Fatal(err)
	}
	apiservices := strings.ReplaceAll(string(gen), "    port: 443\n",
		fmt.Sprintf("    port: %d\n  caBundle: %s\n", s.port, base64.StdEncoding.EncodeToString(caBundle)))
	service := fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: %s
  namespace: %s
spec:
  type: ExternalName
  externalName: localhost
`, aggService, aggNamespace)
	k.ok(t, service+"---\n"+apiservices, "apply", "-f", "-")
	names := strings.Fields(k.ok(t, "", "get", "apiservices", "-o", "name"))
	var ours []string
	for _, n := range names {
		if strings.HasSuffix(n, ".kubeforge.dev") {
			ours = append(ours, n)
		}
	}
	if len(ours) != 3 {
		t.Fatalf("APIServices of our groups: %v", ours)
	}
	for _, n := range ours {
		if r := k.run(t, "", "wait", "--for=condition=Available", n, "--timeout=90s"); r.code != 0 {
			t.Fatalf("%s not Available:\n%s\n%s\napiserver:\n%s\nkube-apiserver:\n%s", n, r, k.ok(t, "", "get", n, "-o", "yaml"), s.logs(), mc.logs())
		}
	}

	t.Run("discovery and explain", func(t *testing.T) {
		out := k.ok(t, "", "api-resources", "--api-group", "shipping.kubeforge.dev")
		if !strings.Contains(out, "shipments") {
			t.Fatalf("api-resources:\n%s", out)
		}
		// Built-in groups are the main cluster's: our server does not
		// serve namespaces, RBAC or the review APIs.
		out = k.ok(t, "", "api-resources", "-o", "name")
		for _, want := range []string{"shipments.shipping.kubeforge.dev", "warehouses.infra.kubeforge.dev", "namespaces", "deployments.apps"} {
			if !strings.Contains(out, want+"\n") {
				t.Errorf("api-resources lacks %s", want)
			}
		}
		// The main apiserver fetches an APIService's OpenAPI v3 after it
		// is Available, asynchronously: explain once it has.
		eventually(t, 60*time.Second, "the main apiserver serves our OpenAPI v3", func() error {
			if r := k.run(t, "", "get", "--raw", "/openapi/v3"); !strings.Contains(r.stdout, `"apis/shipping.kubeforge.dev/v1"`) {
				return fmt.Errorf("/openapi/v3 lacks apis/shipping.kubeforge.dev/v1: %.300s %s", r.stdout, r.stderr)
			}
			return nil
		})
		if out := k.ok(t, "", "explain", "shipments.spec.origin"); !strings.Contains(out, "city") {
			t.Errorf("explain shipments.spec.origin:\n%s", out)
		}
		// The main apiserver merged our OpenAPI: v3 lists our
		// group-versions, v2 has our definitions.
		if out := k.ok(t, "", "get", "--raw", "/openapi/v3"); !strings.Contains(out, `"apis/shipping.kubeforge.dev/v1"`) || !strings.Contains(out, `"apis/infra.kubeforge.dev/v1"`) {
			t.Errorf("/openapi/v3 of the main apiserver lacks our group-versions:\n%.2000s", out)
		}
		if out := k.ok(t, "", "get", "--raw", "/openapi/v2"); !strings.Contains(out, `"/apis/shipping.kubeforge.dev/v1/namespaces/{namespace}/shipments"`) {
			t.Errorf("/openapi/v2 of the main apiserver lacks our paths")
		}
		direct := newKubectl(t, s)
		if r := direct.run(t, "", "get", "--raw", "/api/v1/namespaces"); r.code == 0 || !strings.Contains(r.stderr, "NotFound") {
			t.Errorf("the aggregated server serves namespaces itself: %s", r)
		}
	})

	k.ok(t, "", "create", "namespace", "agg")
	manifest := strings.Replace(shipmentManifest("s1", "Berlin"), "namespace: default", "namespace: agg", 1)

	t.Run("kubectl through the main apiserver", func(t *testing.T) {
		k.ok(t, manifest, "create", "-f", "-")
		// The watch ends itself after --request-timeout.
		watch := k.start(t, "get", "shipments", "-n", "agg", "-w", "--output-watch-events", "-o", "json", "--request-timeout=15s")
		time.Sleep(2 * time.Second) // the watch is open
		applied := strings.Replace(manifest, "city: Berlin", "city: Hamburg", 1)
		k.ok(t, applied, "apply", "--server-side", "--force-conflicts", "--field-manager", "e2e", "-f", "-")
		if got := k.ok(t, "", "get", "shipment", "s1", "-n", "agg", "-o", "jsonpath={.spec.origin.city}"); got != "Hamburg" {
			t.Fatalf("after server-side apply: %q", got)
		}
		k.ok(t, "", "patch", "shipment", "s1", "-n", "agg", "--type", "merge", "-p", `{"spec":{"origin":{"city":"Bremen"}}}`)
		if got := k.ok(t, "", "get", "shipment", "s1", "-n", "agg", "-o", "jsonpath={.spec.origin.city}"); got != "Bremen" {
			t.Fatalf("after patch: %q", got)
		}
		mf := k.ok(t, "", "get", "shipment", "s1", "-n", "agg", "--show-managed-fields", "-o", "jsonpath={.metadata.managedFields[*].manager}")
		if !strings.Contains(mf, "e2e") {
			t.Errorf("managedFields managers %q lack the server-side applier", mf)
		}
		k.ok(t, "", "delete", "shipment", "s1", "-n", "agg")
		deadline := time.Now().Add(30 * time.Second)
		for {
			r := k.run(t, "", "get", "shipment", "s1", "-n", "agg")
			if r.code != 0 && strings.Contains(r.stderr, "NotFound") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("shipment still there after delete: %s", r)
			}
			time.Sleep(200 * time.Millisecond)
		}
		r := await(t, watch, 30*time.Second, "get -w")
		var seen []string
		dec := json.NewDecoder(strings.NewReader(r.stdout))
		for {
			var ev struct {
				Type   string
				Object struct {
					Metadata struct{ Name string }
					Spec     struct{ Origin struct{ City string } }
				}
			}
			if err := dec.Decode(&ev); err != nil {
				break
			}
			seen = append(seen, ev.Type+" "+ev.Object.Metadata.Name+" "+ev.Object.Spec.Origin.City)
		}
		got := strings.Join(seen, ", ")
		for _, want := range []string{"ADDED s1 Berlin", "MODIFIED s1 Hamburg", "MODIFIED s1 Bremen", "DELETED s1 Bremen"} {
			if !strings.Contains(got, want) {
				t.Errorf("get -w lacks %q: %s\n%s", want, got, r)
			}
		}
	})

	t.Run("the main cluster's ValidatingAdmissionPolicy denies a write of our kind", func(t *testing.T) {
		k.ok(t, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: agg-no-nowhere}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [shipping.kubeforge.dev], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [shipments]}
  validations:
  - {expression: "object.spec.origin.city != 'Nowhere'", message: "the main cluster refuses Nowhere"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: agg-no-nowhere}
spec: {policyName: agg-no-nowhere, validationActions: [Deny]}
`, "create", "-f", "-")
		nowhere := strings.Replace(strings.Replace(manifest, "city: Berlin", "city: Nowhere", 1), "name: s1", "name: nowhere", 1)
		var r result
		deadline := time.Now().Add(20 * time.Second)
		for {
			r = k.run(t, nowhere, "create", "-f", "-")
			if r.code != 0 && strings.Contains(r.stderr, "ValidatingAdmissionPolicy 'agg-no-nowhere' with binding 'agg-no-nowhere' denied request: the main cluster refuses Nowhere") {
				break
			}
			if r.code == 0 {
				k.run(t, "", "delete", "shipment", "nowhere", "-n", "agg")
			}
			if time.Now().After(deadline) {
				t.Fatalf("the main cluster's policy does not deny the write through the aggregator:\n%s", r)
			}
			time.Sleep(200 * time.Millisecond)
		}
		if r := k.run(t, "", "get", "shipment", "nowhere", "-n", "agg"); r.code == 0 {
			t.Errorf("the denied shipment was stored")
		}
		k.ok(t, "", "delete", "validatingadmissionpolicybinding", "agg-no-nowhere")
		k.ok(t, "", "delete", "validatingadmissionpolicy", "agg-no-nowhere")
	})

	t.Run("the main cluster's RBAC decides", func(t *testing.T) {
		k.ok(t, "", "create", "clusterrole", "shipment-viewer", "--verb=get,list,watch", "--resource=shipments.shipping.kubeforge.dev")
		k.ok(t, "", "create", "clusterrolebinding", "viewer-shipments", "--clusterrole=shipment-viewer", "--user=viewer")
		k.ok(t, manifest, "create", "-f", "-")
		// Token users get kubeconfigs of their own: --token beside the
		// admin's client certificate would still be the admin.
		as := func(user string) *kubectl {
			kc := filepath.Join(mc.dir, user+".kubeconfig")
			writeKubeconfigFile(t, kc, mc.url, mc.caPEM, nil, nil, mc.tokens[user])
			return &kubectl{bin: k.bin, kubeconfig: kc, cacheDir: kubectlTempDir(t)}
		}
		viewer := as("viewer")
		var viewerArgs []string
		out := viewer.ok(t, "", append(viewerArgs, "get", "shipments", "-n", "agg", "-o", "name")...)
		if !strings.Contains(out, "shipment.shipping.kubeforge.dev/s1") {
			t.Fatalf("viewer list: %q", out)
		}
		second := strings.Replace(manifest, "name: s1", "name: s2", 1)
		r := viewer.run(t, second, append(viewerArgs, "create", "-f", "-")...)
		if r.code == 0 || !strings.Contains(r.stderr, "Forbidden") || !strings.Contains(r.stderr, `User "viewer" cannot create resource "shipments"`) {
			t.Fatalf("viewer create: want 403 Forbidden, got %s", r)
		}
		// Without the binding, nothing.
		r = as("nobody").run(t, "", "get", "shipments", "-n", "agg")
		if r.code == 0 || !strings.Contains(r.stderr, "Forbidden") {
			t.Fatalf("nobody list: want 403, got %s", r)
		}
		// Anonymous, through the main apiserver and straight to ours.
		for name, base := range map[string]string{"main": mc.url, "direct": fmt.Sprintf("https://127.0.0.1:%d", s.port)} {
			c := mc.client(emptyCert)
			c.Transport.(*http.Transport).TLSClientConfig.InsecureSkipVerify = name == "direct"
			resp, err := c.Get(base + "/apis/shipping.kubeforge.dev/v1/namespaces/agg/shipments")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s: anonymous list: %d %s", name, resp.StatusCode, body)
			}
		}
		// Straight to our server: a bearer token is checked with the main
		// cluster's TokenReview, then authorized there; a certificate of
		// the main cluster's client CA is its user.
		direct := func(name, token string, certPEM, keyPEM []byte) *kubectl {
			kc := filepath.Join(mc.dir, name+"-direct.kubeconfig")
			writeKubeconfigFile(t, kc, fmt.Sprintf("https://127.0.0.1:%d", s.port), caBundle, certPEM, keyPEM, token)
			return &kubectl{bin: k.bin, kubeconfig: kc, cacheDir: kubectlTempDir(t)}
		}
		viewerDirect := direct("viewer", mc.tokens["viewer"], nil, nil)
		if out := viewerDirect.ok(t, "", "get", "shipments", "-n", "agg", "-o", "name"); !strings.Contains(out, "shipment.shipping.kubeforge.dev/s1") {
			t.Errorf("viewer's token straight to the aggregated server: %q", out)
		}
		if r := viewerDirect.run(t, second, "create", "-f", "-"); r.code == 0 || !strings.Contains(r.stderr, "Forbidden") {
			t.Errorf("viewer's token, create straight to the aggregated server: %s", r)
		}
		if r := direct("forged", "not-a-token-of-the-cluster", nil, nil).run(t, "", "get", "shipments", "-n", "agg"); r.code == 0 || !strings.Contains(r.stderr, "provide credentials") {
			t.Errorf("a token the cluster does not know: %s", r)
		}
		adminDirect := direct("admin", "", mc.adminCert.CertPEM, mc.adminCert.KeyPEM)
		adminDirect.ok(t, strings.Replace(manifest, "name: s1", "name: by-admin", 1), "create", "-f", "-")
		if out := k.ok(t, "", "get", "shipment", "by-admin", "-n", "agg", "-o", "jsonpath={.metadata.managedFields[0].manager}", "--show-managed-fields"); out != "kubectl-create" {
			t.Errorf("created straight to the aggregated server with the main cluster's client certificate, read through the main apiserver: manager %q", out)
		}
		// Health is open to anyone, as kubelet probes it (kube's
		// delegated authorization allows the paths without asking).
		for _, path := range []string{"/readyz", "/livez", "/healthz"} {
			c := mc.client(emptyCert)
			c.Transport.(*http.Transport).TLSClientConfig.InsecureSkipVerify = true
			resp, err := c.Get(fmt.Sprintf("https://127.0.0.1:%d%s?verbose", s.port, path))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || (path == "/readyz" && !strings.Contains(string(body), "main-cluster-authentication ok")) {
				t.Errorf("anonymous %s: %d %s", path, resp.StatusCode, body)
			}
		}
		// Front-proxy headers sent straight to our server without the
		// front proxy's certificate are not believed.
		c := mc.client(emptyCert)
		c.Transport.(*http.Transport).TLSClientConfig.InsecureSkipVerify = true
		req, _ := http.NewRequest("GET", fmt.Sprintf("https://127.0.0.1:%d/apis/shipping.kubeforge.dev/v1/namespaces/agg/shipments", s.port), nil)
		req.Header.Set("X-Remote-User", "kubernetes-admin")
		req.Header.Set("X-Remote-Group", "system:masters")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "system:anonymous") {
			t.Errorf("forged X-Remote-User: %d %s", resp.StatusCode, body)
		}
		// With the front proxy's certificate, they are.
		c = mc.client(mc.frontProxy)
		c.Transport.(*http.Transport).TLSClientConfig.InsecureSkipVerify = true
		req.Header.Set("X-Remote-User", "viewer")
		req.Header.Del("X-Remote-Group")
		if resp, err = c.Do(req); err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("front proxy as viewer: %d %s", resp.StatusCode, body)
		}
	})

	t.Run("namespaces are the main cluster's", func(t *testing.T) {
		nowhere := strings.Replace(manifest, "namespace: agg", "namespace: nowhere", 1)
		r := k.run(t, nowhere, "create", "-f", "-")
		if r.code == 0 || !strings.Contains(r.stderr, `namespaces "nowhere" not found`) {
			t.Fatalf("create in a namespace the main cluster lacks: %s", r)
		}
		k.ok(t, "", "create", "namespace", "doomed")
		inDoomed := strings.Replace(manifest, "namespace: agg", "namespace: doomed", 1)
		k.ok(t, inDoomed, "create", "-f", "-")
		k.ok(t, strings.Replace(inDoomed, "name: s1", "name: s2", 1), "create", "-f", "-")
		// No kube-controller-manager runs: the namespace stays Terminating
		// until its content is gone and its finalizer removed, which the
		// namespace controller does below.
		k.ok(t, "", "delete", "namespace", "doomed", "--wait=false")
		third := strings.Replace(inDoomed, "name: s1", "name: s3", 1)
		err := waitFor(t.Context(), 30*time.Second, func() error {
			r := k.run(t, third, "create", "-f", "-")
			if r.code != 0 && strings.Contains(r.stderr, "because it is being terminated") {
				return nil
			}
			return fmt.Errorf("create in a terminating namespace: %s", r)
		})
		if err != nil {
			t.Fatal(err)
		}
		deleteNamespaceContent(t, mc.kubeconfig, "doomed")
		if out := k.ok(t, "", "get", "shipments", "-n", "doomed", "-o", "name"); strings.TrimSpace(out) != "" {
			t.Fatalf("after the namespace controller's deletecollection: %q", out)
		}
		// The server's own view agrees (not only the main cluster's).
		direct := newKubectl(t, s)
		if out := direct.ok(t, "", "get", "shipments", "-n", "doomed", "-o", "name"); strings.TrimSpace(out) != "" {
			t.Fatalf("the aggregated server still holds: %q", out)
		}
	})

	t.Run("deploy manifests pass a server-side dry run", func(t *testing.T) {
		dst := filepath.Join(kubectlTempDir(t), "deploy")
		copyDir(t, "../deploy", dst)
		if out, err := osexec.Command(binary, "certs", "--dir", filepath.Join(dst, "certs"), "--service", aggService, "--namespace", aggNamespace).CombinedOutput(); err != nil {
			t.Fatalf("apiserver certs: %v\n%s", err, out)
		}
		out := k.ok(t, "", "apply", "-k", dst, "--dry-run=server")
		for _, want := range []string{"deployment.apps/" + aggService, "statefulset.apps/kubeforge-etcd", "apiservice.apiregistration.k8s.io/v1.shipping.kubeforge.dev", "secret/" + aggService + "-serving"} {
			if !strings.Contains(out, want) {
				t.Errorf("apply -k --dry-run=server lacks %s:\n%s", want, out)
			}
		}
		// caBundle is the generated CA.
		rendered := k.ok(t, "", "kustomize", dst)
		ca, err := os.ReadFile(filepath.Join(dst, "certs", "ca.crt"))
		if err != nil {
			t.Fatal(err)
		}
		// kustomize folds the long value into a block scalar: compare
		// without white space.
		flat := strings.Join(strings.Fields(rendered), "")
		if n := strings.Count(flat, "caBundle:|"+base64.StdEncoding.EncodeToString(ca)) + strings.Count(flat, "caBundle:"+base64.StdEncoding.EncodeToString(ca)+"\n"); n != 3 {
			t.Errorf("%d APIServices carry the CA as caBundle, want 3:\n%s", n, rendered)
		}
		// The other layouts render (cert-manager's kinds need cert-manager
		// installed to apply).
		cm := k.ok(t, "", "kustomize", filepath.Join(dst, "cert-manager"))
		if strings.Count(cm, "cert-manager.io/inject-ca-from: "+aggNamespace+"/"+aggService+"-serving") != 3 {
			t.Errorf("cert-manager layout lacks the CA injector annotation on each APIService:\n%s", cm)
		}
		ext := filepath.Join(dst, "with-external-etcd")
		writeFileAll(t, filepath.Join(ext, "kustomization.yaml"), "resources:\n- ../base\ncomponents:\n- ../external-etcd\n")
		out = k.ok(t, "", "kustomize", ext)
		if strings.Contains(out, "kind: StatefulSet") || !strings.Contains(out, "--etcd-cafile=/var/run/etcd/ca.crt") {
			t.Errorf("external-etcd component:\n%s", out)
		}
		k.ok(t, "", "apply", "-k", ext, "--dry-run=server")
	})

	t.Run("the main cluster's garbage collector collects our kinds", func(t *testing.T) {
		testMainClusterGarbageCollector(t, mc, k)
	})

	t.Run("the main cluster down", func(t *testing.T) {
		// Known before: a user of the cluster's client CA, allowed nothing.
		carol, err := pki.IssueClient(mc.ca, "carol", nil, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		cert, err := tls.X509KeyPair(carol.CertPEM, carol.KeyPEM)
		if err != nil {
			t.Fatal(err)
		}
		c := mc.client(cert)
		c.Transport.(*http.Transport).TLSClientConfig.InsecureSkipVerify = true
		list := func() (int, string, string) {
			resp, err := c.Get(fmt.Sprintf("https://127.0.0.1:%d/apis/shipping.kubeforge.dev/v1/namespaces/agg/shipments", s.port))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return resp.StatusCode, resp.Header.Get("Retry-After"), string(body)
		}
		if code, _, body := list(); code != http.StatusForbidden {
			t.Fatalf("carol before: %d %s", code, body)
		}
		start := time.Now()
		mc.stop()
		t.Logf("kube-apiserver stopped in %s", time.Since(start).Round(time.Millisecond))
		// Authorization cannot be asked: a retryable 503, not a 403 and
		// not a 500. (Answers already cached are served for their 10 s.)
		time.Sleep(time.Until(start.Add(11 * time.Second)))
		if code, retry, body := list(); code != http.StatusServiceUnavailable || retry == "" || !strings.Contains(body, "authorization is unavailable") {
			t.Errorf("carol with the main cluster down: %d Retry-After %q %s", code, retry, body)
		}
		// system:masters needs no review: the server's own admin goes on.
		if out := newKubectl(t, s).ok(t, "", "get", "shipments", "-n", "agg", "-o", "name"); !strings.Contains(out, "s1") {
			t.Errorf("admin with the main cluster down: %q", out)
		}
	})
}

var emptyCert tls.Certificate

// copyDir copies the files under src to dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// writeFileAll writes path, creating its folder.
func writeFileAll(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// deleteNamespaceContent makes the calls kube-controller-manager's
// namespace controller makes for a namespace being deleted (its
// NamespacedResourcesDeleter): discover every namespaced resource that
// supports deletecollection through the main apiserver (aggregated ones
// included), delete each collection in the namespace with the metadata
// client, list to see that nothing remains, then finalize the namespace.
func deleteNamespaceContent(t *testing.T, kubeconfig, ns string) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lists, err := dc.ServerPreferredNamespacedResources()
	if err != nil {
		t.Fatalf("discovery (the namespace controller stops here when an aggregated server fails): %v", err)
	}
	mdc, err := metadata.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ours := 0
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range l.APIResources {
			if !slices.Contains(r.Verbs, "deletecollection") || !slices.Contains(r.Verbs, "list") {
				continue
			}
			gvr := gv.WithResource(r.Name)
			bg := metav1.DeletePropagationBackground
			if err := mdc.Resource(gvr).Namespace(ns).DeleteCollection(t.Context(), metav1.DeleteOptions{PropagationPolicy: &bg}, metav1.ListOptions{}); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsMethodNotSupported(err) {
				t.Fatalf("deletecollection %s in %s: %v", gvr, ns, err)
			}
			left, err := mdc.Resource(gvr).Namespace(ns).List(t.Context(), metav1.ListOptions{})
			if err != nil {
				t.Fatalf("list %s in %s: %v", gvr, ns, err)
			}
			if len(left.Items) > 0 {
				t.Fatalf("%d %s left in %s", len(left.Items), gvr, ns)
			}
			if strings.HasSuffix(gv.Group, ".kubeforge.dev") {
				ours++
			}
		}
	}
	if ours == 0 {
		t.Fatal("discovery through the main apiserver lists none of our resources")
	}
	k := &kubectl{bin: kubectlPath(t), kubeconfig: kubeconfig, cacheDir: kubectlTempDir(t)}
	nsJSON := k.ok(t, "", "get", "namespace", ns, "-o", "json")
	finalized := strings.Replace(nsJSON, `"finalizers": [
            "kubernetes"
        ]`, `"finalizers": []`, 1)
	if finalized == nsJSON {
		t.Fatalf("namespace %s has no kubernetes finalizer:\n%s", ns, nsJSON)
	}
	k.ok(t, finalized, "replace", "--raw", "/api/v1/namespaces/"+ns+"/finalize", "-f", "-")
	if err := waitFor(t.Context(), 30*time.Second, func() error {
		r := k.run(t, "", "get", "namespace", ns)
		if r.code != 0 && strings.Contains(r.stderr, "NotFound") {
			return nil
		}
		return fmt.Errorf("namespace %s still there: %s", ns, r)
	}); err != nil {
		t.Fatal(err)
	}
}
