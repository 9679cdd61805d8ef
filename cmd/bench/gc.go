package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kubeforge/kubeforge/runtime/etcd"
)

// runGC measures the garbage collector (-gc): -objects ConfigMaps owned by
// one Shipment, collected once the Shipment is deleted in the background,
// then again in the foreground (the Shipment goes once every blocking
// dependent is gone); the time until the last dependent is gone, and the
// apiserver's memory (the collector's graph and queues included).
func runGC(ctx context.Context, c config) error {
	dir, cleanup, err := benchDir(c, "kubeforge-bench-gc-")
	if err != nil {
		return err
	}
	defer cleanup()
	fmt.Printf("starting etcd ...\n")
	e, err := etcd.StartEmbedded(ctx, filepath.Join(dir, "etcd"), etcd.WithLogLevel("fatal"),
		etcd.WithTLS(filepath.Join(dir, "etcd-pki")), etcd.WithClientSocket(filepath.Join(dir, "etcd.sock")))
	if err != nil {
		return fmt.Errorf("start etcd: %w", err)
	}
	defer e.Close()
	bin, err := buildAPIServer(ctx, c, dir)
	if err != nil {
		return err
	}
	child, err := startAPIServer(ctx, bin, filepath.Join(dir, "apiserver"), e.Endpoints(), e.ClientTLS(), strings.Fields(c.extraArgs))
	if err != nil {
		return err
	}
	defer child.stop()
	api := newHTTPSide(child.url, child.tls, c)
	pid := child.cmd.Process.Pid
	const ns = "gc"
	if err := api.do(ctx, "POST", api.base+"/api/v1/namespaces", []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"gc"}}`), http.StatusCreated, nil); err != nil {
		return err
	}
	rss0, _ := readStatus(pid, "VmRSS")
	fmt.Printf("apiserver %s (pid %d), %d dependents of one owner, concurrency %d; RSS at start %.1f MiB\n\n", child.url, pid, c.objects, c.concurrency, mib(rss0))
	cms := api.base + "/api/v1/namespaces/" + ns + "/configmaps"
	for _, policy := range []string{"Background", "Foreground"} {
		owner := "owner-" + strings.ToLower(policy)
		var o struct {
			Metadata struct {
				UID string `json:"uid"`
			} `json:"metadata"`
		}
		if err := api.do(ctx, "POST", api.collection(ns), shipmentJSON(ns, owner, "Normal", ""), http.StatusCreated, &o); err != nil {
			return fmt.Errorf("create owner: %w", err)
		}
		ref := fmt.Sprintf(`[{"apiVersion":"%s/%s","kind":"Shipment","name":"%s","uid":"%s","controller":true,"blockOwnerDeletion":true}]`, group, version, owner, o.Metadata.UID)
		start := time.Now()
		if _, err := parallel(ctx, c.concurrency, c.objects, func(ctx context.Context, i int) error {
			body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s-%06d","labels":{"owner":"%s"},"ownerReferences":%s},"data":{"i":"%d"}}`, owner, i, owner, ref, i)
			return api.do(ctx, "POST", cms, []byte(body), http.StatusCreated, nil)
		}); err != nil {
			return fmt.Errorf("create dependents: %w", err)
		}
		created := time.Since(start)
		rss1, _ := readStatus(pid, "VmRSS")
		cpu0, _ := cpuTime(pid)
		deletions0, err := gcDeletions(ctx, api)
		if err != nil {
			return err
		}
		start = time.Now()
		if err := api.do(ctx, "DELETE", api.collection(ns)+"/"+owner+"?propagationPolicy="+policy, nil, http.StatusOK, nil); err != nil {
			return fmt.Errorf("delete owner: %w", err)
		}
		var maxQueue float64
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			n, err := countConfigMaps(ctx, api, cms+"?labelSelector=owner%3D"+owner)
			if err != nil {
				return err
			}
			ownerGone := api.do(ctx, "GET", api.collection(ns)+"/"+owner, nil, http.StatusNotFound, nil) == nil
			if q, err := gcQueueDepth(ctx, api); err == nil && q > maxQueue {
				maxQueue = q
			}
			if n == 0 && ownerGone {
				break
			}
			if time.Since(start) > 10*time.Minute {
				return fmt.Errorf("%s: %d dependents left after 10 minutes", policy, n)
			}
			time.Sleep(100 * time.Millisecond)
		}
		took := time.Since(start)
		cpu1, _ := cpuTime(pid)
		deletions1, err := gcDeletions(ctx, api)
		if err != nil {
			return err
		}
		rss2, _ := readStatus(pid, "VmRSS")
		hwm, _ := readStatus(pid, "VmHWM")
		fmt.Printf("%-10s  created %d in %s; collected in %s (%.0f/s), %d deletes by the collector, apiserver CPU %s, deepest attemptToDelete queue %.0f\n",
			policy, c.objects, round(created), round(took), float64(c.objects)/took.Seconds(), deletions1-deletions0, round(cpu1-cpu0), maxQueue)
		fmt.Printf("%-10s  apiserver RSS %.1f MiB with the dependents, %.1f MiB after; peak so far %.1f MiB\n", "", mib(rss1), mib(rss2), mib(hwm))
	}
	return nil
}

func buildAPIServer(ctx context.Context, c config, dir string) (string, error) {
	if c.apiserver != "" {
		return c.apiserver, nil
	}
	bin := filepath.Join(dir, "apiserver-bin")
	fmt.Printf("building cmd/apiserver ...\n")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/kubeforge/kubeforge/cmd/apiserver")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build cmd/apiserver: %w\n%s", err, out)
	}
	return bin, nil
}

func countConfigMaps(ctx context.Context, api *httpSide, url string) (int, error) {
	var l struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := api.do(ctx, "GET", url, nil, http.StatusOK, &l); err != nil {
		return 0, err
	}
	return len(l.Items), nil
}

// metric reads one sample of the apiserver's /metrics.
func metric(ctx context.Context, api *httpSide, prefix string) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", api.base+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	resp, err := api.c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), prefix+" "); ok {
			return strconv.ParseFloat(v, 64)
		}
	}
	return 0, nil
}

func gcDeletions(ctx context.Context, api *httpSide) (int, error) {
	v, err := metric(ctx, api, `garbage_collector_deletions_total{kind="ConfigMap"}`)
	return int(v), err
}

func gcQueueDepth(ctx context.Context, api *httpSide) (float64, error) {
	return metric(ctx, api, `garbage_collector_queue_depth{queue="attempt_to_delete"}`)
}
