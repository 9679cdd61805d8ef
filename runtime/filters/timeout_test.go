package filters

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/kubeforge/kubeforge/runtime/request"
)

func timeoutServer(t *testing.T, timeout time.Duration, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(WithTimeout(h, timeout, slog.New(slog.DiscardHandler)))
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	return getURL(t, url+"/apis/g/v1/things")
}

// TestTimeoutSmallResponseBuffered: a late handler's partial small response
// is dropped for a clean 504 Status.
func TestTimeoutSmallResponseBuffered(t *testing.T) {
	srv := timeoutServer(t, 100*time.Millisecond, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Partial", "yes")
		_, _ = w.Write([]byte(`{"partial":`))
		<-r.Context().Done()
	})
	resp, body := get(t, srv.URL)
	if resp.StatusCode != http.StatusGatewayTimeout || resp.Header.Get("X-Partial") != "" {
		t.Fatalf("got %d %v: %s", resp.StatusCode, resp.Header, body)
	}
	var st struct{ Reason string }
	if err := json.Unmarshal(body, &st); err != nil || st.Reason != "Timeout" {
		t.Fatalf("not a Timeout Status (%v): %s", err, body)
	}

	srv = timeoutServer(t, time.Minute, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Done", "yes")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte("ok"))
	})
	resp, body = get(t, srv.URL)
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("X-Done") != "yes" || string(body) != "ok" {
		t.Fatalf("got %d %v: %s", resp.StatusCode, resp.Header, body)
	}
}

// TestTimeoutLargeResponseStreams: past timeoutBufferLimit, or from a
// write of a streamed list's piece (timeoutDirectWrite) on, the response
// reaches the client while the handler is still running, every byte once
// and in order.
func TestTimeoutLargeResponseStreams(t *testing.T) {
	for name, writes := range map[string][][]byte{
		"past the limit":        {bytes.Repeat([]byte("a"), timeoutBufferLimit+1)},
		"one piece":             {bytes.Repeat([]byte("b"), timeoutDirectWrite)},
		"small, then one piece": {[]byte(`{"items":[`), bytes.Repeat([]byte("c"), timeoutDirectWrite)},
	} {
		t.Run(name, func(t *testing.T) { streamsWhileRunning(t, writes) })
	}
}

func streamsWhileRunning(t *testing.T, writes [][]byte) {
	first := bytes.Join(writes, nil)
	release := make(chan struct{})
	srv := timeoutServer(t, time.Minute, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Big", "yes")
		for _, p := range writes {
			_, _ = w.Write(p)
		}
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		_, _ = w.Write([]byte("tail"))
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", srv.URL+"/apis/g/v1/things", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("no response while the handler runs: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Big") != "yes" {
		t.Fatalf("got %d %v", resp.StatusCode, resp.Header)
	}
	got := make([]byte, len(first))
	if _, err := io.ReadFull(resp.Body, got); err != nil || !bytes.Equal(got, first) {
		t.Fatalf("first part: %v", err)
	}
	close(release)
	rest, err := io.ReadAll(resp.Body)
	if err != nil || string(rest) != "tail" {
		t.Fatalf("rest %q: %v", rest, err)
	}
}

// TestTimeoutEnding: the handler's context of a request the end context
// is given for ends when that context ends, with its cause (and so do
// contexts derived from it), and the handler's answer is written; it
// carries the request's values (the request state, marked EndWatched);
// it ends when the client leaves; and a handler that does not answer
// the end still gets the 504 at the deadline. Requests endWith gives no
// end context for are not ended by it.
func TestTimeoutEnding(t *testing.T) {
	errDown := errors.New("storage down")
	var end context.Context
	var mu sync.Mutex
	endWith := func(r *http.Request) context.Context {
		if r.URL.Query().Get("free") != "" {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		return end
	}
	type seen struct {
		state, watched bool
		cause          string
	}
	started, results := make(chan struct{}), make(chan seen, 1)
	h := func(w http.ResponseWriter, r *http.Request) {
		st := request.StateFrom(r.Context())
		s := seen{state: st != nil, watched: st != nil && st.EndWatched()}
		child, cancel := context.WithTimeout(r.Context(), time.Hour)
		defer cancel()
		started <- struct{}{}
		select {
		case <-child.Done():
		case <-time.After(5 * time.Second):
		}
		s.cause = fmt.Sprint(context.Cause(child))
		results <- s
		if r.URL.Query().Get("mute") != "" {
			time.Sleep(time.Second) // answers nothing in time
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(s.cause))
	}
	srv := httptest.NewServer(WithRequestInfo(WithTimeoutEnding(http.HandlerFunc(h), 300*time.Millisecond, slog.New(slog.DiscardHandler), endWith)))
	defer srv.Close()
	url := srv.URL + "/apis/g/v1/things"
	newEnd := func() context.CancelCauseFunc {
		mu.Lock()
		defer mu.Unlock()
		var stop context.CancelCauseFunc
		end, stop = context.WithCancelCause(context.Background())
		return stop
	}
	send := func(ctx context.Context, url string, stop func()) (*http.Response, []byte, seen, error) {
		go func() { <-started; stop() }()
		req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, nil, <-results, err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, body, <-results, nil
	}
	bg := context.Background()

	// Each case's stop is a variable of its own: the goroutine send starts
	// may call it after the next case has begun (the free case's stop ends
	// no request, so nothing orders that call before the test goes on).

	// No end: the deadline ends the handler's context.
	stop1 := newEnd()
	resp, body, s, _ := send(bg, url+"?free=1", func() { stop1(errDown) })
	if resp.StatusCode != http.StatusGatewayTimeout || !s.state || s.watched || s.cause != context.DeadlineExceeded.Error() {
		t.Fatalf("without an end: %d %s %+v", resp.StatusCode, body, s)
	}

	// The end ends it with its cause, and the handler's answer is written.
	stop2 := newEnd()
	resp, body, s, _ = send(bg, url, func() { stop2(errDown) })
	if resp.StatusCode != http.StatusServiceUnavailable || string(body) != errDown.Error() || !s.watched || s.cause != errDown.Error() {
		t.Fatalf("ended: %d %q %+v, want 503 %q", resp.StatusCode, body, s, errDown)
	}

	// An ended request whose handler does not answer: the 504 at the deadline.
	stop3 := newEnd()
	resp, body, _, _ = send(bg, url+"?mute=1", func() { stop3(errDown) })
	if resp.StatusCode != http.StatusGatewayTimeout {
		t.Fatalf("ended, no answer: %d %s, want 504", resp.StatusCode, body)
	}

	// The client leaving ends the handler's context.
	stop4 := newEnd()
	ctx, cancel := context.WithCancel(bg)
	began := time.Now()
	_, _, s, err := send(ctx, url, cancel)
	if err == nil || s.cause != context.Canceled.Error() || time.Since(began) > 3*time.Second {
		t.Fatalf("client left: %v, handler saw %+v after %s", err, s, time.Since(began))
	}
	stop4(nil)
}

func getURL(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}
