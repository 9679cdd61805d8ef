package endpoints

import (
	"bytes"
	"fmt"
	"net/http"
	"sync"

	"github.com/kubeforge/kubeforge/runtime/compression"
	"github.com/kubeforge/kubeforge/runtime/jsonencode"
)

// listStreamChunk is how much encoded JSON a streamed list buffers before
// writing it out. The first chunk is encoded before the status line, so an
// encoding error there is still answered with a Status.
const listStreamChunk = 64 << 10

// emptyItems and nilItems end the JSON of a generated list without items:
// TypeMeta, ListMeta and then Items, the last field (nil when SetItems
// leaves an empty slice nil).
var (
	emptyItems = []byte(`"items":[]}`)
	nilItems   = []byte(`"items":null}`)
)

// listFrameWrite is how much of a list one write to an HTTP/2 response
// carries: Go's HTTP/2 server sends each write as DATA frames of at most
// the peer's SETTINGS_MAX_FRAME_SIZE (16 KiB from Go clients, client-go
// and browsers), and writes each frame, its 9-byte header and payload,
// with one write to the TLS connection, which seals at most 16 KiB of
// plaintext per record and sends each record with its own system call. A
// 16 KiB frame therefore became two records and two write calls (16,384
// bytes, then 9); a payload 9 bytes short of it fills one record exactly.
const listFrameWrite = 16<<10 - 9

// listBufs holds the buffers lists are encoded into, as *[]byte.
var listBufs = sync.Pool{New: func() any {
	b := make([]byte, 0, listStreamChunk+listFrameWrite)
	return &b
}}

// listBufMax: a buffer grown past it (a huge item) is not kept.
const listBufMax = 4 * listStreamChunk

// writeListStream writes list as compact JSON, as json.Marshal would plus
// a newline, without building the whole body in memory: the list envelope
// is encoded once without items, then the items one by one into a small
// buffer that is flushed as it fills. A 10k-item list otherwise holds its
// full encoding (and the copies made while growing it) until written.
//
// items must be the list's items (kind already set); the list's own items
// are replaced by an empty slice. handled is false, with nothing written,
// when the list does not encode with "items" as its last field; the caller
// then encodes it whole. An encoding error after the first chunk has gone
// out cannot become a Status any more: the body is left truncated (invalid
// JSON) and the error returned for the log.
func (h *Handler[T, L]) writeListStream(w http.ResponseWriter, r *http.Request, code int, list L, items []T) (handled bool, err error) {
	handled, err = h.writeListItems(w, r, code, list, func(dst []byte, i int) ([]byte, bool, error) {
		if i >= len(items) {
			return dst, false, nil
		}
		out, err := jsonencode.AppendMarshal(dst, items[i])
		if err != nil {
			return dst, false, fmt.Errorf("encode response as json: %w", err)
		}
		return out, true, nil
	})
	if !handled {
		h.s.SetItems(list, items)
	}
	return handled, err
}

// writeListItems writes list, whose items are replaced by an empty slice,
// with items appended as JSON to dst by item, called with i = 0, 1, ...
// until it returns false (see writeListStream). handled is false, with
// nothing written, when the list does not encode with "items" as its last
// field.
func (h *Handler[T, L]) writeListItems(w http.ResponseWriter, r *http.Request, code int, list L, item func(dst []byte, i int) ([]byte, bool, error)) (handled bool, err error) {
	h.s.SetItems(list, []T{})
	env, err := jsonencode.Marshal(list)
	if err != nil {
		return true, fmt.Errorf("encode response as json: %w", err)
	}
	var head []byte
	switch {
	case bytes.HasSuffix(env, emptyItems):
		head = env[:len(env)-len("]}")]
	case bytes.HasSuffix(env, nilItems):
		head = append(env[:len(env)-len("null}")], '[')
	default:
		return false, nil
	}
	bp := listBufs.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= listBufMax {
			listBufs.Put(bp)
		}
	}()
	// Chunks go straight to w: the buffer is already the size a buffered
	// writer would gather, so another one would only copy every byte once
	// more.
	out := listWriter{w: w, code: code, http2: r.ProtoMajor == 2, gzip: compression.Accepts(r)}
	buf := append((*bp)[:0], head...) // up to and including "items":[
	defer func() { *bp = buf[:0] }()
	for i := 0; ; i++ {
		mark := len(buf)
		if i > 0 {
			buf = append(buf, ',')
		}
		var ok bool
		buf, ok, err = item(buf, i)
		if err != nil {
			if !out.started {
				return true, err
			}
			return true, fmt.Errorf("list item %d after the response started: %w", i, err)
		}
		if !ok {
			buf = buf[:mark]
			break
		}
		if len(buf) >= listStreamChunk {
			if buf, err = out.write(buf, false); err != nil {
				return true, nil // the client went away
			}
		}
	}
	buf = append(buf, "]}\n"...)
	buf, _ = out.write(buf, true) // an error: the client went away
	return true, nil
}

// listWriter writes a list's chunks to w, the status line before the
// first.
type listWriter struct {
	w       http.ResponseWriter
	code    int
	http2   bool
	started bool
	// gzip: the client accepts a compressed response. The list is then
	// held until it is known to be over compression.Threshold, when z
	// takes it, or ends under it and goes out as it is.
	gzip bool
	z    *compression.Writer
}

// write writes buf, all of it when last is set, else (over HTTP/2) whole
// listFrameWrite pieces, and returns buf holding what is left.
func (o *listWriter) write(buf []byte, last bool) ([]byte, error) {
	if !o.started {
		if o.gzip && !last && len(buf) <= compression.Threshold {
			return buf, nil
		}
		o.w.Header().Set("Content-Type", mediaJSON)
		o.w.Header().Set("X-Content-Type-Options", "nosniff")
		if o.gzip && len(buf) > compression.Threshold {
			o.z = compression.Start(o.w, o.code)
		} else {
			o.w.WriteHeader(o.code)
		}
		o.started = true
	}
	if o.z != nil {
		// The compressor gathers its output into frame-sized writes.
		_, err := o.z.Write(buf)
		if last || err != nil {
			if cerr := o.z.Close(); err == nil {
				err = cerr
			}
			o.z = nil
		}
		return buf[:0], err
	}
	if !o.http2 {
		_, err := o.w.Write(buf)
		return buf[:0], err
	}
	p := buf
	for len(p) >= listFrameWrite || (last && len(p) > 0) {
		n := min(len(p), listFrameWrite)
		if _, err := o.w.Write(p[:n]); err != nil {
			return buf[:0], err
		}
		p = p[n:]
	}
	return buf[:copy(buf, p)], nil
}
