package delegate

import (
	"context"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
)

// Admission is the cluster's admission configurations (policies,
// bindings, webhook configurations), watched: an aggregated API server
// enforces them on its own kinds, as servers built on k8s.io/apiserver do.
type Admission struct {
	vaps     *watched[admissionregistrationv1.ValidatingAdmissionPolicy]
	bindings *watched[admissionregistrationv1.ValidatingAdmissionPolicyBinding]
	vwcs     *watched[admissionregistrationv1.ValidatingWebhookConfiguration]
	mwcs     *watched[admissionregistrationv1.MutatingWebhookConfiguration]
}

// WatchAdmission lists and watches the cluster's admission configurations
// until ctx is done; policiesChanged and webhooksChanged are called after
// each change.
func (c *Cluster) WatchAdmission(ctx context.Context, wg *sync.WaitGroup, policiesChanged, webhooksChanged func()) *Admission {
	const base = "/apis/admissionregistration.k8s.io/v1/"
	a := &Admission{
		vaps: newWatched(c, base+"validatingadmissionpolicies", nil,
			func(o *admissionregistrationv1.ValidatingAdmissionPolicy) string { return o.Name }),
		bindings: newWatched(c, base+"validatingadmissionpolicybindings", nil,
			func(o *admissionregistrationv1.ValidatingAdmissionPolicyBinding) string { return o.Name }),
		vwcs: newWatched(c, base+"validatingwebhookconfigurations", nil,
			func(o *admissionregistrationv1.ValidatingWebhookConfiguration) string { return o.Name }),
		mwcs: newWatched(c, base+"mutatingwebhookconfigurations", nil,
			func(o *admissionregistrationv1.MutatingWebhookConfiguration) string { return o.Name }),
	}
	a.vaps.changed = func(map[string]*admissionregistrationv1.ValidatingAdmissionPolicy) { policiesChanged() }
	a.bindings.changed = func(map[string]*admissionregistrationv1.ValidatingAdmissionPolicyBinding) { policiesChanged() }
	a.vwcs.changed = func(map[string]*admissionregistrationv1.ValidatingWebhookConfiguration) { webhooksChanged() }
	a.mwcs.changed = func(map[string]*admissionregistrationv1.MutatingWebhookConfiguration) { webhooksChanged() }
	run(ctx, wg, a.vaps.run)
	run(ctx, wg, a.bindings.run)
	run(ctx, wg, a.vwcs.run)
	run(ctx, wg, a.mwcs.run)
	return a
}

// Synced waits until every kind was listed once (false if ctx ends
// first).
func (a *Admission) Synced(ctx context.Context) bool {
	for _, ch := range []<-chan struct{}{a.vaps.synced, a.bindings.synced, a.vwcs.synced, a.mwcs.synced} {
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
	return true
}

func list[T any](w *watched[T]) []*T {
	w.mu.RLock()
	defer w.mu.RUnlock()
	out := make([]*T, 0, len(w.objs))
	for _, o := range w.objs {
		out = append(out, o)
	}
	return out
}

// ValidatingAdmissionPolicies lists the cluster's policies.
func (a *Admission) ValidatingAdmissionPolicies() []*admissionregistrationv1.ValidatingAdmissionPolicy {
	return list(a.vaps)
}

// ValidatingAdmissionPolicyBindings lists the cluster's bindings.
func (a *Admission) ValidatingAdmissionPolicyBindings() []*admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	return list(a.bindings)
}

// ValidatingWebhookConfigurations lists the cluster's validating webhooks.
func (a *Admission) ValidatingWebhookConfigurations() []*admissionregistrationv1.ValidatingWebhookConfiguration {
	return list(a.vwcs)
}

// MutatingWebhookConfigurations lists the cluster's mutating webhooks.
func (a *Admission) MutatingWebhookConfigurations() []*admissionregistrationv1.MutatingWebhookConfiguration {
	return list(a.mwcs)
}

// Cached returns a namespace the watch has seen, without asking the
// cluster (admission's namespaceSelector reads it).
func (n *Namespaces) Cached(name string) (*corev1.Namespace, bool) { return n.w.get(name) }
