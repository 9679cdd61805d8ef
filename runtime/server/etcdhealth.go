package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforge/kubeforge/runtime/etcd"
	"github.com/kubeforge/kubeforge/runtime/filters"
	"github.com/kubeforge/kubeforge/runtime/request"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// etcd's health is probed every etcdProbeInterval with a read that must
// answer within etcdProbeTimeout: while it fails, requests that need etcd
// get a 503 with Retry-After at once instead of waiting out their timeout,
// and /readyz says so.
// etcdDownAfter probes in a row must fail: one slow answer under load
// is not an outage.
const (
	etcdProbeInterval = time.Second
	etcdProbeTimeout  = 2 * time.Second
	etcdDownAfter     = 2
)

// spaceCheckEvery: how many probes between checks of etcd's alarms.
const spaceCheckEvery = 5

// monitorEtcd probes etcd until ctx ends, keeping s.etcd current, and
// watches its NOSPACE alarm.
func (s *Server) monitorEtcd(ctx context.Context) {
	t := time.NewTicker(etcdProbeInterval)
	defer t.Stop()
	failures := 0
	for n := 0; ; n++ {
		pctx, cancel := context.WithTimeout(ctx, etcdProbeTimeout)
		err := s.backend.Ready(pctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			failures++
		} else {
			failures = 0
		}
		if err == nil || failures >= etcdDownAfter {
			s.setEtcdHealth(err)
		}
		if err == nil && n%spaceCheckEvery == 0 {
			s.checkSpace(ctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// checkSpace follows etcd's NOSPACE alarm; with the embedded etcd it
// reclaims the space of deleted objects and disarms the alarm once the
// database fits again (an external cluster's operator does that).
func (s *Server) checkSpace(ctx context.Context) {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	full, err := etcd.NoSpace(cctx, s.client)
	if err != nil {
		return
	}
	if full && !s.noSpace.Load() {
		s.metrics.NoSpace(true)
		s.noSpace.Store(true)
		s.log.Error("etcd is out of space (NOSPACE alarm): writes get 507 until objects are deleted; reads and deletes work")
		return // reclaim from the next check on
	}
	if full && s.embedded != nil {
		ok, err := s.embedded.Reclaim(cctx, s.quota)
		if err != nil {
			s.log.Warn("reclaim etcd space", "err", err)
		}
		full = !ok
	}
	s.metrics.NoSpace(full)
	if was := s.noSpace.Swap(full); was && !full {
		s.log.Info("etcd has space again: writes accepted")
	}
}

func (s *Server) setEtcdHealth(err error) {
	prev := s.etcdState()
	switch {
	case err != nil && prev.err == nil:
		s.log.Error("etcd unreachable: requests that need it get 503 until it answers", "err", err)
		// Requests waiting on etcd end now, with a 503.
		prev.cancel(storage.ErrUnavailable)
		s.etcd.Store(&etcdState{err: err, alive: prev.alive, cancel: prev.cancel})
	case err == nil && prev.err != nil:
		s.log.Info("etcd reachable again")
		s.etcd.Store(newEtcdState())
	}
}

// etcdState is what the probe last saw: err is nil while etcd answers;
// alive is cancelled (cause storage.ErrUnavailable) when it stops.
type etcdState struct {
	err    error
	alive  context.Context
	cancel context.CancelCauseFunc
}

func newEtcdState() *etcdState {
	alive, cancel := context.WithCancelCause(context.Background())
	return &etcdState{alive: alive, cancel: cancel}
}

func (s *Server) etcdState() *etcdState {
	if st, ok := s.etcd.Load().(*etcdState); ok {
		return st
	}
	st := newEtcdState()
	if s.etcd.CompareAndSwap(nil, st) {
		return st
	}
	return s.etcd.Load().(*etcdState)
}

// needsEtcd reports whether a request is answered from storage: resource
// requests but the review resources (authentication.k8s.io,
// authorization.k8s.io), which are answered from memory.
func needsEtcd(ri *request.Info) bool {
	return ri.IsResourceRequest && ri.APIGroup != "authentication.k8s.io" && ri.APIGroup != "authorization.k8s.io"
}

// etcdEnd is the filters' Options.EndWith: etcd's liveness for the
// requests that need etcd.
func (s *Server) etcdEnd(req *http.Request) context.Context {
	if !needsEtcd(request.InfoOf(req)) {
		return nil
	}
	return s.etcdState().alive
}

// withEtcdAvailable answers requests that need etcd with a 503
// ServiceUnavailable Status and Retry-After while etcd does not answer.
func (s *Server) withEtcdAvailable(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !needsEtcd(request.InfoOf(req)) {
			next.ServeHTTP(w, req)
			return
		}
		st := s.etcdState()
		if st.err != nil {
			w.Header().Set("Retry-After", "1")
			filters.WriteStatus(w, req, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable,
				fmt.Sprintf("storage is unavailable: etcd does not answer (%v); retry later", shortErr(st.err)),
				&metav1.StatusDetails{RetryAfterSeconds: 1})
			return
		}
		if rs := request.StateFrom(req.Context()); rs != nil && rs.EndWatched() {
			// The timeout filter's context for the request already ends
			// with st.alive (etcdEnd).
			next.ServeHTTP(w, req)
			return
		}
		// If etcd stops answering while the request waits on it, the
		// request ends then, as a 503 (storage.ErrUnavailable).
		ctx, cancel := context.WithCancelCause(req.Context())
		defer cancel(nil)
		stop := context.AfterFunc(st.alive, func() { cancel(context.Cause(st.alive)) })
		defer stop()
		next.ServeHTTP(w, req.WithContext(ctx))
	})
}

func shortErr(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer within " + etcdProbeTimeout.String()
	}
	return err.Error()
}
