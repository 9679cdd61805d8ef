package compression

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestAccepts(t *testing.T) {
	for _, tc := range []struct {
		header         string
		plain, weighed bool
	}{
		{"", false, false},
		{"gzip", true, true},
		{"gzip, deflate, br", true, true},
		{"deflate,gzip", true, true},
		{" gzip ", true, true},
		// kube-apiserver's API handlers compare the token as it is.
		{"gzip;q=0.5", false, true},
		{"gzip;q=0", false, false},
		{"gzip; q=0.0", false, false},
		{"gzip;q=bad", false, false},
		{"br;q=1, gzip;q=0.001", false, true},
		{"x-gzip", false, false},
		{"GZIP", false, false},
		{"identity", false, false},
		{"*", false, false},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		if tc.header != "" {
			r.Header.Set("Accept-Encoding", tc.header)
		}
		if got := Accepts(r); got != tc.plain {
			t.Errorf("Accepts(%q) = %v, want %v", tc.header, got, tc.plain)
		}
		if got := AcceptsWeighted(r); got != tc.weighed {
			t.Errorf("AcceptsWeighted(%q) = %v, want %v", tc.header, got, tc.weighed)
		}
	}
	// Every Accept-Encoding line counts.
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Add("Accept-Encoding", "br")
	r.Header.Add("Accept-Encoding", "gzip")
	if !Accepts(r) || !AcceptsWeighted(r) {
		t.Error("gzip on a second Accept-Encoding line not seen")
	}
}

// TestWriteBody over real HTTP: over the threshold and accepted, the body
// arrives compressed (in parts or whole) with its status, Content-Type and
// Vary; at or under it, or not accepted, it arrives as it is.
func TestWriteBody(t *testing.T) {
	big := bytes.Repeat([]byte(`{"kind":"Widget","metadata":{"name":"x"}},`), Threshold/40)
	small := big[:Threshold-1]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/big":
			WriteBody(w, r, http.StatusCreated, big[:len(big)/2], big[len(big)/2:])
		case "/small":
			WriteBody(w, r, http.StatusCreated, small, []byte("\n"))
		}
	}))
	defer srv.Close()
	c := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, tc := range []struct {
		path, ae string
		want     []byte
		gzipped  bool
	}{
		{"/big", "gzip", big, true},
		{"/big", "", big, false},
		{"/big", "deflate", big, false},
		{"/small", "gzip", append(small[:len(small):len(small)], '\n'), false},
	} {
		req, _ := http.NewRequest("GET", srv.URL+tc.path, nil)
		if tc.ae != "" {
			req.Header.Set("Accept-Encoding", tc.ae)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusCreated || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s %q: %v %d %v", tc.path, tc.ae, err, resp.StatusCode, resp.Header)
		}
		enc := resp.Header.Get("Content-Encoding")
		if !tc.gzipped {
			if enc != "" || !bytes.Equal(body, tc.want) {
				t.Errorf("%s %q: Content-Encoding %q, %d bytes, want %d as they are", tc.path, tc.ae, enc, len(body), len(tc.want))
			}
			continue
		}
		if enc != "gzip" || !strings.Contains(resp.Header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("%s %q: headers %v", tc.path, tc.ae, resp.Header)
		}
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(got, tc.want) || len(body) >= len(tc.want)/4 {
			t.Errorf("%s %q: %v, %d bytes compressed to %d, same %v", tc.path, tc.ae, err, len(tc.want), len(body), bytes.Equal(got, tc.want))
		}
	}
}

func TestGzip(t *testing.T) {
	in := []byte(strings.Repeat("openapi ", 1000))
	zr, err := gzip.NewReader(bytes.NewReader(Gzip(in)))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := io.ReadAll(zr); err != nil || !bytes.Equal(out, in) {
		t.Fatalf("round trip: %v", err)
	}
}
