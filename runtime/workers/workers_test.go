package workers

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestGo: functions run concurrently (Go never waits for a busy worker),
// on workers that, once idle, run the next ones instead of new goroutines.
func TestGo(t *testing.T) {
	const n = 20
	release := make(chan struct{})
	var wg sync.WaitGroup
	var running sync.WaitGroup
	running.Add(n)
	wg.Add(n)
	for range n {
		Go(func() {
			defer wg.Done()
			running.Done()
			<-release
		})
	}
	waited := make(chan struct{})
	go func() { running.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatalf("the %d functions did not all run at once", n)
	}
	close(release)
	wg.Wait()

	before := started.Load()
	for i := range 100 {
		done := make(chan string)
		Go(func() {
			buf := make([]byte, 4096)
			done <- string(buf[:runtime.Stack(buf, false)])
		})
		stack := <-done
		if !strings.Contains(stack, "workers.worker") {
			t.Fatalf("function %d not run by a worker:\n%s", i, stack)
		}
	}
	// One after another: the idle workers of the first round (a worker
	// may not be back in its wait the moment the next one is handed out).
	if got := started.Load() - before; got > 10 {
		t.Errorf("100 functions in a row started %d workers, want the idle ones reused", got)
	}
}
