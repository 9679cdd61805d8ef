package storage

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

const (
	expiredWatchMsg = "The resourceVersion for the provided watch is too old."
	// InitialEventsAnnotation marks the BOOKMARK that ends the initial
	// events of a watch with sendInitialEvents=true.
	InitialEventsAnnotation = "k8s.io/initial-events-end"
	// watchBuffer is the capacity of a watch's channel: small, since the
	// pump holds what the client has not taken, within its bounds.
	watchBuffer = 8
)

// Watch streams events of namespace ("" for all). The channel closes when
// ctx is done or etcd ends the watch; a compacted start revision yields one
// ERROR event (410 Expired) first.
func (st *Store[T, L]) Watch(ctx context.Context, namespace string, opts WatchOptions) (<-chan Event[T], error) {
	if err := st.checkNamespace(namespace); err != nil {
		return nil, err
	}
	if err := checkOptions(opts.ListOptions, &opts); err != nil {
		return nil, err
	}
	pred, err := st.newPredicate(opts.ListOptions)
	if err != nil {
		return nil, err
	}
	var rv int64
	if opts.ResourceVersion != "" {
		if rv, err = parseRV(opts.ResourceVersion); err != nil {
			return nil, err
		}
	}
	return st.reads.watch(ctx, namespace, opts, pred, rv)
}

// watch is Watch served from etcd: its own etcd watch, with the initial
// state (when asked for) read first.
func (st etcdReader[T, L]) watch(ctx context.Context, namespace string, opts WatchOptions, pred predicate, rv int64) (<-chan Event[T], error) {
	keyPrefix := st.listPrefix(namespace)

	var initial []T
	var startRev int64 // first revision streamed live
	sendBookmark := false
	switch {
	case opts.SendInitialEvents != nil && *opts.SendInitialEvents:
		items, listRev, _, _, err := st.rangeRead(ctx, keyPrefix, keyPrefix, 0, false, 0, pred)
		if err != nil {
			return nil, st.etcdError(ctx, "watch", namespace, err)
		}
		if rv > listRev {
			return nil, tooLargeRV(rv, listRev)
		}
		// The BOOKMARK that ends them goes only to a watcher that allows
		// bookmarks, as kube's watch cache sends it.
		initial, startRev, sendBookmark = items, listRev+1, opts.AllowBookmarks
	case opts.SendInitialEvents != nil: // false: no initial events
		if rv == 0 {
			cur, err := st.currentRevision(ctx)
			if err != nil {
				return nil, st.etcdError(ctx, "watch", namespace, err)
			}
			startRev = cur + 1
		} else {
			startRev = rv + 1
		}
	case rv == 0: // legacy: "" or "0" sends the current state first
		items, listRev, _, _, err := st.rangeRead(ctx, keyPrefix, keyPrefix, 0, opts.ResourceVersion == "0", 0, pred)
		if err != nil {
			return nil, st.etcdError(ctx, "watch", namespace, err)
		}
		initial, startRev = items, listRev+1
	default:
		startRev = rv + 1
	}

	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	start := time.Now()
	wch := st.b.client.Watch(wctx, keyPrefix, clientv3.WithPrefix(), clientv3.WithRev(startRev), clientv3.WithPrevKV(), clientv3.WithProgressNotify())
	st.observe("watch", start)
	out := make(chan Event[T], watchBuffer)
	go st.pump(ctx, wctx, cancel, wch, out, namespace, opts, pred, initial, sendBookmark, startRev)
	return out, nil
}

// Bounds of the events a watch holds for a client that reads slower than
// they happen: past either the watch ends (the client resumes from its
// last resourceVersion, as with kube-apiserver's watch cache). The etcd
// watch is drained all the time, so nothing piles up out of sight in the
// etcd client, whose buffer has no limit.
const (
	maxPendingEvents = 1000
	maxPendingBytes  = 8 << 20
)

// pump sends the initial events, then the live ones, to out; it reads wch
// whether or not out has room, holding at most maxPendingEvents and
// maxPendingBytes (stored sizes) of events not yet taken.
func (st etcdReader[T, L]) pump(ctx, wctx context.Context, cancel context.CancelFunc, wch clientv3.WatchChan, out chan<- Event[T],
	namespace string, opts WatchOptions, pred predicate, initial []T, sendBookmark bool, startRev int64) {
	defer close(out)
	defer cancel()
	var queue []Event[T]
	var sizes []int
	pendingBytes := 0
	for _, obj := range initial {
		queue, sizes = append(queue, Event[T]{Type: watch.Added, Object: obj}), append(sizes, 0)
	}
	if sendBookmark {
		queue, sizes = append(queue, Event[T]{Type: watch.Bookmark, Object: st.bookmark(startRev-1, true)}), append(sizes, 0)
	}
	initialLeft := len(queue) // the initial events are not held against the bounds
	// enqueue adds a live event; false when the client is too far behind.
	enqueue := func(ev Event[T], size int) bool {
		queue, sizes = append(queue, ev), append(sizes, size)
		pendingBytes += size
		return len(queue)-initialLeft <= maxPendingEvents && pendingBytes <= maxPendingBytes
	}
	// finish delivers what is queued and a last event (ERROR), then ends.
	finish := func(last *Event[T]) {
		if last != nil {
			queue = append(queue, *last)
		}
		for _, ev := range queue {
			select {
			case out <- ev:
			case <-ctx.Done():
				return
			}
		}
	}
	var tick <-chan time.Time
	if opts.AllowBookmarks {
		t := time.NewTicker(st.b.opts.BookmarkInterval)
		defer t.Stop()
		tick = t.C
	}
	for {
		var sendCh chan<- Event[T]
		var next Event[T]
		if len(queue) > 0 {
			sendCh, next = out, queue[0]
		}
		select {
		case <-ctx.Done():
			return
		case sendCh <- next:
			pendingBytes -= sizes[0]
			queue, sizes = queue[1:], sizes[1:]
			if initialLeft > 0 {
				initialLeft--
			}
		case <-tick:
			// The answer arrives on wch as a progress notification.
			_ = st.b.client.RequestProgress(wctx)
		case resp, ok := <-wch:
			if !ok {
				finish(nil)
				return
			}
			if resp.CompactRevision != 0 || isCompacted(resp.Err()) {
				ev := errorEvent[T](apierrors.NewResourceExpired(expiredWatchMsg))
				finish(&ev)
				return
			}
			if err := resp.Err(); err != nil {
				if ctx.Err() == nil {
					ev := errorEvent[T](st.etcdError(ctx, "watch", namespace, err))
					finish(&ev)
				}
				return
			}
			if resp.IsProgressNotify() {
				// For a client, a bookmark only when nothing is waiting
				// (it resumes from the queued events' resourceVersions
				// anyway); one that waits for a revision gets each.
				if opts.AllowBookmarks && resp.Header.Revision > 0 && (len(queue) == 0 || opts.Progress) {
					enqueue(Event[T]{Type: watch.Bookmark, Object: st.bookmark(resp.Header.Revision, false)}, 0)
				}
				continue
			}
			for _, e := range resp.Events {
				ev, ok, err := st.convertEvent(ctx, e, pred)
				if err != nil {
					ev := errorEvent[T](err)
					finish(&ev)
					return
				}
				if !ok {
					continue
				}
				size := len(e.Kv.Value)
				if e.PrevKv != nil {
					size += len(e.PrevKv.Value)
				}
				if !enqueue(ev, size) {
					// Too slow a reader: end the watch without the events
					// it could not take; it resumes from the last one it
					// got.
					if st.b.opts.SlowWatcher != nil {
						st.b.opts.SlowWatcher(st.resourceName())
					}
					return
				}
			}
		}
	}
}

func errorEvent[T resource.Object](err error) Event[T] {
	status := metav1.Status{Status: metav1.StatusFailure, Message: err.Error(), Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError}
	if se, ok := err.(apierrors.APIStatus); ok {
		status = se.Status()
	}
	status.Kind, status.APIVersion = "Status", "v1"
	var ev Event[T]
	ev.Type = watch.Error
	ev.Status = &status
	return ev
}

// bookmark is an empty object carrying only the resourceVersion.
func (st *access[T, L]) bookmark(rev int64, initialEnd bool) T {
	obj := st.s.New()
	obj.GetObjectKind().SetGroupVersionKind(st.storageGVK())
	obj.SetResourceVersion(strconv.FormatInt(rev, 10))
	if initialEnd {
		obj.SetAnnotations(map[string]string{InitialEventsAnnotation: "true"})
	}
	return obj
}

// convertEvent turns an etcd event into a watch event, applying the
// selectors the way kube does: an object that stops matching is DELETED,
// one that starts matching is ADDED.
func (st etcdReader[T, L]) convertEvent(ctx context.Context, e *clientv3.Event, pred predicate) (Event[T], bool, error) {
	var ev Event[T]
	if st.tx != nil {
		kvs := []*mvccpb.KeyValue{e.Kv}
		if e.PrevKv != nil {
			kvs = append(kvs, e.PrevKv)
		}
		st.fromStorageAll(ctx, kvs)
		e = &clientv3.Event{Type: e.Type, Kv: kvs[0], PrevKv: e.PrevKv}
		if e.PrevKv != nil {
			e.PrevKv = kvs[1]
		}
	}
	// An unreadable value is reported and its event left out: the watch
	// goes on serving the rest of the collection.
	rev := e.Kv.ModRevision
	if e.Type == clientv3.EventTypeDelete {
		if e.PrevKv == nil {
			return ev, false, nil
		}
		old, ok := st.readable(&mvccpb.KeyValue{Key: e.PrevKv.Key, Value: e.PrevKv.Value, ModRevision: rev})
		if !ok {
			return ev, false, nil
		}
		ok, err := pred.matches(old)
		if err != nil || !ok {
			return ev, false, err
		}
		return Event[T]{Type: watch.Deleted, Object: old}, true, nil
	}
	cur, ok := st.readable(e.Kv)
	if !ok {
		return ev, false, nil
	}
	curMatch, err := pred.matches(cur)
	if err != nil {
		return ev, false, err
	}
	if e.IsCreate() {
		return Event[T]{Type: watch.Added, Object: cur}, curMatch, nil
	}
	if pred.empty() {
		return Event[T]{Type: watch.Modified, Object: cur}, true, nil
	}
	oldMatch := false
	var old T
	if e.PrevKv != nil {
		// An unreadable previous value did not match: it was never sent.
		if prev, err := st.decode(e.PrevKv.Value, rev); err == nil {
			old = prev
			if oldMatch, err = pred.matches(old); err != nil {
				return ev, false, err
			}
		}
	}
	switch {
	case curMatch && oldMatch:
		return Event[T]{Type: watch.Modified, Object: cur}, true, nil
	case curMatch:
		return Event[T]{Type: watch.Added, Object: cur}, true, nil
	case oldMatch:
		return Event[T]{Type: watch.Deleted, Object: old}, true, nil
	}
	return ev, false, nil
}
