package metrics

import (
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kubeforge/kubeforge/runtime/jsondecode"
	"github.com/kubeforge/kubeforge/runtime/jsonencode"
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

// TestJSONDecodes: kubeforge_json_decodes_total counts the process's
// decodes by decoder.
func TestJSONDecodes(t *testing.T) {
	m := New()
	var ok struct {
		A string `json:"a"`
	}
	var bail struct {
		A string `json:"a"`
	}
	if !jsondecode.Unmarshal([]byte(`{"a":"x"}`), &ok) || jsondecode.Unmarshal([]byte(`{"b":1}`), &bail) {
		t.Fatal("want one fast decode and one fallback")
	}
	fast, fallback := jsondecode.Counts()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		fmt.Sprintf(`kubeforge_json_decodes_total{decoder="fast"} %d`, fast),
		fmt.Sprintf(`kubeforge_json_decodes_total{decoder="fallback"} %d`, fallback),
	} {
		if !strings.Contains(string(body), want+"\n") {
			t.Errorf("no %q in\n%s", want, body)
		}
	}
}

// TestJSONEncodes: kubeforge_json_encodes_total counts the process's
// encodes by encoder.
func TestJSONEncodes(t *testing.T) {
	m := New()
	before, beforeFallback := jsonencode.Counts()
	if _, err := jsonencode.Marshal(map[string]string{"a": "x"}); err != nil {
		t.Fatal(err)
	}
	// A channel inside an interface: the fast path leaves it to
	// encoding/json, which refuses it.
	if _, err := jsonencode.Marshal([]any{make(chan int)}); err == nil {
		t.Fatal("a channel encoded")
	}
	fast, fallback := jsonencode.Counts()
	if fast-before != 1 || fallback-beforeFallback != 1 {
		t.Fatalf("want one fast encode and one fallback, got %d and %d", fast-before, fallback-beforeFallback)
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		fmt.Sprintf(`kubeforge_json_encodes_total{encoder="fast"} %d`, fast),
		fmt.Sprintf(`kubeforge_json_encodes_total{encoder="fallback"} %d`, fallback),
	} {
		if !strings.Contains(string(body), want+"\n") {
			t.Errorf("no %q in\n%s", want, body)
		}
	}
}
