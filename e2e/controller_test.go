package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	crrecorder "sigs.k8s.io/controller-runtime/pkg/recorder"

	shippingv1 "github.com/kubeforge/kubeforge/generated/shipping/v1"
	typesv1 "github.com/kubeforge/kubeforge/types/shipping/v1"
)

const (
	// leaseNamespace holds the controller's leader election Lease.
	leaseNamespace = "kube-system"
	// leaseName is the LeaderElectionID, the name of the Lease.
	leaseName = "shipment-controller"
	// controllerName is the reporting controller of the recorded Events.
	controllerName = "shipment-controller"
	// eventReason and eventAction are what the reconciler records.
	eventReason = "Dispatched"
	eventAction = "Dispatch"
	// Leader election timing, short to keep the test fast.
	leaseDuration = 4 * time.Second
	renewDeadline = 3 * time.Second
	retryPeriod   = 1 * time.Second
)

// shipmentReconciler is a real controller: it moves every Shipment to
// InTransit through the status subresource, sets observedGeneration and a
// Ready condition naming the replica that did it, and records an Event.
type shipmentReconciler struct {
	client     client.Client
	recorder   crrecorder.EventRecorder
	replica    string
	reconciles atomic.Int64 // Reconcile calls on this replica
	updates    atomic.Int64 // status writes by this replica
}

func (r *shipmentReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.reconciles.Add(1)
	var s typesv1.Shipment
	if err := r.client.Get(ctx, req.NamespacedName, &s); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !s.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, nil
	}
	before := s.Status.DeepCopy()
	s.Status.Phase = typesv1.PhaseInTransit
	s.Status.ObservedGeneration = s.Generation
	meta.SetStatusCondition(&s.Status.Conditions, metav1.Condition{
		Type:               "Ready",
		Status:             metav1.ConditionTrue,
		ObservedGeneration: s.Generation,
		Reason:             eventReason,
		Message:            "dispatched by " + r.replica,
	})
	if equality.Semantic.DeepEqual(before, &s.Status) {
		return reconcile.Result{}, nil
	}
	if err := r.client.Status().Update(ctx, &s); err != nil {
		return reconcile.Result{}, err // conflicts are retried by the queue
	}
	r.updates.Add(1)
	r.recorder.Eventf(&s, nil, corev1.EventTypeNormal, eventReason, eventAction,
		"shipment %s is in transit (generation %d, %s)", s.Name, s.Generation, r.replica)
	return reconcile.Result{}, nil
}

// replica is one controller-runtime manager running the shipment controller
// with leader election, in this process.
type replica struct {
	name   string
	mgr    manager.Manager
	rec    *shipmentReconciler
	cancel context.CancelFunc
	done   chan error // Start's result
	log    *syncWriter
}

var ctrlLogOnce sync.Once

// startReplica builds a manager over cfg (its own HTTP client and caches)
// and starts it; the test's cleanup stops it and waits.
func startReplica(t *testing.T, cfg *rest.Config, name string) *replica {
	t.Helper()
	// controller-runtime's global logger: set once, so it neither warns nor
	// writes to the test output.
	ctrlLogOnce.Do(func() { ctrllog.SetLogger(logr.Discard()) })

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatalf("client-go scheme: %v", err)
	}
	if err := shippingv1.AddToScheme(scheme); err != nil {
		t.Fatalf("shipping/v1 AddToScheme: %v", err)
	}
	r := &replica{name: name, done: make(chan error, 1), log: &syncWriter{w: &bytes.Buffer{}}}
	logger := funcr.New(func(prefix, args string) {
		fmt.Fprintf(r.log, "%s %s %s\n", time.Now().Format("15:04:05.000"), prefix, args)
	}, funcr.Options{Verbosity: 1}).WithName(name)

	mgr, err := ctrl.NewManager(rest.CopyConfig(cfg), manager.Options{
		Scheme:                        scheme,
		Logger:                        logger,
		LeaderElection:                true,
		LeaderElectionID:              leaseName,
		LeaderElectionNamespace:       leaseNamespace,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 new(leaseDuration),
		RenewDeadline:                 new(renewDeadline),
		RetryPeriod:                   new(retryPeriod),
		Metrics:                       metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:        "0",
		GracefulShutdownTimeout:       new(10 * time.Second),
	})
	if err != nil {
		t.Fatalf("%s: new manager: %v", name, err)
	}
	r.mgr = mgr
	r.rec = &shipmentReconciler{
		client:   mgr.GetClient(),
		recorder: mgr.GetEventRecorder(controllerName), // events.k8s.io/v1
		replica:  name,
	}
	if err := ctrl.NewControllerManagedBy(mgr).
		For(&typesv1.Shipment{}).
		Named("shipment").
		// Both replicas live in this process; the name is the same on purpose.
		WithOptions(controller.Options{SkipNameValidation: new(true)}).
		Complete(r.rec); err != nil {
		t.Fatalf("%s: build controller: %v", name, err)
	}

	c, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.done <- mgr.Start(c) }()
	t.Cleanup(func() {
		if err := r.stop(20 * time.Second); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if t.Failed() {
			t.Logf("%s log:\n%s", name, r.logs())
		}
	})
	return r
}

// stop cancels the manager's context and waits for Start to return.
func (r *replica) stop(d time.Duration) error {
	r.cancel()
	select {
	case err, ok := <-r.done:
		if !ok {
			return nil // already stopped
		}
		close(r.done)
		if err != nil {
			return fmt.Errorf("manager stopped with %v", err)
		}
		return nil
	case <-time.After(d):
		return fmt.Errorf("manager did not stop within %s of its context's end", d)
	}
}

func (r *replica) logs() string {
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	return r.log.w.String()
}

// elected reports whether the replica has become the leader.
func (r *replica) elected() bool {
	select {
	case <-r.mgr.Elected():
		return true
	default:
		return false
	}
}

// TestControllerLeaderElection runs the shipment controller in two
// controller-runtime managers with leader election on their own apiserver:
// replica-1 takes the Lease and reconciles, replica-2 waits as a follower and
// reconciles nothing, and takes the Lease over when replica-1 stops. The
// reconciler's Events (events.k8s.io/v1) and the leader election's Events
// (core/v1) are read back through client-go and kubectl.
func TestControllerLeaderElection(t *testing.T) {
	s := newServer(t)
	cs, err := kubernetes.NewForConfig(s.config)
	if err != nil {
		t.Fatalf("clientset: %v", err)
	}
	scheme := runtime.NewScheme()
	if err := shippingv1.AddToScheme(scheme); err != nil {
		t.Fatalf("AddToScheme: %v", err)
	}
	c, err := client.New(s.config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatalf("controller-runtime client: %v", err)
	}
	ctx := ctx(t, 2*time.Minute)
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}

	// The Lease's namespace exists from the start; the Shipments get a
	// namespace of their own.
	if _, err := cs.CoreV1().Namespaces().Get(ctx, leaseNamespace, metav1.GetOptions{}); err != nil {
		t.Fatalf("get namespace %s: %v", leaseNamespace, err)
	}
	const ns = "shipping-ctrl"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", ns, err)
	}

	getLease := func() (*coordinationv1.Lease, error) {
		return cs.CoordinationV1().Leases(leaseNamespace).Get(ctx, leaseName, metav1.GetOptions{})
	}
	holder := func(l *coordinationv1.Lease) string {
		if l.Spec.HolderIdentity == nil {
			return ""
		}
		return *l.Spec.HolderIdentity
	}

	// Replica 1 alone: it creates the Lease and becomes the leader.
	r1 := startReplica(t, s.config, "replica-1")
	select {
	case <-r1.mgr.Elected():
	case err := <-r1.done:
		t.Fatalf("replica-1 stopped before it was elected: %v\n%s", err, r1.logs())
	case <-time.After(20 * time.Second):
		t.Fatalf("replica-1 not elected within 20s\n%s", r1.logs())
	}
	lease, err := getLease()
	if err != nil {
		t.Fatalf("get lease %s/%s after replica-1 was elected: %v", leaseNamespace, leaseName, err)
	}
	id1 := holder(lease)
	if !strings.HasPrefix(id1, host+"_") {
		t.Fatalf("lease holderIdentity %q: want replica-1's identity %s_<uuid>", id1, host)
	}
	if d := lease.Spec.LeaseDurationSeconds; d == nil || *d != int32(leaseDuration/time.Second) {
		t.Errorf("lease leaseDurationSeconds %v, want %d", d, int32(leaseDuration/time.Second))
	}
	if lease.Spec.RenewTime == nil || lease.Spec.AcquireTime == nil {
		t.Errorf("lease renewTime %v acquireTime %v: want both set", lease.Spec.RenewTime, lease.Spec.AcquireTime)
	}
	t.Logf("replica-1 holds lease %s/%s as %s", leaseNamespace, leaseName, id1)

	// Replica 2 joins and waits as a follower.
	r2 := startReplica(t, s.config, "replica-2")

	first := newShipment(ns, "first")
	if err := c.Create(ctx, first); err != nil {
		t.Fatalf("create shipment %s/first: %v", ns, err)
	}
	waitDispatched(t, c, types.NamespacedName{Namespace: ns, Name: "first"}, 1, "replica-1")

	// A spec change makes a new generation; the controller observes it.
	if err := c.Patch(ctx, first, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"priority":"Urgent"}}`))); err != nil {
		t.Fatalf("patch shipment first: %v", err)
	}
	if first.Generation != 2 {
		t.Fatalf("generation after a spec patch: %d, want 2", first.Generation)
	}
	waitDispatched(t, c, types.NamespacedName{Namespace: ns, Name: "first"}, 2, "replica-1")

	// Over several retry periods replica-2 neither wins the Lease nor
	// reconciles, and replica-1 keeps renewing.
	renew1 := lease.Spec.RenewTime
	deadline := time.Now().Add(3 * retryPeriod)
	for time.Now().Before(deadline) {
		if r2.elected() {
			t.Fatalf("replica-2 was elected while replica-1 held the lease\n%s", r2.logs())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := r2.rec.reconciles.Load(); n != 0 {
		t.Fatalf("follower replica-2 reconciled %d times, want 0", n)
	}
	if n := r1.rec.updates.Load(); n < 2 {
		t.Errorf("leader replica-1 wrote the status %d times, want at least 2", n)
	}
	lease, err = getLease()
	if err != nil {
		t.Fatalf("get lease: %v", err)
	}
	if h := holder(lease); h != id1 {
		t.Fatalf("lease holder %q while replica-1 leads, want %q", h, id1)
	}
	if lease.Spec.RenewTime == nil || renew1 == nil || !lease.Spec.RenewTime.After(renew1.Time) {
		t.Errorf("lease renewTime %v did not advance past %v: replica-1 is not renewing", lease.Spec.RenewTime, renew1)
	}

	// The reconciler's Event, through events.k8s.io/v1 (as written) ...
	var ev eventsv1.Event
	eventually(t, 15*time.Second, "events.k8s.io/v1 Event about shipment first", func() error {
		list, err := cs.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("list events.k8s.io/v1 events in %s: %w", ns, err)
		}
		for _, e := range list.Items {
			if e.Regarding.Name == "first" && e.Reason == eventReason {
				ev = e
				return nil
			}
		}
		return fmt.Errorf("no %s event regarding first among %d events", eventReason, len(list.Items))
	})
	if ev.Regarding.Kind != "Shipment" || ev.Regarding.APIVersion != "shipping.kubeforge.dev/v1" || ev.Regarding.Namespace != ns || ev.Regarding.UID != first.UID {
		t.Errorf("event regarding %+v: want the Shipment %s/first uid %s", ev.Regarding, ns, first.UID)
	}
	if ev.Type != corev1.EventTypeNormal || ev.Action != eventAction || ev.ReportingController != controllerName ||
		!strings.HasPrefix(ev.ReportingInstance, controllerName+"-") || !strings.Contains(ev.Note, "replica-1") || ev.EventTime.IsZero() {
		t.Errorf("event: type=%q action=%q reportingController=%q reportingInstance=%q note=%q eventTime=%v",
			ev.Type, ev.Action, ev.ReportingController, ev.ReportingInstance, ev.Note, ev.EventTime)
	}
	// ... is the same object through core/v1, as in Kubernetes ...
	core, err := cs.CoreV1().Events(ns).Get(ctx, ev.Name, metav1.GetOptions{})
	if err != nil {
		t.Errorf("get the events.k8s.io/v1 event %s through core/v1: %v", ev.Name, err)
	} else if core.InvolvedObject.Kind != "Shipment" || core.InvolvedObject.Name != "first" || core.Reason != eventReason ||
		core.Message != ev.Note || core.ReportingController != controllerName || core.Action != eventAction {
		t.Errorf("core/v1 view of event %s: involvedObject=%+v reason=%q message=%q reportingComponent=%q action=%q",
			ev.Name, core.InvolvedObject, core.Reason, core.Message, core.ReportingController, core.Action)
	}
	// ... and kubectl shows it, as core/v1 events (what `kubectl get events`
	// picks) and as events.k8s.io/v1 events, with kube-apiserver's columns.
	k := newKubectl(t, s)
	for _, resource := range []string{"events", "events.v1.events.k8s.io"} {
		if names := k.ok(t, "", "get", resource, "-n", ns, "-o", "name"); !strings.Contains(names, "/"+ev.Name+"\n") {
			t.Errorf("kubectl get %s -n %s -o name: event %s not listed:\n%s", resource, ns, ev.Name, names)
			continue
		}
		r := k.run(t, "", "get", resource, "-n", ns)
		switch {
		case r.code != 0:
			t.Errorf("kubectl get %s -n %s failed:\n%s", resource, ns, r)
		case !regexp.MustCompile(`^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n`).MatchString(r.stdout):
			t.Errorf("kubectl get %s -n %s: want kube-apiserver's LAST SEEN TYPE REASON OBJECT MESSAGE columns:\n%s", resource, ns, r.stdout)
		case !regexp.MustCompile(`(?m)\sNormal\s+` + eventReason + `\s+shipment/first\s+shipment first is in transit \(generation 1, replica-1\)$`).MatchString(r.stdout):
			t.Errorf("kubectl get %s -n %s: no row for the %s event of shipment/first:\n%s", resource, ns, eventReason, r.stdout)
		}
	}

	// Leader election records a core/v1 Event on the Lease.
	eventually(t, 10*time.Second, "core/v1 LeaderElection event", func() error {
		list, err := cs.CoreV1().Events(leaseNamespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("list core/v1 events in %s: %w", leaseNamespace, err)
		}
		for _, e := range list.Items {
			if e.Reason == "LeaderElection" && e.InvolvedObject.Kind == "Lease" && e.InvolvedObject.Name == leaseName && e.Message == id1+" became leader" {
				return nil
			}
		}
		return fmt.Errorf("no LeaderElection event %q on Lease %s among %d events", id1+" became leader", leaseName, len(list.Items))
	})

	// Replica 1 stops and releases the Lease; replica 2 takes over.
	transitions := lease.Spec.LeaseTransitions
	if err := r1.stop(20 * time.Second); err != nil {
		t.Fatalf("replica-1: %v\n%s", err, r1.logs())
	}
	stopped := time.Now()
	reconciles1 := r1.rec.reconciles.Load()
	var id2 string
	eventually(t, 3*leaseDuration, "replica-2 holds the lease", func() error {
		l, err := getLease()
		if err != nil {
			return err
		}
		if h := holder(l); h == "" || h == id1 {
			return fmt.Errorf("holderIdentity %q", h)
		}
		id2, lease = holder(l), l
		return nil
	})
	t.Logf("replica-2 holds the lease as %s, %s after replica-1 stopped", id2, time.Since(stopped).Round(time.Millisecond))
	if !strings.HasPrefix(id2, host+"_") {
		t.Errorf("new holderIdentity %q: want replica-2's identity %s_<uuid>", id2, host)
	}
	if lease.Spec.LeaseTransitions == nil || transitions == nil || *lease.Spec.LeaseTransitions <= *transitions {
		t.Errorf("leaseTransitions %v after the takeover, was %v: want it incremented", lease.Spec.LeaseTransitions, transitions)
	}
	select {
	case <-r2.mgr.Elected():
	case <-time.After(5 * time.Second):
		t.Fatalf("replica-2 holds the lease but its manager was not elected within 5s\n%s", r2.logs())
	}

	second := newShipment(ns, "second")
	if err := c.Create(ctx, second); err != nil {
		t.Fatalf("create shipment %s/second: %v", ns, err)
	}
	waitDispatched(t, c, types.NamespacedName{Namespace: ns, Name: "second"}, 1, "replica-2")
	if n := r1.rec.reconciles.Load(); n != reconciles1 {
		t.Errorf("replica-1 reconciled %d times after it stopped", n-reconciles1)
	}
	eventually(t, 15*time.Second, "events.k8s.io/v1 Event about shipment second from replica-2", func() error {
		list, err := cs.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, e := range list.Items {
			if e.Regarding.Name == "second" && e.Reason == eventReason && strings.Contains(e.Note, "replica-2") {
				return nil
			}
		}
		return fmt.Errorf("no %s event regarding second from replica-2 among %d events", eventReason, len(list.Items))
	})

	if err := r2.stop(20 * time.Second); err != nil {
		t.Fatalf("replica-2: %v\n%s", err, r2.logs())
	}
	// ReleaseOnCancel: the Lease is given up, not left to expire.
	lease, err = getLease()
	if err != nil {
		t.Fatalf("get lease after both replicas stopped: %v", err)
	}
	if h := holder(lease); h != "" {
		t.Errorf("lease holder %q after replica-2 stopped with ReleaseOnCancel, want none", h)
	}
}

// newShipment is a valid Shipment.
func newShipment(ns, name string) *typesv1.Shipment {
	return &typesv1.Shipment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: typesv1.ShipmentSpec{
			Origin:      typesv1.Address{Street: "A 1", City: "Hamburg"},
			Destination: typesv1.Address{Street: "B 2", City: "Munich"},
			Parcels:     []typesv1.Parcel{{Name: "crate", Weight: resource.MustParse("12")}},
		},
	}
}

// waitDispatched waits until the controller has moved the shipment to
// InTransit for generation gen, with a Ready condition naming the replica.
func waitDispatched(t *testing.T, c client.Client, key types.NamespacedName, gen int64, replica string) {
	t.Helper()
	eventually(t, 15*time.Second, fmt.Sprintf("%s dispatched at generation %d by %s", key, gen, replica), func() error {
		var s typesv1.Shipment
		if err := c.Get(context.Background(), key, &s); err != nil {
			if apierrors.IsNotFound(err) {
				return fmt.Errorf("get: %w", err)
			}
			return err
		}
		cond := meta.FindStatusCondition(s.Status.Conditions, "Ready")
		switch {
		case s.Generation != gen:
			return fmt.Errorf("generation %d", s.Generation)
		case s.Status.Phase != typesv1.PhaseInTransit || s.Status.ObservedGeneration != gen:
			return fmt.Errorf("status phase=%q observedGeneration=%d", s.Status.Phase, s.Status.ObservedGeneration)
		case cond == nil:
			return fmt.Errorf("no Ready condition in %+v", s.Status.Conditions)
		case cond.Status != metav1.ConditionTrue || cond.Reason != eventReason || cond.ObservedGeneration != gen ||
			cond.Message != "dispatched by "+replica || cond.LastTransitionTime.IsZero():
			return fmt.Errorf("Ready condition %+v", *cond)
		}
		return nil
	})
}
