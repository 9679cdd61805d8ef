package e2e

import (
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// recorder keeps what an informer's handler saw, by object name.
type recorder struct {
	mu      sync.Mutex
	added   map[string]int
	updated map[string]string // name -> last spec.priority seen in an update
	deleted map[string]int
}

func newRecorder() *recorder {
	return &recorder{added: map[string]int{}, updated: map[string]string{}, deleted: map[string]int{}}
}

func (r *recorder) handler() cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if u, ok := obj.(*unstructured.Unstructured); ok {
				r.mu.Lock()
				r.added[u.GetName()]++
				r.mu.Unlock()
			}
		},
		UpdateFunc: func(_, obj any) {
			if u, ok := obj.(*unstructured.Unstructured); ok {
				p, _, _ := unstructured.NestedString(u.Object, "spec", "priority")
				r.mu.Lock()
				r.updated[u.GetName()] = p
				r.mu.Unlock()
			}
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if u, ok := obj.(*unstructured.Unstructured); ok {
				r.mu.Lock()
				r.deleted[u.GetName()]++
				r.mu.Unlock()
			}
		},
	}
}

func (r *recorder) check(f func(r *recorder) error) func() error {
	return func() error {
		r.mu.Lock()
		defer r.mu.Unlock()
		return f(r)
	}
}

// TestInformer runs a dynamic informer with client-go's defaults (WatchList
// on): it syncs, sees adds, updates and deletes, and resumes after the
// apiserver is restarted on the same data dir and port.
func TestInformer(t *testing.T) {
	s := newServer(t)
	s.ensureNamespaces(t, "inf")
	dyn := s.dynamic(t)
	c := dyn.Resource(shipmentsGVR).Namespace("inf")
	ctx := ctx(t, 3*time.Minute)

	// Objects that exist before the informer starts come in its initial state.
	for i := 0; i < 5; i++ {
		if _, err := c.Create(ctx, shipment("inf", fmt.Sprintf("pre-%d", i), nil), metav1.CreateOptions{}); err != nil {
			t.Fatalf("create: %v", err)
		}
	}

	factory := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
	inf := factory.ForResource(shipmentsGVR).Informer()
	rec := newRecorder()
	if _, err := inf.AddEventHandler(rec.handler()); err != nil {
		t.Fatalf("add handler: %v", err)
	}
	stop := make(chan struct{})
	defer close(stop)
	factory.Start(stop)
	syncCtx := ctx
	if !cache.WaitForCacheSync(syncCtx.Done(), inf.HasSynced) {
		t.Fatalf("informer did not sync\n%s", s.logs())
	}
	if n := len(inf.GetStore().List()); n != 5 {
		t.Fatalf("synced store has %d objects, want 5", n)
	}
	// The informer synced through WatchList (a watch with
	// sendInitialEvents), not through the LIST fallback.
	// The five creates above show that the metric is read right.
	if counts := requestCounts(t, s, "shipments"); counts["LIST"] != 0 || counts["POST"] != 5 {
		t.Fatalf("requests by verb %v: want 5 creates and no list (the informer syncs with WatchList)", counts)
	}

	if _, err := c.Create(ctx, shipment("inf", "live", nil), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create: %v", err)
	}
	eventually(t, 10*time.Second, "informer sees the add", rec.check(func(r *recorder) error {
		if r.added["live"] != 1 {
			return fmt.Errorf("added[live]=%d", r.added["live"])
		}
		return nil
	}))
	patch := []byte(`{"spec":{"priority":"Urgent"}}`)
	if _, err := c.Patch(ctx, "live", "application/merge-patch+json", patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("patch: %v", err)
	}
	eventually(t, 10*time.Second, "informer sees the update", rec.check(func(r *recorder) error {
		if r.updated["live"] != "Urgent" {
			return fmt.Errorf("updated[live]=%q", r.updated["live"])
		}
		return nil
	}))
	if err := c.Delete(ctx, "pre-0", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	eventually(t, 10*time.Second, "informer sees the delete", rec.check(func(r *recorder) error {
		if r.deleted["pre-0"] != 1 {
			return fmt.Errorf("deleted[pre-0]=%d", r.deleted["pre-0"])
		}
		return nil
	}))

	// Restart the apiserver on the same data dir and port.
	if err := s.stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	restarted, err := startServer(s.dataDir, s.port)
	if err != nil {
		t.Fatalf("restart on port %d: %v", s.port, err)
	}
	*s = *restarted // the cleanup stops the restarted process

	// A write after the restart, made with a fresh client, reaches the
	// informer through its re-established watch.
	c2 := dynamic.NewForConfigOrDie(s.config).Resource(shipmentsGVR).Namespace("inf")
	if _, err := c2.Create(ctx, shipment("inf", "after-restart", nil), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create after restart: %v", err)
	}
	if _, err := c2.Patch(ctx, "pre-1", "application/merge-patch+json", patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("patch after restart: %v", err)
	}
	eventually(t, 60*time.Second, "informer resumes after the restart", rec.check(func(r *recorder) error {
		if r.added["after-restart"] != 1 || r.updated["pre-1"] != "Urgent" {
			return fmt.Errorf("added[after-restart]=%d updated[pre-1]=%q", r.added["after-restart"], r.updated["pre-1"])
		}
		return nil
	}))
	// The store matches the server.
	l, err := c2.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	// On the restarted server the only LIST is the one above: the informer
	// came back through a watch.
	if counts := requestCounts(t, s, "shipments"); counts["LIST"] != 1 {
		t.Errorf("requests by verb on the restarted server %v: want exactly the test's own LIST", counts)
	}
	eventually(t, 10*time.Second, "informer store matches a fresh list", func() error {
		if got := len(inf.GetStore().List()); got != len(l.Items) {
			return fmt.Errorf("store %d objects, server %d", got, len(l.Items))
		}
		return nil
	})
	for name, n := range rec.added {
		if n != 1 {
			t.Errorf("%s added %d times", name, n)
		}
	}
}

// requestCounts sums apiserver_request_total for resource by verb, read
// from the server's /metrics.
func requestCounts(t *testing.T, s *apiserver, resource string) map[string]float64 {
	t.Helper()
	httpc, err := rest.HTTPClientFor(s.config)
	if err != nil {
		t.Fatalf("http client: %v", err)
	}
	resp, err := httpc.Get(s.config.Host + "/metrics")
	if err != nil {
		t.Fatalf("get /metrics: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("get /metrics: HTTP %d %v", resp.StatusCode, err)
	}
	verb := regexp.MustCompile(`verb="([^"]*)"`)
	counts := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, "apiserver_request_total{") || !strings.Contains(line, `resource="`+resource+`"`) {
			continue
		}
		m := verb.FindStringSubmatch(line)
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if m == nil || err != nil {
			t.Fatalf("parse metric line %q: %v", line, err)
		}
		counts[m[1]] += v
	}
	return counts
}
