package server_test

import (
	"io"
	"net/http"
	"syscall"
	"testing"
	"time"
)

// BenchmarkGetCached gets one ConfigMap at resourceVersion 0 (from the
// watch cache): what a request costs beyond storage (filters, routing,
// metrics, response writing), client and server in one process.
func BenchmarkGetCached(b *testing.B) {
	url := startGenerated(b)
	cms := url + "/api/v1/namespaces/default/configmaps"
	post(b, cms, `{"metadata":{"name":"cm"},"data":{"a":"b"}}`, http.StatusCreated)
	get := func() int {
		resp, err := http.Get(cms + "/cm?resourceVersion=0")
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	// A get at resourceVersion 0 may be served before the cache has seen
	// the create.
	for deadline := time.Now().Add(5 * time.Second); get() != http.StatusOK; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatal("the cache did not see the ConfigMap within 5 s")
		}
	}
	b.ReportAllocs()
	start := cpuTime(b)
	n := 0
	for b.Loop() {
		if code := get(); code != http.StatusOK {
			b.Fatalf("get: %d", code)
		}
		n++
	}
	// The process's CPU time (client and server) moves less than wall
	// time on a machine shared with other work.
	b.ReportMetric(float64(cpuTime(b)-start)/float64(n), "cpu-ns/op")
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
