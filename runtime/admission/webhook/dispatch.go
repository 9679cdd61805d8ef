package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"

	"github.com/kubeforge/kubeforge/runtime/admission"
	"github.com/kubeforge/kubeforge/runtime/admission/match"
	"github.com/kubeforge/kubeforge/runtime/jsonencode"
)

// Mutate calls the mutating webhooks that apply, in order, applying each
// JSONPatch to the object; webhooks with reinvocationPolicy IfNeeded are
// called once more when a later webhook changed the object.
func (p *Plugin) Mutate(ctx context.Context, a *admission.Attributes) error {
	hooks := p.hooks().mutating
	if len(hooks) == 0 || match.Exempt(a) {
		return nil
	}
	changedBy := -1
	var invoked []int
	for i, h := range hooks {
		changed, ran, err := p.mutateOne(ctx, h, a, false)
		if err != nil {
			return err
		}
		if ran {
			invoked = append(invoked, i)
		}
		if changed {
			changedBy = i
		}
	}
	// Reinvocation: once, the IfNeeded webhooks called before the last
	// change by a later webhook.
	for _, i := range invoked {
		if !hooks[i].reinvoke || i >= changedBy {
			continue
		}
		if _, _, err := p.mutateOne(ctx, hooks[i], a, true); err != nil {
			return err
		}
	}
	return nil
}

// mutateOne calls one mutating webhook if it applies; changed reports a
// patch that changed the object, ran that the webhook was called.
func (p *Plugin) mutateOne(ctx context.Context, h *hook, a *admission.Attributes, reinvoked bool) (changed, ran bool, err error) {
	inv, err := p.matches(ctx, h, a)
	if err != nil || inv == nil {
		return false, false, err
	}
	if a.DryRun && !noSideEffects(h.sideEffects) {
		return false, false, dryRunRefused(h.name)
	}
	va, err := p.env.Versioned(a, inv.m)
	if err != nil {
		return false, false, apierrors.NewInternalError(err)
	}
	rv, err := review(a, va, inv.m)
	if err != nil {
		return false, false, apierrors.NewInternalError(fmt.Errorf("webhook %q: %w", h.name, err))
	}
	start := time.Now()
	resp, err := p.call(ctx, h, rv)
	p.metrics.observe(h.name, "admit", a, err == nil && !resp.Allowed, time.Since(start))
	if err != nil {
		return false, true, p.failure(h, "admit", a, err)
	}
	p.record(ctx, h, resp)
	if !resp.Allowed {
		p.metrics.rejected(h.name, "admit", a, "no_error", statusCode(resp.Result))
		return false, true, denied(h.name, resp.Result)
	}
	if len(resp.Patch) == 0 || va.Object == nil {
		return false, true, nil
	}
	if resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
		return false, true, p.failure(h, "admit", a, &callError{h.name, fmt.Errorf("unsupported patch type %v", resp.PatchType)})
	}
	out, changed, err := applyPatch(va.Object, resp.Patch)
	if err != nil {
		return false, true, p.failure(h, "admit", a, &callError{h.name, err})
	}
	if !changed {
		return false, true, nil
	}
	if inv.m.Kind != a.Kind {
		if out, err = p.env.Convert(out, a.Kind); err != nil {
			return false, true, apierrors.NewInternalError(fmt.Errorf("webhook %q: convert the patched object back: %w", h.name, err))
		}
	}
	a.Object = out
	round := 0
	if reinvoked {
		round = 1
	}
	// kube's annotation of a mutation, keyed by round and webhook index.
	ann, _ := json.Marshal(map[string]any{"configuration": h.config, "webhook": h.name, "mutated": true})
	admission.Annotate(ctx, fmt.Sprintf("mutation.webhook.admission.k8s.io/round_%d_index_%d", round, h.index), string(ann))
	return true, true, nil
}

// applyPatch applies a JSONPatch to obj and decodes the result into a new
// object of the same type.
func applyPatch(obj runtime.Object, patch []byte) (runtime.Object, bool, error) {
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return nil, false, fmt.Errorf("decode the JSONPatch: %w", err)
	}
	// The document kube patches: a user's kind as a custom resource.
	doc, err := jsonencode.Marshal(obj)
	if err != nil {
		return nil, false, err
	}
	patched, err := p.Apply(doc)
	if err != nil {
		return nil, false, fmt.Errorf("apply the JSONPatch: %w", err)
	}
	if string(patched) == string(doc) {
		return obj, false, nil
	}
	out, ok := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(runtime.Object)
	if !ok {
		return nil, false, fmt.Errorf("new %T", obj)
	}
	if err := json.Unmarshal(patched, out); err != nil {
		return nil, false, fmt.Errorf("decode the patched object: %w", err)
	}
	out.GetObjectKind().SetGroupVersionKind(obj.GetObjectKind().GroupVersionKind())
	return out, true, nil
}

// Validate calls the validating webhooks that apply, in parallel as kube
// does; the first denial or failure (in configuration order) is the
// answer.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	hooks := p.hooks().validating
	if len(hooks) == 0 || match.Exempt(a) {
		return nil
	}
	var invs []*invocation
	for _, h := range hooks {
		inv, err := p.matches(ctx, h, a)
		if err != nil {
			return err
		}
		if inv == nil {
			continue
		}
		if a.DryRun && !noSideEffects(h.sideEffects) {
			return dryRunRefused(h.name)
		}
		invs = append(invs, inv)
	}
	errs := make([]error, len(invs))
	var wg sync.WaitGroup
	for i, inv := range invs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = p.validateOne(ctx, inv, a)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *Plugin) validateOne(ctx context.Context, inv *invocation, a *admission.Attributes) error {
	h := inv.h
	va, err := p.env.Versioned(a, inv.m)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	rv, err := review(a, va, inv.m)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("webhook %q: %w", h.name, err))
	}
	start := time.Now()
	resp, err := p.call(ctx, h, rv)
	p.metrics.observe(h.name, "validating", a, err == nil && !resp.Allowed, time.Since(start))
	if err != nil {
		return p.failure(h, "validating", a, err)
	}
	p.record(ctx, h, resp)
	if !resp.Allowed {
		p.metrics.rejected(h.name, "validating", a, "no_error", statusCode(resp.Result))
		return denied(h.name, resp.Result)
	}
	return nil
}

// record passes the response's warnings and audit annotations on.
func (p *Plugin) record(ctx context.Context, h *hook, resp *admissionv1.AdmissionResponse) {
	for _, w := range resp.Warnings {
		admission.Warn(ctx, w)
	}
	for k, v := range resp.AuditAnnotations {
		admission.Annotate(ctx, h.name+"/"+k, v)
	}
}

func statusCode(s *metav1.Status) int32 {
	if s == nil || s.Code < http.StatusBadRequest {
		return http.StatusBadRequest
	}
	return s.Code
}

// denied is kube's error for a webhook's denial (result may be nil).
func denied(name string, result *metav1.Status) error {
	if result == nil {
		return admission.WebhookDenied(name, metav1.Status{})
	}
	return admission.WebhookDenied(name, *result)
}
