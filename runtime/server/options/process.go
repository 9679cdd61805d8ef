package options

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"

	"github.com/kubeforge/kubeforge/runtime/server"
)

// DefaultMemoryLimitMiB is the default soft memory limit. Idle the server
// uses about 40 MiB; the heap grows with what is being listed (a 10k-object
// list decodes every object), and without a limit the GC lets the heap
// double before collecting, so a few concurrent large lists reach several
// hundred MiB of RSS. The limit is soft: a larger live heap still gets the
// memory it needs, at the cost of more GC work. 100 MiB since the watch
// cache keeps one form of each object: with 10,000 objects and 500
// watchers the peak RSS is 137-139 MiB instead of 160-162 MiB at 128, at
// the same CPU per event (three pairs of cmd/bench runs).
const DefaultMemoryLimitMiB = 100

// Process is about the process rather than the API: log verbosity, the Go
// memory limit and the profiling endpoint. The command acts on them; none
// reaches server.Config but the log level, through the logger it builds.
type Process struct {
	Verbose              bool
	MemoryLimitMiB       int64
	ProfilingAddress     string
	ProfilingAllowRemote bool
}

// NewProcess returns the defaults: info logs, a 128 MiB soft limit, no
// profiling.
func NewProcess() *Process { return &Process{MemoryLimitMiB: DefaultMemoryLimitMiB} }

func (o *Process) AddFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.Verbose, "v", o.Verbose, "log every request (debug level)")
	fs.Int64Var(&o.MemoryLimitMiB, "memory-limit-mib", o.MemoryLimitMiB, "soft Go memory limit in MiB (runtime/debug.SetMemoryLimit), raised to 1.5 times the live heap when that is larger (a large watch cache): the GC works harder as the heap nears it, which keeps large lists from inflating RSS; 0 disables it; the GOMEMLIMIT environment variable, when set, wins")
	fs.StringVar(&o.ProfilingAddress, "profiling-address", o.ProfilingAddress, "serve net/http/pprof on this address (for example 127.0.0.1:6060); off when empty; loopback only unless --profiling-allow-remote")
	fs.BoolVar(&o.ProfilingAllowRemote, "profiling-allow-remote", o.ProfilingAllowRemote, "allow --profiling-address on a non-loopback address: pprof has no authentication, and its profiles show request contents")
}

func (o *Process) Validate() []error {
	var errs []error
	if o.MemoryLimitMiB < 0 {
		errs = append(errs, errors.New("--memory-limit-mib must not be negative"))
	}
	if o.ProfilingAddress != "" {
		if err := checkProfilingAddress(o.ProfilingAddress, o.ProfilingAllowRemote); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// ApplyTo leaves cfg alone: the command builds the logger (LogLevel) and
// acts on the rest.
func (o *Process) ApplyTo(*server.Config) error { return nil }

// LogLevel is debug with -v, else info.
func (o *Process) LogLevel() slog.Level {
	if o.Verbose {
		return slog.LevelDebug
	}
	return slog.LevelInfo
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
