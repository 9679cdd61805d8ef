package storage

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/watch"
)

// TestTooLargeForEtcd: an object that would exceed etcd's request limit is
// a 413 with a clear message, on create and update, and nothing is
// stored; one just under it is stored.
func TestTooLargeForEtcd(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, true, false)
	big := widget("a", "big", 1)
	big.Spec.Color = strings.Repeat("x", DefaultMaxRequestBytes)
	_, err := f.st.Create(ctx, big, CreateOptions{})
	se := wantStatus(t, err, 413, "RequestEntityTooLarge", "~widgets.test.kubeforge.dev is ")
	if !strings.Contains(se.Error(), "bytes etcd accepts in one request") {
		t.Errorf("message: %v", se)
	}
	if len(f.raw(t)) != 0 {
		t.Fatalf("stored: %v", f.raw(t))
	}
	w := widget("a", "w", 1)
	w.Spec.Color = strings.Repeat("x", DefaultMaxRequestBytes-2048)
	mustCreate(t, f, w)
	_, err = f.st.GuaranteedUpdate(ctx, "a", "w", "", func(cur *Widget) (*Widget, error) {
		cur.Spec.Color += strings.Repeat("y", 4096)
		return cur, nil
	}, UpdateOptions{})
	wantStatus(t, err, 413, "RequestEntityTooLarge", "")
}

// TestUnreadableValue: a value written straight into etcd that does not
// decode leaves list, raw JSON list, watch and collection delete serving
// every readable object (and is reported); reading or deleting it by name
// is a 500 until the unsafe delete option removes it.
func TestUnreadableValue(t *testing.T) {
	ctx := context.Background()
	p := fmt.Sprintf("/t%d", prefixSeq.Add(1))
	var mu sync.Mutex
	reported := map[string]int{}
	b := NewBackend(testEtcd.Client(), p, BackendOptions{WatchCache: testWatchCache, Unreadable: func(resource, key string, err error) {
		mu.Lock()
		reported[key]++
		mu.Unlock()
	}})
	f := &fixture{b: b, st: NewStore(b, widgetStrategy(true, false)), prefix: p}
	mustCreate(t, f, widget("a", "good1", 1))
	bad := f.st.key("a", "bad")
	if _, err := testEtcd.Client().Put(ctx, bad, "{not json"); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, f, widget("a", "good2", 2))

	l, err := f.st.List(ctx, "a", ListOptions{})
	if err != nil || len(l.Items) != 2 {
		t.Fatalf("list: %d items, %v", len(l.Items), err)
	}
	for _, limit := range []int64{1, 2} { // the bad value at a page's end and inside it
		l, err := f.st.List(ctx, "a", ListOptions{Limit: limit})
		if err != nil || len(l.Items) == 0 {
			t.Fatalf("list limit %d: %+v %v", limit, l, err)
		}
	}
	jl, _, err := f.st.ListJSON(ctx, "a", ListOptions{})
	if err != nil || len(jl.page) != 2 {
		t.Fatalf("list json: %v", err)
	}
	mu.Lock()
	if reported[bad] == 0 {
		t.Errorf("not reported: %v", reported)
	}
	mu.Unlock()

	wch, err := f.st.Watch(ctx, "a", WatchOptions{ListOptions: ListOptions{ResourceVersion: l.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testEtcd.Client().Put(ctx, bad, "{still not json"); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, f, widget("a", "good3", 3))
	select {
	case ev := <-wch:
		if ev.Type != watch.Added || ev.Object.Name != "good3" {
			t.Fatalf("watch: %s %+v %+v", ev.Type, ev.Object, ev.Status)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watch stopped at the unreadable value")
	}

	_, err = f.st.Get(ctx, "a", "bad", GetOptions{})
	wantStatus(t, err, 500, "InternalError", "")
	_, _, err = f.st.Delete(ctx, "a", "bad", DeleteOptions{})
	wantStatus(t, err, 500, "InternalError", "")
	obj, deleted, err := f.st.Delete(ctx, "a", "bad", DeleteOptions{IgnoreStoreReadError: true})
	if err != nil || !deleted || obj.Name != "bad" {
		t.Fatalf("unsafe delete: %+v %v %v", obj, deleted, err)
	}
	if _, ok := f.raw(t)[bad]; ok {
		t.Fatal("still stored")
	}
	// On a readable object the option is an ordinary delete.
	if _, deleted, err := f.st.Delete(ctx, "a", "good1", DeleteOptions{IgnoreStoreReadError: true}); err != nil || !deleted {
		t.Fatalf("delete good1: %v %v", deleted, err)
	}
}

// TestSlowWatcherEnded: a watcher that does not read while large objects
// change has its watch ended once it is maxPendingBytes behind; the
// server holds no more than that for it, and a fast watcher alongside
// sees every event.
func TestSlowWatcherEnded(t *testing.T) {
	ctx := context.Background()
	p := fmt.Sprintf("/t%d", prefixSeq.Add(1))
	var ended atomic.Int32
	b := NewBackend(testEtcd.Client(), p, BackendOptions{WatchCache: testWatchCache, SlowWatcher: func(string) { ended.Add(1) }})
	f := &fixture{b: b, st: NewStore(b, widgetStrategy(true, false)), prefix: p}
	w := widget("a", "big", 0)
	w.Spec.Color = strings.Repeat("c", 256<<10)
	cur := mustCreate(t, f, w)
	slow, err := f.st.Watch(ctx, "a", WatchOptions{ListOptions: ListOptions{ResourceVersion: cur.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	fast, err := f.st.Watch(ctx, "a", WatchOptions{ListOptions: ListOptions{ResourceVersion: cur.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	const updates = 40 // 40 x 2 x 256 KiB = 20 MiB behind
	// The fast watcher reads each event before the next write: however
	// the two cores are shared (CI runs packages side by side), it is
	// never more than one event behind, while the slow one, which reads
	// nothing, falls past the bounds.
	seen := make(chan int)
	go func() {
		defer close(seen)
		n := 0
		for ev := range fast {
			if ev.Type == watch.Modified {
				n++
				seen <- n
			}
			if n == updates {
				return
			}
		}
	}()
	for i := 1; i <= updates; i++ {
		if _, err := f.st.GuaranteedUpdate(ctx, "a", "big", "", func(c *Widget) (*Widget, error) {
			c.Spec.Size = i
			return c, nil
		}, UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		select {
		case n, ok := <-seen:
			if !ok || n != i {
				t.Fatalf("fast watcher ended or skipped after update %d (saw %d)", i, n)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("fast watcher stalled at update %d", i)
		}
	}
	deadline := time.After(20 * time.Second)
	n := 0
	for open := true; open; {
		select {
		case _, open = <-slow:
			if open {
				n++
			}
		case <-deadline:
			t.Fatal("the slow watch was not ended")
		}
	}
	if n >= updates || ended.Load() != 1 {
		t.Fatalf("slow watcher got %d of %d events before the end, ended %d times", n, updates, ended.Load())
	}
}
