package filters

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func timeoutServer(t *testing.T, timeout time.Duration, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(WithTimeout(h, timeout, slog.New(slog.DiscardHandler)))
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Get(url + "/apis/g/v1/things")
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

// TestTimeoutLargeResponseStreams: past timeoutBufferLimit the response
// reaches the client while the handler is still running.
func TestTimeoutLargeResponseStreams(t *testing.T) {
	first := bytes.Repeat([]byte("a"), timeoutBufferLimit+1)
	release := make(chan struct{})
	srv := timeoutServer(t, time.Minute, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Big", "yes")
		_, _ = w.Write(first)
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
