package filters

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestBodyDeadline: over a real HTTP/1.1 connection, an answer given
// without reading the body goes out at once and the connection is closed
// (Go's server would wait for the body it drains after the handler); a
// body read to its end lifts the deadline, so a handler that takes longer
// than it is not cancelled.
func TestBodyDeadline(t *testing.T) {
	const timeout = 300 * time.Millisecond
	srv := httptest.NewServer(WithBodyDeadline(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/refuse" {
			http.Error(w, "no", http.StatusForbidden)
			return
		}
		if _, err := io.ReadAll(req.Body); err != nil {
			http.Error(w, err.Error(), http.StatusRequestTimeout)
			return
		}
		time.Sleep(3 * timeout)
		if err := req.Context().Err(); err != nil {
			http.Error(w, "cancelled: "+err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprint(w, "ok")
	}), timeout))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")

	for _, head := range []string{
		"POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{",
		"POST /refuse HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n",
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		start := time.Now()
		_, _ = io.WriteString(c, head)
		_ = c.SetReadDeadline(time.Now().Add(10 * timeout))
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("refused half-body: no answer after %s: %v", time.Since(start), err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		if _, err := br.ReadByte(); resp.StatusCode != http.StatusForbidden || err != io.EOF || time.Since(start) > timeout {
			t.Errorf("refused half-body: %d after %s, then %v (want the connection closed)", resp.StatusCode, time.Since(start), err)
		}
	}

	resp, err := http.Post(srv.URL+"/slow", "text/plain", strings.NewReader("body"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a handler slower than the body deadline: %d %s", resp.StatusCode, b)
	}
}

// TestHasBody: over real HTTP/1.1 and HTTP/2 connections, requests sent
// without a body are told apart from those with one, whose length is known
// or not (the deadline filters skip only the former), and a declared empty
// body over HTTP/2 counts as a body.
func TestHasBody(t *testing.T) {
	got := make(chan bool, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		got <- hasBody(req)
		_, _ = io.Copy(io.Discard, req.Body)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	for _, proto := range []int{1, 2} {
		client := srv.Client()
		if proto == 1 {
			client = &http.Client{Transport: &http.Transport{TLSClientConfig: srv.Client().Transport.(*http.Transport).TLSClientConfig}}
		}
		for _, tc := range []struct {
			name, method string
			body         func() io.Reader
			want         bool
		}{
			{"get", "GET", func() io.Reader { return nil }, false},
			{"delete", "DELETE", func() io.Reader { return nil }, false},
			{"delete with options", "DELETE", func() io.Reader { return strings.NewReader(`{"dryRun":["All"]}`) }, true},
			// Go's HTTP/2 client declares "content-length: 0": kept as
			// a body, since a stream may declare it and stay open.
			{"empty post", "POST", func() io.Reader { return strings.NewReader("") }, proto == 2},
			{"post", "POST", func() io.Reader { return strings.NewReader("{}") }, true},
			{"post of unknown length", "POST", func() io.Reader {
				pr, pw := io.Pipe()
				go func() { _, _ = io.WriteString(pw, "{}"); _ = pw.Close() }()
				return pr
			}, true},
		} {
			req, err := http.NewRequest(tc.method, srv.URL, tc.body())
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("HTTP/%d %s: %v", proto, tc.name, err)
			}
			resp.Body.Close()
			if resp.ProtoMajor != proto {
				t.Fatalf("HTTP/%d %s: answered over HTTP/%d", proto, tc.name, resp.ProtoMajor)
			}
			if g := <-got; g != tc.want {
				t.Errorf("HTTP/%d %s: hasBody %v, want %v", proto, tc.name, g, tc.want)
			}
		}
	}
}
