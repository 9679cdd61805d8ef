package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

var (
	shipmentsGVR  = schema.GroupVersionResource{Group: "shipping.kubeforge.dev", Version: "v1", Resource: "shipments"}
	warehousesGVR = schema.GroupVersionResource{Group: "infra.kubeforge.dev", Version: "v1", Resource: "warehouses"}
)

// binary is the apiserver built once by TestMain.
var binary string

// shared is the server most tests use (each test in its own namespace or
// with its own names); tests that restart a server start their own.
var (
	sharedOnce sync.Once
	sharedSrv  *apiserver
	sharedErr  error
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "kubeforge-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	// E2E_APISERVER names a prebuilt binary; by default the main module's
	// cmd/apiserver is built here.
	if binary = os.Getenv("E2E_APISERVER"); binary == "" {
		binary = filepath.Join(dir, "apiserver")
		build := exec.Command("go", "build", "-o", binary, "./cmd/apiserver")
		build.Dir = ".." // the main module
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: go build ./cmd/apiserver: %v\n%s", err, out)
			return 1
		}
	}
	code := m.Run()
	if sharedSrv != nil {
		if err := sharedSrv.stop(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: stop shared apiserver:", err)
		}
	}
	return code
}

// apiserver is one running cmd/apiserver process.
type apiserver struct {
	dataDir string
	port    int
	cmd     *exec.Cmd
	log     *bytes.Buffer
	done    chan error
	config  *rest.Config
}

// sharedServer returns the server shared by tests, starting it once.
func sharedServer(t *testing.T) *apiserver {
	t.Helper()
	sharedOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kubeforge-e2e-data-")
		if err != nil {
			sharedErr = err
			return
		}
		sharedSrv, sharedErr = startServer(dir, 0)
	})
	if sharedErr != nil {
		t.Fatalf("start shared apiserver: %v", sharedErr)
	}
	return sharedSrv
}

// newServer starts a server of the test's own on a fresh data dir, with
// extra flags.
func newServer(t *testing.T, extra ...string) *apiserver {
	t.Helper()
	s, err := startServerBin(binary, t.TempDir(), 0, extra...)
	if err != nil {
		t.Fatalf("start apiserver: %v", err)
	}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Errorf("stop apiserver: %v", err)
		}
	})
	return s
}

// startServer runs the binary on dataDir and port (0 = a free port) and
// waits for dataDir/admin.kubeconfig.
func startServer(dataDir string, port int) (*apiserver, error) {
	return startServerBin(binary, dataDir, port)
}

// startServerBin is startServer with another apiserver binary and extra
// flags.
func startServerBin(binary, dataDir string, port int, extra ...string) (*apiserver, error) {
	kubeconfig := filepath.Join(dataDir, "admin.kubeconfig")
	_ = os.Remove(kubeconfig)
	s := &apiserver{dataDir: dataDir, log: &bytes.Buffer{}, done: make(chan error, 1)}
	s.cmd = exec.Command(binary, append([]string{"--data-dir", dataDir, "--bind-address", "127.0.0.1", "--port", strconv.Itoa(port)}, extra...)...)
	s.cmd.Stdout = &syncWriter{w: s.log}
	s.cmd.Stderr = s.cmd.Stdout
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", binary, err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if st, err := os.Stat(kubeconfig); err == nil && st.Size() > 0 {
			break
		}
		select {
		case err := <-s.done:
			return nil, fmt.Errorf("apiserver exited before it was ready: %v\n%s", err, s.logs())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = s.cmd.Process.Kill()
			return nil, fmt.Errorf("no %s after 60s\n%s", kubeconfig, s.logs())
		}
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		_ = s.stop()
		return nil, fmt.Errorf("read kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = 1000, 2000
	s.config = cfg
	u, err := url.Parse(cfg.Host)
	if err != nil {
		_ = s.stop()
		return nil, fmt.Errorf("parse server url %q: %w", cfg.Host, err)
	}
	s.port, err = strconv.Atoi(u.Port())
	if err != nil {
		_ = s.stop()
		return nil, fmt.Errorf("parse server port %q: %w", cfg.Host, err)
	}
	return s, nil
}

// stop sends SIGTERM and waits for the process (SIGKILL after 20 s).
func (s *apiserver) stop() error {
	if s.cmd.ProcessState != nil {
		return nil
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("signal apiserver: %w", err)
	}
	select {
	case err := <-s.done:
		if err != nil {
			return fmt.Errorf("apiserver exit after SIGTERM: %w\n%s", err, s.logs())
		}
		return nil
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
		return fmt.Errorf("apiserver did not stop within 20s of SIGTERM\n%s", s.logs())
	}
}

func (s *apiserver) logs() string {
	w := s.cmd.Stdout.(*syncWriter)
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.String()
}

func (s *apiserver) dynamic(t *testing.T) *dynamic.DynamicClient {
	t.Helper()
	c, err := dynamic.NewForConfig(s.config)
	if err != nil {
		t.Fatalf("dynamic client: %v", err)
	}
	return c
}

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// ctx returns a context that ends with the test or after d.
func ctx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return c
}

// eventually polls f until it returns nil or d passes.
func eventually(t *testing.T, d time.Duration, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s: %v", what, d, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// ensureNamespaces creates the namespaces a test writes into: the server
// serves real namespaces, so a create in a missing one is a 404.
func (s *apiserver) ensureNamespaces(t *testing.T, names ...string) {
	t.Helper()
	c := s.dynamic(t).Resource(namespacesGVR)
	for _, name := range names {
		ns := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1",
			"kind":       "Namespace",
			"metadata":   map[string]any{"name": name},
		}}
		_, err := c.Create(context.Background(), ns, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("create namespace %s: %v", name, err)
		}
	}
}
