package server_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubeforge/kubeforge/generated"
	"github.com/kubeforge/kubeforge/internal/tlsrecords"
	"github.com/kubeforge/kubeforge/runtime/server"
)

// writeSyscalls is the process's write system calls so far (syscw of
// /proc/self/io), or -1 where that is not available.
func writeSyscalls(tb testing.TB) int64 {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "syscw: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				tb.Fatalf("parse /proc/self/io: %v", err)
			}
			return n
		}
	}
	return -1
}

// BenchmarkListTLS lists 2,000 ConfigMaps of about 1.2 KB each (2.4 MB of
// JSON, from the watch cache) over HTTPS and HTTP/2 with a Go client, as
// cmd/bench's list phases do: what the server writes per list in TLS
// records and write system calls, and the process's CPU (client and
// server) per list. identity: the client does not ask for compression (as
// with client-go's DisableCompression); gzip: it does, as Go's transport
// and client-go do by default, and reads the list decompressed.
func BenchmarkListTLS(b *testing.B) {
	const items = 2000
	base, client, records, received := startListServer(b)
	cms := base + "/api/v1/namespaces/default/configmaps"
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < items; i += 8 {
				// Values that compress about as real objects' do: eight
				// words of a 64-word vocabulary, random, to 900 bytes.
				rnd := rand.New(rand.NewPCG(uint64(i), 7))
				var value strings.Builder
				for value.Len() < 900 {
					fmt.Fprintf(&value, "word%02d ", rnd.IntN(64))
				}
				body := fmt.Sprintf(`{"metadata":{"name":"cm%05d","labels":{"bench":"true"}},"data":{"value":%q}}`, i, value.String())
				if code := call(b, client, "POST", cms, body); code != http.StatusCreated {
					b.Errorf("create: %d", code)
					return
				}
			}
		})
	}
	wg.Wait()
	if b.Failed() {
		return
	}
	for _, name := range []string{"identity", "gzip"} {
		b.Run(name, func(b *testing.B) {
			tr := client.Transport.(*http.Transport).Clone()
			tr.DisableCompression = name == "identity"
			defer tr.CloseIdleConnections()
			benchmarkList(b, &http.Client{Transport: tr}, cms, items, records, received)
		})
	}
}

func benchmarkList(b *testing.B, client *http.Client, cms string, items int, records, received *atomic.Int64) {
	// The client reads each body into one buffer and checks its length,
	// so that its own work stays small beside the server's.
	var body bytes.Buffer
	list := func() []byte {
		resp, err := client.Get(cms + "?labelSelector=bench%3Dtrue")
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		body.Reset()
		if _, err := body.ReadFrom(resp.Body); err != nil {
			b.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("list: %d %.200s", resp.StatusCode, body.Bytes())
		}
		return body.Bytes()
	}
	// The cache serves a consistent list once it has caught up with the
	// creates; a few lists warm the connection (TLS records start small).
	size := 0
	for range 5 {
		data := list()
		if n := bytes.Count(data, []byte(`"kind":"ConfigMap"`)); n != items {
			b.Fatalf("listed %d items, want %d", n, items)
		}
		size = len(data)
	}
	b.ReportAllocs()
	rec0, bytes0, sys0, cpu0 := records.Load(), received.Load(), writeSyscalls(b), cpuTime(b)
	n := 0
	for b.Loop() {
		if got := len(list()); got != size {
			b.Fatalf("listed %d bytes, want %d", got, size)
		}
		n++
	}
	f := float64(n)
	b.ReportMetric(float64(cpuTime(b)-cpu0)/f, "cpu-ns/op")
	b.ReportMetric(float64(records.Load()-rec0)/f, "records/op")
	b.ReportMetric(float64(received.Load()-bytes0)/f, "B-wire/op")
	if sys0 >= 0 {
		b.ReportMetric(float64(writeSyscalls(b)-sys0)/f, "writes/op")
	}
}

// startListServer starts a server with its own etcd and returns its URL
// and an HTTP/2 client (the admin) whose connections count the records
// and bytes they receive.
func startListServer(b *testing.B) (url string, c *http.Client, records, received *atomic.Int64) {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s, err := server.New(ctx, server.Config{DataDir: b.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		cancel()
		b.Fatalf("new server: %v", err)
	}
	if err := generated.Install(s); err != nil {
		cancel()
		b.Fatalf("install: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	b.Cleanup(func() { cancel(); <-done })
	select {
	case <-s.Ready():
	case err := <-done:
		b.Fatalf("run: %v", err)
	case <-time.After(60 * time.Second):
		b.Fatal("server not ready after 60 s")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", s.KubeconfigPath())
	if err != nil {
		b.Fatal(err)
	}
	tc, err := rest.TLSConfigFor(cfg)
	if err != nil {
		b.Fatal(err)
	}
	tc = tc.Clone()
	tc.NextProtos = []string{"h2"}
	records, received = new(atomic.Int64), new(atomic.Int64)
	tr := &http.Transport{ForceAttemptHTTP2: true, TLSClientConfig: tc}
	tr.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		raw, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		cfg := tc.Clone()
		if cfg.ServerName == "" {
			cfg.ServerName, _, _ = net.SplitHostPort(addr)
		}
		conn := tls.Client(&tlsrecords.Conn{Conn: raw, Records: records, Bytes: received}, cfg)
		if err := conn.HandshakeContext(ctx); err != nil {
			raw.Close()
			return nil, err
		}
		return conn, nil
	}
	b.Cleanup(tr.CloseIdleConnections)
	return cfg.Host, &http.Client{Transport: tr}, records, received
}
