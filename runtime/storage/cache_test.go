package storage

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

// cacheCounts records what the watch cache reports.
type cacheCounts struct {
	mu         sync.Mutex
	reads      map[string]int // "<verb>/<source>"
	watchers   int
	dispatched int
	inits      int
	objects    int
}

func newCacheCounts() *cacheCounts { return &cacheCounts{reads: map[string]int{}} }

func (c *cacheCounts) CacheObjects(_ string, n int) { c.mu.Lock(); c.objects = n; c.mu.Unlock() }
func (c *cacheCounts) EventsDispatched(_ string, n int) {
	c.mu.Lock()
	c.dispatched += n
	c.mu.Unlock()
}
func (c *cacheCounts) Watchers(_ string, d int) { c.mu.Lock(); c.watchers += d; c.mu.Unlock() }
func (c *cacheCounts) CacheRead(_, verb, source string) {
	c.mu.Lock()
	c.reads[verb+"/"+source]++
	c.mu.Unlock()
}
func (c *cacheCounts) CacheInitialized(string) { c.mu.Lock(); c.inits++; c.mu.Unlock() }

func (c *cacheCounts) read(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads[key]
}

// cacheFixture is a store with a watch cache on its own prefix; prefix
// "" picks a new one (give another fixture's to share its data).
func cacheFixture(t testing.TB, prefix string, opts BackendOptions, tweak ...func(*resource.Strategy[*Widget, *WidgetList])) (*fixture, *cacheCounts) {
	t.Helper()
	if prefix == "" {
		prefix = fmt.Sprintf("/t%d", prefixSeq.Add(1))
	}
	m := newCacheCounts()
	opts.WatchCache, opts.CacheMetrics = true, m
	if opts.BookmarkInterval == 0 {
		opts.BookmarkInterval = 200 * time.Millisecond
	}
	b := NewBackend(testEtcd.Client(), prefix, opts)
	t.Cleanup(b.Close)
	s := widgetStrategy(true, false)
	for _, f := range tweak {
		f(s)
	}
	f := &fixture{b: b, st: NewStore(b, s), prefix: prefix}
	waitFor(t, func() bool {
		cacheOf(f.st).mu.RLock()
		defer cacheOf(f.st).mu.RUnlock()
		return cacheOf(f.st).ready
	})
	return f, m
}

// TestCacheServesReads: consistent lists and gets, and gets and lists at
// "0" or a reached resourceVersion, come from memory; an exact
// resourceVersion the cache no longer is at goes to etcd. A write made
// behind the store's back (straight to etcd) is in the next consistent
// list.
func TestCacheServesReads(t *testing.T) {
	f, m := cacheFixture(t, "", BackendOptions{})
	var last *Widget
	for i := range 5 {
		last = mustCreate(t, f, widget("ns", fmt.Sprintf("w%d", i), i))
	}
	l, err := f.st.List(ctx, "ns", ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 5 || l.ResourceVersion < last.ResourceVersion {
		t.Fatalf("consistent list: %d items at %s", len(l.Items), l.ResourceVersion)
	}
	if m.read("list/cache") != 1 {
		t.Fatalf("reads %v", m.reads)
	}
	if _, err := f.st.Get(ctx, "ns", "w4", GetOptions{ResourceVersion: last.ResourceVersion}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.Get(ctx, "ns", "w4", GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if m.read("get/cache") != 2 {
		t.Fatalf("a get at a reached resourceVersion and a quorum get are from memory: reads %v", m.reads)
	}
	_, err = f.st.Get(ctx, "ns", "nope", GetOptions{ResourceVersion: "0"})
	wantStatus(t, err, 404, metav1.StatusReasonNotFound, `widgets.test.kubeforge.dev "nope" not found`)

	// Straight to etcd: the cache sees it through its watch before a
	// consistent list answers.
	w := widget("ns", "behind", 1)
	w.Kind, w.APIVersion = "Widget", "test.kubeforge.dev/v1"
	data, err := f.st.encode(w)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testEtcd.Client().Put(ctx, f.st.key("ns", "behind"), string(data)); err != nil {
		t.Fatal(err)
	}
	l, err = f.st.List(ctx, "ns", ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 6 {
		t.Fatalf("consistent list after a write behind the store: %d items", len(l.Items))
	}
	// An exact resourceVersion the cache has moved past, but its window
	// covers: rebuilt in memory, the same as etcd's answer.
	last.Spec.Size = 40
	if _, err := put(ctx, f.st, last, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.st.Delete(ctx, "ns", "w0", DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.List(ctx, "ns", ListOptions{}); err != nil { // caught up
		t.Fatal(err)
	}
	before := m.read("list/cache")
	exact, err := f.st.List(ctx, "ns", ListOptions{ResourceVersion: last.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if err != nil {
		t.Fatal(err)
	}
	if m.read("list/cache") != before+1 {
		t.Fatalf("exact list in the window: reads %v", m.reads)
	}
	pred, _ := f.st.newPredicate(ListOptions{})
	fromEtcd, _, _, _, err := etcdReader[*Widget, *WidgetList]{f.st.access}.rangeRead(ctx, f.st.listPrefix("ns"), f.st.listPrefix("ns"), mustInt(t, last.ResourceVersion), false, 0, pred)
	if err != nil {
		t.Fatal(err)
	}
	if len(exact.Items) != 5 || widgetNames(ptrs(exact.Items)) != widgetNames(fromEtcd) || exact.ResourceVersion != last.ResourceVersion {
		t.Fatalf("exact list from the window %s at %s, etcd %s", widgetNames(ptrs(exact.Items)), exact.ResourceVersion, widgetNames(fromEtcd))
	}
	for i, w := range exact.Items {
		if w.ResourceVersion != fromEtcd[i].ResourceVersion || w.Spec.Size != fromEtcd[i].Spec.Size {
			t.Fatalf("%s: cache %s size %d, etcd %s size %d", w.Name, w.ResourceVersion, w.Spec.Size, fromEtcd[i].ResourceVersion, fromEtcd[i].Spec.Size)
		}
	}
	// Older than the window (here: before the cache was built): etcd.
	cacheOf(f.st).mu.RLock()
	start := cacheOf(f.st).windowStart
	cacheOf(f.st).mu.RUnlock()
	if start > 1 {
		before = m.read("list/etcd")
		_, _ = f.st.List(ctx, "ns", ListOptions{ResourceVersion: strconv.FormatInt(start-1, 10), ResourceVersionMatch: metav1.ResourceVersionMatchExact}) // 410 if compacted
		if m.read("list/etcd") != before+1 {
			t.Fatalf("exact list before the window: reads %v", m.reads)
		}
	}
}

// TestCacheConsistentWithoutWrites: a consistent list of a resource nobody
// writes, while etcd's revision moves with other resources' writes, is
// answered from memory once etcd reports the cache's watch current (a
// progress notification), not after a timeout.
func TestCacheConsistentWithoutWrites(t *testing.T) {
	f, m := cacheFixture(t, "", BackendOptions{BookmarkInterval: time.Hour})
	mustCreate(t, f, widget("ns", "a", 1))
	other := newFixture(t, true, false)
	// Warm up: etcd takes a moment to report progress on a new watch.
	if _, err := f.st.List(ctx, "ns", ListOptions{}); err != nil {
		t.Fatal(err)
	}
	var took []time.Duration
	for i := range 5 {
		mustCreate(t, other, widget("ns", fmt.Sprintf("o%d", i), 1))
		start := time.Now()
		if _, err := f.st.List(ctx, "ns", ListOptions{}); err != nil {
			t.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	// On a loaded machine etcd may answer a progress request late (and
	// the list then reads etcd after freshTimeout): most must not.
	slices.Sort(took)
	if took[2] > 500*time.Millisecond || m.read("list/cache") < 4 {
		t.Fatalf("consistent lists took %v; reads %v", took, m.reads)
	}
}

// TestCacheWatchResume: a watch from a resourceVersion in the window gets
// what followed it from memory; one older than the window is served by
// etcd with the same events.
func TestCacheWatchResume(t *testing.T) {
	f, m := cacheFixture(t, "", BackendOptions{WatchCacheEvents: 3})
	var created []*Widget
	for i := range 6 {
		created = append(created, mustCreate(t, f, widget("ns", fmt.Sprintf("w%d", i), i)))
	}
	if _, err := f.st.List(ctx, "ns", ListOptions{}); err != nil { // the cache has every event
		t.Fatal(err)
	}
	for _, from := range []int{3, 0} { // in the window, older than it
		wctx, cancel := context.WithCancel(ctx)
		ch, err := f.st.Watch(wctx, "ns", WatchOptions{ListOptions: ListOptions{ResourceVersion: created[from].ResourceVersion}})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range created[from+1:] {
			wantEvent(t, next(t, ch), watch.Added, w.Name, w.ResourceVersion)
		}
		noEvent(t, ch, 50*time.Millisecond)
		m.mu.Lock()
		watchers := m.watchers
		m.mu.Unlock()
		if want := map[int]int{3: 1, 0: 0}[from]; watchers != want {
			t.Fatalf("watch from w%d: %d cache watchers, want %d", from, watchers, want)
		}
		cancel()
		for range ch {
		}
		waitFor(t, func() bool { m.mu.Lock(); defer m.mu.Unlock(); return m.watchers == 0 })
	}
}

// TestCacheWatchResumeOwnNamespace: a namespaced watch resumed from a
// resourceVersion in the window replays only its namespace's events, as
// the live events it is handed are; the window holds every namespace's,
// and RBAC allowed the watch for one namespace only.
func TestCacheWatchResumeOwnNamespace(t *testing.T) {
	f, m := cacheFixture(t, "", BackendOptions{})
	from := mustCreate(t, f, widget("ns", "w0", 1))
	mustCreate(t, f, widget("other", "x1", 1))
	mine := mustCreate(t, f, widget("ns", "w2", 1))
	mustCreate(t, f, widget("other", "x3", 1))
	if _, err := f.st.List(ctx, "", ListOptions{}); err != nil { // the cache has every event
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := f.st.Watch(wctx, "ns", WatchOptions{ListOptions: ListOptions{ResourceVersion: from.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	wantEvent(t, next(t, ch), watch.Added, mine.Name, mine.ResourceVersion)
	mustCreate(t, f, widget("other", "x4", 1))
	live := mustCreate(t, f, widget("ns", "w5", 1))
	wantEvent(t, next(t, ch), watch.Added, live.Name, live.ResourceVersion)
	noEvent(t, ch, 50*time.Millisecond)
	m.mu.Lock()
	watchers := m.watchers
	m.mu.Unlock()
	if watchers != 1 {
		t.Fatalf("%d cache watchers, want 1 (the watch must be served by the cache)", watchers)
	}
	cancel()
	for range ch {
	}
}

// TestCacheWindowOutlivesCompaction: what the window holds is served even
// after etcd compacted it, as kube-apiserver's watch cache does.
func TestCacheWindowOutlivesCompaction(t *testing.T) {
	f, _ := cacheFixture(t, "", BackendOptions{})
	a := mustCreate(t, f, widget("ns", "a", 1))
	b := mustCreate(t, f, widget("ns", "b", 1))
	if _, err := f.st.List(ctx, "ns", ListOptions{}); err != nil {
		t.Fatal(err)
	}
	compactTo(t, currentRev(t))
	ch, err := f.st.Watch(ctx, "ns", WatchOptions{ListOptions: ListOptions{ResourceVersion: a.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	wantEvent(t, next(t, ch), watch.Added, "b", b.ResourceVersion)
}

// TestCacheRebuildAfterCompaction: a cache whose watch falls behind a
// compaction lists again; its watchers get the difference (every object's
// last state, each change once) and nothing twice.
func TestCacheRebuildAfterCompaction(t *testing.T) {
	p := fmt.Sprintf("/t%d", prefixSeq.Add(1))
	b := NewBackend(testEtcd.Client(), p, BackendOptions{BookmarkInterval: time.Hour})
	t.Cleanup(b.Close)
	st := NewStore(b, widgetStrategy(true, false)) // no cache of its own
	m := newCacheCounts()
	c := newWatchCache(st.access, BackendOptions{CacheMetrics: m, BookmarkInterval: time.Hour})
	keep := mustCreateIn(t, st, widget("ns", "keep", 1))
	gone := mustCreateIn(t, st, widget("ns", "gone", 1))
	changed := mustCreateIn(t, st, widget("ns", "changed", 1))
	if err := c.load(ctx); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pred, _ := st.newPredicate(ListOptions{})
	from := c.rev
	ch, ok, err := c.watch(wctx, "ns", WatchOptions{ListOptions: ListOptions{ResourceVersion: strconv.FormatInt(from, 10)}}, pred, from)
	if err != nil || !ok {
		t.Fatalf("watch from the cache: %v %v", ok, err)
	}
	// While the cache does not follow etcd: a delete, an update, a
	// create, then a compaction past them.
	if _, _, err := st.Delete(ctx, "ns", "gone", DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	changed.Spec.Size = 2
	changed2, err := put(ctx, st, changed, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	added := mustCreateIn(t, st, widget("ns", "added", 1))
	compactTo(t, currentRev(t))
	if err := c.follow(ctx); err != errRelist {
		t.Fatalf("follow after compaction: %v, want errRelist", err)
	}
	if err := c.load(ctx); err != nil {
		t.Fatal(err)
	}
	got := map[string]Event[*Widget]{}
	for range 3 {
		ev := next(t, ch)
		if _, dup := got[ev.Object.Name]; dup {
			t.Fatalf("%s twice", ev.Object.Name)
		}
		got[ev.Object.Name] = ev
	}
	noEvent(t, ch, 100*time.Millisecond)
	if ev := got["gone"]; ev.Type != watch.Deleted || ev.Object.UID != gone.UID {
		t.Fatalf("gone: %s %+v", ev.Type, ev.Object)
	}
	if ev := got["changed"]; ev.Type != watch.Modified || ev.Object.ResourceVersion != changed2.ResourceVersion || ev.Object.Spec.Size != 2 {
		t.Fatalf("changed: %s %+v", ev.Type, ev.Object)
	}
	if ev := got["added"]; ev.Type != watch.Added || ev.Object.ResourceVersion != added.ResourceVersion {
		t.Fatalf("added: %s %+v", ev.Type, ev.Object)
	}
	if _, ok := got["keep"]; ok || keep == nil {
		t.Fatal("an unchanged object sent again")
	}
	if m.inits != 2 {
		t.Fatalf("%d cache builds, want 2", m.inits)
	}
}

func mustCreateIn(t testing.TB, st *Store[*Widget, *WidgetList], w *Widget) *Widget {
	t.Helper()
	out, err := st.Create(ctx, w, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCacheReplicas: two stores with their own caches on one etcd (two
// apiservers): a write through one is in the other's consistent list,
// and a continue token of one continues on the other.
func TestCacheReplicas(t *testing.T) {
	a, _ := cacheFixture(t, "", BackendOptions{})
	b, mb := cacheFixture(t, a.prefix, BackendOptions{})
	for i := range 5 {
		mustCreate(t, a, widget("ns", fmt.Sprintf("w%d", i), i))
	}
	l, err := b.st.List(ctx, "ns", ListOptions{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 2 || l.Continue == "" || l.RemainingItemCount == nil || *l.RemainingItemCount != 3 {
		t.Fatalf("first page from b: %d items, continue %q, remaining %v", len(l.Items), l.Continue, l.RemainingItemCount)
	}
	// A write between the pages does not show in the next one.
	mustCreate(t, a, widget("ns", "w9", 9))
	var names []string
	for _, w := range l.Items {
		names = append(names, w.Name)
	}
	for tok, st := l.Continue, a.st; tok != ""; {
		page, err := st.List(ctx, "ns", ListOptions{Limit: 2, Continue: tok})
		if err != nil {
			t.Fatal(err)
		}
		if page.ResourceVersion != l.ResourceVersion {
			t.Fatalf("page at %s, first at %s", page.ResourceVersion, l.ResourceVersion)
		}
		for _, w := range page.Items {
			names = append(names, w.Name)
		}
		tok, st = page.Continue, b.st
	}
	if fmt.Sprint(names) != "[w0 w1 w2 w3 w4]" {
		t.Fatalf("pages across replicas: %v", names)
	}
	if mb.read("list/cache") < 2 {
		t.Fatalf("b's pages not from its cache: %v", mb.reads)
	}
}

// TestCacheIndexedSelectors: equality selectors on labels and selectable
// fields read the index; results equal a scan's, in key order.
func TestCacheIndexedSelectors(t *testing.T) {
	f, _ := cacheFixture(t, "", BackendOptions{}, func(s *resource.Strategy[*Widget, *WidgetList]) {
		s.SelectableFields = func(w *Widget) fields.Set {
			return fields.Set{"metadata.name": w.Name, "metadata.namespace": w.Namespace, "spec.color": w.Spec.Color}
		}
		s.Info.SelectableFields = []string{"spec.color"}
	})
	for i := range 40 {
		w := widget(fmt.Sprintf("ns%d", i%2), fmt.Sprintf("w%02d", i), i)
		w.Labels = map[string]string{"tier": []string{"web", "db", "cache", "queue"}[i%4], "n": strconv.Itoa(i), "all": "yes"}
		w.Spec.Color = []string{"red", "blue", "green", "black", "white"}[i%5]
		mustCreate(t, f, w)
	}
	for _, tc := range []struct {
		ns, labels, fields string
		want               int
		// all: a label every object has, taken without matching.
		all bool
	}{
		{"", "all=yes", "", 40, true},
		{"ns1", "all in (yes,no)", "", 20, true},
		{"ns0", "all=yes", "spec.color=red", 4, false},
		{"", "tier=web", "", 10, false},
		{"ns0", "tier=web", "", 10, false},
		{"ns1", "tier=web", "", 0, false},
		{"", "tier in (web,db),n in (0,1,4,5,8,10)", "", 5, false},
		{"", "n=7", "", 1, false},
		{"", "", "spec.color=red", 8, false},
		{"ns1", "tier=db", "spec.color=blue", 2, false},
		{"", "tier=nope", "", 0, false},
	} {
		opts := ListOptions{}
		var err error
		if opts.LabelSelector, err = labels.Parse(tc.labels); err != nil {
			t.Fatal(err)
		}
		if tc.fields != "" {
			opts.FieldSelector = fieldSel(t, tc.fields)
		}
		l, err := f.st.List(ctx, tc.ns, opts)
		if err != nil {
			t.Fatal(err)
		}
		pred, _ := f.st.newPredicate(opts)
		c := cacheOf(f.st)
		c.mu.RLock()
		_, indexed := c.idx.lookup(pred, c.tree.Len()/4+1)
		all := c.idx.selectsAll(pred, c.tree.Len())
		c.mu.RUnlock()
		if all != tc.all || (!indexed && !all) {
			t.Errorf("%+v: answered by the index: %v, every object selected: %v", tc, indexed, all)
		}
		if tc.fields == "" { // ListJSON declines a field beyond metadata
			if got, _, _, _ := listItemsJSON(t, f, tc.ns, opts); len(got) != tc.want {
				t.Errorf("%+v: ListJSON %d items", tc, len(got))
			}
		}
		// The same list from etcd.
		raw, err := f.st.List(ctx, tc.ns, ListOptions{LabelSelector: opts.LabelSelector, FieldSelector: opts.FieldSelector, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		etcdList, _, _, _, err := etcdReader[*Widget, *WidgetList]{f.st.access}.rangeRead(ctx, f.st.listPrefix(tc.ns), f.st.listPrefix(tc.ns), 0, false, 0, pred)
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Items) != tc.want || widgetNames(ptrs(l.Items)) != widgetNames(etcdList) || widgetNames(ptrs(raw.Items)) != widgetNames(etcdList) {
			t.Errorf("%+v: cache %s, etcd %s", tc, widgetNames(ptrs(l.Items)), widgetNames(etcdList))
		}
	}
}

func ptrs(ws []Widget) []*Widget {
	out := make([]*Widget, len(ws))
	for i := range ws {
		out[i] = &ws[i]
	}
	return out
}

// TestCacheSharedEvents: every watcher of an event gets the same Memo, so
// what is derived from the object is computed once.
func TestCacheSharedEvents(t *testing.T) {
	f, m := cacheFixture(t, "", BackendOptions{})
	cur := mustCreate(t, f, widget("ns", "a", 1))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var chans []<-chan Event[*Widget]
	for range 3 {
		ch, err := f.st.Watch(ctx, "", WatchOptions{ListOptions: ListOptions{ResourceVersion: cur.ResourceVersion}})
		if err != nil {
			t.Fatal(err)
		}
		chans = append(chans, ch)
	}
	cur.Spec.Size = 5
	if _, err := put(ctx, f.st, cur, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	calls := 0
	var memo *Memo
	for _, ch := range chans {
		ev := next(t, ch)
		if ev.Memo == nil || (memo != nil && ev.Memo != memo) {
			t.Fatal("watchers got different memos")
		}
		memo = ev.Memo
		if _, err := ev.Memo.Do("x", func() (any, error) { calls++; return nil, nil }); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 1 {
		t.Fatalf("computed %d times", calls)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dispatched < 3 {
		t.Fatalf("dispatched %d", m.dispatched)
	}
}

// TestCacheSlowWatcherAlone: a watcher that reads nothing is ended once
// too far behind, while another reads every event, and the cache's etcd
// watch goes on.
func TestCacheSlowWatcherAlone(t *testing.T) {
	var ended sync.WaitGroup
	ended.Add(1)
	var once sync.Once
	f, _ := cacheFixture(t, "", BackendOptions{SlowWatcher: func(string) { once.Do(ended.Done) }})
	cur := mustCreate(t, f, widget("ns", "a", 0))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	slow, err := f.st.Watch(ctx, "ns", WatchOptions{ListOptions: ListOptions{ResourceVersion: cur.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	fast, err := f.st.Watch(ctx, "ns", WatchOptions{ListOptions: ListOptions{ResourceVersion: cur.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	const n = maxPendingEvents + 50
	done := make(chan int)
	go func() {
		seen := 0
		for ev := range fast {
			if ev.Type == watch.Added {
				seen++
				if seen == n {
					break
				}
			}
		}
		done <- seen
	}()
	ops := make([]clientv3.Op, 0, 64)
	flush := func() {
		if _, err := testEtcd.Client().Txn(ctx).Then(ops...).Commit(); err != nil {
			t.Fatal(err)
		}
		ops = ops[:0]
	}
	for i := range n {
		w := widget("ns", fmt.Sprintf("n%05d", i), 1)
		w.Kind, w.APIVersion = "Widget", "test.kubeforge.dev/v1"
		data, err := f.st.encode(w)
		if err != nil {
			t.Fatal(err)
		}
		ops = append(ops, clientv3.OpPut(f.st.key("ns", w.Name), string(data)))
		if len(ops) == cap(ops) {
			flush()
		}
	}
	flush()
	select {
	case seen := <-done:
		if seen != n {
			t.Fatalf("fast watcher saw %d of %d", seen, n)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("fast watcher stalled")
	}
	endedCh := make(chan struct{})
	go func() { ended.Wait(); close(endedCh) }()
	select {
	case <-endedCh:
	case <-time.After(20 * time.Second):
		t.Fatal("the slow watcher was not ended")
	}
	got := 0
	for range slow {
		got++
	}
	if got >= n {
		t.Fatalf("the slow watcher got all %d events", got)
	}
}

// cacheOf is the watch cache st reads through.
func cacheOf[T resource.Object, L resource.ListObject](st *Store[T, L]) *watchCache[T, L] {
	return st.reads.(cacheReader[T, L]).c
}

// TestCacheProvesSpliceOnApply: the watch cache proves a new version's
// splice as it takes the change in (it has the decoded object then), so
// the first read of the version neither decodes nor encodes; a version
// whose splice does not hold is left to the first read, which serves the
// typed path's JSON.
func TestCacheProvesSpliceOnApply(t *testing.T) {
	f, _ := cacheFixture(t, "", BackendOptions{})
	a := mustCreate(t, f, widget("ns", "a", 1))
	foreign := `{ "apiVersion": "test.kubeforge.dev/v1", "kind": "Widget", "metadata": { "name": "f", "namespace": "ns" }, "spec": { "size": 4 } }`
	if _, err := testEtcd.Client().Put(context.Background(), f.st.key("ns", "f"), foreign); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.List(ctx, "ns", ListOptions{}); err != nil { // caught up
		t.Fatal(err)
	}
	e, ok := cacheOf(f.st).entry(f.st.key("ns", "a"))
	if !ok || e.rev != mustInt(t, a.ResourceVersion) {
		t.Fatalf("cache entry of a: %v", ok)
	}
	if !e.spliced || e.enc != nil {
		t.Errorf("entry of a not proven as the cache took it in: spliced %v", e.spliced)
	}
	ef, ok := cacheOf(f.st).entry(f.st.key("ns", "f"))
	if !ok || ef.spliced || ef.enc != nil {
		t.Fatalf("entry of f: %v, spliced %v before any read, want not", ok, ef.spliced)
	}
	for _, name := range []string{"a", "f"} {
		if got, want := mustGetJSON(t, f, name, ""), typedJSON(t, f, "ns", name); !bytes.Equal(got, want) {
			t.Errorf("GetJSON %s from the cache %s, want %s", name, got, want)
		}
	}
	if ef.spliced || ef.enc == nil {
		t.Errorf("entry of f after a read: spliced %v, encoded %v; want its encoding", ef.spliced, ef.enc != nil)
	}
	// A version the cache proved serves the same bytes as etcd's path.
	if got, want := etcdGetJSON(t, f, "a"), mustGetJSON(t, f, "a", ""); !bytes.Equal(got, want) {
		t.Errorf("GetJSON from etcd %s, from the cache %s", got, want)
	}
}

// TestCacheSharesSpliceProofs: for the versions a cache loaded (its list,
// which it does not prove), a stored version whose splice the cache
// checked is remembered for the etcd reads, and one the etcd reads checked
// is taken by the cache without encoding it again; both serve the typed
// path's JSON.
func TestCacheSharesSpliceProofs(t *testing.T) {
	prefix := fmt.Sprintf("/t%d", prefixSeq.Add(1))
	writer, _ := cacheFixture(t, prefix, BackendOptions{})
	mustCreate(t, writer, widget("ns", "a", 1))
	b := mustCreate(t, writer, widget("ns", "b", 2))
	c := mustCreate(t, writer, widget("ns", "c", 3))
	// A second replica loads the three versions.
	f, _ := cacheFixture(t, prefix, BackendOptions{})
	etcdKV := func(name string) *mvccpb.KeyValue {
		t.Helper()
		resp, err := testEtcd.Client().Get(context.Background(), f.st.key("ns", name))
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("read %s: %v", name, err)
		}
		return resp.Kvs[0]
	}
	// A consistent list from the cache checks a's splice (and b's, c's):
	// read c from etcd first, with a bogus remembered offset, to see the
	// cache take it rather than check it again.
	etcdGetJSON(t, f, "c")
	rc := f.st.raw.lookup(etcdKV("c"))
	if rc == nil {
		t.Fatal("c not remembered after an etcd read")
	}
	rc.off = 1
	ec, ok := cacheOf(f.st).entry(f.st.key("ns", "c"))
	if !ok || ec.rev != mustInt(t, c.ResourceVersion) {
		t.Fatalf("cache entry of c: %v", ok)
	}
	if _, err := ec.json(f.st.raw); err != nil || ec.off != 1 {
		t.Errorf("cache JSON of c checked again (offset %d, %v), not taken from the etcd read's proof", ec.off, err)
	}
	rc.off = 0
	if f.st.raw.lookup(etcdKV("a")) != nil {
		t.Fatal("a remembered before any read")
	}
	if got, want, _, _ := listItemsJSON(t, f, "ns", ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "a")}); len(got) != 1 || got[0] != want[0] {
		t.Fatalf("ListJSON from the cache %s, want %s", got, want)
	}
	if f.st.raw.lookup(etcdKV("a")) == nil {
		t.Fatal("the splice the cache checked is not remembered for etcd reads")
	}
	if got, want := etcdGetJSON(t, f, "a"), typedJSON(t, f, "ns", "a"); !bytes.Equal(got, want) {
		t.Errorf("GetJSON from etcd %s, want %s", got, want)
	}
	if got, want := mustGetJSON(t, f, "b", "0"), typedJSON(t, f, "ns", "b"); !bytes.Equal(got, want) {
		t.Errorf("GetJSON from the cache %s, want %s", got, want)
	}
	e, ok := cacheOf(f.st).entry(f.st.key("ns", "b"))
	re := f.st.raw.lookup(etcdKV("b"))
	if !ok || e.rev != mustInt(t, b.ResourceVersion) || re == nil {
		t.Fatalf("cache entry of b: %v, remembered: %v", ok, re != nil)
	}
	if !e.spliced || e.enc != nil || e.off != re.off || e.mode != re.mode {
		t.Errorf("cache JSON of b: spliced %v at %d (mode %d), remembered at %d (mode %d)", e.spliced, e.off, e.mode, re.off, re.mode)
	}
}

// etcdGetJSON is GetJSON of a quorum read from etcd, past the cache.
func etcdGetJSON(t *testing.T, f *fixture, name string) []byte {
	t.Helper()
	data, err := etcdReader[*Widget, *WidgetList]{f.st.access}.getJSON(ctx, f.st.key("ns", name), name, GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustGetJSON(t *testing.T, f *fixture, name, rv string) []byte {
	t.Helper()
	data, err := f.st.GetJSON(ctx, "ns", name, GetOptions{ResourceVersion: rv})
	if err != nil {
		t.Fatal(err)
	}
	return data
}
