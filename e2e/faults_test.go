package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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
	eventually(t, 15*time.Second, "/readyz reports the alarm", func() error {
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
