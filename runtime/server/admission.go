package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforge/kubeforge/runtime/admission"
	"github.com/kubeforge/kubeforge/runtime/admission/match"
	"github.com/kubeforge/kubeforge/runtime/admission/policy"
	"github.com/kubeforge/kubeforge/runtime/admission/registration"
	"github.com/kubeforge/kubeforge/runtime/admission/webhook"
	"github.com/kubeforge/kubeforge/runtime/cel"
	"github.com/kubeforge/kubeforge/runtime/fieldmanager"
	"github.com/kubeforge/kubeforge/runtime/informer"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// admissionChain is the admission every handler calls: empty until Run
// starts the plug-ins (handlers are built before), then MutatingAdmission
// webhooks, ValidatingAdmissionPolicy and ValidatingAdmissionWebhook.
type admissionChain struct {
	chain atomic.Pointer[admission.Chain]
}

func (c *admissionChain) Mutate(ctx context.Context, a *admission.Attributes) error {
	if ch := c.chain.Load(); ch != nil {
		return ch.Mutate(ctx, a)
	}
	return nil
}

func (c *admissionChain) Validate(ctx context.Context, a *admission.Attributes) error {
	if ch := c.chain.Load(); ch != nil {
		return ch.Validate(ctx, a)
	}
	return nil
}

// admissionStores are the admissionregistration.k8s.io stores, kept by
// AddCollection (their hooks come from package runtime/builtinkinds).
type admissionStores registration.Stores

func (r *admissionStores) complete() bool {
	return r.Policies != nil && r.Bindings != nil && r.Validating != nil && r.Mutating != nil
}

// conversions converts objects between the served versions of a kind
// through its hub, with the generated conversions AddConversions was
// given.
type conversions struct {
	mu     sync.RWMutex
	spokes map[schema.GroupVersionKind]fieldmanager.Conversion
}

func (c *conversions) add(cs ...fieldmanager.Conversion) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.spokes == nil {
		c.spokes = map[schema.GroupVersionKind]fieldmanager.Conversion{}
	}
	for _, cv := range cs {
		c.spokes[cv.GVK] = cv
	}
}

// convert converts obj to the kind to: spoke to hub, then hub to spoke.
func (c *conversions) convert(obj runtime.Object, to schema.GroupVersionKind) (runtime.Object, error) {
	from := obj.GetObjectKind().GroupVersionKind()
	if from == to {
		return obj, nil
	}
	c.mu.RLock()
	fromCv, fromSpoke := c.spokes[from]
	toCv, toSpoke := c.spokes[to]
	c.mu.RUnlock()
	hub := obj
	var err error
	if fromSpoke {
		if hub, err = fromCv.ToHub(obj); err != nil {
			return nil, fmt.Errorf("convert %s to its hub: %w", from, err)
		}
		hub.GetObjectKind().SetGroupVersionKind(fromCv.Hub)
	}
	if !toSpoke {
		if hub.GetObjectKind().GroupVersionKind() != to {
			return nil, fmt.Errorf("no conversion from %s to %s", from, to)
		}
		return hub, nil
	}
	out, err := toCv.FromHub(hub)
	if err != nil {
		return nil, fmt.Errorf("convert %s to %s: %w", from, to, err)
	}
	out.GetObjectKind().SetGroupVersionKind(to)
	return out, nil
}

// startAdmission builds the admission plug-ins over in-memory copies of
// the configurations (and of the namespaces, for namespaceSelector) and
// turns the chain on once they are listed: this server's own
// configurations standalone, the main cluster's in aggregated mode.
func (s *Server) startAdmission(ctx, workerCtx context.Context, wg *sync.WaitGroup, groups []GroupVersion) error {
	env := &match.Env{Versions: versionsOf(groups), Convert: s.conversions.convert}
	readers := map[schema.GroupKind]storage.CachedReader{}
	for _, c := range s.collections {
		if r, ok := c.(storage.CachedReader); ok {
			readers[schema.GroupKind{Group: r.Info().Group, Kind: r.Info().Kind}] = r
		}
	}
	src := &admissionSource{}
	reg := s.metrics.Registry()
	policies := policy.New(env, src, func(gk schema.GroupKind) storage.CachedReader { return readers[gk] }, policy.NewMetrics(reg))
	hooks := webhook.New(env, src, webhook.NewMetrics(reg))
	var chain admission.Chain
	switch {
	case s.admissionStores.complete():
		if err := s.startOwnAdmission(ctx, workerCtx, wg, env, src, policies, hooks, groups); err != nil {
			return err
		}
		chain = admission.Chain{policies, hooks}
	case s.delegation != nil:
		d := s.delegation
		env.Namespace = d.namespaces.Cached
		adm := d.cluster.WatchAdmission(workerCtx, wg, policies.Changed, hooks.Changed)
		src.policy, src.webhook = adm, adm
		if !adm.Synced(ctx) {
			return ctx.Err()
		}
		chain = admission.Chain{policies, hooks}
	}
	s.mu.Lock()
	chain = append(chain, s.admissionPlugins...)
	s.mu.Unlock()
	if len(chain) > 0 {
		s.admission.chain.Store(&chain)
	}
	return nil
}

// AddAdmission adds an in-process admission plug-in (a defaulter or
// validator compiled into the server): its Mutate runs after the
// mutating webhooks, its Validate after the ValidatingAdmissionPolicies
// and validating webhooks, on every write of every kind. Call it before
// Run.
func (s *Server) AddAdmission(p admission.Interface) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running {
		return fmt.Errorf("add admission plug-in: server already running")
	}
	if p == nil {
		return fmt.Errorf("add admission plug-in: nil")
	}
	s.admissionPlugins = append(s.admissionPlugins, p)
	return nil
}

// admissionSource is where the plug-ins read configurations, set before
// the chain is turned on.
type admissionSource struct {
	policy  policy.Source
	webhook webhook.Source
}

func (a *admissionSource) ValidatingAdmissionPolicies() []*admissionregistrationv1.ValidatingAdmissionPolicy {
	return a.policy.ValidatingAdmissionPolicies()
}

func (a *admissionSource) ValidatingAdmissionPolicyBindings() []*admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	return a.policy.ValidatingAdmissionPolicyBindings()
}

func (a *admissionSource) ValidatingWebhookConfigurations() []*admissionregistrationv1.ValidatingWebhookConfiguration {
	return a.webhook.ValidatingWebhookConfigurations()
}

func (a *admissionSource) MutatingWebhookConfigurations() []*admissionregistrationv1.MutatingWebhookConfiguration {
	return a.webhook.MutatingWebhookConfigurations()
}

// startOwnAdmission watches this server's admissionregistration stores
// and its namespaces, and keeps the policies' status current.
func (s *Server) startOwnAdmission(ctx, workerCtx context.Context, wg *sync.WaitGroup, env *match.Env, src *admissionSource,
	policies *policy.Plugin, hooks *webhook.Plugin, groups []GroupVersion) error {
	if s.namespaceStore != nil {
		nsCache := informer.New[*corev1.Namespace, *corev1.NamespaceList](s.namespaceStore, nil, s.log)
		env.Namespace = func(name string) (*corev1.Namespace, bool) {
			if ns, ok := nsCache.Get("", name); ok {
				return ns, true
			}
			// Not seen yet (created a moment ago): read it, as kube's
			// namespace matcher does when its lister misses.
			ctx, cancel := context.WithTimeout(workerCtx, 5*time.Second)
			defer cancel()
			ns, err := s.namespaceStore.Get(ctx, "", name, storage.GetOptions{})
			return ns, err == nil
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			nsCache.Run(workerCtx)
		}()
	}
	var status *registration.PolicyStatus
	configs := registration.NewConfigs(registration.Stores(s.admissionStores),
		func() {
			policies.Changed()
			if status != nil {
				status.Changed()
			}
		}, hooks.Changed, s.log)
	src.policy, src.webhook = configs, configs
	checker := &policy.TypeChecker{Kind: kindOf(env), Schema: schemasOf(groups, s.log)}
	status = registration.NewPolicyStatus(s.admissionStores.Policies, configs, checker.Check, s.log)
	status.Changed()
	wg.Add(2)
	go func() {
		defer wg.Done()
		configs.Run(workerCtx)
	}()
	go func() {
		defer wg.Done()
		status.Run(workerCtx)
	}()
	if !configs.Synced(ctx) {
		return ctx.Err()
	}
	return nil
}

// versionsOf indexes the served versions of every resource.
func versionsOf(groups []GroupVersion) func(schema.GroupResource) []match.Version {
	idx := map[schema.GroupResource][]match.Version{}
	for _, gv := range groups {
		for _, r := range gv.Resources {
			gr := schema.GroupResource{Group: gv.Group, Resource: r.Plural}
			idx[gr] = append(idx[gr], match.Version{
				Resource:   gr.WithVersion(gv.Version),
				Kind:       schema.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: r.Kind},
				Namespaced: r.Namespaced,
			})
		}
	}
	return func(gr schema.GroupResource) []match.Version { return idx[gr] }
}

// kindOf resolves a served resource to its kind.
func kindOf(env *match.Env) func(schema.GroupVersionResource) (schema.GroupVersionKind, bool) {
	return func(gvr schema.GroupVersionResource) (schema.GroupVersionKind, bool) {
		for _, v := range env.Versions(gvr.GroupResource()) {
			if v.Resource == gvr {
				return v.Kind, true
			}
		}
		return schema.GroupVersionKind{}, false
	}
}

// schemasOf returns the structural schema of each served kind, found by
// the x-kubernetes-group-version-kind of the group-versions' OpenAPI
// schemas and built once, on first use.
func schemasOf(groups []GroupVersion, log *slog.Logger) func(schema.GroupVersionKind) (*structuralschema.Structural, bool) {
	type source struct {
		all  map[string]json.RawMessage
		name string
	}
	idx := map[schema.GroupVersionKind]source{}
	for _, gv := range groups {
		for name, raw := range gv.Schemas {
			var s struct {
				GVK []struct{ Group, Version, Kind string } `json:"x-kubernetes-group-version-kind"`
			}
			if json.Unmarshal(raw, &s) != nil {
				continue
			}
			for _, k := range s.GVK {
				idx[schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}] = source{gv.Schemas, name}
			}
		}
	}
	var mu sync.Mutex
	built := map[schema.GroupVersionKind]*structuralschema.Structural{}
	return func(gvk schema.GroupVersionKind) (*structuralschema.Structural, bool) {
		mu.Lock()
		defer mu.Unlock()
		if st, ok := built[gvk]; ok {
			return st, st != nil
		}
		src, ok := idx[gvk]
		if !ok {
			return nil, false
		}
		st, err := cel.Structural(src.all, src.name)
		if err != nil {
			log.Debug("no structural schema for type checking", "kind", gvk, "err", err)
		}
		built[gvk] = st
		return st, st != nil
	}
}
