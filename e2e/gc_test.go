package e2e

import (
	"bufio"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	shippingv1 "github.com/kubeforge/kubeforge/generated/shipping/v1"
	typesv1 "github.com/kubeforge/kubeforge/types/shipping/v1"
)

// parcelReconciler is a controller written as controller-runtime users
// write them: for every Shipment it creates one ConfigMap per parcel,
// owned by the Shipment through controllerutil.SetControllerReference,
// and leaves the clean-up to the garbage collector.
type parcelReconciler struct {
	client client.Client
	scheme *runtime.Scheme
}

func (r *parcelReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var s typesv1.Shipment
	if err := r.client.Get(ctx, req.NamespacedName, &s); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !s.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, nil
	}
	for _, p := range s.Spec.Parcels {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name + "-" + p.Name}}
		if _, err := controllerutil.CreateOrUpdate(ctx, r.client, cm, func() error {
			cm.Data = map[string]string{"parcel": p.Name, "weight": p.Weight.String()}
			return controllerutil.SetControllerReference(&s, cm, r.scheme)
		}); err != nil {
			return reconcile.Result{}, err
		}
	}
	return reconcile.Result{}, nil
}

func startParcelController(t *testing.T, cfg *rest.Config) client.Client {
	t.Helper()
	ctrlLogOnce.Do(func() { ctrllog.SetLogger(logr.Discard()) })
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := shippingv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(rest.CopyConfig(cfg), manager.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
	})
	if err != nil {
		t.Fatalf("new manager: %v", err)
	}
	r := &parcelReconciler{client: mgr.GetClient(), scheme: scheme}
	if err := ctrl.NewControllerManagedBy(mgr).For(&typesv1.Shipment{}).Owns(&corev1.ConfigMap{}).Named("parcels").
		WithOptions(controller.Options{SkipNameValidation: new(true)}).Complete(r); err != nil {
		t.Fatalf("build controller: %v", err)
	}
	c, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(c) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Error("manager did not stop")
		}
	})
	cl, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

func gcShipment(ns, name string, parcels ...string) *typesv1.Shipment {
	s := &typesv1.Shipment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: typesv1.ShipmentSpec{
			Origin:      typesv1.Address{Street: "A 1", City: "Hamburg"},
			Destination: typesv1.Address{Street: "B 2", City: "Munich"},
		},
	}
	for _, p := range parcels {
		s.Spec.Parcels = append(s.Spec.Parcels, typesv1.Parcel{Name: p, Weight: resource.MustParse("1")})
	}
	return s
}

func configMapGone(ctx context.Context, c client.Client, ns, name string) error {
	var cm corev1.ConfigMap
	err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &cm)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("configmap %s/%s still there (deletionTimestamp %v, finalizers %v)", ns, name, cm.DeletionTimestamp, cm.Finalizers)
}

// TestGarbageCollectionControllerRuntime: ConfigMaps a controller-runtime
// controller owns through SetControllerReference are collected when their
// Shipment goes: background, foreground (waiting for a blocking dependent
// that has a finalizer of its own) and orphan.
func TestGarbageCollectionControllerRuntime(t *testing.T) {
	s := sharedServer(t)
	const ns = "gc-crt"
	s.ensureNamespaces(t, ns)
	c := startParcelController(t, s.config)
	ctx := ctx(t, 3*time.Minute)

	owned := func(name string, parcels ...string) *typesv1.Shipment {
		t.Helper()
		sh := gcShipment(ns, name, parcels...)
		if err := c.Create(ctx, sh); err != nil {
			t.Fatalf("create shipment %s: %v", name, err)
		}
		for _, p := range parcels {
			eventually(t, 30*time.Second, "the controller creates configmap "+name+"-"+p, func() error {
				var cm corev1.ConfigMap
				if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name + "-" + p}, &cm); err != nil {
					return err
				}
				ref := metav1.GetControllerOf(&cm)
				if ref == nil || ref.UID != sh.UID || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
					return fmt.Errorf("controller reference %+v", ref)
				}
				return nil
			})
		}
		return sh
	}

	// Background (client.Delete's default: none, the kind's default).
	sh := owned("bg", "a", "b")
	if err := c.Delete(ctx, sh); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a", "b"} {
		eventually(t, 30*time.Second, "background deletion collects bg-"+p, func() error { return configMapGone(ctx, c, ns, "bg-"+p) })
	}

	// Foreground: the Shipment waits, with foregroundDeletion, for the
	// dependent (blockOwnerDeletion: true, as SetControllerReference
	// sets it) held by its own finalizer.
	sh = owned("fg", "held", "free")
	var held corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "fg-held"}, &held); err != nil {
		t.Fatal(err)
	}
	controllerutil.AddFinalizer(&held, "example.dev/hold")
	if err := c.Update(ctx, &held); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, sh, client.PropagationPolicy(metav1.DeletePropagationForeground)); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the free dependent goes first", func() error { return configMapGone(ctx, c, ns, "fg-free") })
	eventually(t, 30*time.Second, "the held dependent is being deleted", func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(&held), &held); err != nil {
			return err
		}
		if held.DeletionTimestamp == nil {
			return fmt.Errorf("no deletionTimestamp")
		}
		return nil
	})
	time.Sleep(time.Second)
	var waiting typesv1.Shipment
	if err := c.Get(ctx, client.ObjectKeyFromObject(sh), &waiting); err != nil || !slices.Equal(waiting.Finalizers, []string{metav1.FinalizerDeleteDependents}) || waiting.DeletionTimestamp == nil {
		t.Fatalf("the owner while its blocking dependent remains: %v %v", waiting.ObjectMeta, err)
	}
	controllerutil.RemoveFinalizer(&held, "example.dev/hold")
	if err := c.Update(ctx, &held); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the owner goes once its blocking dependent is gone", func() error {
		err := c.Get(ctx, client.ObjectKeyFromObject(sh), &waiting)
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there: %v %v", waiting.Finalizers, err)
	})

	// Orphan: the Shipment goes, its ConfigMaps stay without the reference.
	sh = owned("or", "a")
	if err := c.Delete(ctx, sh, client.PropagationPolicy(metav1.DeletePropagationOrphan)); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the orphaning owner goes", func() error {
		err := c.Get(ctx, client.ObjectKeyFromObject(sh), &waiting)
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there: %v %v", waiting.Finalizers, err)
	})
	var orphan corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "or-a"}, &orphan); err != nil || len(orphan.OwnerReferences) != 0 {
		t.Fatalf("the orphan: %v %v", orphan.OwnerReferences, err)
	}
}

// TestGarbageCollectionOwners: a dependent with two owners survives the
// deletion of one; a reference to an owner that never existed (or to a
// name whose uid is another) is dangling and its dependent is deleted.
func TestGarbageCollectionOwners(t *testing.T) {
	s := sharedServer(t)
	const ns = "gc-owners"
	s.ensureNamespaces(t, ns)
	cs := kubernetes.NewForConfigOrDie(s.config)
	ctx := ctx(t, 2*time.Minute)
	cms := cs.CoreV1().ConfigMaps(ns)
	mk := func(name string, owners ...metav1.OwnerReference) *corev1.ConfigMap {
		t.Helper()
		cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: owners}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
		return cm
	}
	ref := func(cm *corev1.ConfigMap) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: cm.Name, UID: cm.UID}
	}
	gone := func(name string) func() error {
		return func() error {
			_, err := cms.Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("%s: %v", name, err)
		}
	}
	a, b := mk("owner-a"), mk("owner-b")
	mk("two-owners", ref(a), ref(b))
	if err := cms.Delete(ctx, "owner-a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	dep, err := cms.Get(ctx, "two-owners", metav1.GetOptions{})
	if err != nil || len(dep.OwnerReferences) != 2 {
		// kube keeps the dangling reference beside a live one until the
		// dependent is looked at again; either way it stays.
		if err != nil {
			t.Fatalf("the dependent of two owners after one is deleted: %v", err)
		}
	}
	if err := cms.Delete(ctx, "owner-b", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the dependent goes with its last owner", gone("two-owners"))

	mk("dangling", metav1.OwnerReference{APIVersion: "shipping.kubeforge.dev/v1", Kind: "Shipment", Name: "never", UID: "6a3f0b52-0000-4000-8000-0000000000aa"})
	eventually(t, 30*time.Second, "a dependent of an owner that never existed is deleted", gone("dangling"))
	same := mk("same-name")
	mk("wrong-uid", metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: same.Name, UID: "6a3f0b52-0000-4000-8000-0000000000bb"})
	eventually(t, 30*time.Second, "an owner is checked by uid, not by name", gone("wrong-uid"))
}

// TestGarbageCollectionCrashResume: the server is killed (SIGKILL) half
// way through a foreground deletion; once restarted on the same data it
// completes it.
func TestGarbageCollectionCrashResume(t *testing.T) {
	s := newServer(t)
	const ns = "gc-crash"
	s.ensureNamespaces(t, ns)
	cs := kubernetes.NewForConfigOrDie(s.config)
	ctx := ctx(t, 3*time.Minute)
	owner, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	ref := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID, BlockOwnerDeletion: &yes}
	const n = 200
	for i := range n {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("dep-%03d", i), OwnerReferences: []metav1.OwnerReference{ref}}}
		if i == 0 {
			cm.Finalizers = []string{"example.dev/hold"}
		}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	fg := metav1.DeletePropagationForeground
	if err := cs.CoreV1().ConfigMaps(ns).Delete(ctx, "owner", metav1.DeleteOptions{PropagationPolicy: &fg}); err != nil {
		t.Fatal(err)
	}
	// Kill it while the dependents are being deleted.
	time.Sleep(200 * time.Millisecond)
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-s.done
	restarted, err := startServer(s.dataDir, 0)
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	t.Cleanup(func() { _ = restarted.stop() })
	cs = kubernetes.NewForConfigOrDie(restarted.config)
	cms := cs.CoreV1().ConfigMaps(ns)
	if l, err := cms.List(ctx, metav1.ListOptions{}); err == nil {
		t.Logf("after the restart %d of %d dependents are left", len(l.Items)-1, n)
	}
	eventually(t, 60*time.Second, "after the restart every free dependent is collected", func() error {
		l, err := cms.List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		var names []string
		for _, cm := range l.Items {
			names = append(names, cm.Name)
		}
		if len(names) != 2 {
			return fmt.Errorf("left: %d: %v", len(names), names[:min(len(names), 5)])
		}
		return nil
	})
	o, err := cms.Get(ctx, "owner", metav1.GetOptions{})
	if err != nil || o.DeletionTimestamp == nil || !slices.Equal(o.Finalizers, []string{metav1.FinalizerDeleteDependents}) {
		t.Fatalf("the owner waits for its held dependent: %v %v", o, err)
	}
	held, err := cms.Get(ctx, "dep-000", metav1.GetOptions{})
	if err != nil || held.DeletionTimestamp == nil {
		t.Fatalf("the held dependent is being deleted: %v %v", held, err)
	}
	held.Finalizers = nil
	if _, err := cms.Update(ctx, held, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the foreground deletion completes", func() error {
		_, err := cms.Get(ctx, "owner", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("owner: %v", err)
	})
}

// gcDeletions reads garbage_collector_deletions_total{kind} from a
// server's /metrics.
func gcDeletions(t *testing.T, cfg *rest.Config, kind string) int {
	t.Helper()
	cs := kubernetes.NewForConfigOrDie(cfg)
	raw, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		t.Fatalf("metrics: %v", err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	prefix := fmt.Sprintf("garbage_collector_deletions_total{kind=%q} ", kind)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), prefix); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return int(f)
		}
	}
	return 0
}

// TestGarbageCollectionTwoReplicas: two replicas on one etcd both run the
// collector; every dependent is deleted exactly once (the deletes that
// succeeded, summed over both, are the dependents).
func TestGarbageCollectionTwoReplicas(t *testing.T) {
	a := newServer(t)
	b := newServer(t, "--etcd-servers", "unix://"+filepath.Join(a.dataDir, "etcd.sock"))
	const ns = "gc-replicas"
	a.ensureNamespaces(t, ns)
	ctx := ctx(t, 3*time.Minute)
	cs := kubernetes.NewForConfigOrDie(a.config)
	const owners, perOwner = 4, 100
	var wg sync.WaitGroup
	errs := make(chan error, owners)
	for o := range owners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			owner, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("owner-%d", o)}}, metav1.CreateOptions{})
			if err != nil {
				errs <- err
				return
			}
			ref := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}
			for i := range perOwner {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("dep-%d-%03d", o, i), OwnerReferences: []metav1.OwnerReference{ref}}}
				if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	before := gcDeletions(t, a.config, "ConfigMap") + gcDeletions(t, b.config, "ConfigMap")
	// Half the owners through each replica: both collect all of them.
	for o := range owners {
		c := cs
		if o%2 == 1 {
			c = kubernetes.NewForConfigOrDie(b.config)
		}
		if err := c.CoreV1().ConfigMaps(ns).Delete(ctx, fmt.Sprintf("owner-%d", o), metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 90*time.Second, "every dependent is collected", func() error {
		l, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		if n := len(l.Items); n > 0 {
			return fmt.Errorf("%d left", n)
		}
		return nil
	})
	da, db := gcDeletions(t, a.config, "ConfigMap"), gcDeletions(t, b.config, "ConfigMap")
	if got := da + db - before; got != owners*perOwner {
		t.Fatalf("deletes that succeeded: %d (replica a %d, b %d), want exactly %d", got, da, db, owners*perOwner)
	}
	t.Logf("replica a deleted %d, replica b %d", da, db)
}
