package endpoints

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/websocket"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"

	"github.com/kubeforge/kubeforge/runtime/storage"
)

// serveWatchWS serves a watch over a WebSocket, as kube-apiserver does for
// a watch request that asks to upgrade (browser dashboards, and Java's
// fabric8 client before it falls back to a streamed response): each event
// is one text message holding the line the streamed watch would write. The
// handshake is golang.org/x/net/websocket's, kube's: it wants an Origin
// header (403 without one) and at most one subprotocol, which it echoes.
// Whatever the client sends is read and dropped; the watch ends when the
// client closes, at its timeout or when the server stops.
func (h *Handler[T, L]) serveWatchWS(ctx context.Context, cancel context.CancelFunc, w *recorder, r *http.Request, ch <-chan storage.Event[T], opts metainternalversion.ListOptions, f outputFormat) error {
	if r.ProtoMajor != 1 {
		return apierrors.NewBadRequest("a WebSocket upgrade needs HTTP/1.1")
	}
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("upgrade to a websocket: %w", err))
	}
	// Deadlines the server set for reading the request would otherwise
	// end a watch that lasts longer.
	_ = conn.SetDeadline(time.Time{})
	w.code, w.wroteHeader = http.StatusSwitchingProtocols, true
	memoKey := "json:" + h.gvk.String() + ":" + f.as + ":" + f.metaVersion
	srv := websocket.Server{
		Handshake: requireOrigin,
		Handler: func(ws *websocket.Conn) {
			h.streamWS(ctx, cancel, ws, r, ch, opts, f, memoKey)
		},
	}
	srv.ServeHTTP(hijacked{ResponseWriter: w, conn: conn, brw: brw}, r)
	return nil
}

// streamWS writes the events to ws until the watch ends.
func (h *Handler[T, L]) streamWS(ctx context.Context, cancel context.CancelFunc, ws *websocket.Conn, r *http.Request, ch <-chan storage.Event[T], opts metainternalversion.ListOptions, f outputFormat, memoKey string) {
	ws.PayloadType = websocket.TextFrame
	// The client has nothing to say; a large message (x/net reads each
	// whole, up to 32 MiB by default) ends the watch instead of taking the
	// server's memory.
	ws.MaxPayloadBytes = maxClientMessage
	go func() {
		// Its messages are read and dropped, and an error (its close, an
		// oversized message) ends the watch.
		var discard []byte
		for websocket.Message.Receive(ws, &discard) == nil {
		}
		cancel()
	}()
	go func() {
		// A write to a client that reads nothing blocks; closing the
		// connection when the watch ends unblocks it.
		<-ctx.Done()
		_ = ws.Close()
	}()
	if opts.TimeoutSeconds != nil && *opts.TimeoutSeconds < 0 {
		return
	}
	headers := true
	var buf bytes.Buffer
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-ch:
			if !ok {
				return
			}
			buf.Reset()
			if err := h.writeEvent(&buf, r, f, memoKey, ev, &headers); err != nil {
				if !errors.Is(err, errWriteEvent) {
					h.log("encode watch event", r, err)
				}
				return
			}
			// One write is one message.
			if _, err := ws.Write(buf.Bytes()); err != nil {
				return
			}
		}
	}
}

// maxClientMessage bounds what a watch's client may send in one message.
const maxClientMessage = 4 << 10

// requireOrigin is x/net/websocket's default handshake check, as
// kube-apiserver uses it: a request without an Origin is refused (403).
func requireOrigin(config *websocket.Config, r *http.Request) error {
	origin, err := websocket.Origin(config, r)
	if err != nil {
		return fmt.Errorf("websocket origin: %w", err)
	}
	if origin == nil {
		return errors.New("websocket origin: none")
	}
	config.Origin = origin
	return nil
}

// hijacked hands x/net/websocket a connection already taken from the
// server (it would panic where hijacking fails).
type hijacked struct {
	http.ResponseWriter
	conn net.Conn
	brw  *bufio.ReadWriter
}

func (h hijacked) Hijack() (net.Conn, *bufio.ReadWriter, error) { return h.conn, h.brw, nil }
