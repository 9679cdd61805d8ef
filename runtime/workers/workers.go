// Package workers runs functions on long-lived goroutines, for the
// goroutine a server starts per request.
//
// A new goroutine starts with a small stack that grows, by copying the
// whole stack each time it doubles, as the request goes down the filters,
// the handler and structured-merge-diff's recursion: 10 % of a create's
// CPU. A worker's stack has grown already; the garbage collector shrinks
// it again only while it uses less than a quarter of it (when idle), so a
// busy worker grows it at most once per GC cycle instead of a few times
// per request.
package workers

import (
	"sync/atomic"
	"time"
)

// idle is how long a worker waits for work before it ends.
const idle = 10 * time.Second

// work hands a function to an idle worker: unbuffered, so a send succeeds
// only when one is waiting.
var work = make(chan func())

// started counts the workers started (tests read it).
var started atomic.Int64

// Go runs f on an idle worker, or on a new one when none is idle (it never
// waits for one). Like the go statement, a panic in f that f does not
// recover ends the program, and runtime.Goexit in f ends its worker.
func Go(f func()) {
	select {
	case work <- f:
	default:
		started.Add(1)
		go worker(f)
	}
}

func worker(f func()) {
	t := time.NewTimer(idle)
	defer t.Stop()
	for {
		f()
		f = nil // nothing of the last request stays reachable while idle
		t.Reset(idle)
		select {
		case f = <-work:
		case <-t.C:
			return
		}
	}
}
