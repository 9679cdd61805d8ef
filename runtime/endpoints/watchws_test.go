package endpoints_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/websocket"
)

// dialWatch opens a watch over a WebSocket with x/net's client, as a
// browser would: an Origin and, when given, one subprotocol.
func dialWatch(t *testing.T, ts *testServer, path, origin string, protocols ...string) (*websocket.Conn, error) {
	t.Helper()
	cfg, err := websocket.NewConfig("ws"+strings.TrimPrefix(ts.URL, "http")+path, "http://localhost")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Protocol = protocols
	if origin == "" {
		cfg.Origin = nil
	}
	ws, err := websocket.DialConfig(cfg)
	if err == nil {
		t.Cleanup(func() { ws.Close() })
	}
	return ws, err
}

// nextMessage reads one message: one watch event, the line a streamed
// watch writes, newline included.
func nextMessage(t *testing.T, ws *websocket.Conn) rawEvent {
	t.Helper()
	if err := ws.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	var msg string
	if err := websocket.Message.Receive(ws, &msg); err != nil {
		t.Fatalf("receive: %v", err)
	}
	if !strings.HasSuffix(msg, "}\n") || strings.Count(msg, "\n") != 1 {
		t.Fatalf("message is not one watch line: %q", msg)
	}
	var ev rawEvent
	if err := json.Unmarshal([]byte(msg), &ev); err != nil {
		t.Fatalf("message %q: %v", msg, err)
	}
	return ev
}

// TestWatchWebSocket: a watch asked for with a WebSocket upgrade streams
// its events as text messages, one event each, as kube-apiserver does;
// the handshake wants an Origin and echoes the one subprotocol; errors
// before the upgrade are Status responses; the server ends the watch at
// its timeout and when the client closes.
func TestWatchWebSocket(t *testing.T) {
	ts := newServer(t)
	w1 := ts.createWidget(t, "default", "before", `{"size":"small"}`)

	ws, err := dialWatch(t, ts, widgetsPath("default")+"?watch=1&resourceVersion=0", "http://localhost", "base64.binary.k8s.io")
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	if got := ws.Config().Protocol; len(got) != 1 || got[0] != "base64.binary.k8s.io" {
		t.Errorf("subprotocol %q, want the one asked for", got)
	}
	if ev := nextMessage(t, ws); ev.Type != "ADDED" || eventWidget(t, ev).Name != w1.Name {
		t.Fatalf("first event %s %s", ev.Type, ev.Object)
	}
	ts.createWidget(t, "default", "after", `{"size":"large"}`)
	if ev := nextMessage(t, ws); ev.Type != "ADDED" || eventWidget(t, ev).Name != "after" {
		t.Fatalf("second event %s %s", ev.Type, ev.Object)
	}
	if r := ts.do(t, "DELETE", widgetsPath("default")+"/after", "", ""); r.code != http.StatusOK {
		t.Fatalf("delete: %s", r)
	}
	if ev := nextMessage(t, ws); ev.Type != "DELETED" || eventWidget(t, ev).Name != "after" {
		t.Fatalf("third event %s %s", ev.Type, ev.Object)
	}

	// A raw upgrade request: the watch's answer before any handshake.
	upgrade := func(path string, origin bool) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		for k, v := range map[string]string{"Connection": "Upgrade", "Upgrade": "websocket",
			"Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="} {
			req.Header.Set(k, v)
		}
		if origin {
			req.Header.Set("Origin", "http://localhost")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	// Without an Origin, x/net's handshake (kube's) refuses with a 403.
	if code, body := upgrade(widgetsPath("default")+"?watch=1", false); code != http.StatusForbidden {
		t.Errorf("upgrade without Origin: %d %s, want 403", code, body)
	}
	// A watch that cannot start answers as it would without the upgrade.
	if code, body := upgrade(widgetsPath("default")+"?watch=1&resourceVersion=x", true); code != http.StatusBadRequest || !strings.Contains(body, `"kind":"Status"`) {
		t.Errorf("bad resourceVersion over a websocket: %d %s", code, body)
	}

	// timeoutSeconds ends it: the server closes the connection.
	short, err := dialWatch(t, ts, widgetsPath("default")+"?watch=1&timeoutSeconds=1", "http://localhost")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := short.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	for {
		var msg string
		err := websocket.Message.Receive(short, &msg)
		if err == nil && strings.HasPrefix(msg, `{"type":"ADDED"`) {
			continue // the initial events of a watch without a resourceVersion
		}
		if err == nil || time.Since(start) < 900*time.Millisecond || time.Since(start) > 5*time.Second {
			t.Errorf("watch with timeoutSeconds=1: %v after %s (message %q)", err, time.Since(start), msg)
		}
		break
	}

	// A client sending a large message (it has nothing to say) ends its
	// watch: the server does not buffer it.
	chatty, err := dialWatch(t, ts, widgetsPath("default")+"?watch=1&resourceVersion=0", "http://localhost")
	if err != nil {
		t.Fatal(err)
	}
	_ = nextMessage(t, chatty)
	// The server may close the connection while the message is still
	// being written (a broken pipe here): that is the watch ending too.
	_ = websocket.Message.Send(chatty, strings.Repeat("x", 1<<20))
	if err := chatty.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	for {
		var msg string
		err := websocket.Message.Receive(chatty, &msg)
		if err == nil {
			continue // events already on their way
		}
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatal("the watch of a client that sent 1 MiB was not ended")
		}
		break
	}

	// A client that closes ends the watch on the server, which reports
	// it with 101 (what kube's metrics and audit say of an upgraded
	// watch).
	ended := func() int {
		n := 0
		for _, o := range ts.observations() {
			if o.code == http.StatusSwitchingProtocols {
				n++
			}
		}
		return n
	}
	before := ended()
	ws.Close()
	deadline := time.Now().Add(5 * time.Second)
	for ended() == before {
		if time.Now().After(deadline) {
			t.Fatalf("the server did not end the watch within 5 s of the client's close (%d ended before)", before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
