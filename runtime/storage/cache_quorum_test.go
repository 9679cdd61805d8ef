package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/storage/value"
)

// otherClient is a second etcd client: another process writing etcd.
func otherClient(t *testing.T) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: testEtcd.Endpoints(), DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// rawPut stores w under its key with client c, behind the store's back,
// and returns the revision etcd acknowledged.
func rawPut(t *testing.T, f *fixture, c *clientv3.Client, w *Widget) int64 {
	t.Helper()
	w.Kind, w.APIVersion = "Widget", "test.kubeforge.dev/v1"
	w.ResourceVersion = ""
	data, err := f.st.encode(w)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Put(ctx, f.st.key(w.Namespace, w.Name), string(data))
	if err != nil {
		t.Fatal(err)
	}
	return resp.Header.Revision
}

// TestCacheQuorumGetLinearizable: a quorum get served by the cache sees
// every write acknowledged before it started, even one another etcd client
// made a moment ago (which the cache learns of only through its watch),
// and its JSON is byte for byte etcd's read's.
func TestCacheQuorumGetLinearizable(t *testing.T) {
	f, m := cacheFixture(t, "", BackendOptions{BookmarkInterval: time.Hour})
	other := otherClient(t)
	mustCreate(t, f, widget("ns", "w", 0))
	for i := 1; i <= 20; i++ {
		rev := rawPut(t, f, other, widget("ns", "w", i))
		got, err := f.st.Get(ctx, "ns", "w", GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Spec.Size != i || got.ResourceVersion != strconv.FormatInt(rev, 10) {
			t.Fatalf("quorum get after a write at %d: size %d at %s, want %d", rev, got.Spec.Size, got.ResourceVersion, i)
		}
		// A new object, read at once.
		name := fmt.Sprintf("new%d", i)
		rawPut(t, f, other, widget("ns", name, i))
		data := mustGetJSON(t, f, name, "")
		if want := etcdGetJSON(t, f, name); !bytes.Equal(data, want) {
			t.Fatalf("quorum GetJSON from the cache\n%s\netcd's\n%s", data, want)
		}
	}
	if _, err := other.Delete(ctx, f.st.key("ns", "w")); err != nil {
		t.Fatal(err)
	}
	_, err := f.st.Get(ctx, "ns", "w", GetOptions{})
	wantStatus(t, err, 404, metav1.StatusReasonNotFound, `widgets.test.kubeforge.dev "w" not found`)
	if n := m.read("get/cache"); n < 40 {
		t.Fatalf("quorum gets not from the cache: reads %v", m.reads)
	}
}

// TestCacheQuorumGetReplicas: a write through one replica (its own
// backend and cache on the same etcd) is in the other's next quorum get.
func TestCacheQuorumGetReplicas(t *testing.T) {
	a, _ := cacheFixture(t, "", BackendOptions{BookmarkInterval: time.Hour})
	b, mb := cacheFixture(t, a.prefix, BackendOptions{BookmarkInterval: time.Hour})
	w := mustCreate(t, a, widget("ns", "w", 0))
	for i := 1; i <= 20; i++ {
		w.Spec.Size = i
		var err error
		if w, err = put(ctx, a.st, w, UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		got, err := b.st.Get(ctx, "ns", "w", GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Spec.Size != i || got.ResourceVersion != w.ResourceVersion {
			t.Fatalf("b's quorum get after a's write at %s: size %d at %s", w.ResourceVersion, got.Spec.Size, got.ResourceVersion)
		}
	}
	if mb.read("get/cache") < 20 {
		t.Fatalf("b's gets not from its cache: %v", mb.reads)
	}
}

// TestCacheQuorumGetFallback: a cache that cannot reach the revision a
// quorum get needs within freshTimeout hands the get to etcd.
func TestCacheQuorumGetFallback(t *testing.T) {
	f, m := cacheFixture(t, "", BackendOptions{BookmarkInterval: time.Hour})
	mustCreate(t, f, widget("ns", "w", 1))
	// A revision etcd has not reached: the cache cannot catch up to it.
	read := f.b.revs.read
	f.b.revs.read = func(ctx context.Context) (int64, error) {
		rev, err := read(ctx)
		return rev + 1000, err
	}
	start := time.Now()
	got, err := f.st.Get(ctx, "ns", "w", GetOptions{})
	if err != nil || got.Spec.Size != 1 {
		t.Fatalf("get with the cache behind: %v %v", got, err)
	}
	if took := time.Since(start); took < freshTimeout {
		t.Fatalf("gave up waiting for the cache after %v", took)
	}
	if m.read("get/etcd") != 1 || m.read("get/cache") != 0 {
		t.Fatalf("reads %v", m.reads)
	}
}

// TestCacheQuorumGetsBatched: concurrent quorum gets share reads of etcd's
// revision.
func TestCacheQuorumGetsBatched(t *testing.T) {
	var mu sync.Mutex
	fetches := 0
	f, m := cacheFixture(t, "", BackendOptions{BookmarkInterval: time.Hour, ObserveLatency: func(op, _ string, _ time.Duration) {
		if op == "revision" {
			mu.Lock()
			fetches++
			mu.Unlock()
		}
	}})
	mustCreate(t, f, widget("ns", "w", 1))
	if _, err := f.st.Get(ctx, "ns", "w", GetOptions{}); err != nil { // caught up
		t.Fatal(err)
	}
	mu.Lock()
	fetches = 0
	mu.Unlock()
	const n = 64
	start := make(chan struct{})
	errs := make(chan error, n)
	for range n {
		go func() {
			<-start
			_, err := f.st.Get(ctx, "ns", "w", GetOptions{})
			errs <- err
		}()
	}
	close(start)
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if fetches >= n/2 || m.read("get/cache") != n+1 {
		t.Fatalf("%d concurrent gets: %d reads of the revision; reads %v", n, fetches, m.reads)
	}
	t.Logf("%d concurrent gets: %d reads of the revision", n, fetches)
}

// holdFirst makes r's first read wait, once etcd answered it, until
// release is closed; entered is closed when it does.
func holdFirst(r *revisions) (entered, release chan struct{}, reads func() []int64) {
	entered, release = make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var got []int64
	r.fetched = func(rev int64, _ error) {
		mu.Lock()
		got = append(got, rev)
		first := len(got) == 1
		mu.Unlock()
		if first {
			close(entered)
			<-release
		}
	}
	return entered, release, func() []int64 {
		mu.Lock()
		defer mu.Unlock()
		return append([]int64(nil), got...)
	}
}

// waiting is the number of requests queued for r's next read.
func waiting(r *revisions) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.next == nil {
		return 0
	}
	return r.next.waiters
}

// TestRevisionsNeverReuseEarlierRead: a request arriving while a read of
// the revision is in flight (here: answered before a write the request
// must see) waits for the next read, which every such request shares.
func TestRevisionsNeverReuseEarlierRead(t *testing.T) {
	b := NewBackend(testEtcd.Client(), fmt.Sprintf("/t%d", prefixSeq.Add(1)), BackendOptions{})
	t.Cleanup(b.Close)
	entered, release, reads := holdFirst(b.revs)
	first := make(chan int64, 1)
	go func() {
		rev, _ := b.revs.current(ctx)
		first <- rev
	}()
	<-entered
	put, err := otherClient(t).Put(ctx, b.prefix+"/written", "x")
	if err != nil {
		t.Fatal(err)
	}
	written := put.Header.Revision
	const n = 20
	later := make(chan int64, n)
	for range n {
		go func() {
			rev, err := b.revs.current(ctx)
			if err != nil {
				t.Error(err)
			}
			later <- rev
		}()
	}
	waitFor(t, func() bool { return waiting(b.revs) == n })
	close(release)
	if rev := <-first; rev >= written {
		t.Fatalf("the first read answered %d, after the write at %d: the test proves nothing", rev, written)
	}
	for range n {
		if rev := <-later; rev < written {
			t.Fatalf("a request that arrived after the write at %d got revision %d", written, rev)
		}
	}
	if got := reads(); len(got) != 2 {
		t.Fatalf("%d requests after the first took reads %v, want one shared read", n, got)
	}
}

// TestRevisionsCancel: a request whose context ends stops waiting at once;
// a queued read nobody waits for any more is not made.
func TestRevisionsCancel(t *testing.T) {
	b := NewBackend(testEtcd.Client(), fmt.Sprintf("/t%d", prefixSeq.Add(1)), BackendOptions{})
	t.Cleanup(b.Close)
	entered, release, reads := holdFirst(b.revs)
	go func() { _, _ = b.revs.current(ctx) }()
	<-entered
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := b.revs.current(cctx)
		done <- err
	}()
	waitFor(t, func() bool { return waiting(b.revs) == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled request: %v", err)
	}
	if waiting(b.revs) != 0 {
		t.Fatal("the canceled request still queued")
	}
	close(release)
	rev, err := b.revs.current(ctx)
	if err != nil || rev == 0 {
		t.Fatalf("after the cancel: %d %v", rev, err)
	}
	if got := reads(); len(got) != 2 {
		t.Fatalf("reads %v, want the held one and the last request's", got)
	}
}

// slowReads is an identity value.Transformer whose reads take delay once
// armed: it holds the cache's watch back, a lagging watch on demand.
type slowReads struct{ delay atomic.Int64 }

func (s *slowReads) TransformFromStorage(_ context.Context, data []byte, _ value.Context) ([]byte, bool, error) {
	time.Sleep(time.Duration(s.delay.Load()))
	return data, false, nil
}

func (s *slowReads) TransformToStorage(_ context.Context, data []byte, _ value.Context) ([]byte, error) {
	return data, nil
}

// TestCacheQuorumGetWaitsForWatch: a quorum get waits for the cache's
// watch to bring in a write made before it, however late the watch is.
func TestCacheQuorumGetWaitsForWatch(t *testing.T) {
	slow := &slowReads{}
	f, m := cacheFixture(t, "", BackendOptions{BookmarkInterval: time.Hour, Transformer: func(schema.GroupResource) value.Transformer { return slow }})
	other := otherClient(t)
	mustCreate(t, f, widget("ns", "w", 0))
	slow.delay.Store(int64(100 * time.Millisecond))
	for i := 1; i <= 3; i++ {
		rev := rawPut(t, f, other, widget("ns", "w", i))
		got, err := f.st.Get(ctx, "ns", "w", GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Spec.Size != i || got.ResourceVersion != strconv.FormatInt(rev, 10) {
			t.Fatalf("quorum get after a write at %d: size %d at %s, want %d", rev, got.Spec.Size, got.ResourceVersion, i)
		}
	}
	if n := m.read("get/cache"); n != 3 {
		t.Fatalf("reads %v", m.reads)
	}
}

// BenchmarkQuorumGet is a quorum GetJSON of one of 1,000 cached objects,
// from etcd (as without the cache) and from the cache, one at a time and
// from 8 concurrent readers per CPU (with the reads of etcd's revision per
// get from the cache).
func BenchmarkQuorumGet(b *testing.B) {
	var fetches atomic.Int64
	f, _ := cacheFixture(b, "", BackendOptions{ObserveLatency: func(op, _ string, _ time.Duration) {
		if op == "revision" {
			fetches.Add(1)
		}
	}})
	cacheBenchObjects(b, f, 1000)
	key := f.st.key("ns3", "w00123")
	b.Run("etcd", func(b *testing.B) {
		b.ReportAllocs()
		r := etcdReader[*Widget, *WidgetList]{f.st.access}
		for b.Loop() {
			if _, err := r.getJSON(ctx, key, "w00123", GetOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("etcd-8", func(b *testing.B) {
		b.ReportAllocs()
		b.SetParallelism(8)
		r := etcdReader[*Widget, *WidgetList]{f.st.access}
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := r.getJSON(ctx, key, "w00123", GetOptions{}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("cache", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := f.st.GetJSON(ctx, "ns3", "w00123", GetOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cache-8", func(b *testing.B) {
		b.ReportAllocs()
		b.SetParallelism(8)
		before := fetches.Load()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := f.st.GetJSON(ctx, "ns3", "w00123", GetOptions{}); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(fetches.Load()-before)/float64(b.N), "revreads/op")
	})
}

// TestCacheQuorumGetClosed: a cache that no longer serves (its backend
// closed) hands a quorum get to etcd without reading the revision first.
func TestCacheQuorumGetClosed(t *testing.T) {
	var revReads atomic.Int64
	f, m := cacheFixture(t, "", BackendOptions{ObserveLatency: func(op, _ string, _ time.Duration) {
		if op == "revision" {
			revReads.Add(1)
		}
	}})
	mustCreate(t, f, widget("ns", "w", 1))
	f.b.Close()
	before := revReads.Load()
	if got, err := f.st.Get(ctx, "ns", "w", GetOptions{}); err != nil || got.Spec.Size != 1 {
		t.Fatalf("get after close: %v %v", got, err)
	}
	if n := revReads.Load() - before; n != 0 || m.read("get/etcd") != 1 {
		t.Fatalf("%d revision reads; reads %v", n, m.reads)
	}
}
