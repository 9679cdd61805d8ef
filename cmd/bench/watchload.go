package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// The watch-under-load phase: n watchers on one namespace while clients
// create objects there concurrently. An event's latency is from the
// create's response (the moment the writer knows it happened) to a
// watcher reading it, zero if the event came first; throughput is the
// events delivered per second, from the first create to the last event.

// sighting is one watcher reading the event of an object.
type sighting struct {
	name string
	at   time.Time
}

// loadNamespace is where the phase with n watchers writes.
func loadNamespace(n int) string { return fmt.Sprintf("load-%d", n) }

// watchLoad runs the phase against s.
func watchLoad(ctx context.Context, s side, n, creates, clients int) (result, error) {
	ns := loadNamespace(n)
	var mu sync.Mutex
	var seen []sighting
	var count atomic.Int64
	total := int64(n * creates)
	all := make(chan struct{})
	var once sync.Once
	saw := func(name string) {
		at := time.Now()
		mu.Lock()
		seen = append(seen, sighting{name, at})
		mu.Unlock()
		if count.Add(1) == total {
			once.Do(func() { close(all) })
		}
	}
	closeAll, err := s.watchNamespace(ctx, ns, n, saw)
	if err != nil {
		return result{}, err
	}
	defer closeAll()

	responded := make([]time.Time, creates)
	start := time.Now()
	if _, err := parallel(ctx, clients, creates, func(ctx context.Context, i int) error {
		if err := s.createIn(ctx, ns, loadName(n, i)); err != nil {
			return err
		}
		responded[i] = time.Now()
		return nil
	}); err != nil {
		return result{}, err
	}
	select {
	case <-all:
	case <-time.After(60 * time.Second):
		return result{}, fmt.Errorf("%d of %d events delivered within 60s", count.Load(), total)
	case <-ctx.Done():
		return result{}, ctx.Err()
	}
	mu.Lock()
	defer mu.Unlock()
	wall := seen[len(seen)-1].at.Sub(start)
	index := make(map[string]int, creates)
	for i := range creates {
		index[loadName(n, i)] = i
	}
	lat := make([]time.Duration, 0, len(seen))
	for _, sg := range seen {
		d := sg.at.Sub(responded[index[sg.name]])
		lat = append(lat, max(d, 0))
	}
	return result{ops: len(seen), wall: wall, lat: lat}, nil
}

// loadName is object i of the phase with n watchers: unique across the
// phases, since on the floor they share one collection.
func loadName(n, i int) string { return fmt.Sprintf("l%d-%05d", n, i) }

// nameOf finds metadata.name in an object's JSON without decoding it all
// (the bench's own CPU is shared with the server's).
func nameOf(data []byte) string {
	i := bytes.Index(data, []byte(`"name":"`))
	if i < 0 {
		return ""
	}
	rest := data[i+len(`"name":"`):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}

func (h *httpSide) createIn(ctx context.Context, ns, name string) error {
	return h.do(ctx, "POST", h.collection(ns), shipmentJSON(ns, name, "Normal", ""), http.StatusCreated, nil)
}

// watchNamespace opens n watches of ns (made by createNamespaces) from
// its current state; each
// ADDED event calls saw with the object's name.
func (h *httpSide) watchNamespace(ctx context.Context, ns string, n int, saw func(string)) (func(), error) {
	rv, err := h.listRV(ctx, ns)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(ctx)
	tr := &http.Transport{MaxIdleConnsPerHost: n, TLSClientConfig: h.tls, ForceAttemptHTTP2: true}
	wc := &http.Client{Transport: tr}
	var wg sync.WaitGroup
	closeAll := func() {
		cancel()
		wg.Wait()
		tr.CloseIdleConnections()
	}
	for w := range n {
		req, err := http.NewRequestWithContext(wctx, "GET", h.collection(ns)+"?watch=1&timeoutSeconds=600&resourceVersion="+rv, nil)
		if err != nil {
			closeAll()
			return nil, err
		}
		resp, err := wc.Do(req)
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("open watch %d: %w", w, err)
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			closeAll()
			return nil, fmt.Errorf("open watch %d: HTTP %d", w, resp.StatusCode)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 64<<10), 4<<20)
			for sc.Scan() {
				line := sc.Bytes()
				if bytes.HasPrefix(line, []byte(`{"type":"ADDED"`)) {
					saw(nameOf(line))
				}
			}
		}()
	}
	return closeAll, nil
}

func (e *etcdSide) createIn(ctx context.Context, ns, name string) error {
	k := rawRoot + ns + "/" + name
	resp, err := e.c.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(k), "=", 0)).
		Then(clientv3.OpPut(k, string(shipmentJSON(ns, name, "Normal", "")))).
		Commit()
	if err != nil {
		return err
	}
	if !resp.Succeeded {
		return fmt.Errorf("%s: %w", k, errExists)
	}
	return nil
}

// watchNamespace opens n etcd watches of the namespace's prefix on the
// one client (as the apiserver's watches share its client).
func (e *etcdSide) watchNamespace(ctx context.Context, ns string, n int, saw func(string)) (func(), error) {
	return e.watchPrefix(ctx, rawRoot+ns+"/", n, func(v []byte) { saw(nameOf(v)) })
}

// watchPrefix opens n etcd watches of prefix on the one client; created
// is called with each new key's value. The returned func ends them.
func (e *etcdSide) watchPrefix(ctx context.Context, prefix string, n int, created func([]byte)) (func(), error) {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	var wg sync.WaitGroup
	closeAll := func() {
		cancel()
		wg.Wait()
	}
	for w := range n {
		wch := e.c.Watch(wctx, prefix, clientv3.WithPrefix(), clientv3.WithCreatedNotify())
		first := <-wch
		if err := first.Err(); err != nil {
			closeAll()
			return nil, fmt.Errorf("open etcd watch %d: %w", w, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for resp := range wch {
				for _, ev := range resp.Events {
					if ev.IsCreate() {
						created(ev.Kv.Value)
					}
				}
			}
		}()
	}
	return closeAll, nil
}
