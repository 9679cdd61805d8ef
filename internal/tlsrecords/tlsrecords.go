// Package tlsrecords counts the TLS records a connection reads, for tests
// and benchmarks that check how a server cuts what it writes into records
// (each one sealed, and sent with a system call of its own).
package tlsrecords

import (
	"net"
	"sync/atomic"
)

// Conn is a client's connection, below its tls.Conn, that counts the
// records and bytes the server sends by walking the 5-byte record headers
// (type, version, length) as they are read. Records and Bytes may be nil.
type Conn struct {
	net.Conn
	Records, Bytes *atomic.Int64

	hdr    [5]byte
	hdrLen int
	body   int // bytes of the current record still to pass
}

func (c *Conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if c.Bytes != nil {
		c.Bytes.Add(int64(n))
	}
	for b := p[:n]; len(b) > 0; {
		if c.body > 0 {
			k := min(c.body, len(b))
			c.body -= k
			b = b[k:]
			continue
		}
		k := copy(c.hdr[c.hdrLen:], b)
		c.hdrLen += k
		b = b[k:]
		if c.hdrLen == len(c.hdr) {
			c.hdrLen = 0
			c.body = int(c.hdr[3])<<8 | int(c.hdr[4])
			if c.Records != nil {
				c.Records.Add(1)
			}
		}
	}
	return n, err
}
