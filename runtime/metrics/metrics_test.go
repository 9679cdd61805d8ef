package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestSeriesLookedUpOnce: the series cached per label set count every
// observation, and distinct label sets stay distinct series.
func TestSeriesLookedUpOnce(t *testing.T) {
	m := New()
	for range 3 {
		m.ObserveRequest("GET", "shipments", "", 200, time.Millisecond)
	}
	m.ObserveRequest("GET", "shipments", "", 404, time.Millisecond)
	m.ObserveRequest("GET", "shipments", "status", 200, time.Second)
	m.ObserveEtcd("get", "shipments", time.Millisecond)
	m.ObserveEtcd("get", "shipments", time.Millisecond)
	m.CacheRead("shipments", "get", "cache")
	m.CacheRead("shipments", "get", "cache")
	m.CacheRead("shipments", "list", "etcd")
	m.CacheObjects("shipments", 5)
	m.CacheObjects("shipments", 4)
	m.CacheObjects("widgets", 7)
	m.EventsDispatched("shipments", 2)
	m.EventsDispatched("shipments", 3)
	m.EventsDispatched("widgets", 1)
	m.InFlight(KindMutating, 1)
	m.InFlight(KindMutating, 1)
	m.InFlight(KindMutating, -1)

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	text := string(body)
	for _, want := range []string{
		`apiserver_request_total{code="200",resource="shipments",subresource="",verb="GET"} 3`,
		`apiserver_request_total{code="404",resource="shipments",subresource="",verb="GET"} 1`,
		`apiserver_request_total{code="200",resource="shipments",subresource="status",verb="GET"} 1`,
		`apiserver_request_duration_seconds_count{resource="shipments",subresource="",verb="GET"} 4`,
		`apiserver_request_duration_seconds_count{resource="shipments",subresource="status",verb="GET"} 1`,
		`etcd_request_duration_seconds_count{operation="get",type="shipments"} 2`,
		`apiserver_watch_cache_reads_total{resource="shipments",source="cache",verb="get"} 2`,
		`apiserver_watch_cache_reads_total{resource="shipments",source="etcd",verb="list"} 1`,
		`apiserver_watch_cache_objects{resource="shipments"} 4`,
		`apiserver_watch_cache_objects{resource="widgets"} 7`,
		`apiserver_watch_cache_events_dispatched_total{resource="shipments"} 5`,
		`apiserver_watch_cache_events_dispatched_total{resource="widgets"} 1`,
		`apiserver_current_inflight_requests{request_kind="mutating"} 1`,
		`apiserver_current_inflight_requests{request_kind="readOnly"} 0`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
