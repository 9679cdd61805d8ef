package storage

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

const (
	expiredWatchMsg = "The resourceVersion for the provided watch is too old."
	// InitialEventsAnnotation marks the BOOKMARK that ends the initial
	// events of a watch with sendInitialEvents=true.
	InitialEventsAnnotation = "k8s.io/initial-events-end"
	watchBuffer             = 100
)

func validateWatchOptions(o WatchOptions) field.ErrorList {
	var errs field.ErrorList
	match := o.ResourceVersionMatch
	p := field.NewPath("resourceVersionMatch")
	if o.SendInitialEvents != nil {
		if match != metav1.ResourceVersionMatchNotOlderThan {
			errs = append(errs, field.Forbidden(p, fmt.Sprintf("sendInitialEvents requires setting resourceVersionMatch to %s", metav1.ResourceVersionMatchNotOlderThan)))
		}
		if *o.SendInitialEvents && !o.AllowBookmarks {
			errs = append(errs, field.Forbidden(field.NewPath("allowWatchBookmarks"), "sendInitialEvents requires setting allowWatchBookmarks to true"))
		}
	}
	if match != "" {
		if o.SendInitialEvents == nil {
			errs = append(errs, field.Forbidden(p, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
		}
		if match != metav1.ResourceVersionMatchNotOlderThan {
			errs = append(errs, field.NotSupported(p, match, []string{string(metav1.ResourceVersionMatchNotOlderThan)}))
		}
	}
	if o.Continue != "" {
		errs = append(errs, field.Forbidden(field.NewPath("continue"), "continue is forbidden for watch"))
	}
	return errs
}

// Watch streams events of namespace ("" for all). The channel closes when
// ctx is done or etcd ends the watch; a compacted start revision yields one
// ERROR event (410 Expired) first.
func (st *Store[T, L]) Watch(ctx context.Context, namespace string, opts WatchOptions) (<-chan Event[T], error) {
	if err := st.checkNamespace(namespace); err != nil {
		return nil, err
	}
	if errs := validateWatchOptions(opts); len(errs) > 0 {
		return nil, apierrors.NewInvalid(listOptionsKind, "", errs)
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
	keyPrefix := st.listPrefix(namespace)

	var initial []T
	var startRev int64 // first revision streamed live
	sendBookmark := false
	switch {
	case opts.SendInitialEvents != nil && *opts.SendInitialEvents:
		items, listRev, _, _, err := st.list(ctx, keyPrefix, keyPrefix, 0, false, 0, pred)
		if err != nil {
			return nil, st.etcdError("watch", namespace, err)
		}
		if rv > listRev {
			return nil, tooLargeRV(rv, listRev)
		}
		initial, startRev, sendBookmark = items, listRev+1, true
	case opts.SendInitialEvents != nil: // false: no initial events
		if rv == 0 {
			cur, err := st.currentRevision(ctx)
			if err != nil {
				return nil, st.etcdError("watch", namespace, err)
			}
			startRev = cur + 1
		} else {
			startRev = rv + 1
		}
	case rv == 0: // legacy: "" or "0" sends the current state first
		items, listRev, _, _, err := st.list(ctx, keyPrefix, keyPrefix, 0, opts.ResourceVersion == "0", 0, pred)
		if err != nil {
			return nil, st.etcdError("watch", namespace, err)
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
	go func() {
		defer close(out)
		defer cancel()
		send := func(ev Event[T]) bool {
			select {
			case out <- ev:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for _, obj := range initial {
			if !send(Event[T]{Type: watch.Added, Object: obj}) {
				return
			}
		}
		if sendBookmark {
			if !send(Event[T]{Type: watch.Bookmark, Object: st.bookmark(startRev-1, true)}) {
				return
			}
		}
		var tick <-chan time.Time
		if opts.AllowBookmarks {
			t := time.NewTicker(st.b.opts.BookmarkInterval)
			defer t.Stop()
			tick = t.C
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick:
				// The answer arrives on wch as a progress notification.
				_ = st.b.client.RequestProgress(wctx)
			case resp, ok := <-wch:
				if !ok {
					return
				}
				if resp.CompactRevision != 0 || isCompacted(resp.Err()) {
					send(errorEvent[T](apierrors.NewResourceExpired(expiredWatchMsg)))
					return
				}
				if err := resp.Err(); err != nil {
					if ctx.Err() == nil {
						send(errorEvent[T](st.etcdError("watch", namespace, err)))
					}
					return
				}
				if resp.IsProgressNotify() {
					if opts.AllowBookmarks && resp.Header.Revision > 0 {
						if !send(Event[T]{Type: watch.Bookmark, Object: st.bookmark(resp.Header.Revision, false)}) {
							return
						}
					}
					continue
				}
				for _, e := range resp.Events {
					ev, ok, err := st.convertEvent(ctx, e, pred)
					if err != nil {
						send(errorEvent[T](err))
						return
					}
					if ok && !send(ev) {
						return
					}
				}
			}
		}
	}()
	return out, nil
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
func (st *Store[T, L]) bookmark(rev int64, initialEnd bool) T {
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
func (st *Store[T, L]) convertEvent(ctx context.Context, e *clientv3.Event, pred predicate) (Event[T], bool, error) {
	var ev Event[T]
	if st.tx != nil {
		kv, _, err := st.fromStorage(ctx, e.Kv)
		if err != nil {
			return ev, false, err
		}
		prev, _, err := st.fromStorage(ctx, e.PrevKv)
		if err != nil {
			return ev, false, err
		}
		e = &clientv3.Event{Type: e.Type, Kv: kv, PrevKv: prev}
	}
	rev := e.Kv.ModRevision
	if e.Type == clientv3.EventTypeDelete {
		if e.PrevKv == nil {
			return ev, false, nil
		}
		old, err := st.decode(e.PrevKv.Value, rev)
		if err != nil {
			return ev, false, err
		}
		ok, err := pred.matches(old)
		if err != nil || !ok {
			return ev, false, err
		}
		return Event[T]{Type: watch.Deleted, Object: old}, true, nil
	}
	cur, err := st.decode(e.Kv.Value, rev)
	if err != nil {
		return ev, false, err
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
		if old, err = st.decode(e.PrevKv.Value, rev); err != nil {
			return ev, false, err
		}
		if oldMatch, err = pred.matches(old); err != nil {
			return ev, false, err
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
