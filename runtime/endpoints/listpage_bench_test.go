package endpoints_test

import (
	"bytes"
	"context"
	"fmt"
	"github.com/kubeforge/kubeforge/runtime/presence"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/emicklei/go-restful/v3"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kubeforge/kubeforge/runtime/endpoints"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// BenchmarkListPages walks a list of 2,000 widgets of about 1.5 KB in
// pages of 500 (kubectl's default chunk size; informers page too), from
// the watch cache and from etcd, over HTTP/1.1 in process; "whole" lists
// them in one response, for reference. Per page it reports the process's
// CPU (server, client and the embedded etcd), and how many stored objects
// were decoded (counted in the strategy's defaulting, which every decode
// runs); allocations are per walk.
func BenchmarkListPages(b *testing.B) {
	for _, tc := range []struct {
		name   string
		cached bool
		limit  int
	}{{"cache", true, 500}, {"etcd", false, 500}, {"cache-whole", true, 0}, {"etcd-whole", false, 0}} {
		b.Run(tc.name, func(b *testing.B) {
			cached := tc.cached
			base, decodes := pageBenchServer(b, cached)
			fillPages(b, base, 2000)
			walk := func() int {
				pages, items, cont := 0, 0, ""
				for {
					u := base + apiPath + fmt.Sprintf("/widgets?limit=%d", tc.limit)
					if cont != "" {
						u += "&continue=" + url.QueryEscape(cont)
					}
					body := benchDo(b, "GET", u, nil, http.StatusOK)
					pages++
					items += bytes.Count(body, []byte(`"kind":"Widget"`))
					cont = continueOf(body)
					if cont == "" {
						break
					}
				}
				if items != 2000 {
					b.Fatalf("walk listed %d items", items)
				}
				return pages
			}
			walk() // the cache has caught up; stored versions checked
			b.ReportAllocs()
			d0, cpu0, pages := decodes.Load(), processCPU(b), 0
			for b.Loop() {
				pages += walk()
			}
			p := float64(pages)
			b.ReportMetric(float64(processCPU(b)-cpu0)/p, "cpu-ns/page")
			b.ReportMetric(float64(decodes.Load()-d0)/p, "decodes/page")
		})
	}
}

// continueOf is metadata.continue of a list body (ListMeta comes before
// the items, so only the head is searched).
func continueOf(body []byte) string {
	head := body[:min(len(body), 1024)]
	_, rest, ok := bytes.Cut(head, []byte(`"continue":"`))
	if !ok {
		return ""
	}
	tok, _, _ := bytes.Cut(rest, []byte(`"`))
	return string(tok)
}

// pageBenchServer serves widgets over their own etcd prefix, with or
// without a watch cache, counting the decodes of stored objects.
func pageBenchServer(b *testing.B, cached bool) (string, *atomic.Int64) {
	b.Helper()
	prefix := "/" + strings.ReplaceAll(b.Name(), "/", "_")
	stop := make(chan struct{})
	backend := storage.NewBackend(etcdClient, prefix, storage.BackendOptions{WatchCache: cached})
	ws := new(restful.WebService).Path(apiPath).Produces(endpoints.Produces...)
	wi := widgetInfo
	s := newStrategy(&wi)
	decodes := new(atomic.Int64)
	def := s.Default
	s.Default = func(w *Widget, in presence.Node) { decodes.Add(1); def(w, in) }
	install(ws, backend, s, endpoints.Options{Stop: stop})
	c := restful.NewContainer()
	c.ServiceErrorHandler(endpoints.ServiceErrorHandler)
	c.Add(ws)
	srv := httptest.NewServer(c)
	b.Cleanup(func() {
		close(stop)
		srv.Close()
		backend.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = etcdClient.Delete(ctx, prefix+"/", clientv3.WithPrefix())
	})
	return srv.URL, decodes
}

// fillPages creates n widgets of about 1.5 KB stored (labels and a long
// annotation, as cmd/bench's objects) in 10 namespaces.
func fillPages(b *testing.B, base string, n int) {
	b.Helper()
	note := strings.Repeat("a benchmark object of about the size cmd/bench writes; ", 16)
	for i := range n {
		ns := fmt.Sprintf("ns%d", i%10)
		body := fmt.Sprintf(`{"apiVersion":"%s/v1","kind":"Widget","metadata":{"name":"w%05d","namespace":%q,"labels":{"bench":"true","tier":"t%d"},"annotations":{"note":%q}},"spec":{"size":"large","owner":"bench","ports":[{"name":"http","port":80},{"name":"https","port":443}]}}`, testGroup, i, ns, i%3, note)
		benchDo(b, "POST", base+widgetsPath(ns), []byte(body), http.StatusCreated)
	}
}

// processCPU is the process's user and system CPU so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
