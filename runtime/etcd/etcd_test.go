package etcd

import (
	"context"
	"testing"
	"time"
)

func TestStartEmbeddedPutGetRestart(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := StartEmbedded(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Endpoints()) != 1 {
		t.Fatalf("endpoints = %v", e.Endpoints())
	}
	if _, err := e.Client().Put(ctx, "/k", "v"); err != nil {
		t.Fatal(err)
	}
	// A second client through NewClient sees the write.
	c, err := NewClient(e.Endpoints())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Get(ctx, "/k")
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "v" {
		t.Fatalf("get = %v", resp.Kvs)
	}
	_ = c.Close()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// Acknowledged writes survive a restart on the same data dir.
	e2, err := StartEmbedded(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	resp, err = e2.Client().Get(ctx, "/k")
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "v" {
		t.Fatalf("get after restart = %v", resp.Kvs)
	}
}

func TestNewClientNoEndpoints(t *testing.T) {
	if _, err := NewClient(nil); err == nil {
		t.Fatal("want error")
	}
}
