package e2e

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kubeforge/kubeforge/runtime/etcd"
)

// TestWatchCacheReplicas: two apiservers, each with its watch cache, on one
// etcd. Writes through one reach an informer (WatchList) on the other; a
// paginated list continues across the replicas at one resourceVersion; a
// watch resumes from an old resourceVersion out of the cache's window of
// events; an etcd compaction leaves the caches' watches running, and a
// watch from before it is 410 Expired, as with kube-apiserver.
func TestWatchCacheReplicas(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "etcd.sock")
	e, err := etcd.StartEmbedded(ctx(t, time.Minute), filepath.Join(dir, "etcd"), etcd.WithClientSocket(sock))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close() }()
	var replicas []*apiserver
	for i := range 2 {
		s, err := startServerBin(binary, filepath.Join(dir, fmt.Sprintf("replica%d", i)), 0, "--etcd-servers", "unix://"+sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := s.stop(); err != nil {
				t.Error(err)
			}
		})
		replicas = append(replicas, s)
	}
	a, b := replicas[0], replicas[1]
	a.ensureNamespaces(t, "wc")
	ca := a.dynamic(t).Resource(shipmentsGVR).Namespace("wc")
	cb := b.dynamic(t).Resource(shipmentsGVR).Namespace("wc")
	ctx := ctx(t, 3*time.Minute)

	// An informer on b, synced through WatchList from b's cache.
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(b.dynamic(t), 0, "wc", nil)
	inf := factory.ForResource(shipmentsGVR).Informer()
	rec := newRecorder()
	if _, err := inf.AddEventHandler(rec.handler()); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	factory.Start(stop)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatalf("informer did not sync\n%s", b.logs())
	}

	var firstRV string
	for i := range 20 {
		obj, err := ca.Create(ctx, shipment("wc", fmt.Sprintf("s%02d", i), nil), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			firstRV = obj.GetResourceVersion()
		}
	}
	eventually(t, 10*time.Second, "b's informer sees a's creates", rec.check(func(r *recorder) error {
		if len(r.added) != 20 {
			return fmt.Errorf("%d added", len(r.added))
		}
		return nil
	}))

	// Pages alternate between the replicas, at the first page's revision,
	// with a write in between that must not show.
	page, err := ca.List(ctx, metav1.ListOptions{Limit: 7})
	if err != nil {
		t.Fatal(err)
	}
	listRV := page.GetResourceVersion()
	var names []string
	for _, it := range page.Items {
		names = append(names, it.GetName())
	}
	if _, err := ca.Create(ctx, shipment("wc", "s00-between", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, tok := 0, page.GetContinue(); tok != ""; i++ {
		c := cb
		if i%2 == 1 {
			c = ca
		}
		p, err := c.List(ctx, metav1.ListOptions{Limit: 7, Continue: tok})
		if err != nil {
			t.Fatal(err)
		}
		if p.GetResourceVersion() != listRV {
			t.Fatalf("page %d at resourceVersion %s, first at %s", i+2, p.GetResourceVersion(), listRV)
		}
		for _, it := range p.Items {
			names = append(names, it.GetName())
		}
		tok = p.GetContinue()
	}
	if len(names) != 20 || names[0] != "s00" || names[19] != "s19" {
		t.Fatalf("paginated across replicas: %v", names)
	}

	// A watch on b from the first create's resourceVersion gets the rest.
	w, err := cb.Watch(ctx, metav1.ListOptions{ResourceVersion: firstRV})
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for got < 20 { // s01..s19 and s00-between
		select {
		case ev := <-w.ResultChan():
			if ev.Type != watch.Added {
				t.Fatalf("resumed watch: %s %v", ev.Type, ev.Object)
			}
			got++
		case <-time.After(10 * time.Second):
			t.Fatalf("resumed watch: %d of 20 events", got)
		}
	}
	w.Stop()

	// Compaction: the caches' watches go on; a watch from before it (and
	// before the caches began) is 410 Expired.
	cur, err := e.Client().Get(ctx, "compaction-probe")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Client().Compact(ctx, cur.Header.Revision); err != nil {
		t.Fatal(err)
	}
	if _, err := ca.Create(ctx, shipment("wc", "after-compaction", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "b's informer sees a create after the compaction", rec.check(func(r *recorder) error {
		if r.added["after-compaction"] != 1 {
			return fmt.Errorf("added[after-compaction]=%d", r.added["after-compaction"])
		}
		return nil
	}))
	old, err := cb.Watch(ctx, metav1.ListOptions{ResourceVersion: "2"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-old.ResultChan():
		if ev.Type != watch.Error || !apierrors.IsResourceExpired(apierrors.FromObject(ev.Object)) {
			t.Fatalf("watch from before the compaction: %s %v", ev.Type, ev.Object)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("watch from before the compaction: no event")
	}
	old.Stop()

	// A consistent list on b comes from its cache, once it caught up
	// with etcd, and has a's last write.
	l, err := cb.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 22 {
		t.Fatalf("consistent list on b: %d items, want 22", len(l.Items))
	}
	m := metricsText(t, b)
	for _, want := range []string{
		`apiserver_watch_cache_reads_total{resource="shipments.shipping.kubeforge.dev",source="cache",verb="list"}`,
		`apiserver_watch_cache_objects{resource="shipments.shipping.kubeforge.dev"} 22`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics of b lack %s", want)
		}
	}
	if v := metricValue(m, `apiserver_registered_watchers{resource="shipments.shipping.kubeforge.dev"}`); v < 1 {
		t.Errorf("registered watchers %v (the informer's at least)", v)
	}
	if v := metricValue(m, `apiserver_watch_cache_events_dispatched_total{resource="shipments.shipping.kubeforge.dev"}`); v < 22 {
		t.Errorf("events dispatched %v", v)
	}
}

func metricsText(t *testing.T, s *apiserver) string {
	t.Helper()
	hc, err := rest.HTTPClientFor(s.config)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Get(s.config.Host + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("get /metrics: HTTP %d %v", resp.StatusCode, err)
	}
	return string(body)
}

// metricValue is the value of the series named exactly series, -1 if absent.
func metricValue(text, series string) float64 {
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err == nil {
				return f
			}
		}
	}
	return -1
}
