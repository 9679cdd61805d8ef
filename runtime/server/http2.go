package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"sync"
	"time"

	"golang.org/x/net/http2"

	"github.com/kubeforge/kubeforge/runtime/workers"
)

// HTTP/2 rapid reset (CVE-2023-44487 and its variants): a client that
// opens streams and cancels them at once costs the server a handler start
// each while holding nothing of its own, so Go's concurrent-stream limit
// never trips (an attack run sent 100,000 such streams on one connection
// in 3.6 s for 9 CPU-seconds; with 400,000, Go's own limit closed it after
// stream 547,567). Each connection gets a budget of RST_STREAM frames from
// the client, refilled over time: a client that cancels more gets a
// GOAWAY with ENHANCE_YOUR_CALM, as Go answers other floods, and the
// connection ends. Ordinary clients cancel a stream now and then (a
// timed-out request, a watch an informer restarts), far below the refill.
// A front proxy (the main cluster's aggregator, in aggregated mode) carries
// every user's cancellations on few connections: its budget is
// proxyResetFactor times larger.
const (
	resetBurst       = 200 // resets a connection may send at once
	resetPerSecond   = 20  // resets added back to its budget per second
	proxyResetFactor = 10
)

// serveHTTP2 makes srv serve HTTP/2 (golang.org/x/net/http2, the code
// net/http bundles) over connections whose client resets are counted;
// isProxy, when set, tells a front proxy's connection by its TLS state.
//
// No setting sizes what the server writes: neither http2.Server nor
// http.HTTP2Config has one. DATA frames are at most the client's
// SETTINGS_MAX_FRAME_SIZE (16 KiB from Go's client, client-go and
// browsers; MaxReadFrameSize is what the server accepts), each written to
// the TLS connection whole (its 4 KiB buffer is bypassed for larger
// frames), and crypto/tls sends each record of at most 16 KiB with its own
// system call. Big responses are written in pieces that fill a record
// with their frame header (endpoints' listFrameWrite). A response's
// HEADERS frame waits for its first DATA and goes out in the same record
// (headerHoldConn).
func serveHTTP2(srv *http.Server, isProxy func(tls.ConnectionState) bool) error {
	h2 := &http2.Server{}
	if err := http2.ConfigureServer(srv, h2); err != nil {
		return fmt.Errorf("configure http/2: %w", err)
	}
	srv.TLSNextProto[http2.NextProtoTLS] = func(hs *http.Server, c *tls.Conn, h http.Handler) {
		// net/http passes the connection's base context through an
		// unexported-by-convention method of h, as x/net's own hook reads it.
		var ctx context.Context
		if bc, ok := h.(interface{ BaseContext() context.Context }); ok {
			ctx = bc.BaseContext()
		}
		rc := newResetLimitedConn(c, time.Now)
		if isProxy != nil && isProxy(c.ConnectionState()) {
			rc.burst, rc.rate = proxyResetFactor*resetBurst, proxyResetFactor*resetPerSecond
			rc.tokens = rc.burst
		}
		h2.ServeConn(newHeaderHoldConn(rc, holdHeadersFor), &http2.ServeConnOpts{Context: ctx, Handler: onWorker(h), BaseConfig: hs})
	}
	return nil
}

// onWorker serves h's requests on workers.Go's long-lived goroutines
// rather than on the goroutine the HTTP/2 server starts for each (whose
// stack would grow again on every request). The request's goroutine
// waits, and a panic or runtime.Goexit of the handler happens there again,
// so the HTTP/2 server's recovery (http.ErrAbortHandler resets the
// stream) sees it as if the handler had run there.
func onWorker(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		j := workerJobs.Get().(*workerJob)
		j.h, j.w, j.r = h, w, r
		workers.Go(j.fn)
		v := <-j.done
		j.h, j.w, j.r = nil, nil, nil
		// The worker is done with j: its last act was the send.
		workerJobs.Put(j)
		switch {
		case v == errGoexit:
			runtime.Goexit()
		case v != nil:
			panic(v)
		}
	})
}

// workerJob is one request handed to a worker. Jobs are reused, with
// their function value and channel, which onWorker otherwise made for
// every request.
type workerJob struct {
	h    http.Handler
	w    http.ResponseWriter
	r    *http.Request
	done chan any
	fn   func() // j.run, bound once
}

var workerJobs = sync.Pool{New: func() any {
	j := &workerJob{done: make(chan any, 1)}
	j.fn = j.run
	return j
}}

// run serves the job's request and sends what ended it: nil, the panic
// value, or errGoexit.
func (j *workerJob) run() {
	returned := false
	defer func() {
		v := recover()
		if v == nil && !returned {
			v = errGoexit
		}
		j.done <- v
	}()
	j.h.ServeHTTP(j.w, j.r)
	returned = true
}

// errGoexit tells a request's goroutine that its handler called
// runtime.Goexit.
var errGoexit = errors.New("handler called runtime.Goexit")

// resetLimitedConn reads a server-side HTTP/2 connection and counts the
// client's RST_STREAM frames by walking the frame headers (9 bytes each)
// as they pass; past the budget, Read fails with a connection error,
// which the HTTP/2 server answers with GOAWAY(ENHANCE_YOUR_CALM).
type resetLimitedConn struct {
	*tls.Conn
	now func() time.Time

	mu      sync.Mutex
	preface int // bytes of the client preface still to pass
	hdr     [9]byte
	hdrLen  int
	payload int // bytes of the current frame's payload still to pass
	tokens  float64
	burst   float64 // the budget's size
	rate    float64 // its refill per second
	last    time.Time
	tripped bool
}

func newResetLimitedConn(c *tls.Conn, now func() time.Time) *resetLimitedConn {
	return &resetLimitedConn{Conn: c, now: now, preface: len(http2.ClientPreface), tokens: resetBurst, burst: resetBurst, rate: resetPerSecond, last: now()}
}

// Read implements net.Conn.
func (c *resetLimitedConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	tripped := c.tripped
	c.mu.Unlock()
	if tripped {
		return 0, http2.ConnectionError(http2.ErrCodeEnhanceYourCalm)
	}
	n, err := c.Conn.Read(p)
	if c.scan(p[:n]) {
		return 0, http2.ConnectionError(http2.ErrCodeEnhanceYourCalm)
	}
	return n, err
}

// scan walks b, the next bytes from the client, and reports whether it
// holds a reset over the budget.
func (c *resetLimitedConn) scan(b []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(b) > 0 && !c.tripped {
		switch {
		case c.preface > 0:
			k := min(c.preface, len(b))
			c.preface -= k
			b = b[k:]
		case c.payload > 0:
			k := min(c.payload, len(b))
			c.payload -= k
			b = b[k:]
		default:
			k := copy(c.hdr[c.hdrLen:], b)
			c.hdrLen += k
			b = b[k:]
			if c.hdrLen < len(c.hdr) {
				return false
			}
			c.hdrLen = 0
			c.payload = int(c.hdr[0])<<16 | int(c.hdr[1])<<8 | int(c.hdr[2])
			if http2.FrameType(c.hdr[3]) == http2.FrameRSTStream && !c.takeToken() {
				c.tripped = true
			}
		}
	}
	return c.tripped
}

// takeToken spends one reset of the budget, refilled at c.rate up to
// c.burst; false when none is left.
func (c *resetLimitedConn) takeToken() bool {
	now := c.now()
	c.tokens = min(c.burst, c.tokens+now.Sub(c.last).Seconds()*c.rate)
	c.last = now
	if c.tokens < 1 {
		return false
	}
	c.tokens--
	return true
}

var _ net.Conn = (*resetLimitedConn)(nil)

// isFrontProxy reports whether a connection's client certificate is the
// front proxy's (the request-header CA and allowed names in force now).
func (s *Server) isFrontProxy(cs tls.ConnectionState) bool {
	if s.sec == nil || s.sec.authn == nil || s.sec.authn.FrontProxy == nil {
		return false
	}
	return s.sec.authn.FrontProxy().IsProxy(cs.PeerCertificates)
}
