package server

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// recordingConn is a net.Conn that keeps each Write apart.
type recordingConn struct {
	net.Conn // nil: only what the tests call
	mu       sync.Mutex
	writes   [][]byte
	closed   bool
	err      error // returned by Write when set
}

func (c *recordingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	c.writes = append(c.writes, bytes.Clone(p))
	return len(p), nil
}

func (c *recordingConn) got() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.writes...)
}

func (c *recordingConn) SetWriteDeadline(time.Time) error { return nil }
func (c *recordingConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	return nil
}

// blockingConn's writes block until it is closed.
type blockingConn struct {
	net.Conn // nil: only what the tests call
	once     sync.Once
	closed   chan struct{}
	writing  chan struct{} // gets a value when a write starts
}

func (c *blockingConn) Write(p []byte) (int, error) {
	c.writing <- struct{}{}
	<-c.closed
	return 0, net.ErrClosed
}

func (c *blockingConn) SetWriteDeadline(time.Time) error { return nil }
func (c *blockingConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// frames encodes HTTP/2 frames as the server's framer writes them.
func frames(t *testing.T, write func(fr *http2.Framer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := write(http2.NewFramer(&b, nil)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func headersFrame(t *testing.T, stream uint32, endStream, endHeaders bool) []byte {
	var block bytes.Buffer
	if err := hpack.NewEncoder(&block).WriteField(hpack.HeaderField{Name: ":status", Value: "200"}); err != nil {
		t.Fatal(err)
	}
	return frames(t, func(fr *http2.Framer) error {
		return fr.WriteHeaders(http2.HeadersFrameParam{StreamID: stream, BlockFragment: block.Bytes(), EndStream: endStream, EndHeaders: endHeaders})
	})
}

func dataFrame(t *testing.T, stream uint32, n int, endStream bool) []byte {
	return frames(t, func(fr *http2.Framer) error { return fr.WriteData(stream, endStream, make([]byte, n)) })
}

func TestEndsWithOpenHeaders(t *testing.T) {
	open := headersFrame(t, 1, false, true)
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	ping := frames(t, func(fr *http2.Framer) error { return fr.WritePing(true, [8]byte{}) })
	for _, c := range []struct {
		name string
		b    []byte
		want bool
	}{
		{"headers expecting data", open, true},
		{"after other frames", cat(dataFrame(t, 3, 100, true), ping, open), true},
		{"headers ending the stream", headersFrame(t, 1, true, true), false},
		{"headers continued", headersFrame(t, 1, false, false), false},
		{"data after the headers", cat(open, dataFrame(t, 1, 10, true)), false},
		{"data alone", dataFrame(t, 1, 10, false), false},
		{"a frame cut short", open[:len(open)-1], false},
		{"a frame header cut short", cat(ping, open[:5]), false},
		{"a longer frame than written", cat(open, []byte{0}), false},
		{"nothing", nil, false},
	} {
		if got := endsWithOpenHeaders(c.b); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestHeaderHoldConn: a write ending with open headers waits for the next
// write and goes out with it in one, or alone after its hold, or at
// Close; every other write passes at once, and a failed timed write fails
// the next.
func TestHeaderHoldConn(t *testing.T) {
	open := headersFrame(t, 1, false, true)
	data := dataFrame(t, 1, 500, true)
	const long, short = time.Hour, time.Millisecond // a test's gaps stay under long

	rc := &recordingConn{}
	c := newHeaderHoldConn(rc, long)
	if n, err := c.Write(open); n != len(open) || err != nil {
		t.Fatalf("held write: %d, %v", n, err)
	}
	if got := rc.got(); len(got) != 0 {
		t.Fatalf("headers written at once: %d writes", len(got))
	}
	if n, err := c.Write(data); n != len(data) || err != nil {
		t.Fatalf("data write: %d, %v", n, err)
	}
	got := rc.got()
	if len(got) != 1 || !bytes.Equal(got[0], append(bytes.Clone(open), data...)) {
		t.Fatalf("want the headers and data in one write, got %d writes", len(got))
	}

	// A large write after held headers: the headers, then it.
	if _, err := c.Write(open); err != nil {
		t.Fatal(err)
	}
	large := dataFrame(t, 1, maxHeld+1, false)
	if _, err := c.Write(large); err != nil {
		t.Fatal(err)
	}
	got = rc.got()
	if len(got) != 3 || !bytes.Equal(got[1], open) || !bytes.Equal(got[2], large) {
		t.Fatalf("want the held headers and the large write apart, got %d writes", len(got))
	}

	// Nothing follows: the timer writes the headers alone.
	c.holdFor = short
	if _, err := c.Write(open); err != nil {
		t.Fatal(err)
	}
	c.holdFor = long
	deadline := time.Now().Add(5 * time.Second)
	for len(rc.got()) < 4 && time.Now().Before(deadline) {
		time.Sleep(short / 4)
	}
	if got := rc.got(); len(got) != 4 || !bytes.Equal(got[3], open) {
		t.Fatalf("held headers not written alone after %v: %d writes", short, len(got))
	}

	// Other writes pass, and so do writes too large to hold.
	big := append(dataFrame(t, 3, maxHeld, false), open...)
	for _, p := range [][]byte{data, big} {
		n := len(rc.got())
		if _, err := c.Write(p); err != nil {
			t.Fatal(err)
		}
		if got := rc.got(); len(got) != n+1 || !bytes.Equal(got[n], p) {
			t.Fatalf("a write of %d bytes was held", len(p))
		}
	}

	// Close writes what is held before closing.
	if _, err := c.Write(open); err != nil {
		t.Fatal(err)
	}
	n := len(rc.got())
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if got := rc.got(); len(got) != n+1 || !bytes.Equal(got[n], open) || !rc.closed {
		t.Fatalf("close: %d writes after %d, closed %v", len(got), n, rc.closed)
	}

	// Close does not wait for a write that never ends (a client that reads
	// no more): closing ends it.
	bc := &blockingConn{closed: make(chan struct{}), writing: make(chan struct{}, 1)}
	c = newHeaderHoldConn(bc, short)
	if _, err := c.Write(open); err != nil {
		t.Fatal(err)
	}
	<-bc.writing // the timer's write, blocked
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for a blocked write")
	}

	// A timed write that fails fails the next write.
	rc = &recordingConn{err: errors.New("broken pipe")}
	c = newHeaderHoldConn(rc, short)
	if _, err := c.Write(open); err != nil {
		t.Fatal(err)
	}
	timedFailed := func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.err != nil
	}
	for deadline := time.Now().Add(5 * time.Second); !timedFailed(); time.Sleep(short) {
		if time.Now().After(deadline) {
			t.Fatal("the timer's failed write was not recorded")
		}
	}
	if _, err := c.Write(data); err == nil {
		t.Fatal("a write after a failed timed write succeeded")
	}
}

// TestResponseInOneWrite: over serveHTTP2, a small response's HEADERS and
// DATA reach the TLS connection in one write, and a streamed response's
// headers reach the client before its body is written.
func TestResponseInOneWrite(t *testing.T) {
	// Longer than the scheduler delays a loaded machine (or the race
	// detector) puts between the headers and the data.
	old := holdHeadersFor
	holdHeadersFor = 100 * time.Millisecond
	defer func() { holdHeadersFor = old }()

	bodyAfterHeaders := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/stream" {
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-bodyAfterHeaders
		}
		io.WriteString(w, `{"kind":"Status","status":"Success"}`)
	}))
	if err := serveHTTP2(srv.Config, nil); err != nil {
		t.Fatal(err)
	}
	ln := &countingListener{Listener: srv.Listener}
	srv.Listener = ln
	srv.TLS = srv.Config.TLSConfig
	srv.StartTLS()
	defer srv.Close()
	c := srv.Client()
	c.Transport.(*http.Transport).ForceAttemptHTTP2 = true
	c.Timeout = 30 * time.Second // headers held for good would block a get
	get := func(path string) *http.Response {
		t.Helper()
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		if resp.ProtoMajor != 2 {
			t.Fatalf("%s, want HTTP/2", resp.Proto)
		}
		return resp
	}
	read := func(resp *http.Response) {
		t.Helper()
		defer resp.Body.Close()
		if b, err := io.ReadAll(resp.Body); err != nil || !bytes.Contains(b, []byte("Success")) {
			t.Fatalf("body %q, %v", b, err)
		}
	}
	read(get("/")) // the connection's settings and window updates
	time.Sleep(2 * holdHeadersFor)

	// Sequential requests on the connection: each response in one write
	// (two without the hold).
	const requests = 40
	before := ln.writes.Load()
	for range requests {
		read(get("/"))
	}
	time.Sleep(2 * holdHeadersFor) // a timed write would land here
	writes := ln.writes.Load() - before
	t.Logf("%d writes for %d responses", writes, requests)
	if writes > requests+requests/10 {
		t.Fatalf("%d writes for %d responses, want one each", writes, requests)
	}

	// A streamed response: its headers come before its body is written.
	resp := get("/stream")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	close(bodyAfterHeaders)
	read(resp)
}

// countingListener counts the writes to the connections it accepts (the
// TLS records' system calls).
type countingListener struct {
	net.Listener
	writes atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, n: &l.writes}, nil
}

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.n.Add(1)
	return c.Conn.Write(p)
}
