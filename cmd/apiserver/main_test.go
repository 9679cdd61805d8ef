package main

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// TestSIGTERM builds the command, starts it on a free port, waits for the
// kubeconfig, checks the server answers, sends SIGTERM and expects exit 0.
func TestSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the apiserver")
	}
	bin := filepath.Join(t.TempDir(), "apiserver")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data := t.TempDir()
	var logs syncBuffer
	cmd := exec.Command(bin, "--data-dir", data, "--bind-address", "127.0.0.1", "--port", "0")
	cmd.Stdout = &logs
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})
	kubeconfig := filepath.Join(data, "admin.kubeconfig")
	deadline := time.Now().Add(60 * time.Second)
	for {
		if st, err := os.Stat(kubeconfig); err == nil && st.Size() > 0 {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("apiserver exited early: %v\n%s", err, logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no kubeconfig after 60 s\n%s", logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	raw, err := os.ReadFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	var kc struct {
		Clusters []struct {
			Cluster struct {
				Server string
				CA     []byte `json:"certificate-authority-data"`
			} `json:"cluster"`
		} `json:"clusters"`
	}
	if err := yaml.Unmarshal(raw, &kc); err != nil || len(kc.Clusters) != 1 {
		t.Fatalf("kubeconfig %s: %v", raw, err)
	}
	// Secure by default: https with the CA the kubeconfig carries, and
	// /readyz open to anonymous requests.
	server := kc.Clusters[0].Cluster.Server
	if !strings.HasPrefix(server, "https://") {
		t.Fatalf("kubeconfig server %q, want https", server)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(kc.Clusters[0].Cluster.CA) {
		t.Fatalf("kubeconfig has no CA: %s", raw)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	resp, err := client.Get(server + "/readyz?verbose")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("/readyz?verbose: %d %v\n%s", resp.StatusCode, err, body)
	}
	// Every start step of a standalone server with the built-in kinds is
	// reported by name, as kube-apiserver reports its post-start hooks.
	for _, step := range []string{"start-etcd-compactor", "start-etcd-health-monitor", "wait-for-etcd",
		"start-system-namespaces-controller", "start-garbage-collector", "start-service-account-cache",
		"rbac/bootstrap-roles", "start-admission-plugins", "start-serving-certificate-renewal"} {
		if !strings.Contains(string(body), "[+]poststarthook/"+step+" ok\n") {
			t.Errorf("/readyz?verbose does not report start step %s:\n%s", step, body)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, logs.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("still running 60 s after SIGTERM\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "kubeforge apiserver ready: export KUBECONFIG="+kubeconfig) {
		t.Errorf("no ready line in logs:\n%s", logs.String())
	}
}

// syncBuffer collects the process output; the copying goroutines write
// while the test may read.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestProfilingAddressLoopbackOnly: the command refuses, with exit 2, the
// remote profiling address package options rejects.
func TestProfilingAddressLoopbackOnly(t *testing.T) {
	var stderr strings.Builder
	if code := run([]string{"--profiling-address", "0.0.0.0:0", "--data-dir", t.TempDir()}, &stderr); code != 2 || !strings.Contains(stderr.String(), "not a loopback address") {
		t.Errorf("run with a remote profiling address: exit %d, %q", code, stderr.String())
	}
}
