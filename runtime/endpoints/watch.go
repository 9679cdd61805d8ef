package endpoints

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubeforge/kubeforge/runtime/jsonencode"
	"github.com/kubeforge/kubeforge/runtime/request"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// watchEvent is one line of a watch stream.
type watchEvent struct {
	Type   watch.EventType `json:"type"`
	Object any             `json:"object"`
}

// watchTimeout is timeoutSeconds, or a random duration in
// [MinRequestTimeout, 2*MinRequestTimeout) as kube-apiserver does. A
// negative timeoutSeconds is not one: serveWatch ends that stream after
// its headers.
func (h *Handler[T, L]) watchTimeout(opts metainternalversion.ListOptions) time.Duration {
	if opts.TimeoutSeconds != nil && *opts.TimeoutSeconds > 0 {
		return time.Duration(*opts.TimeoutSeconds) * time.Second
	}
	return time.Duration(float64(h.opts.MinRequestTimeout) * (rand.Float64() + 1))
}

// serveWatch streams events as JSON lines, one flushed event per line:
// 200 and headers first, then until the timeout, the client leaving, the
// server stopping (Options.Stop) or the store ending the watch. Errors
// before the first byte are Status responses; once streaming, the store
// reports them as ERROR events.
func (h *Handler[T, L]) serveWatch(w *recorder, r *http.Request, ns string, opts metainternalversion.ListOptions, f outputFormat) error {
	flusher, ok := w.ResponseWriter.(http.Flusher)
	if !ok {
		return apierrors.NewInternalError(errNoFlusher)
	}
	if f.as == asTable {
		if _, err := tableOptions(r); err != nil {
			return err
		}
	}
	if f.as == asPartialObjectMetadataList {
		return notAcceptableMsg("you requested PartialObjectMetadataList, but a watch streams single objects")
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.watchTimeout(opts))
	defer cancel()
	if h.opts.Stop != nil {
		go func() {
			select {
			case <-h.opts.Stop:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	// kube-apiserver's defaulting with WatchList on (its default): a
	// watch from "" or "0" without sendInitialEvents is
	// sendInitialEvents=true, so one that allows bookmarks gets the
	// initial-events-end BOOKMARK after the current state.
	metainternalversion.SetListOptionsDefaults(&opts, true)
	ch, err := h.store.Watch(ctx, ns, storage.WatchOptions{
		ListOptions:       toStorageList(opts),
		SendInitialEvents: opts.SendInitialEvents,
		AllowBookmarks:    opts.AllowWatchBookmarks,
	})
	if err != nil {
		return err
	}
	if request.IsWebSocket(r) {
		return h.serveWatchWS(ctx, cancel, w, r, ch, opts, f)
	}

	w.Header().Set("Content-Type", mediaJSON)
	w.Header().Set("Transfer-Encoding", "chunked")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()
	if opts.TimeoutSeconds != nil && *opts.TimeoutSeconds < 0 {
		// kube-apiserver's timer for a negative duration has fired by the
		// time the stream starts: 200 and an empty stream, not a watch of
		// up to an hour.
		return nil
	}

	headers := true
	// What a shared event's encoding is remembered under (writeEvent).
	memoKey := "json:" + h.gvk.String() + ":" + f.as + ":" + f.metaVersion
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-ch:
			if !ok {
				return nil
			}
			if err := h.writeEvent(w, r, f, memoKey, ev, &headers); err != nil {
				if !errors.Is(err, errWriteEvent) {
					h.log("encode watch event", r, err)
				}
				return nil
			}
			if len(ch) == 0 {
				flusher.Flush()
			}
		}
	}
}

// writeEvent writes one line of the stream; errWriteEvent when the client
// is gone.
func (h *Handler[T, L]) writeEvent(w io.Writer, r *http.Request, f outputFormat, memoKey string, ev storage.Event[T], headers *bool) error {
	out := watchEvent{Type: ev.Type}
	if ev.Type == watch.Error {
		st := ev.Status
		if st == nil {
			st = &apierrors.NewInternalError(errWatchFailed).ErrStatus
		}
		full := *st
		full.Kind, full.APIVersion = "Status", "v1"
		if full.Status == "" {
			full.Status = metav1.StatusFailure
		}
		out.Object = &full
	} else if ev.Memo != nil && f.as != asTable {
		// An event shared by many watchers (the watch cache): its object
		// is encoded once per version and format, and each watcher's line
		// is built around those bytes exactly as json.Marshal of
		// watchEvent would write it.
		enc, err := ev.Memo.Do(memoKey, func() (any, error) {
			obj, err := h.convertObject(r, f, ev.Object, false)
			if err != nil {
				return nil, err
			}
			return jsonencode.Marshal(obj)
		})
		if err != nil {
			return err
		}
		// Written in pieces: the shared bytes are not copied per watcher.
		b := enc.([]byte)
		var head [32]byte
		line := append(append(append(head[:0], `{"type":"`...), ev.Type...), `","object":`...)
		for _, part := range [][]byte{line, b, []byte("}\n")} {
			if _, err := w.Write(part); err != nil {
				return errWriteEvent
			}
		}
		return nil
	} else {
		obj, err := h.convertObject(r, f, ev.Object, *headers)
		if err != nil {
			return err
		}
		if f.as == asTable {
			*headers = false
		}
		out.Object = obj
	}
	data, err := jsonencode.Marshal(out)
	if err != nil {
		return err
	}
	if _, err := w.Write(append(data, '\n')); err != nil {
		return errWriteEvent
	}
	return nil
}

var (
	errWriteEvent  = errors.New("write watch event: the client is gone")
	errNoFlusher   = errors.New("unable to start watch: the response writer cannot flush")
	errWatchFailed = errors.New("the watch failed")
)
