package endpoints_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/kubeforge/kubeforge/internal/tlsrecords"
)

// TestListStreamedJSON checks that a streamed list is byte for byte what
// json.Marshal makes of it (HTML escaping, separators, the trailing
// newline), across several flushed chunks, for namespaced and
// cluster-scoped (nil-when-empty SetItems) lists, empty or not.
func TestListStreamedJSON(t *testing.T) {
	ts := newServer(t)
	same := func(path string, want int) {
		t.Helper()
		r := ts.do(t, "GET", path, "", "")
		if r.code != http.StatusOK {
			t.Fatalf("list %s: %s", path, r)
		}
		var l WidgetList
		if err := json.Unmarshal(r.body, &l); err != nil {
			t.Fatalf("list %s: %v", path, err)
		}
		if len(l.Items) != want {
			t.Fatalf("list %s: %d items, want %d", path, len(l.Items), want)
		}
		again, err := json.Marshal(&l)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(append(again, '\n'), r.body) {
			t.Fatalf("list %s differs from its json.Marshal:\n got %.400s\nwant %.400s", path, r.body, again)
		}
		if l.Items == nil || !bytes.Contains(r.body, []byte(`"items":[`)) {
			t.Fatalf("list %s: no items array: %.200s", path, r.body)
		}
	}
	same(widgetsPath("a"), 0)
	same(apiPath+"/gizmos", 0)
	const n = 400 // well over one 64 KiB chunk
	for i := range n {
		spec := `{"size":"small","owner":"<team & co>"}`
		ts.createWidget(t, "a", fmt.Sprintf("w%03d", i), spec)
	}
	r := ts.do(t, "POST", apiPath+"/gizmos", jsonType, `{"apiVersion":"test.kubeforge.dev/v1","kind":"Gizmo","metadata":{"name":"g1"},"spec":{"owner":"x>y"}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("create gizmo: %s", r)
	}
	same(widgetsPath("a"), n)
	same(apiPath+"/widgets", n)
	same(apiPath+"/gizmos", 1)
	same(widgetsPath("a")+"?limit=7", 7)
	if r := ts.do(t, "GET", widgetsPath("a"), "", ""); !bytes.Contains(r.body, []byte(`\u003cteam \u0026 co\u003e`)) {
		t.Fatalf("HTML characters not escaped: %.300s", r.body)
	}
}

// TestListOverHTTP2FillsRecords: over HTTP/2 and TLS a streamed list (from
// the stored bytes, and typed with a limit) is json.Marshal's bytes, sent
// in DATA frames that fill TLS records: a 16 KiB frame and its 9-byte
// header took two records (and two write system calls), so a list of B
// bytes came in about B/8 KiB of them instead of B/16 KiB.
func TestListOverHTTP2FillsRecords(t *testing.T) {
	ts := newServer(t)
	// Owners that compress about as a real list does (to a third), so
	// that the compressed list too spans many frames.
	rnd := rand.New(rand.NewPCG(1, 2))
	const n = 300
	for i := range n {
		owner := make([]byte, 1000)
		for j := range owner {
			owner[j] = "abcdefghijklmnop"[rnd.IntN(16)]
		}
		ts.createWidget(t, "a", fmt.Sprintf("w%03d", i), fmt.Sprintf(`{"size":"small","owner":%q}`, owner))
	}
	srv := httptest.NewUnstartedServer(ts.Config.Handler)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	var records atomic.Int64
	tr := srv.Client().Transport.(*http.Transport).Clone()
	tlsConfig := tr.TLSClientConfig
	tr.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		raw, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		cfg := tlsConfig.Clone()
		cfg.ServerName, _, _ = net.SplitHostPort(addr)
		cfg.NextProtos = []string{"h2"}
		conn := tls.Client(&tlsrecords.Conn{Conn: raw, Records: &records}, cfg)
		if err := conn.HandshakeContext(ctx); err != nil {
			raw.Close()
			return nil, err
		}
		return conn, nil
	}
	// Plain lists first: the transport does not ask for gzip itself.
	tr.DisableCompression = true
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	get := func(path string, headers ...string) []byte {
		t.Helper()
		req, err := http.NewRequest("GET", srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("list %s: %v", path, err)
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK || resp.ProtoMajor != 2 {
			t.Fatalf("list %s: %v %s over HTTP/%d: %.300s", path, err, resp.Status, resp.ProtoMajor, data)
		}
		return data
	}
	// Connects, and sends the 128 KiB after which crypto/tls stops
	// starting with small records (dynamic record sizing).
	get(widgetsPath("a"))
	for _, path := range []string{widgetsPath("a"), widgetsPath("a") + "?limit=1000"} {
		before := records.Load()
		data := get(path)
		got := records.Load() - before
		var l WidgetList
		if err := json.Unmarshal(data, &l); err != nil || len(l.Items) != n {
			t.Fatalf("list %s: %d items, %v", path, len(l.Items), err)
		}
		again, err := json.Marshal(&l)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(append(again, '\n'), data) {
			t.Fatalf("list %s differs from its json.Marshal:\n got %.400s\nwant %.400s", path, data, again)
		}
		// One record per full frame, and a few more: the headers, the
		// last piece, the end of the stream.
		if most := int64(len(data)/(16<<10-9)) + 5; got > most {
			t.Errorf("list %s of %d bytes came in %d TLS records, want at most %d", path, len(data), got, most)
		}
		// Compressed, the stream is gathered into the same full frames
		// (the compressor alone writes a few hundred bytes at a time).
		before = records.Load()
		zdata := get(path, "Accept-Encoding", "gzip")
		got = records.Load() - before
		if len(zdata)*3/2 > len(data) || len(zdata) < 8*(16<<10) {
			t.Fatalf("list %s: %d bytes, compressed %d", path, len(data), len(zdata))
		}
		if most := int64(len(zdata)/(16<<10-9)) + 5; got > most {
			t.Errorf("list %s compressed to %d bytes came in %d TLS records, want at most %d", path, len(zdata), got, most)
		}
	}
}
