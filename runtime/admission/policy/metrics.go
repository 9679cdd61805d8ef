package policy

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubeforge/kubeforge/runtime/metrics"
)

// Metrics are kube-apiserver's ValidatingAdmissionPolicy series.
type Metrics struct {
	checks   *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewMetrics registers the series in reg (nil: not registered).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		checks: metrics.CounterVec("apiserver_validating_admission_policy_check_total",
			"Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken.",
			"policy", "policy_binding", "error_type", "enforcement_action"),
		duration: metrics.HistogramVec("apiserver_validating_admission_policy_check_duration_seconds",
			"Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding and enforcement action taken.",
			[]float64{0.0000005, 0.001, 0.01, 0.1, 1.0}, "policy", "policy_binding", "error_type", "enforcement_action"),
	}
	if reg != nil {
		reg.MustRegister(m.checks, m.duration)
	}
	return m
}

// observe counts one binding's evaluation: enforcement_action allow, or
// each action of the binding when a validation failed; error_type
// no_error or invalid_error (a failure under failurePolicy Fail).
func (m *Metrics) observe(policy, binding string, actions []admissionregistrationv1.ValidationAction, decisions []decision, d time.Duration) {
	if m == nil {
		return
	}
	errType := "no_error"
	for _, dec := range decisions {
		if dec.failure {
			errType = "invalid_error"
		}
	}
	acts := []string{"allow"}
	if len(decisions) > 0 {
		acts = acts[:0]
		for _, a := range actions {
			acts = append(acts, map[admissionregistrationv1.ValidationAction]string{
				admissionregistrationv1.Deny: "deny", admissionregistrationv1.Warn: "warn", admissionregistrationv1.Audit: "audit"}[a])
		}
	}
	for _, a := range acts {
		m.checks.WithLabelValues(policy, binding, errType, a).Inc()
		m.duration.WithLabelValues(policy, binding, errType, a).Observe(d.Seconds())
	}
}
