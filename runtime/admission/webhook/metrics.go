package webhook

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubeforge/kubeforge/runtime/admission"
	"github.com/kubeforge/kubeforge/runtime/metrics"
)

// Metrics are kube-apiserver's webhook admission series.
type Metrics struct {
	duration  *prometheus.HistogramVec
	rejection *prometheus.CounterVec
	failOpens *prometheus.CounterVec
}

// NewMetrics registers the series in reg (nil: not registered).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		duration: metrics.HistogramVec("apiserver_admission_webhook_admission_duration_seconds",
			"Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
			[]float64{0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25}, "name", "type", "operation", "rejected"),
		rejection: metrics.CounterVec("apiserver_admission_webhook_rejection_count",
			"Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400).",
			"name", "type", "operation", "error_type", "rejection_code"),
		failOpens: metrics.CounterVec("apiserver_admission_webhook_fail_open_count",
			"Admission webhook fail open count, identified by name and broken out for each admission type (validating or admit).",
			"name", "type"),
	}
	if reg != nil {
		reg.MustRegister(m.duration, m.rejection, m.failOpens)
	}
	return m
}

func (m *Metrics) observe(name, typ string, a *admission.Attributes, rejected bool, d time.Duration) {
	if m == nil {
		return
	}
	m.duration.WithLabelValues(name, typ, string(a.Operation), strconv.FormatBool(rejected)).Observe(d.Seconds())
}

func (m *Metrics) rejected(name, typ string, a *admission.Attributes, errType string, code int32) {
	if m == nil {
		return
	}
	m.rejection.WithLabelValues(name, typ, string(a.Operation), errType, strconv.Itoa(int(code))).Inc()
}

func (m *Metrics) failOpen(name, typ string) {
	if m == nil {
		return
	}
	m.failOpens.WithLabelValues(name, typ).Inc()
}
