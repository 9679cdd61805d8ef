// Package metrics holds the apiserver's Prometheus series and serves them in
// the text exposition format. Each Metrics has its own registry, so several
// servers can live in one process (tests) without clashing.
package metrics

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kubeforge/kubeforge/runtime/jsondecode"
	"github.com/kubeforge/kubeforge/runtime/jsonencode"
)

// Request kinds of apiserver_current_inflight_requests.
const (
	KindMutating = "mutating"
	KindReadOnly = "readOnly"
)

// Metrics is one server's series.
type Metrics struct {
	registry        *prometheus.Registry
	requests        *prometheus.CounterVec
	requestDuration *prometheus.HistogramVec
	inflight        *prometheus.GaugeVec
	etcdDuration    *prometheus.HistogramVec
	unreadable      *prometheus.CounterVec
	terminated      *prometheus.CounterVec
	noSpace         prometheus.Gauge
	cacheObjects    *prometheus.GaugeVec
	dispatched      *prometheus.CounterVec
	watchers        *prometheus.GaugeVec
	cacheReads      *prometheus.CounterVec
	cacheInits      *prometheus.CounterVec

	// The series every request touches, looked up once per label set:
	// a Vec's lookup validates and hashes the label values on every call
	// (about 6 % of a cached get's CPU).
	requestSeries   sync.Map // requestKey -> requestSeries
	cacheReadSeries sync.Map // [3]string -> prometheus.Counter
	etcdSeries      sync.Map // [2]string -> prometheus.Observer
	// The watch caches' series, by resource: updated on every event.
	cacheObjectSeries sync.Map // string -> prometheus.Gauge
	dispatchedSeries  sync.Map // string -> prometheus.Counter
	inflightSeries    map[string]prometheus.Gauge
}

// requestKey is the label set of one request series.
type requestKey struct {
	verb, resource, subresource string
	code                        int
}

// requestSeries are the two series one request updates.
type requestSeries struct {
	count    prometheus.Counter
	duration prometheus.Observer
}

// New registers the series (and the Go and process collectors) in a fresh
// registry.
func New() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: CounterVec("apiserver_request_total",
			"Counter of apiserver requests broken out by verb, resource, subresource and HTTP response code.",
			"verb", "resource", "subresource", "code"),
		requestDuration: HistogramVec("apiserver_request_duration_seconds",
			"Response latency distribution in seconds by verb, resource and subresource.",
			latencyBuckets, "verb", "resource", "subresource"),
		inflight: GaugeVec("apiserver_current_inflight_requests",
			"Number of requests currently being served, by kind (mutating or readOnly).",
			"request_kind"),
		etcdDuration: HistogramVec("etcd_request_duration_seconds",
			"Etcd request latency in seconds for each operation and object type.",
			latencyBuckets, "operation", "type"),
		unreadable: CounterVec("apiserver_storage_unreadable_objects_total",
			"Stored values a list, watch or delete could not decode or decrypt (left out of the response), by resource.",
			"resource"),
		noSpace: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "apiserver_storage_etcd_nospace_alarm",
			Help: "1 while etcd's NOSPACE alarm is raised (writes refused with 507), else 0.",
		}),
		terminated: CounterVec("apiserver_terminated_watchers_total",
			"Counter of watchers closed due to unresponsiveness broken by resource type.",
			"resource"),
		cacheObjects: GaugeVec("apiserver_watch_cache_objects",
			"Objects held by the watch cache, by resource.",
			"resource"),
		dispatched: CounterVec("apiserver_watch_cache_events_dispatched_total",
			"Counter of events the watch cache handed to watchers, by resource.",
			"resource"),
		watchers: GaugeVec("apiserver_registered_watchers",
			"Watches served by the watch cache, by resource.",
			"resource"),
		cacheReads: CounterVec("apiserver_watch_cache_reads_total",
			"Lists and gets the watch cache was asked for, by resource, verb and where they were served from (cache or etcd).",
			"resource", "verb", "source"),
		cacheInits: CounterVec("apiserver_watch_cache_initializations_total",
			"Counter of watch cache (re)builds from a full list, by resource.",
			"resource"),
	}
	m.registry.MustRegister(m.requests, m.requestDuration, m.inflight, m.etcdDuration, m.unreadable, m.terminated, m.noSpace,
		m.cacheObjects, m.dispatched, m.watchers, m.cacheReads, m.cacheInits,
		jsonDecodes("fast"), jsonDecodes("fallback"),
		jsonEncodes("fast"), jsonEncodes("fallback"),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Both kinds appear from the start, at zero.
	m.inflightSeries = map[string]prometheus.Gauge{
		KindMutating: m.inflight.WithLabelValues(KindMutating),
		KindReadOnly: m.inflight.WithLabelValues(KindReadOnly),
	}
	return m
}

// jsonDecodes is kubeforge_json_decodes_total{decoder}: the stored values
// and request bodies runtime/jsondecode decoded (fast) and those it left
// to sigs.k8s.io/json (fallback), counted by the process, so that a
// fast path that stops applying shows.
func jsonDecodes(decoder string) prometheus.Collector {
	return prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name:        "kubeforge_json_decodes_total",
		Help:        "JSON objects (stored values, request bodies) decoded by runtime/jsondecode (decoder=fast) or left to sigs.k8s.io/json (decoder=fallback), in this process.",
		ConstLabels: prometheus.Labels{"decoder": decoder},
	}, func() float64 {
		fast, fallback := jsondecode.Counts()
		if decoder == "fast" {
			return float64(fast)
		}
		return float64(fallback)
	})
}

// jsonEncodes is kubeforge_json_encodes_total{encoder}: the values
// (stored objects, responses, watch events) runtime/jsonencode wrote
// itself (fast) and those it left to encoding/json (fallback), counted by
// the process, so that a hot path falling back shows.
func jsonEncodes(encoder string) prometheus.Collector {
	return prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name:        "kubeforge_json_encodes_total",
		Help:        "Values (stored objects, responses, watch events) encoded to JSON by runtime/jsonencode (encoder=fast) or left to encoding/json (encoder=fallback), in this process.",
		ConstLabels: prometheus.Labels{"encoder": encoder},
	}, func() float64 {
		fast, fallback := jsonencode.Counts()
		if encoder == "fast" {
			return float64(fast)
		}
		return float64(fallback)
	})
}

// ObserveRequest records one finished request. It matches the endpoints
// Observe hook's signature.
func (m *Metrics) ObserveRequest(verb, resource, subresource string, code int, d time.Duration) {
	k := requestKey{verb: verb, resource: resource, subresource: subresource, code: code}
	v, ok := m.requestSeries.Load(k)
	if !ok {
		// The series are never deleted, so two requests storing the same
		// key store the same series.
		v, _ = m.requestSeries.LoadOrStore(k, requestSeries{
			count:    m.requests.WithLabelValues(verb, resource, subresource, strconv.Itoa(code)),
			duration: m.requestDuration.WithLabelValues(verb, resource, subresource),
		})
	}
	rs := v.(requestSeries)
	rs.count.Inc()
	rs.duration.Observe(d.Seconds())
}

// ObserveEtcd records one etcd request. It matches the storage
// ObserveLatency hook's signature: operation (get, list, create, ...) and
// the object type (the resource).
func (m *Metrics) ObserveEtcd(operation, typ string, d time.Duration) {
	k := [2]string{operation, typ}
	o, ok := m.etcdSeries.Load(k)
	if !ok {
		o, _ = m.etcdSeries.LoadOrStore(k, m.etcdDuration.WithLabelValues(operation, typ))
	}
	o.(prometheus.Observer).Observe(d.Seconds())
}

// Unreadable counts one stored value of resource that could not be read.
func (m *Metrics) Unreadable(resource string) { m.unreadable.WithLabelValues(resource).Inc() }

// NoSpace records whether etcd's NOSPACE alarm is raised.
func (m *Metrics) NoSpace(raised bool) {
	if raised {
		m.noSpace.Set(1)
	} else {
		m.noSpace.Set(0)
	}
}

// WatcherTerminated counts a watch of resource ended because its client
// fell too far behind.
func (m *Metrics) WatcherTerminated(resource string) { m.terminated.WithLabelValues(resource).Inc() }

// CacheObjects implements storage.CacheMetrics.
func (m *Metrics) CacheObjects(resource string, n int) {
	g, ok := m.cacheObjectSeries.Load(resource)
	if !ok {
		g, _ = m.cacheObjectSeries.LoadOrStore(resource, m.cacheObjects.WithLabelValues(resource))
	}
	g.(prometheus.Gauge).Set(float64(n))
}

// EventsDispatched implements storage.CacheMetrics.
func (m *Metrics) EventsDispatched(resource string, n int) {
	c, ok := m.dispatchedSeries.Load(resource)
	if !ok {
		c, _ = m.dispatchedSeries.LoadOrStore(resource, m.dispatched.WithLabelValues(resource))
	}
	c.(prometheus.Counter).Add(float64(n))
}

// Watchers implements storage.CacheMetrics.
func (m *Metrics) Watchers(resource string, delta int) {
	m.watchers.WithLabelValues(resource).Add(float64(delta))
}

// CacheRead implements storage.CacheMetrics.
func (m *Metrics) CacheRead(resource, verb, source string) {
	k := [3]string{resource, verb, source}
	c, ok := m.cacheReadSeries.Load(k)
	if !ok {
		c, _ = m.cacheReadSeries.LoadOrStore(k, m.cacheReads.WithLabelValues(resource, verb, source))
	}
	c.(prometheus.Counter).Inc()
}

// CacheInitialized implements storage.CacheMetrics.
func (m *Metrics) CacheInitialized(resource string) { m.cacheInits.WithLabelValues(resource).Inc() }

// InFlight adds delta to the in-flight gauge of kind.
func (m *Metrics) InFlight(kind string, delta float64) {
	if g, ok := m.inflightSeries[kind]; ok {
		g.Add(delta)
		return
	}
	m.inflight.WithLabelValues(kind).Add(delta)
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// Registry gives access to the registry (to add series).
func (m *Metrics) Registry() *prometheus.Registry { return m.registry }
