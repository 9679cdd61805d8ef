// Package filters is the HTTP filter chain in front of every request: panic
// recovery, request info, metrics, logging, max in-flight, timeouts and the
// request body limit. Rejections are Kubernetes Status objects.
//
// Chain returns the handlers in the order kube-apiserver applies them
// (outermost first): the body deadline, recovery, request info, logging and metrics,
// authentication, audit, impersonation, authorization, body read,
// in-flight limit, timeout, body limit, then the server's own handler.
// Unlike kube-apiserver, a request is authorized and its body received
// before it takes an in-flight slot: a client that sends its body slowly,
// or may not act at all, holds none.
package filters

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforge/kubeforge/runtime/audit"
	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/request"
	"github.com/kubeforge/kubeforge/runtime/workers"
)

// Options configures Chain.
type Options struct {
	Logger *slog.Logger
	// RequestTimeout bounds every request but watches (0: no limit).
	RequestTimeout time.Duration
	// MaxRequestBodyBytes bounds request bodies (0: no limit).
	MaxRequestBodyBytes int64
	// MaxMutatingInFlight and MaxReadOnlyInFlight bound concurrent requests
	// (0: no limit). Watches are not counted.
	MaxMutatingInFlight int
	MaxReadOnlyInFlight int
	// InFlight, when set, is told when a counted request starts (+1) and
	// ends (-1); kind is "mutating" or "readOnly".
	InFlight func(kind string, delta float64)
	// Observe, when set, records requests the resource handlers do not
	// record themselves: non-resource requests (discovery, OpenAPI, health)
	// and requests a filter answered (429, 413, 504, 500).
	Observe func(verb, resource, subresource string, code int, d time.Duration)
	// Authenticate, when set, authenticates every request (401 when it
	// fails); Authorizer, when set, authorizes every request and
	// impersonation (403 when denied).
	Authenticate Authenticate
	Authorizer   auth.Authorizer
	// Auditor, when set, writes the audit log (WithAudit).
	Auditor *audit.Auditor
	// EndWith, when set, gives for a request the context whose end ends
	// it, with that context's cause, or nil: the server's etcd liveness
	// for the requests that need etcd, whose storage calls then fail at
	// once (503) rather than wait out their timeout. WithTimeout watches it
	// for the requests it bounds (see WithTimeoutEnding), and marks them
	// (request.State.EndWatched) so that the server derives no context of
	// its own for them. The context must hold no values.
	EndWith func(*http.Request) context.Context
}

// Chain wraps h with every filter.
func Chain(h http.Handler, o Options) http.Handler {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	h = WithBodyLimit(h, o.MaxRequestBodyBytes)
	h = WithTimeoutEnding(h, o.RequestTimeout, o.Logger, o.EndWith)
	h = WithMaxInFlight(h, o.MaxMutatingInFlight, o.MaxReadOnlyInFlight, o.InFlight)
	h = WithBodyRead(h, o.MaxRequestBodyBytes, o.RequestTimeout)
	if o.Authorizer != nil {
		h = WithAuthorization(h, o.Authorizer, o.Logger)
		h = WithImpersonation(h, o.Authorizer, o.Logger)
	}
	h = WithAudit(h, o.Auditor)
	if o.Authenticate != nil {
		h = WithAuthentication(h, o.Authenticate, o.Auditor, o.Logger)
	}
	h = WithLoggingAndMetrics(h, o.Logger, o.Observe)
	h = WithRequestInfo(h)
	h = WithPanicRecovery(h, o.Logger)
	h = WithBodyDeadline(h, o.RequestTimeout)
	h = WithResponseHeaders(h)
	return h
}

// MarkHandled records that the response to req was written outside the
// resource handlers (which record their own metrics), so the metrics filter
// counts it.
func MarkHandled(req *http.Request) {
	if st := request.StateFrom(req.Context()); st != nil {
		st.MarkHandled()
	}
}

// WriteStatus writes a failure Status with code, reason and message, and
// marks the request handled by a filter.
func WriteStatus(w http.ResponseWriter, req *http.Request, code int, reason metav1.StatusReason, message string, details *metav1.StatusDetails) {
	MarkHandled(req)
	st := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Message:  message,
		Reason:   reason,
		Details:  details,
		Code:     int32(code),
	}
	body, err := json.Marshal(&st)
	if err != nil {
		http.Error(w, message, code)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write(append(body, '\n'))
}

// WithPanicRecovery turns a panic into a 500 InternalError Status, logs it
// with its stack, and keeps the server serving.
func WithPanicRecovery(next http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rw := &recordingWriter{ResponseWriter: w}
		defer func() {
			if v := recover(); v != nil {
				handlePanic(rw, req, v, log)
			}
		}()
		next.ServeHTTP(rw, req)
	})
}

func handlePanic(w *recordingWriter, req *http.Request, v any, log *slog.Logger) {
	if v == http.ErrAbortHandler { //nolint:errorlint // sentinel by identity, as net/http does
		// The handler asked to abort the response: nothing to log or write.
		MarkHandled(req)
		return
	}
	log.Error("panic serving request", "method", req.Method, "path", req.URL.Path, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	if w.wroteHeader {
		// Too late for a Status; the client sees a truncated response.
		MarkHandled(req)
		return
	}
	WriteStatus(w, req, http.StatusInternalServerError, metav1.StatusReasonInternalError,
		"Internal error occurred: the server could not complete the request", nil)
}

// WithBodyLimit rejects bodies over max with a 413 RequestEntityTooLarge
// Status when Content-Length says so, and limits the body reader otherwise:
// reading past max fails with *http.MaxBytesError, which handlers turn into
// a 413.
func WithBodyLimit(next http.Handler, max int64) http.Handler {
	if max <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.ContentLength > max {
			WriteStatus(w, req, http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge,
				fmt.Sprintf("Request entity too large: limit is %d", max), nil)
			return
		}
		if hasBody(req) {
			req.Body = http.MaxBytesReader(w, req.Body, max)
		}
		next.ServeHTTP(w, req)
	})
}

// WithMaxInFlight bounds concurrent mutating and read-only requests; over
// the limit the answer is 429 TooManyRequests with Retry-After: 1.
// Long-running requests (watches) are not counted. No user but
// system:masters may hold more than half of a kind's slots, so one client
// cannot starve the others (API Priority and Fairness's aim, in brief).
func WithMaxInFlight(next http.Handler, maxMutating, maxReadOnly int, inflight func(string, float64)) http.Handler {
	mutating, readOnly := newSlots(maxMutating), newSlots(maxReadOnly)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ri := request.InfoOf(req)
		if ri.IsLongRunning() {
			next.ServeHTTP(w, req)
			return
		}
		slots, kind := readOnly, "readOnly"
		if ri.IsMutating() {
			slots, kind = mutating, "mutating"
		}
		if slots != nil {
			u, _ := auth.UserFrom(req.Context())
			name, ok := slots.acquire(u)
			if !ok {
				w.Header().Set("Retry-After", "1")
				WriteStatus(w, req, http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests,
					"Too many requests, please try again later.", &metav1.StatusDetails{RetryAfterSeconds: 1})
				return
			}
			defer slots.release(name)
		}
		if inflight != nil {
			inflight(kind, 1)
			defer inflight(kind, -1)
		}
		next.ServeHTTP(w, req)
	})
}

// WithLoggingAndMetrics logs every request at debug level and records the
// requests the resource handlers do not record (see Options.Observe).
func WithLoggingAndMetrics(next http.Handler, log *slog.Logger, observe func(verb, resource, subresource string, code int, d time.Duration)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		start := time.Now()
		st := request.StateFrom(req.Context())
		if st == nil {
			// Without WithRequestInfo in front (tests).
			req = withState(req)
			st = request.StateFrom(req.Context())
		}
		// The recovery filter's writer, when it is the next one out (the
		// chain's order): both only record the code and whether the
		// header went out.
		rw, ok := w.(*recordingWriter)
		if !ok {
			rw = &recordingWriter{ResponseWriter: w}
		}
		defer func() {
			d := time.Since(start)
			code := rw.code
			if code == 0 {
				code = http.StatusOK
			}
			ri := &st.Info
			if observe != nil && (!ri.IsResourceRequest || st.Handled()) {
				resource := ri.Resource
				if !ri.IsResourceRequest {
					resource = ""
				}
				observe(MetricsVerb(ri, req), resource, ri.Subresource, code, d)
			}
			if log.Enabled(req.Context(), slog.LevelDebug) {
				// Guarded: the arguments (the URI, boxed values) cost
				// allocations even when the line is not written.
				log.Debug("request", "method", req.Method, "uri", req.URL.RequestURI(), "code", code, "duration", d, "remote", req.RemoteAddr, "userAgent", req.UserAgent())
			}
		}()
		next.ServeHTTP(rw, req)
	})
}

// WithTimeout bounds every request but watches to timeout. The handler runs
// with a context that ends at the deadline; its response is buffered up to
// timeoutBufferLimit bytes, and if it is not done in time the client gets a
// 504 Timeout Status and whatever the handler writes later is dropped. A
// larger response (a big list, streamed by its handler) is passed through
// once past the limit instead of being held whole in memory; a timeout after
// that point can only cut the body short (the status line has gone out).
func WithTimeout(next http.Handler, timeout time.Duration, log *slog.Logger) http.Handler {
	return WithTimeoutEnding(next, timeout, log, nil)
}

// WithTimeoutEnding is WithTimeout whose handler context also ends, with
// its cause, when the context endWith gives for the request ends (see
// Options.EndWith); the handler's answer to that (a 503) is still
// written, as the timeout's 504 is if it does not come in time.
//
// Such a context is not derived from the request's and then from the end
// (a context, its registration with both and a copy of the request each,
// per request): the handler's context takes the end's cancellation and
// the request's values, and the filter, which waits for the handler
// anyway, ends it when the request's own context ends (the client left).
func WithTimeoutEnding(next http.Handler, timeout time.Duration, log *slog.Logger, endWith func(*http.Request) context.Context) http.Handler {
	if timeout <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ri := request.InfoOf(req)
		if ri.IsLongRunning() {
			next.ServeHTTP(w, req)
			return
		}
		parent := req.Context()
		var parentDone <-chan struct{}
		if endWith != nil {
			if end := endWith(req); end != nil {
				parentDone = parent.Done()
				parent = &endContext{Context: end, req: parent}
				if st := request.StateFrom(req.Context()); st != nil {
					st.SetEndWatched()
				}
			}
		}
		ctx, cancel := context.WithTimeout(parent, timeout)
		defer cancel()
		req = req.WithContext(ctx)
		j := timeoutJobs.Get().(*timeoutJob)
		j.next, j.req, j.log = next, req, log
		tw := &j.tw
		tw.w = w
		// On a worker: a new goroutine's stack would grow again, by
		// copying, on the way down the handler (runtime/workers).
		workers.Go(j.fn)
		switch j.await(ctx, parentDone) {
		case handlerReturned:
			tw.mu.Lock()
			if !tw.passThrough {
				tw.commit()
				_, _ = w.Write(tw.buf.Bytes())
			}
			tw.mu.Unlock()
			// The handler is done: nothing uses j any more.
			j.release()
		case requestEnded:
			tw.mu.Lock()
			tw.timedOut = true
			tw.mu.Unlock()
		case deadlinePassed:
			tw.mu.Lock()
			tw.timedOut = true
			started := tw.passThrough
			tw.mu.Unlock()
			if !started {
				WriteStatus(w, req, http.StatusGatewayTimeout, metav1.StatusReasonTimeout,
					fmt.Sprintf("Timeout: request did not complete within the allowed duration of %s", timeout),
					&metav1.StatusDetails{RetryAfterSeconds: 1})
			}
		}
	})
}

// What ended WithTimeout's wait.
type awaited int

const (
	handlerReturned awaited = iota
	// requestEnded: the request's context ended (the client left); nothing
	// is written.
	requestEnded
	deadlinePassed
)

// await waits for j's handler, or the end of its context ctx. parentDone
// is the request's own context's end when ctx does not derive from it
// (WithTimeoutEnding).
func (j *timeoutJob) await(ctx context.Context, parentDone <-chan struct{}) awaited {
	select {
	case <-j.done:
		return handlerReturned
	case <-parentDone:
		// The filter's deferred cancel ends ctx as it returns.
		return requestEnded
	case <-ctx.Done():
	}
	if ctx.Err() == context.DeadlineExceeded {
		return deadlinePassed
	}
	if parentDone == nil {
		return requestEnded
	}
	return j.awaitAnswer(ctx, parentDone)
}

// awaitAnswer waits, up to ctx's deadline, for the handler to answer the
// end of its context by the end context (a 503).
func (j *timeoutJob) awaitAnswer(ctx context.Context, parentDone <-chan struct{}) awaited {
	d, _ := ctx.Deadline()
	t := time.NewTimer(time.Until(d))
	defer t.Stop()
	select {
	case <-j.done:
		return handlerReturned
	case <-parentDone:
		return requestEnded
	case <-t.C:
		return deadlinePassed
	}
}

// endContext is WithTimeoutEnding's parent of a handler's context: the end
// context's cancellation (Done, Err, and for the context package, its
// cancelCtx, which the handler's context registers with) and the
// request's values and deadline.
type endContext struct {
	context.Context // the end
	req             context.Context
}

func (c *endContext) Deadline() (time.Time, bool) { return c.req.Deadline() }

// Value answers from the end context first: it holds no values but the
// context package's own key for its cancelCtx.
func (c *endContext) Value(key any) any {
	if v := c.Context.Value(key); v != nil {
		return v
	}
	return c.req.Value(key)
}

func (c *endContext) String() string { return "filters.endContext" }

// timeoutBufferLimit is how much of a response WithTimeout holds back
// before passing the rest through.
const timeoutBufferLimit = 256 << 10

// timeoutDirectWrite: a write this large passes through at once. Streamed
// lists write pieces sized to fill one TLS record with their HTTP/2 frame
// header (runtime/endpoints/listencode.go); gathering them here only to
// write them again in other sizes copied every byte and split records. A
// timeout after it cuts the body short, as it does past the limit (and as
// kube-apiserver's, which buffers nothing, does after any write).
const timeoutDirectWrite = 16<<10 - 9

type timeoutWriter struct {
	mu       sync.Mutex
	header   http.Header
	buf      bytes.Buffer
	code     int
	timedOut bool
	// w is the real writer; passThrough is set once the header and the
	// buffer went out to it and writes go straight there.
	w           http.ResponseWriter
	passThrough bool
}

// timeoutJob is one request WithTimeout hands to a worker, with its
// buffered response. Jobs are reused (the header map, the buffer, the
// function value and the channel would otherwise be made, and the buffer
// grown, for every request); only a job whose handler returned in time
// goes back: after a timeout the handler may still be writing to it.
type timeoutJob struct {
	next http.Handler
	req  *http.Request
	log  *slog.Logger
	tw   timeoutWriter
	rec  recordingWriter
	done chan struct{} // one value once the handler returned
	fn   func()        // j.run, bound once
}

var timeoutJobs = sync.Pool{New: func() any {
	j := &timeoutJob{done: make(chan struct{}, 1)}
	j.tw.header = make(http.Header)
	j.fn = j.run
	return j
}}

// run serves the job's request into its timeoutWriter; a panic becomes a
// 500 Status there.
func (j *timeoutJob) run() {
	defer func() { j.done <- struct{}{} }()
	j.rec = recordingWriter{ResponseWriter: &j.tw}
	defer func() {
		if v := recover(); v != nil {
			handlePanic(&j.rec, j.req, v, j.log)
		}
	}()
	j.next.ServeHTTP(&j.rec, j.req)
}

// pooledBufferMax: a larger buffer (a list's) is dropped rather than kept
// in the pool.
const pooledBufferMax = 64 << 10

// release resets j and returns it to the pool.
func (j *timeoutJob) release() {
	tw := &j.tw
	clear(tw.header)
	if tw.buf.Cap() > pooledBufferMax {
		tw.buf = bytes.Buffer{}
	}
	tw.buf.Reset()
	tw.code, tw.timedOut, tw.passThrough, tw.w = 0, false, false, nil
	j.next, j.req, j.log, j.rec = nil, nil, nil, recordingWriter{}
	timeoutJobs.Put(j)
}

func (tw *timeoutWriter) Header() http.Header { return tw.header }

// commit copies the header and writes the status line to the real writer.
// The caller holds mu.
func (tw *timeoutWriter) commit() {
	dst := tw.w.Header()
	for k, vv := range tw.header {
		dst[k] = vv
	}
	code := tw.code
	if code == 0 {
		code = http.StatusOK
	}
	tw.w.WriteHeader(code)
}

func (tw *timeoutWriter) Write(p []byte) (int, error) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut {
		return 0, http.ErrHandlerTimeout
	}
	if tw.code == 0 {
		tw.code = http.StatusOK
	}
	if tw.passThrough {
		return tw.w.Write(p)
	}
	if len(p) < timeoutDirectWrite && tw.buf.Len()+len(p) <= timeoutBufferLimit {
		return tw.buf.Write(p)
	}
	tw.passThrough = true
	tw.commit()
	if tw.buf.Len() > 0 {
		if _, err := tw.w.Write(tw.buf.Bytes()); err != nil {
			return 0, err
		}
	}
	if tw.buf.Cap() > pooledBufferMax {
		tw.buf = bytes.Buffer{} // not held for the rest of a long list
	}
	tw.buf.Reset()
	return tw.w.Write(p)
}

func (tw *timeoutWriter) WriteHeader(code int) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut || tw.code != 0 {
		return
	}
	tw.code = code
}

// recordingWriter remembers the status code and whether headers went out,
// and passes Flush through (watches need it).
type recordingWriter struct {
	http.ResponseWriter
	code        int
	wroteHeader bool
}

func (rw *recordingWriter) WriteHeader(code int) {
	if !rw.wroteHeader {
		rw.code = code
		rw.wroteHeader = true
	}
	rw.ResponseWriter.WriteHeader(code)
}

func (rw *recordingWriter) Write(p []byte) (int, error) {
	if !rw.wroteHeader {
		rw.code = http.StatusOK
		rw.wroteHeader = true
	}
	return rw.ResponseWriter.Write(p)
}

// Flush flushes when the underlying writer can.
func (rw *recordingWriter) Flush() {
	if f, ok := rw.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (rw *recordingWriter) Unwrap() http.ResponseWriter { return rw.ResponseWriter }

// Hijack takes the connection (a watch upgraded to a WebSocket) and
// records 101, which the log, the metrics and the audit event report, as
// kube-apiserver's do. A method of its own, not only Unwrap: go-restful
// asks the writer it is given whether it is a Hijacker.
func (rw *recordingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(rw.ResponseWriter).Hijack()
	if err == nil && !rw.wroteHeader {
		rw.code, rw.wroteHeader = http.StatusSwitchingProtocols, true
	}
	return conn, brw, err
}

// MetricsVerb is the verb label of apiserver_request_total, as
// kube-apiserver (and the resource handlers) write it: GET, LIST, WATCH,
// POST, PUT, PATCH, DELETE, DELETECOLLECTION; the HTTP method for
// non-resource requests.
func MetricsVerb(ri *request.Info, req *http.Request) string {
	if !ri.IsResourceRequest {
		return strings.ToUpper(req.Method)
	}
	switch ri.Verb {
	case "create":
		return "POST"
	case "update":
		return "PUT"
	}
	return strings.ToUpper(ri.Verb)
}

// slots are the in-flight places of one kind of request, counted per user.
type slots struct {
	mu      sync.Mutex
	max     int
	used    int
	perUser map[string]int
}

func newSlots(max int) *slots {
	if max <= 0 {
		return nil
	}
	return &slots{max: max, perUser: map[string]int{}}
}

// userShare is the most one user may hold: half, at least one.
func (s *slots) userShare() int { return max(1, s.max/2) }

// acquire takes a slot for u; ok is false when none is free or u holds
// its share already (system:masters has no share, as kube's exempt
// priority level). The slot is given back with release(name).
func (s *slots) acquire(u *auth.User) (name string, ok bool) {
	if u != nil {
		name = u.Name
	}
	exempt := u.InGroup(auth.SystemPrivilegedGroup)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used >= s.max || !exempt && s.perUser[name] >= s.userShare() {
		return "", false
	}
	s.used++
	s.perUser[name]++
	return name, true
}

// release gives back a slot acquire took for the user named name.
func (s *slots) release(name string) {
	s.mu.Lock()
	s.used--
	if s.perUser[name]--; s.perUser[name] == 0 {
		delete(s.perUser, name)
	}
	s.mu.Unlock()
}

// WithBodyRead receives the whole body of a request (up to max bytes,
// else 413) within timeout, before the request takes an in-flight slot:
// a client that sends its body slowly, or never finishes it, gets a 408
// Status when the time is up and holds no slot meanwhile.
func WithBodyRead(next http.Handler, max int64, timeout time.Duration) http.Handler {
	if max <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !hasBody(req) || request.InfoOf(req).IsLongRunning() {
			next.ServeHTTP(w, req)
			return
		}
		if req.ContentLength > max {
			WriteStatus(w, req, http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge,
				fmt.Sprintf("Request entity too large: limit is %d", max), nil)
			return
		}
		rc := http.NewResponseController(w)
		if timeout > 0 {
			_ = rc.SetReadDeadline(time.Now().Add(timeout))
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, max))
		if err != nil {
			// The rest of the body is not worth waiting for: the deadline
			// stays, so the server does not try to drain it.
			w.Header().Set("Connection", "close")
		} else if timeout > 0 {
			_ = rc.SetReadDeadline(time.Time{})
		}
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			WriteStatus(w, req, http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge,
				fmt.Sprintf("Request entity too large: limit is %d", max), nil)
			return
		case errors.Is(err, os.ErrDeadlineExceeded):
			WriteStatus(w, req, http.StatusRequestTimeout, metav1.StatusReasonTimeout,
				fmt.Sprintf("the request body was not received within %s", timeout), nil)
			return
		case err != nil:
			WriteStatus(w, req, http.StatusBadRequest, metav1.StatusReasonBadRequest,
				fmt.Sprintf("error reading the request body: %v", err), nil)
			return
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		next.ServeHTTP(w, req)
	})
}

// WithBodyDeadline bounds the wait for a request body, whoever sends it
// and however the request ends: the body must arrive within timeout, and
// a body the handlers did not read to its end (a 401, a 403, any early
// answer) is not waited for at all. Go's HTTP/1.1 server otherwise reads up
// to 256 KiB of an unread body after the handler returns, with no deadline,
// before it sends the response: a client that never sends its body kept
// the connection and its goroutine forever. Here the read deadline is
// moved to now once the handler is done, so that drain fails at once, the
// response goes out with "Connection: close" and the connection is closed;
// over HTTP/2 the stream is reset instead.
func WithBodyDeadline(next http.Handler, timeout time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !hasBody(req) {
			next.ServeHTTP(w, req)
			return
		}
		rc := http.NewResponseController(w)
		if timeout > 0 {
			// Go's HTTP/1.1 server lifts it once the body is read (its
			// background read, which notices the client leave, has none).
			_ = rc.SetReadDeadline(time.Now().Add(timeout))
		}
		body := &eofBody{ReadCloser: req.Body}
		req.Body = body
		next.ServeHTTP(w, req)
		if !body.eof.Load() && req.ContentLength <= maxPostHandlerDrain {
			_ = rc.SetReadDeadline(time.Now())
		}
	})
}

// hasBody reports whether req may carry a body (request.HasBody).
func hasBody(req *http.Request) bool { return request.HasBody(req) }

// maxPostHandlerDrain is how much of an unread body Go's HTTP/1.1 server
// reads after the handler (its maxPostHandlerReadBytes). A body announced
// larger is not drained at all: the server answers, half-closes and gives
// the client half a second to read the answer before closing. Moving the
// deadline there as well made the close abrupt, and a client still
// writing such a body (a 413) got a connection reset instead of its
// answer.
const maxPostHandlerDrain = 256 << 10

// eofBody records whether its reader reached the end of the body.
type eofBody struct {
	io.ReadCloser
	eof atomic.Bool
}

func (b *eofBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.eof.Store(true)
	}
	return n, err
}
