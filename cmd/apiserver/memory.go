package main

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// followLiveHeap keeps the soft memory limit at base or one and a half
// times the live heap, whichever is larger, until ctx is done. The limit
// is there to keep transient garbage (large lists) from doubling RSS; a
// live heap of its own size (the watch cache of a large collection) must
// not make the GC run without pause, which a fixed limit below it would.
func followLiveHeap(ctx context.Context, base int64) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	last := base
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		limit := max(base, int64(sample[0].Value.Uint64())*3/2)
		// Move it only by more than an eighth: each change is a GC pacing
		// decision, not worth making for noise.
		if limit > last+last/8 || limit < last-last/8 {
			debug.SetMemoryLimit(limit)
			last = limit
		}
	}
}
