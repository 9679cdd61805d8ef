package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestMain lets the test binary serve as the etcd process startEtcdProc
// runs (it re-runs its own executable).
func TestMain(m *testing.M) {
	if dir := os.Getenv(serveEtcdEnv); dir != "" {
		os.Exit(etcdMain(dir))
	}
	os.Exit(m.Run())
}

// TestFloorSide starts an etcd process and the floor on it, drives every
// request the bench makes, and stops both.
func TestFloorSide(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ../shared/floor and starts etcd")
	}
	src := filepath.Join("..", "..", "..", "shared", "floor")
	if _, err := os.Stat(filepath.Join(src, "main.go")); err != nil {
		t.Skipf("no floor source: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "floor-bin")
	if err := buildFloor(ctx, src, bin); err != nil {
		t.Fatal(err)
	}
	e, err := startEtcdProc(ctx, filepath.Join(dir, "etcd"), false, "")
	if err != nil {
		t.Fatal(err)
	}
	defer e.stop()
	t.Logf("etcd at %s", e.ready.Endpoints[0])
	p, base, err := startFloor(ctx, bin, e.ready.Endpoints[0])
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop()

	c := config{concurrency: 2, objects: 4, perNamespace: 2}
	f := newFloorSide(base, e.client, c)
	for i := range c.objects {
		if err := f.create(ctx, i); err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
	}
	if err := f.createIn(ctx, "fanout", "f-00000"); err != nil {
		t.Fatal(err)
	}
	if err := f.clear(ctx, "fanout"); err != nil {
		t.Fatal(err)
	}
	for ns, want := range map[string]int{"": 4, nsPrefix + "0": 2, nsPrefix + "1": 2} {
		if n, err := f.list(ctx, ns); err != nil || n != want {
			t.Errorf("list %q: %d objects, %v; want %d", ns, n, err, want)
		}
	}
	for _, op := range []func(context.Context, int) error{f.get, f.getAny, f.update, f.del} {
		if err := op(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.get(ctx, 1); err == nil {
		t.Error("get after delete: no error")
	}

	p.stop()
	e.stop()
	for _, q := range []*proc{p, e.proc} {
		if q.cmd.ProcessState == nil {
			t.Errorf("%s still runs", q.cmd.Path)
		}
	}
}
