package e2e

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubeforge/kubeforge/runtime/etcd"
)

// TestEtcdOutage: with its external etcd stopped, the server answers
// requests that need etcd with a 503 and Retry-After within seconds,
// /readyz fails, and both recover within seconds of etcd's return.
func TestEtcdOutage(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "etcd.sock")
	start := func() *etcd.Embedded {
		e, err := etcd.StartEmbedded(ctx(t, time.Minute), filepath.Join(dir, "etcd"), etcd.WithClientSocket(sock))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := start()
	defer func() { _ = e.Close() }()
	s, err := startServerBin(binary, filepath.Join(dir, "data"), 0, "--etcd-servers", "unix://"+sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Error(err)
		}
	})
	hc, err := rest.HTTPClientFor(s.config)
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, string, http.Header) {
		resp, err := hc.Get(s.config.Host + path)
		if err != nil {
			return 0, err.Error(), nil
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	const ns = "/api/v1/namespaces/default"
	if code, body, _ := get(ns); code != 200 {
		t.Fatalf("before the outage: %d %s", code, body)
	}

	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	down := time.Now()
	eventually(t, 10*time.Second, "a 503 while etcd is down", func() error {
		code, body, hdr := get(ns)
		if code != http.StatusServiceUnavailable || hdr.Get("Retry-After") == "" || !strings.Contains(body, "etcd does not answer") {
			return fmt.Errorf("%d %s", code, body)
		}
		return nil
	})
	if d := time.Since(down); d > 8*time.Second {
		t.Errorf("503 only after %s", d)
	} else {
		t.Logf("503 %s after etcd stopped", d.Round(time.Millisecond))
	}
	began := time.Now()
	if code, body, _ := get(ns); code != http.StatusServiceUnavailable || time.Since(began) > time.Second {
		t.Errorf("during the outage: %d after %s: %s", code, time.Since(began), body)
	}
	if code, _, _ := get("/readyz"); code == http.StatusOK {
		t.Error("/readyz is ok while etcd is down")
	}
	if code, _, _ := get("/livez"); code != http.StatusOK {
		t.Errorf("/livez: %d while etcd is down", code)
	}
	time.Sleep(5 * time.Second) // long enough for gRPC's backoff to grow

	e = start()
	back := time.Now()
	eventually(t, 15*time.Second, "service back after etcd returns", func() error {
		if code, body, _ := get(ns); code != 200 {
			return fmt.Errorf("%d %s", code, body)
		}
		if code, body, _ := get("/readyz"); code != 200 {
			return fmt.Errorf("readyz %d %s", code, body)
		}
		return nil
	})
	if d := time.Since(back); d > 5*time.Second {
		t.Errorf("recovered only %s after etcd returned", d)
	} else {
		t.Logf("served again %s after etcd returned", d.Round(time.Millisecond))
	}
	newKubectl(t, s).ok(t, "", "create", "namespace", "after-outage")
}

// TestKillDuringWrites: kill -9 of the server during concurrent creates,
// updates and deletes, then a restart on the same data dir: every
// acknowledged write is there (at its resourceVersion or a later one the
// client never heard of), every acknowledged delete stays deleted, and a
// write that was in flight does not break later writes.
func TestKillDuringWrites(t *testing.T) {
	dataDir := t.TempDir()
	s, err := startServerBin(binary, dataDir, 0)
	if err != nil {
		t.Fatal(err)
	}
	newKubectl(t, s).ok(t, "", "create", "namespace", "k9")
	hc, err := rest.HTTPClientFor(s.config)
	if err != nil {
		t.Fatal(err)
	}
	base := s.config.Host + "/apis/shipping.kubeforge.dev/v1/namespaces/k9/shipments"
	type acked struct {
		rv      int64
		deleted bool
		// deleting: a delete was sent, its answer not (yet) received.
		deleting bool
	}
	var mu sync.Mutex
	state := map[string]acked{}
	do := func(method, url, body string) (int, map[string]any) {
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return 0, nil
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	rvOf := func(obj map[string]any) int64 {
		md, _ := obj["metadata"].(map[string]any)
		rv, _ := strconv.ParseInt(fmt.Sprint(md["resourceVersion"]), 10, 64)
		return rv
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("w%d-%d", w, i)
				code, obj := do("POST", base, validShipmentJSON(`"name":"`+name+`"`))
				if code != http.StatusCreated {
					continue
				}
				mu.Lock()
				state[name] = acked{rv: rvOf(obj)}
				mu.Unlock()
				switch i % 3 {
				case 1:
					patch := `{"metadata":{"labels":{"round":"` + strconv.Itoa(i) + `"}}}`
					req, _ := http.NewRequest("PATCH", base+"/"+name, strings.NewReader(patch))
					req.Header.Set("Content-Type", "application/merge-patch+json")
					if resp, err := hc.Do(req); err == nil {
						var out map[string]any
						_ = json.NewDecoder(resp.Body).Decode(&out)
						resp.Body.Close()
						if resp.StatusCode == http.StatusOK {
							mu.Lock()
							state[name] = acked{rv: rvOf(out)}
							mu.Unlock()
						}
					}
				case 2:
					mu.Lock()
					state[name] = acked{rv: state[name].rv, deleting: true}
					mu.Unlock()
					if code, _ := do("DELETE", base+"/"+name, ""); code == http.StatusOK {
						mu.Lock()
						state[name] = acked{deleted: true}
						mu.Unlock()
					}
				}
			}
		}()
	}
	time.Sleep(2 * time.Second)
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-s.done
	close(stop)
	wg.Wait()

	s2, err := startServerBin(binary, dataDir, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s2.stop(); err != nil {
			t.Error(err)
		}
	})
	hc, err = rest.HTTPClientFor(s2.config)
	if err != nil {
		t.Fatal(err)
	}
	base = s2.config.Host + "/apis/shipping.kubeforge.dev/v1/namespaces/k9/shipments"
	kept, deleted := 0, 0
	for name, a := range state {
		code, obj := do("GET", base+"/"+name, "")
		switch {
		case a.deleted && code != http.StatusNotFound:
			t.Errorf("%s: acknowledged delete, now %d", name, code)
		case a.deleted:
			deleted++
		case a.deleting && code == http.StatusNotFound:
			// deleted by a request the kill cut off
		case code != http.StatusOK:
			t.Errorf("%s: acknowledged write lost: %d", name, code)
		case rvOf(obj) < a.rv:
			t.Errorf("%s: resourceVersion %d older than the acknowledged %d", name, rvOf(obj), a.rv)
		default:
			kept++
		}
	}
	if kept+deleted < 50 {
		t.Fatalf("only %d writes acknowledged before the kill", kept+deleted)
	}
	t.Logf("%d acknowledged objects kept and %d acknowledged deletes after kill -9", kept, deleted)
	// Writes after the restart, over every name the workers may have had
	// in flight, go through.
	for w := range 8 {
		for i := 0; i < 200; i++ {
			name := fmt.Sprintf("w%d-%d", w, i)
			if _, ok := state[name]; ok {
				continue
			}
			code, _ := do("POST", base, validShipmentJSON(`"name":"`+name+`"`))
			if code != http.StatusCreated && code != http.StatusConflict {
				t.Errorf("create %s after the restart: %d", name, code)
			}
			break
		}
	}
}

// TestEtcdOutOfSpace: past the embedded etcd's quota, writes get a 507
// that says what to do while reads go on and /readyz reports it; deleting
// objects brings writes back (the server compacts, defragments and
// disarms the NOSPACE alarm).
func TestEtcdOutOfSpace(t *testing.T) {
	s := newServer(t, "--etcd-quota-backend-bytes", "4194304")
	k := newKubectl(t, s)
	k.ok(t, "", "create", "namespace", "full")
	hc, err := rest.HTTPClientFor(s.config)
	if err != nil {
		t.Fatal(err)
	}
	base := s.config.Host + "/api/v1/namespaces/full/configmaps"
	blob := strings.Repeat("x", 600<<10)
	created := 0
	var lastCode int
	var lastBody string
	for i := 0; i < 40; i++ {
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c%d"},"data":{"blob":%q}}`, i, blob)
		resp, err := hc.Post(base, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		lastCode, lastBody = resp.StatusCode, string(b)
		if resp.StatusCode != http.StatusCreated {
			break
		}
		created++
	}
	if lastCode != http.StatusInsufficientStorage || !strings.Contains(lastBody, "etcd is out of space") {
		t.Fatalf("after %d creates: %d %s", created, lastCode, lastBody)
	}
	if got := strings.TrimSpace(k.ok(t, "", "get", "configmap", "c0", "-n", "full", "-o", "name")); got != "configmap/c0" {
		t.Errorf("read during NOSPACE: %q", got)
	}
	eventually(t, 15*time.Second, "/readyz and /metrics report the alarm", func() error {
		mresp, err := hc.Get(s.config.Host + "/metrics")
		if err != nil {
			return err
		}
		mb, _ := io.ReadAll(mresp.Body)
		mresp.Body.Close()
		if !strings.Contains(string(mb), "apiserver_storage_etcd_nospace_alarm 1") {
			return fmt.Errorf("no apiserver_storage_etcd_nospace_alarm 1 in /metrics")
		}
		resp, err := hc.Get(s.config.Host + "/readyz?verbose")
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK || !strings.Contains(string(b), "etcd-space") {
			return fmt.Errorf("%d %s", resp.StatusCode, b)
		}
		return nil
	})
	for i := 0; i < created; i++ {
		k.ok(t, "", "delete", "configmap", fmt.Sprintf("c%d", i), "-n", "full")
	}
	eventually(t, 30*time.Second, "writes accepted again", func() error {
		resp, err := hc.Post(base, "application/json", strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"after"},"data":{"a":"b"}}`))
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			return fmt.Errorf("%d %s", resp.StatusCode, b)
		}
		return nil
	})
}

// rssMiB is the resident memory of the server process.
func (s *apiserver) rssMiB(t *testing.T) int {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.Atoi(f[1])
			return kb / 1024
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// rawTLS opens a connection to the server speaking HTTP/1.1 as the admin.
func (s *apiserver) rawTLS(t *testing.T) net.Conn {
	t.Helper()
	cfg, err := rest.TLSConfigFor(s.config)
	if err != nil {
		t.Fatal(err)
	}
	cfg = cfg.Clone()
	cfg.NextProtos = []string{"http/1.1"}
	c, err := tls.Dial("tcp", strings.TrimPrefix(s.config.Host, "https://"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAbusiveClients runs the attacks of the hardening issue against a
// real server process and asserts each bound: half-sent bodies hold no
// in-flight slot and get a 408 in time, a watcher that never reads is
// ended without the server holding what it did not read, and a doubling
// JSON patch is refused quickly without memory to show for it.
func TestAbusiveClients(t *testing.T) {
	s := newServer(t, "--request-timeout", "5s")
	k := newKubectl(t, s)
	k.ok(t, "", "create", "namespace", "abuse")
	hc, err := rest.HTTPClientFor(s.config)
	if err != nil {
		t.Fatal(err)
	}
	cms := s.config.Host + "/api/v1/namespaces/abuse/configmaps"
	send := func(method, url, ct, body string) (int, string) {
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Content-Type", ct)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	// 450 bodies that never finish arriving (more than the 200 mutating
	// slots): other writes go on, and each slow one gets its 408.
	var slow []net.Conn
	for i := range 450 {
		c := s.rawTLS(t)
		fmt.Fprintf(c, "POST /api/v1/namespaces/abuse/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"metadata\":{\"name\":\"slow%d\"", i)
		slow = append(slow, c)
	}
	if code, body := send("POST", cms, "application/json", `{"metadata":{"name":"fine"}}`); code != http.StatusCreated {
		t.Errorf("a write beside 450 slow bodies: %d %s", code, body)
	}
	got408 := 0
	for _, c := range slow {
		_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err == nil && resp.StatusCode == http.StatusRequestTimeout {
			got408++
		}
		c.Close()
	}
	if got408 != len(slow) {
		t.Errorf("%d of %d slow bodies got their 408", got408, len(slow))
	}

	// A watcher that never reads while 150 updates of a 200 KiB object
	// happen (60 MiB of events with their previous values): the server
	// ends its watch once it is 8 MiB behind (TestSlowWatcherEnded in
	// runtime/storage asserts the bound on what is held) and counts it.
	blob := strings.Repeat("x", 200<<10)
	if code, body := send("POST", cms, "application/json", fmt.Sprintf(`{"metadata":{"name":"big"},"data":{"v":"0","blob":%q}}`, blob)); code != http.StatusCreated {
		t.Fatalf("create big: %d %s", code, body)
	}
	w := s.rawTLS(t)
	defer w.Close()
	fmt.Fprintf(w, "GET /api/v1/namespaces/abuse/configmaps?watch=true HTTP/1.1\r\nHost: x\r\n\r\n")
	for i := 1; i <= 150; i++ {
		if code, body := send("PATCH", cms+"/big", "application/merge-patch+json", fmt.Sprintf(`{"data":{"v":"%d"}}`, i)); code != http.StatusOK {
			t.Fatalf("update %d: %d %s", i, code, body)
		}
	}
	eventually(t, 10*time.Second, "the non-reading watcher is ended", func() error {
		_, metrics := send("GET", s.config.Host+"/metrics", "", "")
		for _, line := range strings.Split(metrics, "\n") {
			if strings.HasPrefix(line, `apiserver_terminated_watchers_total{resource="configmaps"} 1`) {
				return nil
			}
		}
		return fmt.Errorf("no apiserver_terminated_watchers_total for configmaps")
	})
	// What it finally reads ends: far fewer than the 150 events.
	_ = w.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(w), nil)
	if err != nil {
		t.Fatal(err)
	}
	events := 0
	dec := json.NewDecoder(resp.Body)
	for {
		var ev map[string]any
		if err := dec.Decode(&ev); err != nil {
			if err != io.EOF && !strings.Contains(err.Error(), "unexpected EOF") {
				t.Fatalf("reading the ended watch: %v", err)
			}
			break
		}
		events++
	}
	if events == 0 || events >= 150 {
		t.Errorf("the ended watch delivered %d events", events)
	}
	t.Logf("the non-reading watcher was ended after %d of 150 events", events)

	// The doubling-copy patch of the issue: refused fast, nothing stored.
	ops := []string{`{"op":"add","path":"/data/d0","value":"` + strings.Repeat("x", 1024) + `"}`}
	for k := 1; k < 20; k++ {
		ops = append(ops, fmt.Sprintf(`{"op":"add","path":"/data/d%d","value":""}`, k),
			fmt.Sprintf(`{"op":"copy","from":"/data/d%d","path":"/data/d%d"}`, k-1, k),
			fmt.Sprintf(`{"op":"copy","from":"/data/d%d","path":"/data/e%d"}`, k-1, k))
	}
	bomb := "[" + strings.Join(ops, ",") + "]"
	began := time.Now()
	rssBefore := s.rssMiB(t)
	code, body := send("PATCH", cms+"/fine?dryRun=All", "application/json-patch+json", bomb)
	if code < 400 || code >= 500 || time.Since(began) > 5*time.Second {
		t.Errorf("patch bomb: %d after %s: %.200s", code, time.Since(began), body)
	}
	if grew := s.rssMiB(t) - rssBefore; grew > 64 {
		t.Errorf("patch bomb grew RSS by %d MiB", grew)
	}
}

// TestHeapBoundedUnderLargeUpdates: updates of a large object do not grow
// the server's heap with etcd's history (the embedded etcd's in-memory
// raft log is compacted often: with etcd's defaults it held every entry
// since the last of its rare snapshots, 60 MiB more per 300 updates of
// 200 KiB here).
func TestHeapBoundedUnderLargeUpdates(t *testing.T) {
	// pprof's heap profile with gc=1 runs a collection first, so the
	// heap is read after a GC, not wherever the pacer happens to be.
	pprofAddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	s := newServer(t, "--profiling-address", pprofAddr)
	newKubectl(t, s).ok(t, "", "create", "namespace", "heap")
	hc, err := rest.HTTPClientFor(s.config)
	if err != nil {
		t.Fatal(err)
	}
	cms := s.config.Host + "/api/v1/namespaces/heap/configmaps"
	send := func(method, url, ct, body string) string {
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Content-Type", ct)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 300 {
			t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, b)
		}
		return string(b)
	}
	heapMiB := func() int {
		resp, err := http.Get("http://" + pprofAddr + "/debug/pprof/heap?gc=1")
		if err != nil {
			t.Fatalf("force a GC: %v", err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		for _, line := range strings.Split(send("GET", s.config.Host+"/metrics", "", ""), "\n") {
			if v, ok := strings.CutPrefix(line, "go_memstats_heap_inuse_bytes "); ok {
				f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
				return int(f / (1 << 20))
			}
		}
		t.Fatal("no go_memstats_heap_inuse_bytes")
		return 0
	}
	send("POST", cms, "application/json", fmt.Sprintf(`{"metadata":{"name":"big"},"data":{"v":"0","blob":%q}}`, strings.Repeat("x", 200<<10)))
	var first int
	for i := 1; i <= 900; i++ {
		send("PATCH", cms+"/big", "application/merge-patch+json", fmt.Sprintf(`{"data":{"v":"%d"}}`, i))
		if i == 300 {
			first = heapMiB()
		}
	}
	last := heapMiB()
	t.Logf("heap %d MiB after 300 updates of 200 KiB, %d MiB after 900", first, last)
	if last > first+32 {
		t.Errorf("the heap grew from %d to %d MiB over 600 more updates", first, last)
	}
}
