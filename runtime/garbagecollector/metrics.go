package garbagecollector

import (
	"log/slog"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubeforge/kubeforge/runtime/metrics"
)

// gcMetrics are the collector's series.
type gcMetrics struct {
	attempts  *prometheus.CounterVec
	deletions *prometheus.CounterVec
	orphaned  prometheus.Counter
	gauges    []prometheus.Collector
	// nDeleted and nOrphaned back Stats.
	nDeleted, nOrphaned atomic.Int64
}

func newMetrics(gc *GarbageCollector) *gcMetrics {
	m := &gcMetrics{
		attempts: metrics.CounterVec("garbage_collector_attempts_total",
			"Items the garbage collector's workers processed, by queue (attempt_to_delete, attempt_to_orphan) and result (success, requeue, error).",
			"queue", "result"),
		deletions: metrics.CounterVec("garbage_collector_deletions_total",
			"Deletes the garbage collector issued that succeeded (the object deleted or marked for deletion), by kind.",
			"kind"),
		orphaned: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "garbage_collector_orphaned_total",
			Help: "Dependents whose reference to an owner deleted with the orphan policy the garbage collector removed.",
		}),
	}
	m.gauges = []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "garbage_collector_queue_depth", Help: "Items waiting in a garbage collector queue.",
			ConstLabels: prometheus.Labels{"queue": "attempt_to_delete"},
		}, func() float64 { return float64(gc.attemptToDelete.Len()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "garbage_collector_queue_depth", Help: "Items waiting in a garbage collector queue.",
			ConstLabels: prometheus.Labels{"queue": "attempt_to_orphan"},
		}, func() float64 { return float64(gc.attemptToOrphan.Len()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "garbage_collector_queue_depth", Help: "Items waiting in a garbage collector queue.",
			ConstLabels: prometheus.Labels{"queue": "graph_changes"},
		}, func() float64 { return float64(gc.changes.len()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "garbage_collector_graph_nodes", Help: "Objects (and virtual owners) in the garbage collector's graph.",
		}, func() float64 {
			gc.mu.RLock()
			defer gc.mu.RUnlock()
			return float64(len(gc.nodes))
		}),
	}
	return m
}

func (m *gcMetrics) register(r prometheus.Registerer, log *slog.Logger) {
	for _, c := range append([]prometheus.Collector{m.attempts, m.deletions, m.orphaned}, m.gauges...) {
		if err := r.Register(c); err != nil {
			log.Warn("garbage collector: register metrics", "err", err)
		}
	}
}

func (m *gcMetrics) attempt(queue, result string) { m.attempts.WithLabelValues(queue, result).Inc() }

func (m *gcMetrics) deleted(kind string) {
	m.deletions.WithLabelValues(kind).Inc()
	m.nDeleted.Add(1)
}

func (m *gcMetrics) orphan() {
	m.orphaned.Inc()
	m.nOrphaned.Add(1)
}

// Stats are the collector's counters, for tests and the bench.
type Stats struct {
	Deletions  int
	Orphaned   int
	GraphNodes int
}

// Stats returns the collector's counters so far.
func (gc *GarbageCollector) Stats() Stats {
	gc.mu.RLock()
	nodes := len(gc.nodes)
	gc.mu.RUnlock()
	return Stats{Deletions: int(gc.metrics.nDeleted.Load()), Orphaned: int(gc.metrics.nOrphaned.Load()), GraphNodes: nodes}
}
