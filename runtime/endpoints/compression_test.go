package endpoints_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kubeforge/kubeforge/runtime/endpoints"
)

// TestGzipLargeResponses: as kube-apiserver does (APIResponseCompression),
// a response over 128 KiB to a client whose Accept-Encoding names gzip is
// compressed, whatever path wrote it (a list from the stored bytes or
// typed, a single object, YAML, a Table); smaller responses, other
// encodings, a quality value and watches are not. The decompressed body is
// byte for byte the uncompressed one.
func TestGzipLargeResponses(t *testing.T) {
	ts := newServer(t, func(o *endpoints.Options) { o.MaxRequestBodyBytes = 1 << 20 })
	owner := strings.Repeat("o", 1000)
	const n = 200 // about 250 KiB as a list
	for i := range n {
		ts.createWidget(t, "a", fmt.Sprintf("w%03d", i), fmt.Sprintf(`{"size":"small","owner":%q}`, owner))
	}
	big := strings.Repeat("b", 200<<10)
	ts.createWidget(t, "b", "big", fmt.Sprintf(`{"size":"small","owner":%q}`, big))
	ts.createWidget(t, "b", "small", `{"size":"small","owner":"x"}`)

	// The transport neither asks for gzip itself nor undoes it.
	c := &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: 30 * time.Second}
	get := func(path, acceptEncoding, accept string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest("GET", ts.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if acceptEncoding != "" {
			req.Header.Set("Accept-Encoding", acceptEncoding)
		}
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %v %s %.300s", path, err, resp.Status, data)
		}
		return resp, data
	}
	const table = "application/json;as=Table;v=v1;g=meta.k8s.io"
	for _, tc := range []struct {
		path, accept string
		gzipped      bool
	}{
		{widgetsPath("a"), "", true},
		{widgetsPath("a") + "?limit=500", "", true},
		{apiPath + "/widgets", "", true},
		{widgetsPath("a"), "application/yaml", true},
		{widgetsPath("a"), table, true},
		{widgetsPath("b") + "/big", "", true},
		{widgetsPath("b") + "/big", "application/yaml", true},
		{widgetsPath("b") + "/small", "", false},
		{widgetsPath("a") + "?limit=3", "", false},
		{widgetsPath("a") + "?labelSelector=none%3Dnone", "", false},
	} {
		plainResp, plain := get(tc.path, "", tc.accept)
		if enc := plainResp.Header.Get("Content-Encoding"); enc != "" {
			t.Errorf("%s (%s) without Accept-Encoding: Content-Encoding %q", tc.path, tc.accept, enc)
		}
		resp, data := get(tc.path, "deflate, gzip", tc.accept)
		enc := resp.Header.Get("Content-Encoding")
		if !tc.gzipped {
			if enc != "" || !bytes.Equal(data, plain) {
				t.Errorf("%s (%s), %d bytes: Content-Encoding %q, body changed %v", tc.path, tc.accept, len(plain), enc, !bytes.Equal(data, plain))
			}
			continue
		}
		if enc != "gzip" || !strings.Contains(strings.Join(resp.Header.Values("Vary"), ","), "Accept-Encoding") {
			t.Errorf("%s (%s), %d bytes: Content-Encoding %q, Vary %q", tc.path, tc.accept, len(plain), enc, resp.Header.Values("Vary"))
			continue
		}
		if ct, pct := resp.Header.Get("Content-Type"), plainResp.Header.Get("Content-Type"); ct != pct {
			t.Errorf("%s (%s): Content-Type %q compressed, %q plain", tc.path, tc.accept, ct, pct)
		}
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s: decompress: %v", tc.path, err)
		}
		if tc.accept == table {
			// A Table's rows carry each object's age, which can tick
			// between the two requests.
			var a, b struct{ Rows []any }
			if json.Unmarshal(got, &a) != nil || json.Unmarshal(plain, &b) != nil || len(a.Rows) != len(b.Rows) || len(a.Rows) != n {
				t.Errorf("%s (%s): compressed table of %d rows, plain %d", tc.path, tc.accept, len(a.Rows), len(b.Rows))
			}
			continue
		}
		if !bytes.Equal(got, plain) {
			t.Errorf("%s (%s): decompressed body differs:\n got %.300s\nwant %.300s", tc.path, tc.accept, got, plain)
		}
		if len(data)*4 > len(plain) {
			t.Errorf("%s (%s): %d bytes compressed to %d", tc.path, tc.accept, len(plain), len(data))
		}
	}
	// kube-apiserver matches the token "gzip" only: a quality value, or
	// another encoding, leaves the response as it is.
	for _, ae := range []string{"gzip;q=1.0", "br", "identity", "x-gzip"} {
		resp, _ := get(widgetsPath("a"), ae, "")
		if enc := resp.Header.Get("Content-Encoding"); enc != "" {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q", ae, enc)
		}
	}
	// A watch is never compressed: its events are read as they come.
	req, err := http.NewRequest("GET", ts.URL+widgetsPath("a")+"?watch=1&timeoutSeconds=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := 0
	for d := json.NewDecoder(resp.Body); ; events++ {
		var ev struct{ Type string }
		if err := d.Decode(&ev); err != nil {
			break
		}
	}
	if enc := resp.Header.Get("Content-Encoding"); enc != "" || events != n {
		t.Errorf("watch: Content-Encoding %q, %d events, want none and %d", enc, events, n)
	}
}
