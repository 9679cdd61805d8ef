package storage

import (
	"context"
	"fmt"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func ttlFixture(t *testing.T, ttl time.Duration) *fixture {
	t.Helper()
	p := fmt.Sprintf("/t%d", prefixSeq.Add(1))
	b := NewBackend(testEtcd.Client(), p, BackendOptions{TTL: func(schema.GroupResource) time.Duration { return ttl }})
	return &fixture{b: b, st: NewStore(b, widgetStrategy(true, false)), prefix: p}
}

func (f *fixture) lease(t *testing.T, ns, name string) clientv3.LeaseID {
	t.Helper()
	resp, err := testEtcd.Client().Get(context.Background(), f.st.key(ns, name))
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("get %s/%s: %v %v", ns, name, resp, err)
	}
	return clientv3.LeaseID(resp.Kvs[0].Lease)
}

func TestTTLLeases(t *testing.T) {
	ctx := context.Background()
	f := ttlFixture(t, time.Hour)
	mustCreate(t, f, widget("ns", "a", 1))
	mustCreate(t, f, widget("ns", "b", 1))
	la, lb := f.lease(t, "ns", "a"), f.lease(t, "ns", "b")
	if la == clientv3.NoLease || la != lb {
		t.Fatalf("leases %x and %x, want one shared lease", la, lb)
	}
	// Updates and deletion marks keep a lease.
	if _, err := f.st.GuaranteedUpdate(ctx, "ns", "a", "", func(w *Widget) (*Widget, error) {
		w.Spec.Size = 2
		w.Finalizers = []string{"example.dev/hold"}
		return w, nil
	}, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if f.lease(t, "ns", "a") == clientv3.NoLease {
		t.Error("update dropped the lease")
	}
	if _, _, err := f.st.Delete(ctx, "ns", "a", DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if f.lease(t, "ns", "a") == clientv3.NoLease {
		t.Error("the deletion mark dropped the lease")
	}
	// A cached lease etcd no longer has: the write gets a new one.
	if _, err := testEtcd.Client().Revoke(ctx, la); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, f, widget("ns", "c", 1))
	if lc := f.lease(t, "ns", "c"); lc == clientv3.NoLease || lc == la {
		t.Errorf("lease after revoke %x (revoked %x)", lc, la)
	}
	if got := f.raw(t); len(got) != 1 {
		t.Errorf("keys after revoking the shared lease: %v, want only c", got)
	}
}

func TestTTLNone(t *testing.T) {
	f := ttlFixture(t, 0)
	mustCreate(t, f, widget("ns", "a", 1))
	if l := f.lease(t, "ns", "a"); l != clientv3.NoLease {
		t.Errorf("lease %x without a TTL", l)
	}
}

func TestReuseWindow(t *testing.T) {
	for _, c := range []struct{ ttl, want time.Duration }{
		{2 * time.Second, 0},
		{time.Minute, 3 * time.Second},
		{time.Hour, time.Minute},
		{24 * time.Hour, time.Minute},
	} {
		if got := reuseWindow(c.ttl); got != c.want {
			t.Errorf("reuseWindow(%v) = %v, want %v", c.ttl, got, c.want)
		}
	}
}
