package endpoints

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
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
func (h *Handler[T, L]) writeListStream(w http.ResponseWriter, code int, list L, items []T) (handled bool, err error) {
	enc := json.NewEncoder(nil)
	var encBuf *bytes.Buffer
	handled, err = h.writeListItems(w, code, list, func(buf *bytes.Buffer, i int) (bool, error) {
		if i >= len(items) {
			return false, nil
		}
		if encBuf != buf {
			enc, encBuf = json.NewEncoder(buf), buf
		}
		if err := enc.Encode(items[i]); err != nil {
			return false, fmt.Errorf("encode response as json: %w", err)
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
		return true, nil
	})
	if !handled {
		h.s.SetItems(list, items)
	}
	return handled, err
}

// writeListItems writes list, whose items are replaced by an empty slice,
// with items appended as JSON by item, called with i = 0, 1, ... until it
// returns false (see writeListStream). handled is false, with nothing
// written, when the list does not encode with "items" as its last field.
func (h *Handler[T, L]) writeListItems(w http.ResponseWriter, code int, list L, item func(buf *bytes.Buffer, i int) (bool, error)) (handled bool, err error) {
	h.s.SetItems(list, []T{})
	env, err := json.Marshal(list)
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
	buf := bytes.NewBuffer(make([]byte, 0, listStreamChunk+4096))
	buf.Write(head) // up to and including "items":[
	// Chunks go straight to w: buf is already the size a buffered writer
	// would gather, so another one would only copy every byte once more.
	started := false
	flush := func() error {
		if !started {
			w.Header().Set("Content-Type", mediaJSON)
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.WriteHeader(code)
			started = true
		}
		_, err := w.Write(buf.Bytes())
		buf.Reset()
		return err
	}
	for i := 0; ; i++ {
		mark := buf.Len()
		if i > 0 {
			buf.WriteByte(',')
		}
		ok, err := item(buf, i)
		if err != nil {
			if !started {
				return true, err
			}
			return true, fmt.Errorf("list item %d after the response started: %w", i, err)
		}
		if !ok {
			buf.Truncate(mark)
			break
		}
		if buf.Len() >= listStreamChunk {
			if err := flush(); err != nil {
				return true, nil // the client went away
			}
		}
	}
	buf.WriteString("]}\n")
	_ = flush() // an error: the client went away
	return true, nil
}
