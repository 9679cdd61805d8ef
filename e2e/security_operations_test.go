package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	shippingv1 "github.com/kubeforge/kubeforge/generated/shipping/v1"
	"github.com/kubeforge/kubeforge/runtime/etcd"
	typesv1 "github.com/kubeforge/kubeforge/types/shipping/v1"
)

// auditEvent is the part of an audit.k8s.io/v1 Event the test reads.
type auditEvent struct {
	Kind, APIVersion, Level, Stage, Verb, RequestURI string
	User                                             struct{ Username string }
	ImpersonatedUser                                 *struct{ Username string }
	ObjectRef                                        *struct{ Resource, Namespace, Name, Subresource string }
	ResponseStatus                                   struct{ Code int }
	Annotations                                      map[string]string
}

// TestSecurityOperations runs the server as an operator would in
// production: on an external etcd reached over TLS with a client
// certificate, Secrets encrypted at rest, an audit log, and a
// controller-runtime manager authenticated by a ServiceAccount token bound
// to a Role in one namespace.
func TestSecurityOperations(t *testing.T) {
	dir := t.TempDir()
	e, err := etcd.StartEmbedded(ctx(t, time.Minute), filepath.Join(dir, "etcd"), etcd.WithTLS(filepath.Join(dir, "etcd-pki")))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	files := e.ClientTLS()
	encConfig := filepath.Join(dir, "encryption.yaml")
	if err := os.WriteFile(encConfig, []byte(`apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [secrets]
  providers:
  - aesgcm:
      keys:
      - name: key1
        secret: `+b64([]byte("0123456789abcdef0123456789abcdef"))+`
  - identity: {}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	auditLog := filepath.Join(dir, "audit.log")
	s, err := startServerBin(binary, filepath.Join(dir, "data"), 0,
		"--etcd-servers", strings.Join(e.Endpoints(), ","),
		"--etcd-cafile", files.CAFile, "--etcd-certfile", files.CertFile, "--etcd-keyfile", files.KeyFile,
		"--encryption-provider-config", encConfig,
		"--audit-log-path", auditLog)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Error(err)
		}
	})
	admin := newKubectl(t, s)
	admin.ok(t, "", "create", "namespace", "robots")
	admin.ok(t, "", "create", "namespace", "humans")

	// The Secret is ciphertext in etcd and plaintext through the API.
	admin.ok(t, "", "create", "secret", "generic", "launch-codes", "-n", "robots", "--from-literal=code=swordfish-0451")
	ectx := ctx(t, 2*time.Minute)
	resp, err := e.Client().Get(ectx, "/registry/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	var stored []byte
	for _, kv := range resp.Kvs {
		if strings.HasSuffix(string(kv.Key), "/secrets/robots/launch-codes") {
			stored = kv.Value
		}
	}
	if !strings.HasPrefix(string(stored), "k8s:enc:aesgcm:v1:key1:") || strings.Contains(string(stored), "swordfish") ||
		strings.Contains(string(stored), b64([]byte("swordfish-0451"))) || strings.Contains(string(stored), "launch-codes") {
		t.Fatalf("secret stored as %q", stored)
	}
	if got := admin.ok(t, "", "get", "secret", "launch-codes", "-n", "robots", "-o", "jsonpath={.data.code}"); got != b64([]byte("swordfish-0451")) {
		t.Errorf("secret read back as %q", got)
	}

	// A controller with a narrow ServiceAccount token reconciles in its
	// namespace and nowhere else.
	admin.ok(t, "", "create", "serviceaccount", "dispatcher", "-n", "robots")
	admin.ok(t, "", "create", "role", "dispatcher", "-n", "robots", "--verb=get,list,watch", "--resource=shipments.shipping.kubeforge.dev")
	admin.ok(t, "", "create", "role", "dispatcher-status", "-n", "robots", "--verb=update,patch", "--resource=shipments.shipping.kubeforge.dev/status")
	admin.ok(t, "", "create", "role", "dispatcher-events", "-n", "robots", "--verb=create,patch,update", "--resource=events.events.k8s.io")
	for _, r := range []string{"dispatcher", "dispatcher-status", "dispatcher-events"} {
		admin.ok(t, "", "create", "rolebinding", r, "-n", "robots", "--role="+r, "--serviceaccount=robots:dispatcher")
	}
	token := strings.TrimSpace(admin.ok(t, "", "create", "token", "dispatcher", "-n", "robots"))
	cfg := rest.AnonymousClientConfig(s.config)
	cfg.BearerToken = token
	rec := startNamespacedController(t, cfg, "robots")
	c, err := client.New(s.config, client.Options{Scheme: rec.scheme})
	if err != nil {
		t.Fatal(err)
	}
	sh := newShipment("robots", "crate-1")
	if err := c.Create(ectx, sh); err != nil {
		t.Fatal(err)
	}
	waitDispatched(t, c, types.NamespacedName{Namespace: "robots", Name: "crate-1"}, sh.Generation, "dispatcher")
	narrow, err := client.New(cfg, client.Options{Scheme: rec.scheme})
	if err != nil {
		t.Fatal(err)
	}
	var other typesv1.ShipmentList
	if err := narrow.List(ectx, &other, client.InNamespace("humans")); err == nil || !strings.Contains(err.Error(), "forbidden") {
		t.Errorf("the dispatcher lists shipments in humans: %v", err)
	}
	bad := rest.AnonymousClientConfig(s.config)
	bad.BearerToken = "not-a-token"
	if bc, err := client.New(bad, client.Options{Scheme: rec.scheme}); err == nil {
		_ = bc.List(ectx, &other, client.InNamespace("robots"))
	}

	// A value written past the apiserver into etcd: lists and the
	// controller's watch go on; reading it is a 500; deleting it needs
	// the unsafe option and its own permission.
	var corruptKey string
	for _, kv := range resp.Kvs {
		if strings.HasSuffix(string(kv.Key), "/secrets/robots/launch-codes") {
			corruptKey = strings.TrimSuffix(string(kv.Key), "/secrets/robots/launch-codes")
		}
	}
	corruptKey += "/shipping.kubeforge.dev/shipments/robots/corrupt"
	if _, err := e.Client().Put(ectx, corruptKey, "{not json"); err != nil {
		t.Fatal(err)
	}
	if out := admin.ok(t, "", "get", "shipments", "-n", "robots", "-o", "name"); strings.TrimSpace(out) != "shipment.shipping.kubeforge.dev/crate-1" {
		t.Errorf("list with an unreadable value: %q", out)
	}
	if r := admin.run(t, "", "get", "shipment", "corrupt", "-n", "robots"); r.code == 0 || !strings.Contains(r.stderr, "InternalError") && !strings.Contains(r.stderr, "Internal error") {
		t.Errorf("get of the unreadable value: %s", r)
	}
	sh2 := newShipment("robots", "crate-2")
	if err := c.Create(ectx, sh2); err != nil {
		t.Fatal(err)
	}
	waitDispatched(t, c, types.NamespacedName{Namespace: "robots", Name: "crate-2"}, sh2.Generation, "dispatcher")
	unsafe := &client.DeleteOptions{Raw: &metav1.DeleteOptions{IgnoreStoreReadErrorWithClusterBreakingPotential: new(true)}}
	corrupt := &typesv1.Shipment{ObjectMeta: metav1.ObjectMeta{Namespace: "robots", Name: "corrupt"}}
	admin.ok(t, "", "create", "role", "deleter", "-n", "robots", "--verb=delete", "--resource=shipments.shipping.kubeforge.dev")
	admin.ok(t, "", "create", "rolebinding", "deleter", "-n", "robots", "--role=deleter", "--serviceaccount=robots:dispatcher")
	eventually(t, 10*time.Second, "the unsafe delete is refused without its verb", func() error {
		err := narrow.Delete(ectx, corrupt, unsafe)
		if err == nil || !strings.Contains(err.Error(), `cannot unsafe-delete-ignore-read-errors resource "shipments"`) {
			return fmt.Errorf("dispatcher's unsafe delete: %v", err)
		}
		return nil
	})
	if err := c.Delete(ectx, corrupt); err == nil || !apierrors.IsInternalError(err) {
		t.Errorf("plain delete of the unreadable value: %v", err)
	}
	if err := c.Delete(ectx, corrupt, unsafe); err != nil {
		t.Fatalf("admin's unsafe delete: %v", err)
	}
	if r, err := e.Client().Get(ectx, corruptKey); err != nil || len(r.Kvs) != 0 {
		t.Errorf("the unreadable value is still stored: %v %v", r, err)
	}

	// An object too big for etcd is a 413, not a gRPC error.
	huge := newShipment("robots", "huge")
	huge.Spec.Instructions = map[string]string{"blob": strings.Repeat("x", 2<<20)}
	if err := c.Create(ectx, huge); err == nil || !apierrors.IsRequestEntityTooLargeError(err) || strings.Contains(err.Error(), "grpc") {
		t.Errorf("huge create: %v", err)
	}

	// The audit log has a line for each of those requests.
	events := readAudit(t, auditLog)
	want := []struct {
		what string
		ok   func(auditEvent) bool
	}{
		{"the admin's secret create", func(ev auditEvent) bool {
			return ev.Verb == "create" && ev.User.Username == "kubeforge-admin" && ev.ObjectRef != nil &&
				ev.ObjectRef.Resource == "secrets" && ev.ObjectRef.Name == "launch-codes" && ev.ResponseStatus.Code == 201
		}},
		{"the dispatcher's status update", func(ev auditEvent) bool {
			return ev.User.Username == "system:serviceaccount:robots:dispatcher" && ev.ObjectRef != nil &&
				ev.ObjectRef.Subresource == "status" && ev.ObjectRef.Name == "crate-1" && ev.ResponseStatus.Code == 200 &&
				ev.Annotations["authorization.k8s.io/decision"] == "allow" &&
				ev.Annotations["authorization.k8s.io/reason"] == `RBAC: allowed by RoleBinding "dispatcher-status/robots" of Role "dispatcher-status" to ServiceAccount "dispatcher/robots"`
		}},
		{"the dispatcher's watch", func(ev auditEvent) bool {
			return ev.User.Username == "system:serviceaccount:robots:dispatcher" && ev.Verb == "watch"
		}},
		{"the dispatcher's forbidden list", func(ev auditEvent) bool {
			return ev.User.Username == "system:serviceaccount:robots:dispatcher" && ev.Verb == "list" && ev.ObjectRef != nil &&
				ev.ObjectRef.Namespace == "humans" && ev.ResponseStatus.Code == 403 && ev.Annotations["authorization.k8s.io/decision"] == "forbid"
		}},
		{"the unknown token's 401", func(ev auditEvent) bool {
			return ev.User.Username == "" && ev.ResponseStatus.Code == 401
		}},
	}
	for _, w := range want {
		found := false
		for _, ev := range events {
			if ev.Kind != "Event" || ev.APIVersion != "audit.k8s.io/v1" || ev.Level != "Metadata" {
				t.Fatalf("not a Metadata audit.k8s.io/v1 Event: %+v", ev)
			}
			found = found || w.ok(ev)
		}
		if !found {
			t.Errorf("no audit event for %s in %d events", w.what, len(events))
		}
	}
}

func readAudit(t *testing.T, path string) []auditEvent {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []auditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 4<<20)
	for sc.Scan() {
		var ev auditEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		out = append(out, ev)
	}
	return out
}

type namespacedController struct {
	scheme *runtime.Scheme
	rec    *shipmentReconciler
}

// startNamespacedController runs the shipment controller in a manager
// whose cache covers namespace ns only (what a namespaced Role allows),
// without leader election.
func startNamespacedController(t *testing.T, cfg *rest.Config, ns string) *namespacedController {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := shippingv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(cfg, manager.Options{
		Scheme:                 scheme,
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		t.Fatalf("new manager: %v", err)
	}
	rec := &shipmentReconciler{client: mgr.GetClient(), recorder: mgr.GetEventRecorder(controllerName), replica: "dispatcher"}
	if err := ctrl.NewControllerManagedBy(mgr).For(&typesv1.Shipment{}).Named("dispatcher").
		WithOptions(controller.Options{SkipNameValidation: new(true)}).Complete(rec); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("manager: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("manager did not stop")
		}
	})
	return &namespacedController{scheme: scheme, rec: rec}
}
