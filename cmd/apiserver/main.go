// Command apiserver serves the generated API groups on embedded (or
// external) etcd.
//
//	go run ./cmd/apiserver                       # data in ./.data/apiserver, https on port 6443
//	go run ./cmd/apiserver --port 0 --data-dir /tmp/kf
//	go run ./cmd/apiserver --mode aggregated --kubeconfig ~/.kube/config   # behind kube-apiserver
//	go run ./cmd/apiserver certs --dir deploy/certs --service S --namespace N
//
// It serves HTTPS with a CA and certificates it generates in <data-dir>/pki,
// authenticates every request and authorizes it with RBAC. Once ready it
// writes <data-dir>/admin.kubeconfig (the CA and an admin client
// certificate in system:masters). SIGINT or SIGTERM shut it down gracefully
// (exit status 0).
//
// The flags, their defaults and their checks are in package
// runtime/server/options, one group each (serving, etcd, authentication,
// ...); main parses them, builds the server, installs the generated groups
// and runs it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/kubeforge/kubeforge/runtime/server"
	"github.com/kubeforge/kubeforge/runtime/server/options"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

// run is the command: exit status 0 after a clean shutdown, 2 for bad
// flags, 1 when the server fails.
func run(args []string, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "certs" {
		return runCerts(args[1:], stderr)
	}
	opts := options.New()
	fs := flag.NewFlagSet("apiserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	opts.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if errs := opts.Validate(); len(errs) > 0 {
		for _, err := range errs {
			fmt.Fprintf(stderr, "apiserver: %v\n", err)
		}
		return 2
	}
	var cfg server.Config
	if err := opts.ApplyTo(&cfg); err != nil {
		fmt.Fprintf(stderr, "apiserver: %v\n", err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: opts.Process.LogLevel()}))
	cfg.Logger = log

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if limit := opts.Process.MemoryLimitMiB << 20; limit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit)
		go followLiveHeap(ctx, limit)
	}
	if addr := opts.Process.ProfilingAddress; addr != "" {
		stopProfiling, err := serveProfiling(addr, log)
		if err != nil {
			fmt.Fprintf(stderr, "apiserver: %v\n", err)
			return 1
		}
		defer stopProfiling()
	}
	return serve(ctx, cfg, stderr)
}

// serve builds the server, installs the generated groups and runs it.
func serve(ctx context.Context, cfg server.Config, stderr io.Writer) int {
	s, err := server.New(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "apiserver: %v\n", err)
		return 1
	}
	if err := install(s); err != nil {
		fmt.Fprintf(stderr, "apiserver: install API groups: %v\n", err)
		if cerr := s.Close(); cerr != nil {
			fmt.Fprintf(stderr, "apiserver: %v\n", cerr)
		}
		return 1
	}
	if err := s.Run(ctx); err != nil {
		fmt.Fprintf(stderr, "apiserver: %v\n", err)
		return 1
	}
	return 0
}
