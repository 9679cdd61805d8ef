package server

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// startStep is one named step of start-up, run in order once the server
// listens, like kube-apiserver's post-start hooks: /readyz reports each
// as poststarthook/<name>, failing until the step is done. A step that
// starts workers starts them with starter.goWorker, which stops them when
// Run returns. A failed step only returns its error: Run's cleanups,
// registered once, close the listener, stop the workers and close etcd.
type startStep struct {
	name  string
	start func(ctx context.Context, st *starter) error
	done  atomic.Bool
}

// starter is what the steps share: the served group-versions, the serve
// error (waiting steps give up on it) and the workers to stop.
type starter struct {
	groups   []GroupVersion
	serveErr <-chan error

	workerCtx   context.Context
	stopWorkers context.CancelFunc
	wg          sync.WaitGroup
}

func newStarter(groups []GroupVersion) *starter {
	// Workers outlive a cancelled Run context until stop: they run while
	// in-flight requests drain.
	ctx, cancel := context.WithCancel(context.Background())
	return &starter{groups: groups, workerCtx: ctx, stopWorkers: cancel}
}

// goWorker runs work until stop.
func (st *starter) goWorker(work func(context.Context)) {
	st.wg.Add(1)
	go func() {
		defer st.wg.Done()
		work(st.workerCtx)
	}()
}

// stop ends every worker and waits for them.
func (st *starter) stop() {
	st.stopWorkers()
	st.wg.Wait()
}

// startSteps lists the steps this server runs, in order; steps that do
// not apply (no namespaces served, aggregated mode, ...) are left out.
func (s *Server) startSteps() []*startStep {
	var steps []*startStep
	add := func(name string, start func(context.Context, *starter) error) {
		steps = append(steps, &startStep{name: name, start: start})
	}
	if s.cfg.CompactionInterval > 0 {
		add("start-etcd-compactor", func(_ context.Context, st *starter) error {
			st.goWorker(func(ctx context.Context) { s.backend.RunCompactor(ctx, s.cfg.CompactionInterval) })
			return nil
		})
	}
	add("start-etcd-health-monitor", func(_ context.Context, st *starter) error {
		st.goWorker(s.monitorEtcd)
		return nil
	})
	add("wait-for-etcd", func(ctx context.Context, st *starter) error { return s.waitForEtcd(ctx, st.serveErr) })
	if s.delegation != nil {
		add("wait-for-main-cluster", func(ctx context.Context, _ *starter) error {
			return s.waitForDelegation(ctx, s.cfg.RequestTimeout)
		})
	}
	if s.lifecycle != nil {
		add("start-system-namespaces-controller", s.startNamespaces)
	}
	if !s.cfg.NoGarbageCollector && !s.cfg.Aggregated {
		add("start-garbage-collector", func(_ context.Context, st *starter) error {
			st.goWorker(s.garbageCollector().Run)
			return nil
		})
	}
	if s.saCache != nil {
		add("start-service-account-cache", s.startServiceAccountCache)
	}
	if s.rbacAuthorizer != nil {
		add("rbac/bootstrap-roles", func(ctx context.Context, st *starter) error {
			return s.startRBAC(ctx, st.workerCtx, &st.wg, st.groups)
		})
	}
	add("start-admission-plugins", func(ctx context.Context, st *starter) error {
		return s.startAdmission(ctx, st.workerCtx, &st.wg, st.groups)
	})
	if s.sec != nil && s.sec.renew != nil {
		add("start-serving-certificate-renewal", func(_ context.Context, st *starter) error {
			st.goWorker(s.renewServing)
			return nil
		})
	}
	return steps
}

// startNamespaces creates default, kube-system and kube-public and runs
// the namespace controller.
func (s *Server) startNamespaces(ctx context.Context, st *starter) error {
	nsCtx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	defer cancel()
	if err := s.lifecycle.EnsureSystemNamespaces(nsCtx); err != nil {
		return err
	}
	st.goWorker(s.lifecycle.Run)
	return nil
}

// startServiceAccountCache fills the ServiceAccounts tokens are checked
// against before requests are authenticated with them.
func (s *Server) startServiceAccountCache(ctx context.Context, st *starter) error {
	st.goWorker(s.saCache.Run)
	select {
	case <-s.saCache.Synced():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// errStepPending is what /readyz reports of a step not yet done.
var errStepPending = errors.New("start-up step not finished")
