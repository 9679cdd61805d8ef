package storage

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
)

func next(t *testing.T, ch <-chan Event[*Widget]) Event[*Widget] {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("watch closed")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
	}
	return Event[*Widget]{}
}

// nextNonBookmark skips periodic bookmarks.
func nextNonBookmark(t *testing.T, ch <-chan Event[*Widget]) Event[*Widget] {
	t.Helper()
	for {
		ev := next(t, ch)
		if ev.Type != watch.Bookmark {
			return ev
		}
	}
}

func wantEvent(t *testing.T, ev Event[*Widget], typ watch.EventType, name, rv string) {
	t.Helper()
	if ev.Type != typ || ev.Object == nil || ev.Object.Name != name || (rv != "" && ev.Object.ResourceVersion != rv) {
		var got string
		if ev.Object != nil {
			got = ev.Object.Name + "@" + ev.Object.ResourceVersion
		}
		t.Fatalf("event %s %s; want %s %s@%s", ev.Type, got, typ, name, rv)
	}
}

func noEvent(t *testing.T, ch <-chan Event[*Widget], d time.Duration) {
	t.Helper()
	timer := time.After(d)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return
			}
			if ev.Type == watch.Bookmark {
				continue
			}
			t.Fatalf("unexpected event %s %s", ev.Type, ev.Object.Name)
		case <-timer:
			return
		}
	}
}

func TestWatchResumeAndDeleted(t *testing.T) {
	f := newFixture(t, true, false)
	a := mustCreate(t, f, widget("ns", "a", 1))
	a.Spec.Size = 2
	a2, err := put(ctx, f.st, a, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// From the create's RV: the update follows, then live events.
	ch, err := f.st.Watch(wctx, "ns", WatchOptions{ListOptions: ListOptions{ResourceVersion: a.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	wantEvent(t, next(t, ch), watch.Modified, "a", a2.ResourceVersion)
	mustCreate(t, newFixture(t, true, false), widget("ns", "unrelated", 1))
	mustCreate(t, f, widget("other", "b", 1))
	d, _, err := f.st.Delete(ctx, "ns", "a", DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ev := next(t, ch)
	wantEvent(t, ev, watch.Deleted, "a", d.ResourceVersion)
	if ev.Object.Spec.Size != 2 || ev.Object.UID != a.UID {
		t.Fatalf("DELETED lacks last state: %+v", ev.Object)
	}
	cancel()
	for range ch {
	}
}

func TestWatchInitialEventsLegacy(t *testing.T) {
	f := newFixture(t, true, false)
	a := mustCreate(t, f, widget("ns", "a", 1))
	b := mustCreate(t, f, widget("ns", "b", 1))
	for _, rv := range []string{"", "0"} {
		wctx, cancel := context.WithCancel(ctx)
		ch, err := f.st.Watch(wctx, "ns", WatchOptions{ListOptions: ListOptions{ResourceVersion: rv}})
		if err != nil {
			t.Fatal(err)
		}
		wantEvent(t, next(t, ch), watch.Added, "a", a.ResourceVersion)
		wantEvent(t, next(t, ch), watch.Added, "b", b.ResourceVersion)
		c := mustCreate(t, f, widget("ns", "c"+rv, 1))
		wantEvent(t, next(t, ch), watch.Added, c.Name, c.ResourceVersion)
		cancel()
		if _, _, err := f.st.Delete(ctx, "ns", c.Name, DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		// A consistent read: "0" (any state) then sees the delete too.
		if _, err := f.st.List(ctx, "ns", ListOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWatchSendInitialEvents(t *testing.T) {
	f := newFixture(t, true, false)
	mustCreate(t, f, widget("ns", "a", 1))
	b := mustCreate(t, f, widget("ns", "b", 1))
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	yes := true
	// Not older than b: the initial events hold a and b.
	ch, err := f.st.Watch(wctx, "ns", WatchOptions{
		ListOptions:       ListOptions{ResourceVersion: b.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan},
		SendInitialEvents: &yes, AllowBookmarks: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	wantEvent(t, next(t, ch), watch.Added, "a", "")
	wantEvent(t, next(t, ch), watch.Added, "b", "")
	bm := next(t, ch)
	if bm.Type != watch.Bookmark || bm.Object.Annotations[InitialEventsAnnotation] != "true" || bm.Object.Kind != "Widget" || bm.Object.APIVersion != "test.kubeforge.dev/v1" {
		t.Fatalf("initial-events-end bookmark = %s %+v", bm.Type, bm.Object)
	}
	bmRV, _ := strconv.ParseInt(bm.Object.ResourceVersion, 10, 64)
	if bmRV < mustInt(t, b.ResourceVersion) {
		t.Fatalf("bookmark rv %d older than the requested %s", bmRV, b.ResourceVersion)
	}
	c := mustCreate(t, f, widget("ns", "c", 1))
	wantEvent(t, nextNonBookmark(t, ch), watch.Added, "c", c.ResourceVersion)
	// Periodic bookmarks carry only the RV, without the annotation.
	pb := next(t, ch)
	if pb.Type != watch.Bookmark || pb.Object.Name != "" || len(pb.Object.Annotations) != 0 || pb.Object.ResourceVersion == "" {
		t.Fatalf("periodic bookmark = %s %+v", pb.Type, pb.Object)
	}

	// Validation.
	_, err = f.st.Watch(ctx, "ns", WatchOptions{SendInitialEvents: &yes, AllowBookmarks: true})
	wantStatus(t, err, 422, metav1.StatusReasonInvalid, "~sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
	// Without bookmarks the watch is served (kube-apiserver's is), its
	// initial events not followed by the end BOOKMARK.
	plainCtx, cancelPlain := context.WithCancel(ctx)
	plain, err := f.st.Watch(plainCtx, "ns", WatchOptions{ListOptions: ListOptions{ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}, SendInitialEvents: &yes})
	if err != nil {
		t.Fatalf("watch list without bookmarks: %v", err)
	}
	added := 0
	for done := false; !done; {
		select {
		case ev := <-plain:
			if ev.Type == watch.Bookmark && ev.Object.Annotations[InitialEventsAnnotation] == "true" {
				t.Fatal("the initial-events-end BOOKMARK went to a watch that does not allow bookmarks")
			}
			if ev.Type == watch.Added {
				added++
			}
		case <-time.After(300 * time.Millisecond):
			done = true
		}
	}
	if added == 0 {
		t.Fatal("watch list without bookmarks: no initial events")
	}
	cancelPlain()
	_, err = f.st.Watch(ctx, "ns", WatchOptions{ListOptions: ListOptions{ResourceVersion: "1", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}})
	wantStatus(t, err, 422, metav1.StatusReasonInvalid, "~resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")
	_, err = f.st.Watch(ctx, "ns", WatchOptions{ListOptions: ListOptions{ResourceVersion: "x"}})
	wantStatus(t, err, 400, metav1.StatusReasonBadRequest, "")
	future := strconv.FormatInt(currentRev(t)+1000, 10)
	_, err = f.st.Watch(ctx, "ns", WatchOptions{ListOptions: ListOptions{ResourceVersion: future, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}, SendInitialEvents: &yes, AllowBookmarks: true})
	wantStatus(t, err, 504, metav1.StatusReasonTimeout, "")

	// sendInitialEvents=false starts at the current revision.
	no := false
	ch2, err := f.st.Watch(wctx, "ns", WatchOptions{ListOptions: ListOptions{ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}, SendInitialEvents: &no})
	if err != nil {
		t.Fatal(err)
	}
	d := mustCreate(t, f, widget("ns", "d", 1))
	wantEvent(t, next(t, ch2), watch.Added, "d", d.ResourceVersion)
}

func TestWatchSelectors(t *testing.T) {
	f := newFixture(t, true, false)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := strconv.FormatInt(currentRev(t), 10)
	ch, err := f.st.Watch(wctx, "", WatchOptions{ListOptions: ListOptions{ResourceVersion: start, LabelSelector: mustSelector(t, "app=x")}})
	if err != nil {
		t.Fatal(err)
	}
	byName, err := f.st.Watch(wctx, "", WatchOptions{ListOptions: ListOptions{ResourceVersion: start, FieldSelector: fields.OneTermEqualSelector("metadata.name", "w")}})
	if err != nil {
		t.Fatal(err)
	}
	w := widget("ns", "w", 1)
	w = mustCreate(t, f, w)                    // not matching label
	mustCreate(t, f, widget("ns", "other", 1)) // matches neither
	w.Labels = map[string]string{"app": "x"}   // starts matching: ADDED
	w1, err := put(ctx, f.st, w, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantEvent(t, next(t, ch), watch.Added, "w", w1.ResourceVersion)
	w1.Spec.Size = 2 // still matching: MODIFIED
	w2, err := put(ctx, f.st, w1, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantEvent(t, next(t, ch), watch.Modified, "w", w2.ResourceVersion)
	w2.Labels = nil // stops matching: DELETED with the old state at the new RV
	w3, err := put(ctx, f.st, w2, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ev := next(t, ch)
	wantEvent(t, ev, watch.Deleted, "w", w3.ResourceVersion)
	if ev.Object.Labels["app"] != "x" {
		t.Fatalf("DELETED by selector should carry the last matching state: %+v", ev.Object.Labels)
	}
	if _, _, err := f.st.Delete(ctx, "ns", "w", DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	noEvent(t, ch, 300*time.Millisecond)

	// The field-selector watch saw only "w": ADDED, then 3 MODIFIED, DELETED.
	for _, typ := range []watch.EventType{watch.Added, watch.Modified, watch.Modified, watch.Modified, watch.Deleted} {
		wantEvent(t, next(t, byName), typ, "w", "")
	}
	noEvent(t, byName, 100*time.Millisecond)
}

func TestWatchCompacted(t *testing.T) {
	f := newFixture(t, true, false)
	a := mustCreate(t, f, widget("ns", "a", 1))
	a.Spec.Size = 2
	if _, err := put(ctx, f.st, a, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	compactTo(t, currentRev(t))
	// Revision 1 is older than any watch cache's window too (a cache
	// serves what its window holds whatever etcd compacted, as
	// kube-apiserver's does: TestCacheWindowOutlivesCompaction).
	ch, err := f.st.Watch(ctx, "ns", WatchOptions{ListOptions: ListOptions{ResourceVersion: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	ev := next(t, ch)
	if ev.Type != watch.Error || ev.Status == nil || ev.Status.Code != 410 || ev.Status.Reason != metav1.StatusReasonExpired ||
		ev.Status.Message != "The resourceVersion for the provided watch is too old." || ev.Status.Kind != "Status" {
		t.Fatalf("event = %s %+v", ev.Type, ev.Status)
	}
	select {
	case _, ok := <-ch:
		if ok {
			t.Fatal("watch not closed after ERROR")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("watch not closed after ERROR")
	}
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestWatchConsumerGoneDoesNotLeak(t *testing.T) {
	f := newFixture(t, true, false)
	wctx, cancel := context.WithCancel(ctx)
	ch, err := f.st.Watch(wctx, "ns", WatchOptions{ListOptions: ListOptions{ResourceVersion: strconv.FormatInt(currentRev(t), 10)}})
	if err != nil {
		t.Fatal(err)
	}
	// Fill more than the buffer without reading, then cancel.
	for i := 0; i < watchBuffer+20; i++ {
		mustCreate(t, f, widget("ns", fmt.Sprintf("w%d", i), 1))
	}
	cancel()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("channel not closed after cancel")
		}
	}
}

func TestCompactor(t *testing.T) {
	f := newFixture(t, true, false)
	a := mustCreate(t, f, widget("ns", "a", 1))
	a.Spec.Size = 2
	if _, err := put(ctx, f.st, a, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go f.b.RunCompactor(cctx, 100*time.Millisecond)
	// A second replica on the same etcd and prefix does not fight.
	go f.b.RunCompactor(cctx, 100*time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := f.st.List(ctx, "ns", ListOptions{ResourceVersion: a.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
		if err != nil {
			wantStatus(t, err, 410, metav1.StatusReasonExpired, "")
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("revision never compacted")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := f.b.Ready(ctx); err != nil {
		t.Fatal(err)
	}
}
