package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	applyv1 "github.com/kubeforge/kubeforge/generated/applyconfiguration/shipping/v1"
	"github.com/kubeforge/kubeforge/generated/clientset/versioned"
	"github.com/kubeforge/kubeforge/generated/clientset/versioned/fake"
	"github.com/kubeforge/kubeforge/generated/informers/externalversions"
	listersv1 "github.com/kubeforge/kubeforge/generated/listers/shipping/v1"
	infrav1 "github.com/kubeforge/kubeforge/types/infra/v1"
	typesv1 "github.com/kubeforge/kubeforge/types/shipping/v1"
	typesv1alpha1 "github.com/kubeforge/kubeforge/types/shipping/v1alpha1"
)

// dispatcher is a client-go controller written against the generated
// clients as against code-generator's: a shared informer and its lister,
// a rate-limited workqueue, and the typed clientset. For every Shipment it
// applies status (phase InTransit, observedGeneration) with an apply
// configuration, then extracts what it owns of the main resource, adds a
// label and applies again (extract, modify, apply).
type dispatcher struct {
	client versioned.Interface
	lister listersv1.ShipmentLister
	synced cache.InformerSynced
	queue  workqueue.TypedRateLimitingInterface[string]

	mu         sync.Mutex
	reconciled map[string]int
	errs       []error
}

const dispatcherManager = "dispatcher"

func newDispatcher(cs versioned.Interface, factory externalversions.SharedInformerFactory) (*dispatcher, error) {
	informer := factory.Shipping().V1().Shipments()
	d := &dispatcher{
		client:     cs,
		lister:     informer.Lister(),
		synced:     informer.Informer().HasSynced,
		queue:      workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]()),
		reconciled: map[string]int{},
	}
	_, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    d.enqueue,
		UpdateFunc: func(_, obj any) { d.enqueue(obj) },
	})
	return d, err
}

func (d *dispatcher) enqueue(obj any) {
	if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
		d.queue.Add(key)
	}
}

// run processes the queue until ctx ends.
func (d *dispatcher) run(ctx context.Context) error {
	defer d.queue.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), d.synced) {
		return errors.New("informer did not sync")
	}
	go wait.UntilWithContext(ctx, func(ctx context.Context) {
		for d.next(ctx) {
		}
	}, time.Second)
	<-ctx.Done()
	return nil
}

func (d *dispatcher) next(ctx context.Context) bool {
	key, quit := d.queue.Get()
	if quit {
		return false
	}
	defer d.queue.Done(key)
	if err := d.reconcile(ctx, key); err != nil {
		d.mu.Lock()
		d.errs = append(d.errs, err)
		d.mu.Unlock()
		d.queue.AddRateLimited(key)
		return true
	}
	d.queue.Forget(key)
	return true
}

func (d *dispatcher) reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	obj, err := d.lister.Shipments(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	shipments := d.client.ShippingV1().Shipments(ns)
	if obj.Status.Phase != typesv1.PhaseInTransit || obj.Status.ObservedGeneration != obj.Generation {
		status := applyv1.Shipment(name, ns).WithStatus(applyv1.ShipmentStatus().
			WithPhase(typesv1.PhaseInTransit).
			WithObservedGeneration(obj.Generation))
		if _, err := shipments.ApplyStatus(ctx, status, metav1.ApplyOptions{FieldManager: dispatcherManager, Force: true}); err != nil {
			return fmt.Errorf("apply status of %s: %w", key, err)
		}
	}
	if obj.Labels["dispatched"] != "true" {
		owned, err := applyv1.ExtractShipment(obj, dispatcherManager)
		if err != nil {
			return fmt.Errorf("extract %s: %w", key, err)
		}
		owned.WithLabels(map[string]string{"dispatched": "true"})
		if _, err := shipments.Apply(ctx, owned, metav1.ApplyOptions{FieldManager: dispatcherManager, Force: true}); err != nil {
			return fmt.Errorf("apply labels of %s: %w", key, err)
		}
	}
	d.mu.Lock()
	d.reconciled[key]++
	d.mu.Unlock()
	return nil
}

// start runs the factory and the dispatcher until the test ends.
func startDispatcher(t *testing.T, cs versioned.Interface, opts ...externalversions.SharedInformerOption) *dispatcher {
	t.Helper()
	factory := externalversions.NewSharedInformerFactoryWithOptions(cs, 0, opts...)
	d, err := newDispatcher(cs, factory)
	if err != nil {
		t.Fatal(err)
	}
	c, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	factory.Start(c.Done())
	go func() { done <- d.run(c) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("dispatcher: %v", err)
		}
		factory.Shutdown()
	})
	return d
}

func v1Shipment(ns, name string) *typesv1.Shipment {
	return &typesv1.Shipment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: typesv1.ShipmentSpec{
			Origin:      typesv1.Address{Street: "1 Quay", City: "Hamburg"},
			Destination: typesv1.Address{Street: "2 Dock", City: "Rotterdam", Country: "NL"},
			Parcels:     []typesv1.Parcel{{Name: "box", Count: 1}},
		},
	}
}

// TestGeneratedClientsController runs the dispatcher against the server:
// Shipments created through the v1alpha1 typed client are reconciled by a
// controller watching v1, and the result is read back in both versions.
func TestGeneratedClientsController(t *testing.T) {
	s := sharedServer(t)
	const ns = "clients-controller"
	s.ensureNamespaces(t, ns)
	cs, err := versioned.NewForConfig(s.config)
	if err != nil {
		t.Fatal(err)
	}
	c := ctx(t, time.Minute)
	d := startDispatcher(t, cs, externalversions.WithNamespace(ns))
	start := time.Now()
	defer func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		t.Logf("reconciled %v in %v; errors on the way: %v", d.reconciled, time.Since(start).Round(time.Millisecond), d.errs)
	}()

	old := &typesv1alpha1.Shipment{
		ObjectMeta: metav1.ObjectMeta{Name: "from-alpha"},
		Spec: typesv1alpha1.ShipmentSpec{
			From:        typesv1alpha1.Address{Street: "1 Quay", City: "Hamburg"},
			Destination: typesv1alpha1.Address{Street: "2 Dock", City: "Rotterdam"},
			Parcels:     []typesv1alpha1.Parcel{{Name: "crate", Count: 2}},
		},
	}
	if _, err := cs.ShippingV1alpha1().Shipments(ns).Create(c, old, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create through v1alpha1: %v", err)
	}
	if _, err := cs.ShippingV1().Shipments(ns).Create(c, v1Shipment(ns, "from-v1"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create through v1: %v", err)
	}
	for _, name := range []string{"from-alpha", "from-v1"} {
		eventually(t, 30*time.Second, "reconcile "+name, func() error {
			got, err := cs.ShippingV1().Shipments(ns).Get(c, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if got.Status.Phase != typesv1.PhaseInTransit || got.Status.ObservedGeneration != got.Generation || got.Labels["dispatched"] != "true" {
				return fmt.Errorf("status %+v labels %v", got.Status, got.Labels)
			}
			return nil
		})
		alpha, err := cs.ShippingV1alpha1().Shipments(ns).Get(c, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if alpha.Status.Phase != string(typesv1.PhaseInTransit) || alpha.Labels["dispatched"] != "true" {
			t.Errorf("%s through v1alpha1: phase %q labels %v", name, alpha.Status.Phase, alpha.Labels)
		}
		// The dispatcher's apply owns exactly what it applied.
		got, err := cs.ShippingV1().Shipments(ns).Get(c, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		status, err := applyv1.ExtractShipmentStatus(got, dispatcherManager)
		if err != nil {
			t.Fatal(err)
		}
		if status.Status == nil || status.Status.Phase == nil || *status.Status.Phase != typesv1.PhaseInTransit || status.Spec != nil {
			t.Errorf("%s: extracted status %+v spec %+v", name, status.Status, status.Spec)
		}
	}

	// The lister sees what the server has, through the shared informer.
	factory := externalversions.NewSharedInformerFactoryWithOptions(cs, 0, externalversions.WithNamespace(ns),
		externalversions.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = "dispatched=true" }))
	lister := factory.Shipping().V1().Shipments().Lister()
	fc, stop := context.WithCancel(c)
	factory.StartWithContext(fc)
	synced := factory.WaitForCacheSyncWithContext(fc)
	stop()
	factory.Shutdown() // returns once the informer has stopped
	if synced.Err != nil || len(synced.Synced) != 1 {
		t.Fatalf("informer sync: %+v", synced)
	}
	list, err := lister.Shipments(ns).List(labels.Everything())
	if err != nil || len(list) != 2 {
		t.Fatalf("lister: %d shipments, %v", len(list), err)
	}
}

// TestGeneratedClientsWatchAndConflict: a typed watch delivers typed
// objects, and an update from a stale resourceVersion is a typed 409.
func TestGeneratedClientsWatchAndConflict(t *testing.T) {
	s := sharedServer(t)
	const ns = "clients-watch"
	s.ensureNamespaces(t, ns)
	cs := versioned.NewForConfigOrDie(s.config)
	c := ctx(t, time.Minute)
	shipments := cs.ShippingV1().Shipments(ns)

	w, err := shipments.Watch(c, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	created, err := shipments.Create(c, v1Shipment(ns, "watched"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-w.ResultChan():
		got, ok := ev.Object.(*typesv1.Shipment)
		if ev.Type != watch.Added || !ok || got.Name != "watched" || got.Spec.Destination.City != "Rotterdam" {
			t.Fatalf("first event %s %T %+v", ev.Type, ev.Object, ev.Object)
		}
	case <-c.Done():
		t.Fatal("no watch event")
	}

	first := created.DeepCopy()
	first.Spec.Tags = []string{"first"}
	if _, err := shipments.Update(c, first, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	stale := created.DeepCopy()
	stale.Spec.Tags = []string{"stale"}
	_, err = shipments.Update(c, stale, metav1.UpdateOptions{})
	var status apierrors.APIStatus
	if !apierrors.IsConflict(err) || !errors.As(err, &status) || status.Status().Code != http.StatusConflict {
		t.Fatalf("stale update: got %v, want a 409 Conflict", err)
	}
	select {
	case ev := <-w.ResultChan():
		if got, ok := ev.Object.(*typesv1.Shipment); ev.Type != watch.Modified || !ok || len(got.Spec.Tags) != 1 || got.Spec.Tags[0] != "first" {
			t.Fatalf("second event %s %+v", ev.Type, ev.Object)
		}
	case <-c.Done():
		t.Fatal("no modified event")
	}
}

// TestGeneratedFakeClientset drives the same dispatcher with the fake
// clientset: informers, lister, apply and extract over client-go's
// field-managed object tracker, no server.
func TestGeneratedFakeClientset(t *testing.T) {
	cs := fake.NewClientset(v1Shipment("team-a", "seeded"))
	d := startDispatcher(t, cs)
	c := ctx(t, 30*time.Second)
	if _, err := cs.ShippingV1().Shipments("team-a").Create(c, v1Shipment("team-a", "created"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"seeded", "created"} {
		eventually(t, 20*time.Second, "fake reconcile "+name, func() error {
			got, err := cs.ShippingV1().Shipments("team-a").Get(c, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if got.Status.Phase != typesv1.PhaseInTransit || got.Labels["dispatched"] != "true" {
				return fmt.Errorf("status %+v labels %v", got.Status, got.Labels)
			}
			return nil
		})
	}
	var sawApply bool
	for _, a := range cs.Actions() {
		if a.GetVerb() == "patch" && a.GetSubresource() == "status" {
			sawApply = true
		}
	}
	if !sawApply {
		t.Errorf("no status apply among the recorded actions %v", cs.Actions())
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.reconciled["team-a/seeded"] == 0 || d.reconciled["team-a/created"] == 0 {
		t.Errorf("reconciled %v", d.reconciled)
	}
}

// TestGeneratedInformerOptions: the factory's options on the fake
// clientset: one namespace, a custom resync for Shipments, a transform,
// and a cluster-scoped kind's lister.
func TestGeneratedInformerOptions(t *testing.T) {
	wh := &infrav1.Warehouse{ObjectMeta: metav1.ObjectMeta{Name: "north"}, Spec: infrav1.WarehouseSpec{Region: "eu"}}
	cs := fake.NewSimpleClientset(v1Shipment("a", "s1"), v1Shipment("b", "s2"), wh)
	factory := externalversions.NewSharedInformerFactoryWithOptions(cs, 0,
		externalversions.WithNamespace("a"),
		externalversions.WithCustomResyncConfig(map[metav1.Object]time.Duration{&typesv1.Shipment{}: 50 * time.Millisecond}),
		externalversions.WithTransform(func(obj any) (any, error) {
			if o, ok := obj.(metav1.Object); ok {
				o.SetAnnotations(map[string]string{"seen": "yes"})
			}
			return obj, nil
		}))
	shipments := factory.Shipping().V1().Shipments()
	var resyncs atomic.Int32
	if _, err := shipments.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, _ any) { resyncs.Add(1) },
	}); err != nil {
		t.Fatal(err)
	}
	warehouses := factory.Infra().V1().Warehouses().Lister()
	c, cancel := context.WithCancel(context.Background())
	factory.StartWithContext(c)
	defer func() {
		cancel()
		factory.Shutdown()
	}()
	if res := factory.WaitForCacheSyncWithContext(c); res.Err != nil || len(res.Synced) != 2 {
		t.Fatalf("sync: %+v", res)
	}
	all, err := shipments.Lister().List(labels.Everything())
	if err != nil || len(all) != 1 || all[0].Name != "s1" || all[0].Annotations["seen"] != "yes" {
		t.Fatalf("shipments in namespace a: %v %v", all, err)
	}
	if got, err := warehouses.Get("north"); err != nil || got.Spec.Region != "eu" {
		t.Fatalf("warehouse: %v %v", got, err)
	}
	eventually(t, 5*time.Second, "two resyncs", func() error {
		if n := resyncs.Load(); n < 2 {
			return fmt.Errorf("%d resyncs", n)
		}
		return nil
	})
	generic, err := factory.ForResource(shipmentsGVR)
	if err != nil {
		t.Fatal(err)
	}
	if obj, err := generic.Lister().ByNamespace("a").Get("s1"); err != nil || obj.(*typesv1.Shipment).Name != "s1" {
		t.Fatalf("generic lister: %v %v", obj, err)
	}
}
