package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"sigs.k8s.io/yaml"

	"github.com/kubeforge/kubeforge/runtime/etcd"
	"github.com/kubeforge/kubeforge/runtime/pki"
)

const (
	group    = "shipping.kubeforge.dev"
	version  = "v1"
	plural   = "shipments"
	rawRoot  = "/bench-raw/shipments/"
	nsPrefix = "bench-"
)

// result is one phase against one side.
type result struct {
	ops  int
	wall time.Duration
	lat  []time.Duration
	// cpuPerOp and etcdCPUPerOp are the CPU time (user and system) per
	// operation of the side's server and of its etcd during the phase;
	// genCPUPerOp is the load generator's own (this process: the clients
	// reading and checking the responses), which shares the machine's
	// cores with the servers and so bounds the rates it can measure.
	cpuPerOp, etcdCPUPerOp, genCPUPerOp time.Duration
}

func (r result) opsPerSec() float64 {
	if r.wall <= 0 {
		return 0
	}
	return float64(r.ops) / r.wall.Seconds()
}

func (r result) pct(p float64) time.Duration {
	if len(r.lat) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), r.lat...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(float64(len(s)-1) * p)
	return s[i]
}

// side is what a phase drives: the apiserver or etcd.
type side interface {
	create(ctx context.Context, i int) error
	get(ctx context.Context, i int) error
	// getAny reads at any resourceVersion ("0": the watch cache; a
	// serializable read for etcd).
	getAny(ctx context.Context, i int) error
	list(ctx context.Context, namespace string) (int, error)
	update(ctx context.Context, i int) error
	del(ctx context.Context, i int) error
	// fanout opens n watchers and returns a function that makes one write
	// (round r) and waits until every watcher saw it.
	fanout(ctx context.Context, n int) (round func(ctx context.Context, r int) error, closeAll func(), err error)
	// watchNamespace opens n watches of namespace ns, calling saw with the
	// name of every created object each reads; createIn creates one there.
	watchNamespace(ctx context.Context, ns string, n int, saw func(name string)) (closeAll func(), err error)
	createIn(ctx context.Context, ns, name string) error
	// clear deletes every object of namespace ns.
	clear(ctx context.Context, ns string) error
}

// bench is what one run drives: the apiserver, the floor (nil when
// skipped) and raw etcd, with the processes whose CPU each one costs.
type bench struct {
	c         config
	api       *httpSide
	floor     *floorSide
	raw       *etcdSide
	apiProcs  sideProcs
	flProcs   sideProcs
	rawProcs  sideProcs
	apiserver *child
	profile   *profiler
	// etcdProfile profiles the apiserver's etcd (-etcd-cpuprofile).
	etcdProfile *profiler
	// floorEtcdProfile profiles the floor's etcd (-floor-etcd-cpuprofile).
	floorEtcdProfile *profiler
}

// sideProcs are the pids of a side's server and of its etcd, 0 where the
// side has none of its own to measure.
type sideProcs struct{ server, etcd int }

func run(ctx context.Context, c config) error {
	dir, cleanup, err := benchDir(c, "kubeforge-bench-")
	if err != nil {
		return err
	}
	defer cleanup()
	b := &bench{c: c}
	stop, err := b.start(ctx, dir)
	defer stop()
	if err != nil {
		return err
	}
	fmt.Printf("apiserver %s (pid %d), floor %s, concurrency %d, %d objects, %d per namespace\n\n",
		b.api.base, b.apiserver.cmd.Process.Pid, b.floorURL(), c.concurrency, c.objects, c.perNamespace)

	var rows []row
	var rssAfterCreate int64
	pid := b.apiserver.cmd.Process.Pid
	for r := 1; r <= c.rounds; r++ {
		if c.rounds > 1 {
			fmt.Printf("round %d of %d\n", r, c.rounds)
		}
		rows = rows[:0]
		header()
		phase := func(name string, f func(s side) (result, error)) error {
			rw, err := b.phase(ctx, name, f)
			if err != nil || rw == nil {
				return err
			}
			rows = append(rows, *rw)
			return nil
		}
		if err := runPhases(ctx, c, b.sides(), phase, b.each(ctx), func() {
			rssAfterCreate, _ = readStatus(pid, "VmRSS")
		}); err != nil {
			return err
		}
		if c.rounds > 1 {
			rss, _ := readStatus(pid, "VmRSS")
			hwm, _ := readStatus(pid, "VmHWM")
			fmt.Printf("after round %d: apiserver RSS %.1f MiB, peak %.1f MiB\n\n", r, mib(rss), mib(hwm))
		}
	}

	hwm, err := readStatus(pid, "VmHWM")
	if err != nil {
		return err
	}
	fmt.Println()
	what := "apiserver only (its etcd is a process of its own)"
	if !c.sharedEtcd {
		what = "apiserver with its embedded etcd"
	}
	fmt.Printf("apiserver RSS: %.1f MiB after creating %d objects, peak (VmHWM) %.1f MiB; %s\n", mib(rssAfterCreate), c.objects, mib(hwm), what)
	if b.floor != nil {
		if fh, err := readStatus(b.flProcs.server, "VmHWM"); err == nil {
			fmt.Printf("floor peak RSS %.1f MiB\n", mib(fh))
		}
	}
	fmt.Println()
	targets(rows, c, hwm)
	return nil
}

func (b *bench) floorURL() string {
	if b.floor == nil {
		return "skipped"
	}
	return b.floor.base
}

// sides are the sides in the order each phase runs them.
func (b *bench) sides() []side {
	s := []side{b.api}
	if b.floor != nil {
		s = append(s, b.floor)
	}
	return append(s, b.raw)
}

func (b *bench) each(ctx context.Context) func(op func(s side) func(ctx context.Context, i int) error) func(s side) (result, error) {
	return func(op func(s side) func(ctx context.Context, i int) error) func(s side) (result, error) {
		return func(s side) (result, error) { return parallel(ctx, b.c.concurrency, b.c.objects, op(s)) }
	}
}

// start starts the etcd processes, the apiserver and the floor; stop
// stops whatever started, also after an error.
func (b *bench) start(ctx context.Context, dir string) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	fmt.Printf("starting etcd ...\n")
	var pprofAddr string
	if b.c.etcdCPUProfile != "" {
		if pprofAddr, err = freeAddr(); err != nil {
			return stop, err
		}
		b.etcdProfile = &profiler{addr: pprofAddr, file: b.c.etcdCPUProfile, phase: b.c.cpuProfilePhase, seconds: b.c.cpuProfileSeconds, what: "its etcd"}
	}
	e, err := startEtcdProc(ctx, filepath.Join(dir, "etcd"), b.c.etcdPlain, pprofAddr)
	if err != nil {
		return stop, err
	}
	stops = append(stops, e.stop)
	b.raw = &etcdSide{c: e.client, cfg: b.c}
	b.rawProcs = sideProcs{etcd: e.pid()}
	if err := b.raw.init(); err != nil {
		return stop, err
	}
	if err := b.startAPIServer(ctx, dir, e, &stops); err != nil {
		return stop, err
	}
	if b.c.floorDir != "" {
		if err := b.startFloor(ctx, dir, &stops); err != nil {
			return stop, err
		}
	}
	return stop, nil
}

func (b *bench) startAPIServer(ctx context.Context, dir string, e *etcdProc, stops *[]func()) error {
	bin := b.c.apiserver
	if bin == "" {
		bin = filepath.Join(dir, "apiserver-bin")
		fmt.Printf("building cmd/apiserver ...\n")
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/kubeforge/kubeforge/cmd/apiserver")
		if out, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("go build cmd/apiserver: %w\n%s", err, out)
		}
	}
	extra := strings.Fields(b.c.extraArgs)
	if b.c.cpuProfile != "" {
		addr, err := freeAddr()
		if err != nil {
			return err
		}
		extra = append(extra, "--profiling-address", addr)
		b.profile = &profiler{addr: addr, file: b.c.cpuProfile, phase: b.c.cpuProfilePhase, seconds: b.c.cpuProfileSeconds}
	}
	var endpoints []string
	var files etcd.TLSFiles
	if b.c.sharedEtcd {
		endpoints, files = e.ready.Endpoints, e.ready.TLS
		b.apiProcs.etcd = e.pid()
	}
	child, err := startAPIServer(ctx, bin, filepath.Join(dir, "apiserver"), endpoints, files, extra)
	if err != nil {
		return err
	}
	*stops = append(*stops, child.stop)
	b.apiserver = child
	b.apiProcs.server = child.cmd.Process.Pid
	b.api = newHTTPSide(child.url, child.tls, b.c)
	if err := b.api.createNamespaces(ctx); err != nil {
		return err
	}
	if b.c.rbacUser {
		if b.api, err = rbacUserSide(ctx, b.api, filepath.Join(dir, "apiserver", "pki"), b.c); err != nil {
			return err
		}
	}
	return nil
}

// startFloor builds ../shared/floor and runs it on a fresh etcd of its own.
func (b *bench) startFloor(ctx context.Context, dir string, stops *[]func()) error {
	fmt.Printf("building and starting the floor (%s) on its own etcd ...\n", b.c.floorDir)
	bin := filepath.Join(dir, "floor-bin")
	if err := buildFloor(ctx, b.c.floorDir, bin); err != nil {
		return err
	}
	// Configured as the apiserver's etcd (a unix socket unless
	// -etcd-plain), so that the two servers reach etcd the same way.
	var pprofAddr string
	if b.c.floorEtcdCPUProfile != "" {
		var err error
		if pprofAddr, err = freeAddr(); err != nil {
			return err
		}
		b.floorEtcdProfile = &profiler{addr: pprofAddr, file: b.c.floorEtcdCPUProfile, phase: b.c.cpuProfilePhase, seconds: b.c.cpuProfileSeconds, what: "the floor's etcd"}
	}
	fe, err := startEtcdProc(ctx, filepath.Join(dir, "floor-etcd"), b.c.etcdPlain, pprofAddr)
	if err != nil {
		return fmt.Errorf("floor's etcd: %w", err)
	}
	*stops = append(*stops, fe.stop)
	if fe.ready.TLS != (etcd.TLSFiles{}) {
		return fmt.Errorf("floor's etcd wants TLS client certificates (socket path too long?), which the floor does not speak: %s", fe.ready.Endpoints[0])
	}
	fp, base, err := startFloor(ctx, bin, fe.ready.Endpoints[0])
	if err != nil {
		return err
	}
	*stops = append(*stops, fp.stop)
	b.floor = newFloorSide(base, fe.client, b.c)
	b.flProcs = sideProcs{server: fp.pid(), etcd: fe.pid()}
	return nil
}

// phase runs one phase against every side, measuring each side's CPU;
// nil when the phase is not selected.
func (b *bench) phase(ctx context.Context, name string, f func(s side) (result, error)) (*row, error) {
	if !b.c.selected(name) {
		return nil, nil
	}
	rw := row{name: name}
	var err error
	stopProfile := b.profile.start(ctx, name)
	stopEtcdProfile := b.etcdProfile.start(ctx, name)
	stopGen := b.c.profileGenerator(name)
	rw.api, err = measure(b.apiProcs, func() (result, error) { return f(b.api) })
	if gerr := stopGen(); gerr != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", gerr)
	}
	if perr := stopProfile(); perr != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", perr)
	}
	if perr := stopEtcdProfile(); perr != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", perr)
	}
	if err != nil {
		return nil, fmt.Errorf("%s against the apiserver: %w", name, err)
	}
	if b.floor != nil {
		stopFloorEtcdProfile := b.floorEtcdProfile.start(ctx, name)
		rw.floor, err = measure(b.flProcs, func() (result, error) { return f(b.floor) })
		if perr := stopFloorEtcdProfile(); perr != nil {
			fmt.Fprintf(os.Stderr, "bench: %v\n", perr)
		}
		if err != nil {
			return nil, fmt.Errorf("%s against the floor: %w", name, err)
		}
		rw.hasFloor = true
	}
	if rw.etcd, err = measure(b.rawProcs, func() (result, error) { return f(b.raw) }); err != nil {
		return nil, fmt.Errorf("%s against etcd: %w", name, err)
	}
	rw.print()
	// Where the apiserver's memory peaks: its peak so far, per phase.
	if hwm, err := readStatus(b.apiProcs.server, "VmHWM"); err == nil && b.c.showPeak {
		fmt.Printf("%-15s   apiserver peak RSS so far %.1f MiB\n", "", mib(hwm))
	}
	return &rw, nil
}

// measure runs f and adds the CPU time its server and etcd spent per
// operation.
func measure(p sideProcs, f func() (result, error)) (result, error) {
	s0, _ := cpuTime(p.server)
	e0, _ := cpuTime(p.etcd)
	g0, gerr := selfCPUTime()
	r, err := f()
	if err != nil || r.ops == 0 {
		return r, err
	}
	if g1, err := selfCPUTime(); err == nil && gerr == nil {
		r.genCPUPerOp = (g1 - g0) / time.Duration(r.ops)
	}
	if s1, err := cpuTime(p.server); err == nil && p.server != 0 {
		r.cpuPerOp = (s1 - s0) / time.Duration(r.ops)
	}
	if e1, err := cpuTime(p.etcd); err == nil && p.etcd != 0 {
		r.etcdCPUPerOp = (e1 - e0) / time.Duration(r.ops)
	}
	return r, nil
}

// runPhases runs every phase once against both sides.
func runPhases(ctx context.Context, c config, sides []side, phase func(string, func(side) (result, error)) error,
	each func(func(side) func(context.Context, int) error) func(side) (result, error), afterCreate func()) error {
	if err := phase("create", each(func(s side) func(context.Context, int) error { return s.create })); err != nil {
		return err
	}
	afterCreate()
	if err := phase("get", each(func(s side) func(context.Context, int) error { return s.get })); err != nil {
		return err
	}
	if err := phase("get rv=0", each(func(s side) func(context.Context, int) error { return s.getAny })); err != nil {
		return err
	}
	small := fmt.Sprintf("list %d", min(c.perNamespace, c.objects))
	if err := phase(small, func(s side) (result, error) {
		return parallel(ctx, c.concurrency, c.lists, func(ctx context.Context, i int) error {
			return expectCount(s.list(ctx, nsPrefix+"0"))(min(c.perNamespace, c.objects))
		})
	}); err != nil {
		return err
	}
	if err := phase(fmt.Sprintf("list %d", c.objects), func(s side) (result, error) {
		return parallel(ctx, c.concurrency, c.lists, func(ctx context.Context, i int) error {
			return expectCount(s.list(ctx, ""))(c.objects)
		})
	}); err != nil {
		return err
	}
	if err := phase(fmt.Sprintf("list %d 1cl", c.objects), func(s side) (result, error) {
		// One client: the latency of a lone list, which the target is about.
		return parallel(ctx, 1, c.lists, func(ctx context.Context, i int) error {
			return expectCount(s.list(ctx, ""))(c.objects)
		})
	}); err != nil {
		return err
	}
	if err := phase("update", each(func(s side) func(context.Context, int) error { return s.update })); err != nil {
		return err
	}
	if err := phase(fmt.Sprintf("watch x%d", c.watchers), func(s side) (result, error) {
		round, closeAll, err := s.fanout(ctx, c.watchers)
		if err != nil {
			return result{}, err
		}
		defer closeAll()
		return parallel(ctx, 1, c.watchRounds, round)
	}); err != nil {
		return err
	}
	for _, n := range c.loadWatchers {
		if err := phase(fmt.Sprintf("watch x%d load", n), func(s side) (result, error) {
			return watchLoad(ctx, s, n, c.loadCreates, c.loadClients)
		}); err != nil {
			return err
		}
	}
	for _, s := range sides {
		for _, ns := range append([]string{"fanout"}, loadNamespaces(c)...) {
			if err := s.clear(ctx, ns); err != nil {
				return fmt.Errorf("clear namespace %s: %w", ns, err)
			}
		}
	}
	if err := phase("delete", each(func(s side) func(context.Context, int) error { return s.del })); err != nil {
		return err
	}

	return nil
}

func loadNamespaces(c config) []string {
	var out []string
	for _, n := range c.loadWatchers {
		out = append(out, loadNamespace(n))
	}
	return out
}

func expectCount(n int, err error) func(want int) error {
	return func(want int) error {
		if err != nil {
			return err
		}
		if n != want {
			return fmt.Errorf("listed %d objects, want %d", n, want)
		}
		return nil
	}
}

// parallel runs op(i) for i in [0, n) on workers goroutines.
func parallel(ctx context.Context, workers, n int, op func(ctx context.Context, i int) error) (result, error) {
	lat := make([]time.Duration, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				t0 := time.Now()
				if err := op(ctx, i); err != nil {
					errs <- fmt.Errorf("operation %d: %w", i, err)
					cancel()
					return
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return result{}, err
	}
	return result{ops: n, wall: wall, lat: lat}, nil
}

// row is one phase on every side.
type row struct {
	name             string
	api, floor, etcd result
	hasFloor         bool
}

func header() {
	fmt.Printf("%-15s | %9s %8s %8s | %9s %8s %8s | %9s %8s | %9s %8s | %8s %8s | %8s %8s | %8s | %8s %8s\n",
		"phase", "api op/s", "p50", "p99", "floor/s", "p50", "p99", "etcd/s", "p50", "api/floor", "api/etcd",
		"api CPU", "its etcd", "floorCPU", "its etcd", "etcd CPU", "gen>api", "gen>flr")
	fmt.Println(strings.Repeat("-", 191))
}

func ratio(a, b result) float64 {
	if b.opsPerSec() <= 0 {
		return 0
	}
	return a.opsPerSec() / b.opsPerSec()
}

// print prints the row; the CPU columns are per operation: the apiserver
// and its etcd, the floor and its etcd, raw etcd's, and the load
// generator's own against the apiserver and against the floor.
func (r row) print() {
	flRatio := "-"
	flRow := fmt.Sprintf("%9s %8s %8s", "-", "-", "-")
	flCPU := fmt.Sprintf("%8s %8s", "-", "-")
	if r.hasFloor {
		flRatio = fmt.Sprintf("%.2fx", ratio(r.api, r.floor))
		flRow = fmt.Sprintf("%9.0f %8s %8s", r.floor.opsPerSec(), round(r.floor.pct(0.5)), round(r.floor.pct(0.99)))
		flCPU = fmt.Sprintf("%8s %8s", cpu(r.floor.cpuPerOp), cpu(r.floor.etcdCPUPerOp))
	}
	fmt.Printf("%-15s | %9.0f %8s %8s | %s | %9.0f %8s | %9s %8s | %8s %8s | %s | %8s | %8s %8s\n", r.name,
		r.api.opsPerSec(), round(r.api.pct(0.5)), round(r.api.pct(0.99)), flRow,
		r.etcd.opsPerSec(), round(r.etcd.pct(0.5)), flRatio, fmt.Sprintf("%.2fx", ratio(r.api, r.etcd)),
		cpu(r.api.cpuPerOp), cpu(r.api.etcdCPUPerOp), flCPU, cpu(r.etcd.etcdCPUPerOp),
		cpu(r.api.genCPUPerOp), cpu(r.floor.genCPUPerOp))
}

// cpu formats a CPU time per operation; "-" where none was measured.
func cpu(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return round(d)
}

func round(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	default:
		return d.Round(time.Microsecond).String()
	}
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func targets(rows []row, c config, hwm int64) {
	fmt.Println("targets:")
	check := func(ok bool, format string, args ...any) {
		mark := "PASS"
		if !ok {
			mark = "MISS"
		}
		fmt.Printf("  %s  %s\n", mark, fmt.Sprintf(format, args...))
	}
	for _, r := range rows {
		if r.hasFloor {
			floorTargets(r, check)
		}
		etcdTargets(r, check)
		switch r.name {
		case fmt.Sprintf("list %d 1cl", c.objects):
			check(r.api.pct(0.99) < 300*time.Millisecond, "list of %d objects < 300ms (one client): p50 %s, p99 %s", c.objects, round(r.api.pct(0.5)), round(r.api.pct(0.99)))
		case fmt.Sprintf("watch x%d", c.watchers):
			check(r.api.pct(0.99) < 100*time.Millisecond, "watch fan-out to %d watchers p99 < 100ms: %s", c.watchers, round(r.api.pct(0.99)))
		}
	}
	check(hwm < 150<<20, "apiserver RSS with %d objects < 150 MiB: peak %.1f MiB", c.objects, mib(hwm))
	if c.objects != 10000 {
		fmt.Println("  (the targets are stated for 10k objects; this run used", c.objects, "objects)")
	}
}

type checkFunc func(ok bool, format string, args ...any)

// floorTargets are issue 26's, against the floor in the same run.
func floorTargets(r row, check checkFunc) {
	x := ratio(r.api, r.floor)
	switch {
	case r.name == "create" || r.name == "update" || r.name == "delete":
		check(x >= 0.8, "%s at >= 0.8x the floor's ops/s: %.2fx", r.name, x)
	case r.name == "get":
		check(x >= 0.9, "get (quorum) at >= 0.9x the floor's: %.2fx", x)
	case r.name == "get rv=0" || strings.HasPrefix(r.name, "list "):
		check(x >= 2, "%s at >= 2x the floor's (quorum) ops/s: %.2fx", r.name, x)
	case strings.HasSuffix(r.name, " load"):
		check(r.api.pct(0.99) <= r.floor.pct(0.99), "%s: event latency p99 <= the floor's: %s vs %s", r.name, round(r.api.pct(0.99)), round(r.floor.pct(0.99)))
	}
	if r.name == "create" && r.floor.cpuPerOp > 0 && r.floor.etcdCPUPerOp > 0 {
		cx := float64(r.api.cpuPerOp) / float64(r.floor.cpuPerOp)
		check(cx <= 2, "apiserver CPU per create <= 2x the floor's: %s vs %s (%.1fx)", round(r.api.cpuPerOp), round(r.floor.cpuPerOp), cx)
		if r.api.etcdCPUPerOp > 0 {
			ex := float64(r.api.etcdCPUPerOp) / float64(r.floor.etcdCPUPerOp)
			check(ex <= 1.2, "apiserver's etcd CPU per create <= 1.2x the floor's etcd: %s vs %s (%.1fx)", round(r.api.etcdCPUPerOp), round(r.floor.etcdCPUPerOp), ex)
		}
	}
}

// etcdTargets are the earlier targets against raw etcd.
func etcdTargets(r row, check checkFunc) {
	x := ratio(r.api, r.etcd)
	switch {
	case r.name == "create" || r.name == "update" || r.name == "delete":
		check(x >= 0.5, "%s at >= 50%% of raw etcd ops/s: %.0f%%", r.name, x*100)
	case r.name == "get" || r.name == "get rv=0" || strings.HasPrefix(r.name, "list "):
		check(x >= 1, "%s at >= 100%% of raw etcd ops/s: %.0f%%", r.name, x*100)
	case strings.HasSuffix(r.name, " load"):
		p99 := float64(r.api.pct(0.99)) / float64(max(r.etcd.pct(0.99), time.Microsecond))
		check(p99 <= 1.2, "%s: event latency p99 <= 1.2x raw etcd's: %s vs %s (%.1fx)", r.name, round(r.api.pct(0.99)), round(r.etcd.pct(0.99)), p99)
		check(x >= 1, "%s: events delivered per second >= raw etcd's: %.0f vs %.0f (%.0f%%)", r.name, r.api.opsPerSec(), r.etcd.opsPerSec(), x*100)
	}
}

// cpuTime is the user plus system CPU time of process pid so far
// (/proc/<pid>/stat, in clock ticks of 10 ms).
func cpuTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read process stat: %w", err)
	}
	// The command name, in parentheses, may hold spaces: fields start after it.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, errors.New("read process stat: no command name")
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return 0, errors.New("read process stat: too few fields")
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, errors.New("read process stat: bad cpu times")
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

// selfCPUTime is the user plus system CPU time of this process, the load
// generator, so far (getrusage: microseconds, not /proc's 10 ms ticks).
func selfCPUTime() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("read own cpu time: %w", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// readStatus reads a "VmXXX: N kB" line of /proc/<pid>/status, in bytes.
func readStatus(pid int, key string) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("read process status: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			f := strings.Fields(v)
			if len(f) == 0 {
				break
			}
			n, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("parse %s: %w", key, err)
			}
			return n << 10, nil
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", key, pid)
}

// child is the apiserver process.
type child struct {
	*proc
	url string
	tls *tls.Config // the admin kubeconfig's CA and client certificate
}

// startAPIServer runs bin on its own embedded etcd or, given endpoints,
// on that etcd (with files' client certificate when it has TLS).
func startAPIServer(ctx context.Context, bin, dataDir string, endpoints []string, files etcd.TLSFiles, extra []string) (*child, error) {
	args := []string{"--data-dir", dataDir, "--bind-address", "127.0.0.1", "--port", "0"}
	if len(endpoints) > 0 {
		args = append(args, "--etcd-servers", strings.Join(endpoints, ","))
		if files != (etcd.TLSFiles{}) {
			args = append(args, "--etcd-cafile", files.CAFile, "--etcd-certfile", files.CertFile, "--etcd-keyfile", files.KeyFile)
		}
	}
	args = append(args, extra...)
	p, err := startProc(exec.Command(bin, args...))
	if err != nil {
		return nil, fmt.Errorf("start apiserver: %w", err)
	}
	ch := &child{proc: p}
	kubeconfig := filepath.Join(dataDir, "admin.kubeconfig")
	deadline := time.After(60 * time.Second)
	for {
		if data, err := os.ReadFile(kubeconfig); err == nil && len(data) > 0 {
			var kc struct {
				Clusters []struct {
					Cluster struct {
						Server string `json:"server"`
						CA     []byte `json:"certificate-authority-data"`
					} `json:"cluster"`
				} `json:"clusters"`
				Users []struct {
					User struct {
						Cert []byte `json:"client-certificate-data"`
						Key  []byte `json:"client-key-data"`
					} `json:"user"`
				} `json:"users"`
			}
			if err := yaml.Unmarshal(data, &kc); err != nil || len(kc.Clusters) == 0 {
				ch.stop()
				return nil, fmt.Errorf("read %s: no cluster (%v)", kubeconfig, err)
			}
			ch.url = strings.TrimSuffix(kc.Clusters[0].Cluster.Server, "/")
			if len(kc.Clusters[0].Cluster.CA) > 0 {
				roots := x509.NewCertPool()
				roots.AppendCertsFromPEM(kc.Clusters[0].Cluster.CA)
				ch.tls = &tls.Config{RootCAs: roots}
				if len(kc.Users) > 0 && len(kc.Users[0].User.Cert) > 0 {
					cert, err := tls.X509KeyPair(kc.Users[0].User.Cert, kc.Users[0].User.Key)
					if err != nil {
						ch.stop()
						return nil, fmt.Errorf("read %s: client certificate: %w", kubeconfig, err)
					}
					ch.tls.Certificates = []tls.Certificate{cert}
				}
			}
			return ch, nil
		}
		select {
		case err := <-ch.done:
			return nil, fmt.Errorf("apiserver exited before it was ready: %v\n%s", err, ch.logs())
		case <-deadline:
			ch.stop()
			return nil, fmt.Errorf("apiserver not ready after 60s\n%s", ch.logs())
		case <-ctx.Done():
			ch.stop()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// objectName and namespace of object i.
func objectName(i int) string { return fmt.Sprintf("s-%06d", i) }
func namespaceOf(i int, c config) string {
	return nsPrefix + strconv.Itoa(i/c.perNamespace)
}

// shipmentJSON is a valid Shipment; priority varies with updates.
func shipmentJSON(ns, name, priority, rv string) []byte {
	meta := map[string]any{"name": name, "namespace": ns, "labels": map[string]string{"bench": "true"}}
	if rv != "" {
		meta["resourceVersion"] = rv
	}
	b, _ := json.Marshal(map[string]any{
		"apiVersion": group + "/" + version,
		"kind":       "Shipment",
		"metadata":   meta,
		"spec": map[string]any{
			"priority":    priority,
			"origin":      map[string]any{"street": "Hauptstr. 1", "city": "Berlin"},
			"destination": map[string]any{"street": "High St 2", "city": "London", "country": "GB"},
			"parcels":     []any{map[string]any{"name": "box", "weight": "2500", "count": 2}},
			"tags":        []string{"bench"},
		},
	})
	return b
}

// --- the apiserver over HTTP ---

type httpSide struct {
	base string
	c    *http.Client
	tls  *tls.Config
	cfg  config
	// floor: the server is ../shared/floor, which serves one collection.
	floor bool
}

func newHTTPSide(base string, tlsConfig *tls.Config, c config) *httpSide {
	tr := &http.Transport{
		TLSClientConfig:     tlsConfig,
		ForceAttemptHTTP2:   true,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        c.concurrency * 4,
		MaxIdleConnsPerHost: c.concurrency * 4,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  !c.gzip,
	}
	return &httpSide{base: base, c: &http.Client{Transport: tr}, tls: tlsConfig, cfg: c}
}

func (h *httpSide) collection(ns string) string {
	if h.floor {
		return h.base + floorColl
	}
	if ns == "" {
		return h.base + "/apis/" + group + "/" + version + "/" + plural
	}
	return h.base + "/apis/" + group + "/" + version + "/namespaces/" + ns + "/" + plural
}

// do sends one request and wants status want; out, when not nil, is
// decoded from the JSON body, or is a func(io.Reader) error that reads it.
func (h *httpSide) do(ctx context.Context, method, url string, body []byte, want int, out any) error {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := h.c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("%s %s: HTTP %d, want %d: %s", method, url, resp.StatusCode, want, b)
	}
	if read, ok := out.(func(io.Reader) error); ok {
		return read(resp.Body)
	}
	if out != nil {
		return json.NewDecoder(resp.Body).Decode(out)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

type objectMeta struct {
	Metadata struct {
		Name            string `json:"name"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
}

// createNamespaces creates the namespaces the objects go into: the
// apiserver refuses writes into a namespace that does not exist.
func (h *httpSide) createNamespaces(ctx context.Context) error {
	names := append([]string{"fanout"}, loadNamespaces(h.cfg)...)
	for n := 0; n <= (h.cfg.objects-1)/h.cfg.perNamespace; n++ {
		names = append(names, nsPrefix+strconv.Itoa(n))
	}
	for _, name := range names {
		body, err := json.Marshal(map[string]any{
			"apiVersion": "v1",
			"kind":       "Namespace",
			"metadata":   map[string]any{"name": name},
		})
		if err != nil {
			return fmt.Errorf("encode namespace: %w", err)
		}
		if err := h.do(ctx, "POST", h.base+"/api/v1/namespaces", body, http.StatusCreated, nil); err != nil {
			return fmt.Errorf("create namespace: %w", err)
		}
	}
	return nil
}

func (h *httpSide) create(ctx context.Context, i int) error {
	return h.createIn(ctx, namespaceOf(i, h.cfg), objectName(i))
}

func (h *httpSide) get(ctx context.Context, i int) error {
	return h.do(ctx, "GET", h.collection(namespaceOf(i, h.cfg))+"/"+objectName(i), nil, http.StatusOK, nil)
}

func (h *httpSide) getAny(ctx context.Context, i int) error {
	return h.do(ctx, "GET", h.collection(namespaceOf(i, h.cfg))+"/"+objectName(i)+"?resourceVersion=0", nil, http.StatusOK, nil)
}

func (h *httpSide) clear(ctx context.Context, ns string) error {
	return h.do(ctx, "DELETE", h.collection(ns), nil, http.StatusOK, nil)
}

func (h *httpSide) list(ctx context.Context, ns string) (int, error) {
	if h.floor {
		return h.floorList(ctx, ns)
	}
	return h.count(ctx, h.collection(ns)+"?labelSelector=bench%3Dtrue")
}

// count GETs a list and counts its items (count.go says why it does not
// decode them).
func (h *httpSide) count(ctx context.Context, url string) (int, error) {
	var n int
	err := h.do(ctx, "GET", url, nil, http.StatusOK, func(r io.Reader) (err error) {
		n, err = countItems(r)
		return err
	})
	return n, err
}

func (h *httpSide) update(ctx context.Context, i int) error {
	ns, name := namespaceOf(i, h.cfg), objectName(i)
	var cur objectMeta
	if err := h.do(ctx, "GET", h.collection(ns)+"/"+name, nil, http.StatusOK, &cur); err != nil {
		return err
	}
	return h.do(ctx, "PUT", h.collection(ns)+"/"+name, shipmentJSON(ns, name, "Urgent", cur.Metadata.ResourceVersion), http.StatusOK, nil)
}

func (h *httpSide) del(ctx context.Context, i int) error {
	return h.do(ctx, "DELETE", h.collection(namespaceOf(i, h.cfg))+"/"+objectName(i), nil, http.StatusOK, nil)
}

// listRV is the resourceVersion of a list of namespace ns, where a watch
// of it starts (one item is enough on the floor, whose one collection
// holds every object).
func (h *httpSide) listRV(ctx context.Context, ns string) (string, error) {
	url := h.collection(ns)
	if h.floor {
		url += "?limit=1"
	}
	var l struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := h.do(ctx, "GET", url, nil, http.StatusOK, &l); err != nil {
		return "", err
	}
	return l.Metadata.ResourceVersion, nil
}

// fanout watches the "fanout" namespace n times; each round creates one
// object there.
func (h *httpSide) fanout(ctx context.Context, n int) (func(context.Context, int) error, func(), error) {
	const ns = "fanout"
	rv, err := h.listRV(ctx, ns)
	if err != nil {
		return nil, nil, err
	}
	wctx, cancel := context.WithCancel(ctx)
	seen := newFanIn(n)
	tr := &http.Transport{MaxIdleConnsPerHost: n, MaxConnsPerHost: 0, TLSClientConfig: h.tls, ForceAttemptHTTP2: true}
	wc := &http.Client{Transport: tr}
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		req, err := http.NewRequestWithContext(wctx, "GET", h.collection(ns)+"?watch=1&allowWatchBookmarks=false&timeoutSeconds=600&resourceVersion="+rv, nil)
		if err != nil {
			cancel()
			return nil, nil, err
		}
		resp, err := wc.Do(req)
		if err != nil {
			cancel()
			return nil, nil, fmt.Errorf("open watch %d: %w", w, err)
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			cancel()
			return nil, nil, fmt.Errorf("open watch %d: HTTP %d", w, resp.StatusCode)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer resp.Body.Close()
			dec := json.NewDecoder(bufio.NewReader(resp.Body))
			for {
				var ev struct {
					Type   string     `json:"type"`
					Object objectMeta `json:"object"`
				}
				if err := dec.Decode(&ev); err != nil {
					return
				}
				if ev.Type == "ADDED" {
					seen.saw(ev.Object.Metadata.Name)
				}
			}
		}()
	}
	round := func(ctx context.Context, r int) error {
		name := fmt.Sprintf("f-%05d", r)
		wait := seen.expect(name)
		if err := h.do(ctx, "POST", h.collection(ns), shipmentJSON(ns, name, "Normal", ""), http.StatusCreated, nil); err != nil {
			return err
		}
		return wait(ctx)
	}
	closeAll := func() {
		cancel()
		wg.Wait()
		tr.CloseIdleConnections()
	}
	return round, closeAll, nil
}

// fanIn counts, per object name, how many watchers saw it.
type fanIn struct {
	n       int
	mu      sync.Mutex
	waiting map[string]chan struct{}
	count   map[string]int
}

func newFanIn(n int) *fanIn {
	return &fanIn{n: n, waiting: map[string]chan struct{}{}, count: map[string]int{}}
}

// expect registers name before the write and returns the wait.
func (f *fanIn) expect(name string) func(ctx context.Context) error {
	done := make(chan struct{})
	f.mu.Lock()
	f.waiting[name] = done
	f.mu.Unlock()
	return func(ctx context.Context) error {
		select {
		case <-done:
			return nil
		case <-time.After(30 * time.Second):
			f.mu.Lock()
			defer f.mu.Unlock()
			return fmt.Errorf("%d of %d watchers saw %s within 30s", f.count[name], f.n, name)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (f *fanIn) saw(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.count[name]++
	if f.count[name] == f.n {
		if ch, ok := f.waiting[name]; ok {
			close(ch)
			delete(f.waiting, name)
		}
	}
}

// --- etcd through clientv3 ---

type etcdSide struct {
	c   *clientv3.Client
	cfg config
}

func (e *etcdSide) init() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := e.c.Delete(ctx, "/bench-raw/", clientv3.WithPrefix()); err != nil {
		return fmt.Errorf("clear raw prefix: %w", err)
	}
	return nil
}

func (e *etcdSide) key(i int) string {
	return rawRoot + namespaceOf(i, e.cfg) + "/" + objectName(i)
}

var errExists = errors.New("already exists")

func (e *etcdSide) create(ctx context.Context, i int) error {
	return e.createIn(ctx, namespaceOf(i, e.cfg), objectName(i))
}

func (e *etcdSide) get(ctx context.Context, i int) error {
	resp, err := e.c.Get(ctx, e.key(i))
	if err != nil {
		return err
	}
	if len(resp.Kvs) != 1 {
		return fmt.Errorf("%s: not found", e.key(i))
	}
	return nil
}

func (e *etcdSide) getAny(ctx context.Context, i int) error {
	resp, err := e.c.Get(ctx, e.key(i), clientv3.WithSerializable())
	if err != nil {
		return err
	}
	if len(resp.Kvs) != 1 {
		return fmt.Errorf("%s: not found", e.key(i))
	}
	return nil
}

func (e *etcdSide) clear(ctx context.Context, ns string) error {
	_, err := e.c.Delete(ctx, rawRoot+ns+"/", clientv3.WithPrefix())
	return err
}

func (e *etcdSide) list(ctx context.Context, ns string) (int, error) {
	prefix := rawRoot
	if ns != "" {
		prefix += ns + "/"
	}
	resp, err := e.c.Get(ctx, prefix, clientv3.WithPrefix())
	if err != nil {
		return 0, err
	}
	n := 0
	for _, kv := range resp.Kvs {
		// What a server does at least: decode every object.
		var m map[string]any
		if err := json.Unmarshal(kv.Value, &m); err != nil {
			return 0, err
		}
		if !strings.HasPrefix(string(kv.Key), rawRoot+"fanout/") {
			n++
		}
	}
	return n, nil
}

func (e *etcdSide) update(ctx context.Context, i int) error {
	k := e.key(i)
	cur, err := e.c.Get(ctx, k)
	if err != nil {
		return err
	}
	if len(cur.Kvs) != 1 {
		return fmt.Errorf("%s: not found", k)
	}
	resp, err := e.c.Txn(ctx).
		If(clientv3.Compare(clientv3.ModRevision(k), "=", cur.Kvs[0].ModRevision)).
		Then(clientv3.OpPut(k, string(shipmentJSON(namespaceOf(i, e.cfg), objectName(i), "Urgent", "")))).
		Commit()
	if err != nil {
		return err
	}
	if !resp.Succeeded {
		return fmt.Errorf("%s: conflict", k)
	}
	return nil
}

func (e *etcdSide) del(ctx context.Context, i int) error {
	resp, err := e.c.Delete(ctx, e.key(i), clientv3.WithPrevKV())
	if err != nil {
		return err
	}
	if resp.Deleted != 1 {
		return fmt.Errorf("%s: not found", e.key(i))
	}
	return nil
}

func (e *etcdSide) fanout(ctx context.Context, n int) (func(context.Context, int) error, func(), error) {
	prefix := rawRoot + "fanout/"
	seen := newFanIn(n)
	// The watches share the client's gRPC stream, as the apiserver's
	// watches on its one client do.
	closeAll, err := e.watchPrefix(ctx, prefix, n, func(v []byte) {
		var m objectMeta
		if err := json.Unmarshal(v, &m); err == nil {
			seen.saw(m.Metadata.Name)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	round := func(ctx context.Context, r int) error {
		name := fmt.Sprintf("f-%05d", r)
		wait := seen.expect(name)
		if _, err := e.c.Put(ctx, prefix+name, string(shipmentJSON("fanout", name, "Normal", ""))); err != nil {
			return err
		}
		return wait(ctx)
	}
	return round, closeAll, nil
}

// rbacUserSide binds the ClusterRole edit (every served resource is
// aggregated into it) to the user bench-user, and returns a side that
// acts as that user with a client certificate from the server's CA: every
// request then goes through RBAC, where the admin (system:masters) is
// allowed before any rule is read.
func rbacUserSide(ctx context.Context, admin *httpSide, pkiDir string, c config) (*httpSide, error) {
	body, err := json.Marshal(map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
		"metadata": map[string]any{"name": "bench-user-edit"},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "edit"},
		"subjects": []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "bench-user"}},
	})
	if err != nil {
		return nil, err
	}
	if err := admin.do(ctx, "POST", admin.base+"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", body, http.StatusCreated, nil); err != nil {
		return nil, fmt.Errorf("bind bench-user: %w", err)
	}
	ca, err := pki.EnsureCA(pkiDir)
	if err != nil {
		return nil, err
	}
	pair, err := pki.IssueClient(ca, "bench-user", nil, time.Hour)
	if err != nil {
		return nil, err
	}
	cert, err := pair.TLS()
	if err != nil {
		return nil, err
	}
	tlsConfig := admin.tls.Clone()
	tlsConfig.Certificates = []tls.Certificate{cert}
	user := newHTTPSide(admin.base, tlsConfig, c)
	// The binding reaches the authorizer through its informer.
	for deadline := time.Now().Add(10 * time.Second); ; {
		err := user.do(ctx, "GET", user.collection(nsPrefix+"0")+"?limit=1", nil, http.StatusOK, nil)
		if err == nil {
			fmt.Printf("acting as bench-user (RBAC: ClusterRole edit)\n")
			return user, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("bench-user cannot list: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// benchDir makes the temporary directory of one bench run; cleanup removes
// it unless -keep-data asked to keep it (then its path is printed).
func benchDir(c config, prefix string) (dir string, cleanup func(), err error) {
	dir, err = os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, fmt.Errorf("create temp dir: %w", err)
	}
	if c.keepData {
		fmt.Println("data:", dir)
		return dir, func() {}, nil
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}
