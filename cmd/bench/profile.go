package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/pprof"
	"strconv"
)

// profiler takes a CPU profile of the apiserver (its --profiling-address)
// while one phase runs against it. The profile lasts a fixed time, since
// pprof's handler writes nothing when its request is cancelled; when the
// phase is shorter the apiserver idles for the rest, which adds no
// samples, so the shares stay those of the phase.
type profiler struct {
	addr, file, phase string
	seconds           int
	// what is profiled, for the message; the apiserver when empty.
	what string
}

// start begins the profile if name is the profiled phase; the returned
// function waits for it and writes it to the file.
func (p *profiler) start(ctx context.Context, name string) func() error {
	if p == nil || name != p.phase {
		return func() error { return nil }
	}
	done := make(chan error, 1)
	go func() { done <- p.fetch(ctx) }()
	what := p.what
	if what == "" {
		what = "the apiserver"
	}
	fmt.Printf("(profiling %s during the %s phase for %d s into %s)\n", what, name, p.seconds, p.file)
	return func() error { return <-done }
}

func (p *profiler) fetch(ctx context.Context) error {
	url := "http://" + p.addr + "/debug/pprof/profile?seconds=" + strconv.Itoa(p.seconds)
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return fmt.Errorf("cpu profile: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("cpu profile: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("cpu profile: HTTP %d", resp.StatusCode)
	}
	f, err := os.Create(p.file)
	if err != nil {
		return fmt.Errorf("cpu profile: %w", err)
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("cpu profile: write %s: %w", p.file, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("cpu profile: write %s: %w", p.file, err)
	}
	return nil
}

// profileGenerator starts a CPU profile of this process, the load
// generator, when phase name is -cpuprofile-phase and -gen-cpuprofile is
// set: it covers the phase against the apiserver only, to show what the
// clients spend reading its responses. The returned function stops it.
func (c config) profileGenerator(name string) func() error {
	if c.genCPUProfile == "" || name != c.cpuProfilePhase {
		return func() error { return nil }
	}
	f, err := os.Create(c.genCPUProfile)
	if err != nil {
		return func() error { return fmt.Errorf("load generator profile: %w", err) }
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return func() error { return fmt.Errorf("load generator profile: %w", err) }
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("load generator profile: write %s: %w", c.genCPUProfile, err)
		}
		return nil
	}
}
