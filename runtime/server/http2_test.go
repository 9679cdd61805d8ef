package server

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// TestResetBudget: the frame walk counts the client's RST_STREAM frames
// however the bytes are split across reads, never mistakes payload bytes
// for a frame header, and trips past the budget until time refills it.
func TestResetBudget(t *testing.T) {
	var wire bytes.Buffer
	wire.WriteString(http2.ClientPreface)
	fr := http2.NewFramer(&wire, nil)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(fr.WriteSettings())
	// A DATA payload full of what would be RST_STREAM headers if the
	// walk lost its place.
	fake := bytes.Repeat([]byte{0, 0, 4, byte(http2.FrameRSTStream), 0, 0, 0, 0, 1, 0, 0, 0, 8}, 100)
	must(fr.WriteData(1, false, fake))
	for i := range resetBurst {
		must(fr.WritePing(false, [8]byte{}))
		must(fr.WriteRSTStream(uint32(2*i+1), http2.ErrCodeCancel))
	}
	now := time.Unix(1000, 0)
	c := newResetLimitedConn(nil, func() time.Time { return now })
	rnd := rand.New(rand.NewPCG(1, 2))
	b := wire.Bytes()
	for len(b) > 0 {
		k := min(len(b), 1+rnd.IntN(40))
		if c.scan(b[:k]) {
			t.Fatalf("tripped within the budget, %d bytes before the end", len(b))
		}
		b = b[k:]
	}
	rst := func() []byte {
		var w bytes.Buffer
		must(http2.NewFramer(&w, nil).WriteRSTStream(999, http2.ErrCodeCancel))
		return w.Bytes()
	}
	if !c.scan(rst()) {
		t.Fatalf("reset %d did not trip the budget of %d", resetBurst+1, resetBurst)
	}

	// Refilled over time: a second later, resetPerSecond more pass.
	c = newResetLimitedConn(nil, func() time.Time { return now })
	c.preface = 0
	for range resetBurst {
		if c.scan(rst()) {
			t.Fatal("tripped within the budget")
		}
	}
	now = now.Add(time.Second)
	for i := range resetPerSecond {
		if c.scan(rst()) {
			t.Fatalf("tripped at refilled reset %d of %d", i+1, resetPerSecond)
		}
	}
	if !c.scan(rst()) {
		t.Fatal("not tripped past the refill")
	}
}

// TestHandlerOnWorker: requests served over HTTP/2 by serveHTTP2 run on
// workers (runtime/workers), concurrently, each with its own request and response; a
// handler's panic still reaches the HTTP/2 server (http.ErrAbortHandler
// resets that stream only) and its worker serves the next request.
func TestHandlerOnWorker(t *testing.T) {
	release := make(chan struct{})
	var running atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/abort":
			panic(http.ErrAbortHandler)
		case "/wait":
			running.Add(1)
			<-release
		case "/stack":
			buf := make([]byte, 64<<10)
			w.Write(buf[:runtime.Stack(buf, false)])
			return
		}
		fmt.Fprintf(w, "%s %s", r.URL.Path, r.URL.RawQuery)
	}))
	if err := serveHTTP2(srv.Config, nil); err != nil {
		t.Fatal(err)
	}
	srv.TLS = srv.Config.TLSConfig
	srv.StartTLS()
	defer srv.Close()
	c := srv.Client()
	c.Transport.(*http.Transport).ForceAttemptHTTP2 = true
	get := func(path string) (string, error) {
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		if resp.ProtoMajor != 2 {
			t.Errorf("%s: %s, want HTTP/2", path, resp.Proto)
		}
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}

	if stack, err := get("/stack"); err != nil || !strings.Contains(stack, "workers.worker") {
		t.Fatalf("not served by a worker (%v):\n%s", err, stack)
	}

	// Ten requests held at once: none waits for another's worker.
	errs := make(chan error, 10)
	for i := range 10 {
		go func() {
			body, err := get(fmt.Sprintf("/wait?i=%d", i))
			if err == nil && body != fmt.Sprintf("/wait i=%d", i) {
				err = fmt.Errorf("request %d got %q", i, body)
			}
			errs <- err
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for running.Load() < 10 {
		if time.Now().After(deadline) {
			t.Fatalf("%d of 10 requests running at once", running.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(release)
	for range 10 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}

	if _, err := get("/abort"); err == nil {
		t.Fatal("an aborted handler's request succeeded")
	}
	for i := range 50 {
		if body, err := get(fmt.Sprintf("/after?i=%d", i)); err != nil || body != fmt.Sprintf("/after i=%d", i) {
			t.Fatalf("after the abort: %q, %v", body, err)
		}
	}
}
