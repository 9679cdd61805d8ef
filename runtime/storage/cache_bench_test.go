package storage

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
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
