package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
)

// defaultMemoryLimitMiB is the default soft memory limit. Idle the server
// uses about 40 MiB; the heap grows with what is being listed (a 10k-object
// list decodes every object), and without a limit the GC lets the heap
// double before collecting, so a few concurrent large lists reach several
// hundred MiB of RSS. The limit is soft: a larger live heap still gets the
// memory it needs, at the cost of more GC work.
const defaultMemoryLimitMiB = 128

// serveProfiling serves net/http/pprof on addr, apart from the API port.
func serveProfiling(addr string, log *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen for profiling on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("profiling server", "err", err)
		}
	}()
	log.Info("serving pprof", "address", ln.Addr().String())
	return func() { _ = srv.Close() }, nil
}

// checkProfilingAddress refuses a profiling address that is not loopback
// unless remote is set: pprof answers anyone who reaches it.
func checkProfilingAddress(addr string, remote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--profiling-address %q: %w", addr, err)
	}
	if remote {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--profiling-address %q is not a loopback address: pprof has no authentication; use 127.0.0.1:<port>, or add --profiling-allow-remote", addr)
}
