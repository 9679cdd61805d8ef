package storage

import (
	"context"
	"fmt"
	"github.com/kubeforge/kubeforge/runtime/presence"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

// cacheBenchObjects fills f with n widgets of about 1.5 KB stored (a few
// labels and a long annotation, as cmd/bench's objects) and waits until
// the watch cache holds them.
func cacheBenchObjects(b *testing.B, f *fixture, n int) {
	b.Helper()
	note := strings.Repeat("a benchmark object of about the size cmd/bench writes; ", 22)
	for i := range n {
		w := widget(fmt.Sprintf("ns%d", i%10), fmt.Sprintf("w%05d", i), i)
		w.Labels = map[string]string{"bench": "true", "app": "widgets", "tier": fmt.Sprintf("t%d", i%3)}
		w.Annotations = map[string]string{"note": note}
		mustCreate(b, f, w)
	}
	// A consistent list is answered once the cache has every object.
	if _, err := f.st.List(ctx, "", ListOptions{}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCacheRead is CPU per read served by the watch cache, typed (the
// in-process readers: garbage collector, informers, converted views) and
// plain JSON (kubectl, client-go), over 1,000 cached objects.
func BenchmarkCacheRead(b *testing.B) {
	f := newFixture(b, true, true)
	if !testWatchCache {
		b.Skip("watch cache off")
	}
	cacheBenchObjects(b, f, 1000)
	rv0 := GetOptions{ResourceVersion: "0"}
	b.Run("get-typed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := f.st.Get(ctx, "ns3", "w00123", rv0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("get-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := f.st.GetJSON(ctx, "ns3", "w00123", rv0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("list-typed-1k", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			l, err := f.st.List(ctx, "", ListOptions{ResourceVersion: "0"})
			if err != nil || len(l.Items) != 1000 {
				b.Fatal(err, len(l.Items))
			}
		}
	})
	// cold: nobody holds the objects any more and a collection ran, so
	// a cache that decodes on demand decodes every one.
	b.Run("get-typed-cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			runtime.GC()
			b.StartTimer()
			if _, err := f.st.Get(ctx, "ns3", "w00123", rv0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("list-typed-1k-cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			runtime.GC()
			b.StartTimer()
			l, err := f.st.List(ctx, "", ListOptions{ResourceVersion: "0"})
			if err != nil || len(l.Items) != 1000 {
				b.Fatal(err, len(l.Items))
			}
		}
	})
	b.Run("list-json-1k", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			l, ok, err := f.st.ListJSON(ctx, "", ListOptions{ResourceVersion: "0"})
			if err != nil || !ok {
				b.Fatal(err, ok)
			}
			for {
				var more bool
				if buf, more, err = l.Next(buf[:0]); err != nil {
					b.Fatal(err)
				}
				if !more {
					break
				}
			}
		}
	})
}

// BenchmarkCacheHeap is the live heap per cached object (with the
// in-process etcd's own copy, the same before and after a change of the
// cache): create n objects, then measure the heap after a full collection.
func BenchmarkCacheHeap(b *testing.B) {
	for b.Loop() {
		before := liveHeap()
		f := newFixture(b, true, true)
		cacheBenchObjects(b, f, 5000)
		after := liveHeap()
		b.ReportMetric(float64(after-before)/5000, "heapB/object")
		runtime.KeepAlive(f)
		f.b.Close()
	}
}

func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// BenchmarkWriteRead is what cmd/bench's phases cost the store per object,
// with a watcher that takes every event's object (as the garbage collector
// does): creates, then the first quorum GetJSON of each new version, then
// deletes, each phase over objects whose decoded forms the Go garbage
// collector has freed since the previous one (as in cmd/bench, where
// 2,000 objects pass through each phase in turn). cpu-µs/op is the
// process's CPU time (embedded etcd included); decodes/op counts
// access.decode calls.
func BenchmarkWriteRead(b *testing.B) {
	if !testWatchCache {
		b.Skip("watch cache off")
	}
	var decodes atomic.Int64
	f, _ := cacheFixture(b, "", BackendOptions{}, countDecodes(&decodes))
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events, err := f.st.Watch(wctx, "", WatchOptions{})
	if err != nil {
		b.Fatal(err)
	}
	go func() {
		for range events {
		}
	}()
	note := strings.Repeat("a benchmark object of about the size cmd/bench writes; ", 22)
	seq := 0
	create := func() string {
		name := fmt.Sprintf("w%06d", seq)
		seq++
		w := widget("ns", name, seq)
		w.Labels = map[string]string{"bench": "true", "app": "widgets"}
		w.Annotations = map[string]string{"note": note}
		mustCreate(b, f, w)
		return name
	}
	// phase runs op on n objects as one benchmark op each.
	phase := func(b *testing.B, op func(name string)) {
		names := make([]string, 0, b.N)
		for range b.N {
			names = append(names, create())
		}
		if !cacheOf(f.st).waitRev(ctx, currentRev(b)) {
			b.Fatal("cache behind")
		}
		time.Sleep(10 * time.Millisecond) // the watcher has had every event
		runtime.GC()
		b.ReportAllocs()
		b.ResetTimer()
		cpu, dec := cpuTime(), decodes.Load()
		for _, name := range names {
			op(name)
		}
		if !cacheOf(f.st).waitRev(ctx, currentRev(b)) {
			b.Fatal("cache behind")
		}
		time.Sleep(10 * time.Millisecond)
		b.StopTimer()
		b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
		b.ReportMetric(float64(decodes.Load()-dec)/float64(b.N), "decodes/op")
	}
	b.Run("create", func(b *testing.B) {
		b.ReportAllocs()
		cpu, dec := cpuTime(), decodes.Load()
		for b.Loop() {
			create()
		}
		if !cacheOf(f.st).waitRev(ctx, currentRev(b)) {
			b.Fatal("cache behind")
		}
		time.Sleep(10 * time.Millisecond)
		b.StopTimer()
		b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
		b.ReportMetric(float64(decodes.Load()-dec)/float64(b.N), "decodes/op")
	})
	b.Run("first-get", func(b *testing.B) {
		phase(b, func(name string) {
			if _, err := f.st.GetJSON(ctx, "ns", name, GetOptions{}); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("delete", func(b *testing.B) {
		phase(b, func(name string) {
			if _, _, err := f.st.Delete(ctx, "ns", name, DeleteOptions{}); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// countDecodes makes the strategy count its decodes (access.decode
// defaults every object it decodes; a DeepCopy does not).
func countDecodes(n *atomic.Int64) func(*resource.Strategy[*Widget, *WidgetList]) {
	return func(s *resource.Strategy[*Widget, *WidgetList]) {
		s.Default = func(*Widget, presence.Node) { n.Add(1) }
	}
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
