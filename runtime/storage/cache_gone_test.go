package storage

import (
	"context"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
)

// idleWatch opens a watch that selects nothing (so it never decodes an
// object) and makes the cache one with watchers.
func idleWatch(t *testing.T, f *fixture) {
	t.Helper()
	wctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	opts := WatchOptions{}
	opts.LabelSelector = labels.SelectorFromSet(labels.Set{"never": "matches"})
	if _, err := f.st.Watch(wctx, "", opts); err != nil {
		t.Fatal(err)
	}
	waitFor(t, cacheOf(f.st).watched)
}

// goneEvent is the cache's DELETED event of key at rev, once applied.
func goneEvent(t *testing.T, f *fixture, key string, rev int64) *cachedEvent[*Widget] {
	t.Helper()
	c := cacheOf(f.st)
	if !c.waitRev(ctx, rev) {
		t.Fatalf("cache did not reach %d", rev)
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, ev := range c.window {
		if ev.rev == rev && ev.typ == watch.Deleted && ev.old.key == key {
			return ev
		}
	}
	t.Fatalf("no DELETED event of %s at %d", key, rev)
	return nil
}

// wantGone checks that ev's object is what decoding the deleted value at
// the delete's revision gives.
func wantGone(t *testing.T, f *fixture, ev *cachedEvent[*Widget]) *Widget {
	t.Helper()
	got, err := ev.goneObject()
	if err != nil {
		t.Fatal(err)
	}
	want, err := ev.old.decodeAt(ev.rev)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DELETED object\n%+v\nwant what the stored value decodes to\n%+v", got, want)
	}
	return got
}

// TestDeleteHandsGoneObject: a delete through the store gives the cache's
// DELETED event the object it deleted, a copy of its own: the event's
// watchers do not decode it again, and what the caller does with the
// object Delete returned does not show in the event.
func TestDeleteHandsGoneObject(t *testing.T) {
	var decodes atomic.Int64
	f, _ := cacheFixture(t, "", BackendOptions{}, countDecodes(&decodes))
	idleWatch(t, f)
	w := widget("ns", "a", 1)
	w.Labels = map[string]string{"app": "x"}
	mustCreate(t, f, w)
	out, deleted, err := f.st.Delete(ctx, "ns", "a", DeleteOptions{})
	if err != nil || !deleted {
		t.Fatalf("delete: %v, %v", deleted, err)
	}
	out.Labels["app"] = "changed by the caller"
	out.Spec.Size = 99
	ev := goneEvent(t, f, f.st.key("ns", "a"), mustInt(t, out.ResourceVersion))
	before := decodes.Load()
	got, err := ev.goneObject()
	if err != nil {
		t.Fatal(err)
	}
	if decodes.Load() != before {
		t.Error("the DELETED event decoded its object: the delete's was not handed over")
	}
	if got == out || got.Labels["app"] != "x" || got.Spec.Size != 1 {
		t.Errorf("DELETED object shares the caller's: %p %p, %+v", got, out, got)
	}
	wantGone(t, f, ev)
	if got.ResourceVersion != out.ResourceVersion {
		t.Errorf("DELETED object at %s, want the delete's %s", got.ResourceVersion, out.ResourceVersion)
	}
	if n := len(cacheOf(f.st).gone); n != 0 {
		t.Errorf("%d hand-offs left after their event", n)
	}
}

// TestDeleteHandOffOnlyItsOwn: the hand-off is the object of one stored
// value (a key at a mod revision): a delete through another replica on
// the same etcd decodes its event's object there; a hand-off whose value
// was not deleted but changed (the delete lost its compare-and-delete) is
// dropped by that change and never given to a later delete of the key; a
// hand-off of a value the cache does not hold is not kept; an encrypted
// store hands over the decrypted object.
func TestDeleteHandOffOnlyItsOwn(t *testing.T) {
	prefix := fmt.Sprintf("/t%d", prefixSeq.Add(1))
	a, _ := cacheFixture(t, prefix, BackendOptions{})
	b, _ := cacheFixture(t, prefix, BackendOptions{})
	idleWatch(t, a)
	idleWatch(t, b)
	x := mustCreate(t, a, widget("ns", "x", 1))
	xRev := mustInt(t, x.ResourceVersion)
	key := a.st.key("ns", "x")
	if !cacheOf(a.st).waitRev(ctx, xRev) || !cacheOf(b.st).waitRev(ctx, xRev) {
		t.Fatal("caches behind")
	}
	cacheOf(a.st).handGone(key, xRev-1, widget("ns", "x", 665))
	if n := len(cacheOf(a.st).gone); n != 0 {
		t.Fatalf("a hand-off of a value the cache does not hold was kept (%d)", n)
	}
	// a's delete of x at xRev loses to b's update; a's hand-off must not
	// serve b's later delete.
	bogus := widget("ns", "x", 666)
	cacheOf(a.st).handGone(key, xRev, bogus)
	if n := len(cacheOf(a.st).gone); n != 1 {
		t.Fatalf("hand-off of x at %d not kept (%d)", xRev, n)
	}
	x.Spec.Size = 2
	if _, err := put(ctx, b.st, x, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	out, deleted, err := b.st.Delete(ctx, "ns", "x", DeleteOptions{})
	if err != nil || !deleted {
		t.Fatalf("delete through b: %v, %v", deleted, err)
	}
	rev := mustInt(t, out.ResourceVersion)
	for _, f := range []*fixture{a, b} {
		got := wantGone(t, f, goneEvent(t, f, key, rev))
		if got == bogus || got.Spec.Size != 2 {
			t.Errorf("DELETED object %+v, want x as b updated it", got)
		}
	}
	if n := len(cacheOf(a.st).gone); n != 0 {
		t.Errorf("%d hand-offs left after the key's events", n)
	}

	// Encrypted at rest: the cache holds plaintext, the delete decodes
	// etcd's decrypted value; the event's object is that.
	ep := fmt.Sprintf("/t%d", prefixSeq.Add(1))
	eb := NewBackend(testEtcd.Client(), ep, BackendOptions{WatchCache: true, BookmarkInterval: 200 * time.Millisecond, Transformer: encryptionConfig(t, "k1").TransformerFor})
	t.Cleanup(eb.Close)
	var decodes atomic.Int64
	s := widgetStrategy(true, false)
	countDecodes(&decodes)(s)
	ef := &fixture{b: eb, st: NewStore(eb, s), prefix: ep}
	waitFor(t, func() bool { return cacheOf(ef.st).serving() })
	idleWatch(t, ef)
	w := widget("ns", "s", 7)
	w.Spec.Color = "ultraviolet"
	mustCreate(t, ef, w)
	out, deleted, err = ef.st.Delete(ctx, "ns", "s", DeleteOptions{})
	if err != nil || !deleted {
		t.Fatalf("encrypted delete: %v, %v", deleted, err)
	}
	ev := goneEvent(t, ef, ef.st.key("ns", "s"), mustInt(t, out.ResourceVersion))
	before := decodes.Load()
	got := wantGone(t, ef, ev)
	if decodes.Load() != before+1 { // wantGone's own decode only
		t.Errorf("encrypted: the DELETED event decoded its object (%d decodes)", decodes.Load()-before)
	}
	if got.Spec.Color != "ultraviolet" || got == out {
		t.Errorf("encrypted DELETED object %+v", got)
	}
}

// TestHandedGoneBounded: hand-offs whose events never come (deletes that
// lost, of keys that have not changed since) do not pile up.
func TestHandedGoneBounded(t *testing.T) {
	f, _ := cacheFixture(t, "", BackendOptions{})
	c := cacheOf(f.st)
	var objs []*Widget
	for i := range maxHandedGone + 10 {
		objs = append(objs, mustCreate(t, f, widget("ns", fmt.Sprintf("w%d", i), i)))
	}
	if !c.waitRev(ctx, currentRev(t)) {
		t.Fatal("cache behind")
	}
	for _, o := range objs {
		c.handGone(f.st.key("ns", o.Name), mustInt(t, o.ResourceVersion), o)
	}
	c.mu.RLock()
	n := len(c.gone)
	c.mu.RUnlock()
	if n != maxHandedGone {
		t.Fatalf("%d hand-offs kept, bound %d", n, maxHandedGone)
	}
	// Changed since: their hand-offs are dropped as the next needs room.
	for _, o := range objs[:5] {
		if _, err := f.st.GuaranteedUpdate(ctx, "ns", o.Name, "", func(cur *Widget) (*Widget, error) {
			cur.Spec.Color = "changed"
			return cur, nil
		}, UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if !c.waitRev(ctx, currentRev(t)) {
		t.Fatal("cache behind")
	}
	last := objs[len(objs)-1]
	c.handGone(f.st.key("ns", last.Name), mustInt(t, last.ResourceVersion), last)
	c.mu.RLock()
	_, kept := c.gone[f.st.key("ns", last.Name)]
	n = len(c.gone)
	c.mu.RUnlock()
	if !kept || n > maxHandedGone {
		t.Fatalf("%d hand-offs, the new one kept: %v", n, kept)
	}
}
