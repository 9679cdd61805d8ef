package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	_ "net/http/pprof" // -etcd-cpuprofile
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kubeforge/kubeforge/internal/freeport"
	"github.com/kubeforge/kubeforge/runtime/etcd"
)

// serveEtcdEnv, when set to a directory, makes this binary an etcd server
// and nothing else: the bench re-runs itself that way so that each etcd is
// a process of its own, whose CPU time is measured apart from the bench's
// clients and from the server using it.
const serveEtcdEnv = "KUBEFORGE_BENCH_SERVE_ETCD"

// etcdReady is the line an etcd process prints on stdout once it serves.
type etcdReady struct {
	Endpoints []string      `json:"endpoints"`
	TLS       etcd.TLSFiles `json:"tls"`
}

// serveEtcd runs etcd in dir (TLS on the peer port and a unix socket for
// clients, as the apiserver runs its own, unless plain) until ctx ends.
func serveEtcd(ctx context.Context, dir string, plain bool, stdout io.Writer) error {
	opts := []etcd.Option{etcd.WithLogLevel("fatal")}
	if !plain {
		opts = append(opts, etcd.WithTLS(filepath.Join(dir, "pki")), etcd.WithClientSocket(filepath.Join(dir, "etcd.sock")))
	}
	if addr := os.Getenv(serveEtcdEnv + "_PPROF"); addr != "" {
		// -etcd-cpuprofile: net/http/pprof's handlers on their own port.
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("listen for pprof: %w", err)
		}
		srv := &http.Server{Handler: http.DefaultServeMux, ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
	}
	e, err := etcd.StartEmbedded(ctx, filepath.Join(dir, "data"), opts...)
	if err != nil {
		return fmt.Errorf("start etcd: %w", err)
	}
	defer e.Close()
	line, err := json.Marshal(etcdReady{Endpoints: e.Endpoints(), TLS: e.ClientTLS()})
	if err != nil {
		return fmt.Errorf("encode etcd endpoints: %w", err)
	}
	if _, err := fmt.Fprintf(stdout, "%s\n", line); err != nil {
		return fmt.Errorf("report etcd endpoints: %w", err)
	}
	<-ctx.Done()
	return nil
}

// proc is a child process of the bench: an etcd, the floor or the
// apiserver.
type proc struct {
	cmd  *exec.Cmd
	done chan error
	log  *lockedWriter
}

func startProc(cmd *exec.Cmd) (*proc, error) {
	p := &proc{cmd: cmd, done: make(chan error, 1), log: &lockedWriter{w: &bytes.Buffer{}}}
	if cmd.Stdout == nil {
		cmd.Stdout = p.log
	}
	cmd.Stderr = p.log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", filepath.Base(cmd.Path), err)
	}
	go func() { p.done <- cmd.Wait() }()
	return p, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) logs() string {
	p.log.mu.Lock()
	defer p.log.mu.Unlock()
	return p.log.w.String()
}

// stop interrupts the process and waits for it, killing it after 20 s.
func (p *proc) stop() {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// etcdProc is an etcd server in a process of its own, with a client.
type etcdProc struct {
	*proc
	ready  etcdReady
	client *clientv3.Client
}

// startEtcdProc re-runs this binary as an etcd server in dir.
func startEtcdProc(ctx context.Context, dir string, plain bool, pprofAddr string) (*etcdProc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("start etcd process: %w", err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), serveEtcdEnv+"="+dir)
	if plain {
		cmd.Env = append(cmd.Env, serveEtcdEnv+"_PLAIN=1")
	}
	if pprofAddr != "" {
		cmd.Env = append(cmd.Env, serveEtcdEnv+"_PPROF="+pprofAddr)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start etcd process: %w", err)
	}
	p, err := startProc(cmd)
	if err != nil {
		return nil, err
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		_, _ = io.Copy(io.Discard, out)
	}()
	e := &etcdProc{proc: p}
	select {
	case line, ok := <-lines:
		if !ok {
			p.stop()
			return nil, fmt.Errorf("etcd process exited before it served:\n%s", p.logs())
		}
		if err := json.Unmarshal([]byte(line), &e.ready); err != nil {
			p.stop()
			return nil, fmt.Errorf("etcd process: read endpoints %q: %w", line, err)
		}
	case <-time.After(60 * time.Second):
		p.stop()
		return nil, fmt.Errorf("etcd process not ready after 60s:\n%s", p.logs())
	case <-ctx.Done():
		p.stop()
		return nil, ctx.Err()
	}
	if e.client, err = etcd.NewClient(e.ready.Endpoints, e.ready.TLS); err != nil {
		p.stop()
		return nil, fmt.Errorf("connect to the etcd process: %w", err)
	}
	return e, nil
}

func (e *etcdProc) stop() {
	_ = e.client.Close()
	e.proc.stop()
}

// floorColl is the one collection the floor serves: every namespace of
// the bench maps onto it (object names are unique across namespaces).
const floorColl = "/apis/" + group + "/" + version + "/namespaces/bench/" + plural

// buildFloor builds ../shared/floor (its own module) into bin.
func buildFloor(ctx context.Context, src, bin string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", src, err, out)
	}
	return nil
}

// startFloor runs the floor binary on the etcd endpoint and waits until
// it answers a list; it returns the process and its base URL.
func startFloor(ctx context.Context, bin, endpoint string) (*proc, string, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, "", err
	}
	p, err := startProc(exec.Command(bin, "-listen", addr, "-etcd", endpoint, "-coll", floorColl))
	if err != nil {
		return nil, "", err
	}
	base := "https://" + addr
	// The floor's certificate is self-signed and names only localhost.
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, Timeout: 2 * time.Second}
	defer c.CloseIdleConnections()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := c.Get(base + floorColl + "?limit=1")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, base, nil
			}
			err = fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		select {
		case werr := <-p.done:
			return nil, "", fmt.Errorf("floor exited before it served: %v\n%s", werr, p.logs())
		case <-ctx.Done():
			p.stop()
			return nil, "", ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, "", fmt.Errorf("floor not ready after 30s: %w\n%s", err, p.logs())
		}
	}
}

// freeAddr is a free loopback address below the ephemeral port range
// (internal/freeport says why).
func freeAddr() (string, error) {
	p, err := freeport.Pick()
	if err != nil {
		return "", err
	}
	return "127.0.0.1:" + strconv.Itoa(p), nil
}
