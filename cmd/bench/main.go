// Command bench measures the apiserver against the floor and raw etcd, in
// one run with the same concurrency and the same load generator:
//
//	go run ./cmd/bench            # 10k objects, 100 watchers
//	go run ./cmd/bench -quick     # 2k objects, fewer rounds
//
// Three sides:
//   - cmd/apiserver, a child process pointed at an etcd of its own
//     (--etcd-servers), so that its peak RSS (VmHWM) is the apiserver's
//     own; with -shared-etcd=false it runs its own embedded etcd instead
//     (its RSS and CPU then include etcd's);
//   - the floor (-floor, default ../shared/floor: the thinnest correct
//     REST server over etcd), built and run on a fresh etcd of its own and
//     driven by the same HTTP client code; it serves one collection, onto
//     which every namespace of the bench maps; -floor= skips it;
//   - raw etcd through clientv3, on the apiserver's etcd.
//
// Each etcd is this binary re-run as an etcd server, a process of its
// own, so that the CPU time per request of each server and of its etcd
// is measured apart (/proc/<pid>/stat, 10 ms ticks: meaningful over
// hundreds of requests). -cpuprofile FILE writes a CPU profile of the
// apiserver during one phase (-cpuprofile-phase, default create).
//
// Phases, each run against the apiserver over HTTP, then the floor, then
// straight against etcd through clientv3: create (POST / put-if-absent txn), get,
// list of one namespace and of every namespace (range), update (GET then
// PUT / get then compare-and-swap txn), watch fan-out (one write, time until
// every watcher saw it), watch under load (50 and 500 watchers while 16
// clients create 500 objects: latency from each create's response to each
// watcher reading its event, and events delivered per second) and delete.
// It prints ops/s and p50/p99 per phase, the apiserver/floor and
// apiserver/etcd ratios, CPU per request and the targets (issue 26's
// against the floor, the earlier ones against raw etcd). Compare the
// watch cache's effect with -apiserver-flags=--watch-cache=false.
//
//	go run ./cmd/bench -cel -objects 2000
//
// measures instead creates of a kind with three CEL rules against the same
// kind without them, on one apiserver built from a copy of the project.
//
//	go run ./cmd/bench -gc            # 10k dependents of one owner
//
// measures instead the garbage collector: -objects ConfigMaps owned by one
// Shipment, collected after a background and then a foreground delete of
// the owner, with the time taken and the apiserver's memory.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

type config struct {
	concurrency  int
	objects      int
	perNamespace int
	lists        int
	watchers     int
	watchRounds  int
	sharedEtcd   bool
	rbacUser     bool
	etcdPlain    bool
	gzip         bool
	apiserver    string
	keepData     bool
	extraArgs    string
	cel          bool
	gc           bool
	celRounds    int
	// loadWatchers, loadCreates and loadClients shape the watch-under-load
	// phases; rounds repeats the whole run on one apiserver.
	loadWatchers []int
	loadCreates  int
	loadClients  int
	rounds       int
	showPeak     bool
	// phases, when set, are the only phases run (by name prefix).
	phases []string
	// floorDir is ../shared/floor's source, run as a third side; empty
	// skips it.
	floorDir string
	// cpuProfile, when set, is where a CPU profile of the apiserver during
	// the phase cpuProfilePhase goes.
	cpuProfile      string
	cpuProfilePhase string
	// genCPUProfile is where the load generator's own CPU profile of that
	// phase against the apiserver goes.
	genCPUProfile string
	// etcdCPUProfile is where the apiserver's etcd's CPU profile of that
	// phase goes.
	etcdCPUProfile string
	// floorEtcdCPUProfile is where the floor's etcd's CPU profile of that
	// phase is written (empty: none).
	floorEtcdCPUProfile string
	cpuProfileSeconds   int
}

// selected reports whether the phase named name runs.
func (c config) selected(name string) bool {
	if len(c.phases) == 0 {
		return true
	}
	for _, p := range c.phases {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func main() {
	if dir := os.Getenv(serveEtcdEnv); dir != "" {
		os.Exit(etcdMain(dir))
	}
	var c config
	quick := flag.Bool("quick", false, "a quick run: 2000 objects, fewer list and watch rounds")
	flag.IntVar(&c.concurrency, "concurrency", 8, "concurrent clients per phase")
	flag.IntVar(&c.objects, "objects", 10000, "objects created, read, updated and deleted")
	flag.IntVar(&c.perNamespace, "per-namespace", 1000, "objects per namespace (the small list)")
	flag.IntVar(&c.lists, "lists", 20, "list requests per list phase")
	flag.IntVar(&c.watchers, "watchers", 100, "watchers in the fan-out phase")
	flag.IntVar(&c.watchRounds, "watch-rounds", 100, "writes in the fan-out phase")
	flag.BoolVar(&c.sharedEtcd, "shared-etcd", true, "run the apiserver on this process's etcd (--etcd-servers)")
	flag.StringVar(&c.apiserver, "apiserver", "", "a built cmd/apiserver binary (default: go build it)")
	flag.BoolVar(&c.keepData, "keep-data", false, "keep the temporary data directory")
	flag.StringVar(&c.extraArgs, "apiserver-flags", "", "extra space-separated flags for the apiserver, e.g. \"--profiling-address 127.0.0.1:6060\" or \"--memory-limit-mib 0\"")
	flag.BoolVar(&c.gzip, "gzip", false, "ask for compressed responses (Accept-Encoding: gzip), as client-go does by default: lists over 128 KiB then come gzipped from the apiserver (not from the floor). Off by default, as with client-go's DisableCompression: on loopback compression costs CPU and saves nothing")
	flag.BoolVar(&c.etcdPlain, "etcd-plain", false, "run the shared etcd without TLS (to measure what TLS to etcd costs)")
	flag.BoolVar(&c.rbacUser, "rbac-user", false, "act as a user bound to the ClusterRole edit, so that every request is authorized by RBAC rules (the admin is in system:masters, allowed first)")
	flag.BoolVar(&c.cel, "cel", false, "instead: creates of a kind with three CEL rules against the same kind without them (generates and builds a copy of the project)")
	flag.BoolVar(&c.gc, "gc", false, "instead: the garbage collector: -objects ConfigMaps owned by one Shipment, collected after a background and then a foreground delete of the owner (time, apiserver memory)")
	flag.IntVar(&c.celRounds, "cel-rounds", 5, "alternating rounds of creates per kind with -cel")
	loadWatchers := flag.String("load-watchers", "50,500", "watchers in each watch-under-load phase (comma-separated; empty skips them)")
	flag.IntVar(&c.loadCreates, "load-creates", 500, "objects created concurrently while the watchers of a watch-under-load phase read")
	flag.IntVar(&c.loadClients, "load-clients", 16, "concurrent writers in the watch-under-load phases")
	flag.BoolVar(&c.showPeak, "show-peak", false, "print the apiserver's peak RSS after every phase")
	flag.IntVar(&c.rounds, "rounds", 1, "run every phase this many times on the same apiserver, printing its RSS after each (to see that memory does not grow)")
	flag.StringVar(&c.floorDir, "floor", "../shared/floor", "source of the floor server, built and run on an etcd of its own as a third side (empty skips it)")
	flag.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the apiserver during one phase (-cpuprofile-phase) to this file")
	flag.StringVar(&c.genCPUProfile, "gen-cpuprofile", "", "write a CPU profile of the load generator itself (this process) during -cpuprofile-phase against the apiserver to this file")
	flag.StringVar(&c.etcdCPUProfile, "etcd-cpuprofile", "", "write a CPU profile of the apiserver's etcd process during -cpuprofile-phase to this file (it serves the raw etcd side too, which runs after the apiserver's)")
	flag.StringVar(&c.floorEtcdCPUProfile, "floor-etcd-cpuprofile", "", "write a CPU profile of the floor's etcd process during -cpuprofile-phase to this file (to compare with -etcd-cpuprofile)")
	flag.StringVar(&c.cpuProfilePhase, "cpuprofile-phase", "create", "the phase -cpuprofile profiles")
	flag.IntVar(&c.cpuProfileSeconds, "cpuprofile-seconds", 5, "how long the profile lasts from the phase's start (the apiserver idles after the phase, adding no samples)")
	phases := flag.String("phases", "", "run only these phases (comma-separated name prefixes, e.g. \"create,list\" to measure memory with many objects); every phase when empty")
	flag.Parse()
	for _, p := range strings.Split(*phases, ",") {
		if p = strings.TrimSpace(p); p != "" {
			c.phases = append(c.phases, p)
		}
	}
	for _, f := range strings.Split(*loadWatchers, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "bench: -load-watchers: %q is not a positive number\n", f)
			os.Exit(2)
		}
		c.loadWatchers = append(c.loadWatchers, n)
	}
	if *quick {
		set := map[string]bool{}
		flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["objects"] {
			c.objects = 2000
		}
		if !set["lists"] {
			c.lists = 5
		}
		if !set["watch-rounds"] {
			c.watchRounds = 20
		}
	}
	if c.concurrency < 1 || c.objects < 1 || c.perNamespace < 1 || c.lists < 1 || c.watchers < 1 || c.watchRounds < 1 ||
		c.loadCreates < 1 || c.loadClients < 1 || c.rounds < 1 || c.cpuProfileSeconds < 1 {
		fmt.Fprintln(os.Stderr, "bench: every count must be at least 1")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	runner := run
	if c.cel {
		runner = runCEL
	}
	if c.gc {
		runner = runGC
	}
	if err := runner(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		if errors.Is(err, context.Canceled) {
			os.Exit(130)
		}
		os.Exit(1)
	}
}

// etcdMain is the process startEtcdProc runs: etcd until interrupted.
func etcdMain(dir string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serveEtcd(ctx, dir, os.Getenv(serveEtcdEnv+"_PLAIN") != "", os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench etcd:", err)
		return 1
	}
	return 0
}
