// Package compression gzips large responses for clients that accept it, as
// kube-apiserver does (its APIResponseCompression gate, on by default since
// 1.16): a response body over Threshold bytes, to a request whose
// Accept-Encoding names gzip, is sent with Content-Encoding: gzip at level
// 1. client-go, kubectl and Go's HTTP client ask for it unless told not to
// (rest.Config.DisableCompression, kubectl --disable-compression), and read
// it transparently; a list's JSON shrinks several times (5.4x for
// BenchmarkListTLS's ConfigMaps), which a real network repays. Watches are
// never compressed, as on kube-apiserver.
package compression

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
)

// Threshold is kube-apiserver's: a body of at most this many bytes is sent
// as it is, where compressing costs more than it saves.
const Threshold = 128 << 10

// Accepts reports whether r accepts a gzip response. As on kube-apiserver,
// a comma-separated token that is exactly "gzip" counts; a quality value
// ("gzip;q=0.5") is not read, so such a token does not.
func Accepts(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for v != "" {
			token, rest, _ := strings.Cut(v, ",")
			if strings.TrimSpace(token) == "gzip" {
				return true
			}
			v = rest
		}
	}
	return false
}

// frameWrite is what the compressed stream is gathered into before it goes
// to the response: one HTTP/2 DATA frame's payload at the default 16 KiB
// frame size, less its 9-byte header, so each write fills one frame and
// one TLS record. The compressor alone writes a few hundred bytes at a
// time.
const frameWrite = 16<<10 - 9

// Writer compresses what is written to it into a response. Its headers go
// out before the first byte.
type Writer struct {
	p *pooled
}

type pooled struct {
	gz  *gzip.Writer
	buf *bufio.Writer
}

var writers = sync.Pool{New: func() any {
	// BestSpeed is kube-apiserver's level 1; NewWriterLevel fails only for
	// a level out of range.
	gz, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return &pooled{gz: gz, buf: bufio.NewWriterSize(nil, frameWrite)}
}}

// Start sets w's compression headers, writes its status code and returns
// the writer the body goes to; Close finishes the stream. The caller has
// set Content-Type.
func Start(w http.ResponseWriter, code int) *Writer {
	h := w.Header()
	h.Set("Content-Encoding", "gzip")
	h.Add("Vary", "Accept-Encoding")
	h.Del("Content-Length")
	w.WriteHeader(code)
	p := writers.Get().(*pooled)
	p.buf.Reset(w)
	p.gz.Reset(p.buf)
	return &Writer{p: p}
}

// Write compresses p into the response.
func (z *Writer) Write(p []byte) (int, error) {
	return z.p.gz.Write(p)
}

// Close ends the compressed stream and writes what is left of it. The
// Writer is not used again.
func (z *Writer) Close() error {
	p := z.p
	err := p.gz.Close()
	if ferr := p.buf.Flush(); err == nil {
		err = ferr
	}
	// Neither keeps the response past this point.
	p.gz.Reset(io.Discard)
	p.buf.Reset(nil)
	writers.Put(p)
	z.p = nil
	return err
}

// WriteBody writes a whole body with code: compressed when r accepts gzip
// and the parts together exceed Threshold, else as they are. The caller
// has set Content-Type.
func WriteBody(w http.ResponseWriter, r *http.Request, code int, parts ...[]byte) {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if n <= Threshold || r == nil || !Accepts(r) {
		w.WriteHeader(code)
		for _, p := range parts {
			if _, err := w.Write(p); err != nil {
				return // the client went away
			}
		}
		return
	}
	z := Start(w, code)
	for _, p := range parts {
		if _, err := z.Write(p); err != nil {
			break
		}
	}
	_ = z.Close() // an error: the client went away
}

// AcceptsWeighted reports whether r accepts gzip with a quality above
// zero. kube-apiserver's OpenAPI v2 handler (kube-openapi's, through a
// gzip handler) reads quality values where its API handlers do not.
func AcceptsWeighted(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for v != "" {
			var token string
			token, v, _ = strings.Cut(v, ",")
			name, params, _ := strings.Cut(token, ";")
			if strings.TrimSpace(name) != "gzip" {
				continue
			}
			q := 1.0
			for params != "" {
				var p string
				p, params, _ = strings.Cut(params, ";")
				k, val, _ := strings.Cut(p, "=")
				if strings.TrimSpace(k) == "q" {
					f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
					if err != nil {
						f = 0
					}
					q = f
				}
			}
			return q > 0
		}
	}
	return false
}

// Gzip returns b compressed, for a document compressed once and served
// many times.
func Gzip(b []byte) []byte {
	var out bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&out, gzip.BestSpeed)
	_, _ = gz.Write(b) // a bytes.Buffer does not fail
	_ = gz.Close()
	return out.Bytes()
}
