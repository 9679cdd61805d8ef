package server

import (
	"crypto/tls"
	"net"
	"sync"
	"time"

	"golang.org/x/net/http2"
)

// x/net/http2 writes a response's HEADERS frame and flushes it before it
// takes the response's DATA from the handler (the handler waits for the
// headers to be written, since it owns the header map), so a response of
// one write costs two TLS records and two system calls on the server and
// as many reads on the client. headerHoldConn sits between the HTTP/2
// server and the TLS connection and holds a write that ends with a
// HEADERS frame still expecting DATA: the next write, the DATA in nearly
// every case, carries it, or, when none comes within holdHeadersFor (a
// watch's headers before its first event), a timer writes it alone.
const (
	maxHeld  = 8 << 10 // writes larger than this pass at once
	keptHeld = 2 << 10 // the buffer a connection keeps between holds
)

// holdHeadersFor is how long headers wait for their DATA on new
// connections (a variable for tests on loaded machines).
var holdHeadersFor = time.Millisecond

type headerHoldConn struct {
	net.Conn // written to; a *resetLimitedConn over the TLS connection

	holdFor time.Duration

	mu    sync.Mutex
	held  []byte
	timer *time.Timer // writes held when it fires
	err   error       // of a write the timer made, returned by the next
}

func newHeaderHoldConn(c net.Conn, holdFor time.Duration) *headerHoldConn {
	h := &headerHoldConn{Conn: c, holdFor: holdFor}
	h.timer = time.AfterFunc(time.Hour, h.release)
	h.timer.Stop()
	return h
}

// Write implements net.Conn.
func (c *headerHoldConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	if len(c.held) == 0 {
		if len(p) <= maxHeld && endsWithOpenHeaders(p) {
			c.held = append(c.held, p...)
			c.timer.Reset(c.holdFor)
			return len(p), nil
		}
		return c.Conn.Write(p)
	}
	c.timer.Stop()
	if len(p) > maxHeld {
		// A large frame (a list's) fills TLS records of its own: the
		// held frames go first, as they would have, and p is not copied.
		_, err := c.Conn.Write(c.held)
		c.held = c.held[:0]
		if err != nil {
			c.err = err
			return 0, err
		}
		return c.Conn.Write(p)
	}
	c.held = append(c.held, p...)
	_, err := c.Conn.Write(c.held)
	c.held = c.held[:0]
	if cap(c.held) > keptHeld {
		c.held = nil // an idle connection keeps no large buffer
	}
	if err != nil {
		c.err = err
		return 0, err
	}
	return len(p), nil
}

// release writes what is held; the timer calls it.
func (c *headerHoldConn) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.held) == 0 || c.err != nil {
		return
	}
	_, c.err = c.Conn.Write(c.held)
	c.held = c.held[:0]
}

// Close writes what is held, for a second at most, and closes. When a
// write is under way (to a client that may read no more), it closes at
// once: closing is what ends that write.
func (c *headerHoldConn) Close() error {
	if c.mu.TryLock() {
		c.timer.Stop()
		if len(c.held) > 0 && c.err == nil {
			_ = c.Conn.SetWriteDeadline(time.Now().Add(time.Second))
			_, c.err = c.Conn.Write(c.held)
		}
		c.held = nil
		c.mu.Unlock()
	}
	return c.Conn.Close()
}

// ConnectionState is the TLS connection's, which the HTTP/2 server reads
// (http.Request.TLS, the client's certificate).
func (c *headerHoldConn) ConnectionState() tls.ConnectionState {
	if s, ok := c.Conn.(interface{ ConnectionState() tls.ConnectionState }); ok {
		return s.ConnectionState()
	}
	return tls.ConnectionState{}
}

// endsWithOpenHeaders reports whether b is whole HTTP/2 frames, the last
// a HEADERS frame that ends its header block but not its stream.
func endsWithOpenHeaders(b []byte) bool {
	for len(b) >= frameHeaderLen {
		n := frameHeaderLen + (int(b[0])<<16 | int(b[1])<<8 | int(b[2]))
		if n > len(b) {
			return false
		}
		if n == len(b) {
			flags := http2.Flags(b[4])
			return http2.FrameType(b[3]) == http2.FrameHeaders &&
				flags.Has(http2.FlagHeadersEndHeaders) && !flags.Has(http2.FlagHeadersEndStream)
		}
		b = b[n:]
	}
	return false
}

const frameHeaderLen = 9

var _ net.Conn = (*headerHoldConn)(nil)
