package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// kubectlPath is the real kubectl binary: $KUBECTL, else the one
// ../hack/kubectl.sh builds (once per machine, in the acceptance cache).
func kubectlPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("KUBECTL"); p != "" {
		return p
	}
	return kubectlVersionPath(t, "")
}

// LegacyKubectlVersion is the oldest k8s.io/kubectl module that still
// builds with our Go toolchain from the module proxy (v0.19 and older need
// vbom.ml/util, which the proxy no longer serves). It is also the kubectl
// Debian ships. It asks for OpenAPI v2 as protobuf only.
const LegacyKubectlVersion = "v0.20.15"

var kubectlBuilds sync.Map // version -> *kubectlBuild

type kubectlBuild struct {
	once sync.Once
	bin  string
	err  error
}

// kubectlVersionPath builds kubectl of the given k8s.io/kubectl module
// version ("" for hack/kubectl.sh's default) once per machine and returns
// its path.
func kubectlVersionPath(t *testing.T, version string) string {
	t.Helper()
	v, _ := kubectlBuilds.LoadOrStore(version, &kubectlBuild{})
	b := v.(*kubectlBuild)
	b.once.Do(func() {
		script, err := filepath.Abs(filepath.Join("..", "hack", "kubectl.sh"))
		if err != nil {
			b.err = err
			return
		}
		var stderr bytes.Buffer
		cmd := exec.Command("bash", script)
		if version != "" {
			cmd.Env = append(os.Environ(), "KUBECTL_VERSION="+version)
		}
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			b.err = errors.Join(err, errors.New(stderr.String()))
			return
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		b.bin = strings.TrimSpace(lines[len(lines)-1])
	})
	if b.err != nil {
		t.Fatalf("kubectl %s: hack/kubectl.sh: %v", version, b.err)
	}
	if _, err := os.Stat(b.bin); err != nil {
		t.Fatalf("kubectl %s: %v", version, err)
	}
	return b.bin
}

// kubectl runs the real kubectl against one apiserver with the harness's
// kubeconfig and a discovery cache of its own.
type kubectl struct {
	bin        string
	kubeconfig string
	cacheDir   string
	env        []string // extra environment, KEY=VALUE
}

func newKubectl(t *testing.T, s *apiserver) *kubectl {
	t.Helper()
	return newKubectlBin(t, s, kubectlPath(t))
}

// newKubectlBin is newKubectl with another kubectl binary.
func newKubectlBin(t *testing.T, s *apiserver, bin string) *kubectl {
	t.Helper()
	return &kubectl{
		bin:        bin,
		kubeconfig: filepath.Join(s.dataDir, "admin.kubeconfig"),
		cacheDir:   kubectlTempDir(t),
	}
}

// withEnv returns a copy of k that also sets env (KEY=VALUE).
func (k *kubectl) withEnv(env ...string) *kubectl {
	c := *k
	c.env = append(append([]string(nil), k.env...), env...)
	return &c
}

// result is one finished kubectl run.
type result struct {
	args   []string
	stdout string
	stderr string
	code   int
	end    time.Time
}

func (r result) String() string {
	return fmt.Sprintf("kubectl %s\nexit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

func (k *kubectl) command(ctx context.Context, stdin string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.CommandContext(ctx, k.bin, args...)
	env := []string{"KUBECONFIG=" + k.kubeconfig, "KUBECACHEDIR=" + k.cacheDir}
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "KUBECONFIG", "KUBECACHEDIR", "KUBE_EDITOR", "EDITOR", "KUBECTL_EXTERNAL_DIFF":
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = append(env, k.env...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	return cmd, &stdout, &stderr
}

// run runs kubectl to the end (at most 60 s) and returns what it did; a
// failure to start, or a kill by the deadline, fails the test.
func (k *kubectl) run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd, stdout, stderr := k.command(ctx, stdin, args...)
	err := cmd.Run()
	return k.finish(t, ctx, args, err, stdout, stderr)
}

func (k *kubectl) finish(t *testing.T, ctx context.Context, args []string, err error, stdout, stderr *bytes.Buffer) result {
	t.Helper()
	r := result{args: args, stdout: stdout.String(), stderr: stderr.String(), end: time.Now()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		t.Fatalf("kubectl %s: killed after its deadline: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, r.stdout, r.stderr)
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	default:
		t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// start runs kubectl in the background; the channel yields its result.
func (k *kubectl) start(t *testing.T, args ...string) <-chan result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	cmd, stdout, stderr := k.command(ctx, "", args...)
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start kubectl %s: %v", strings.Join(args, " "), err)
	}
	done := make(chan result, 1)
	errc := make(chan error, 1)
	go func() { errc <- cmd.Wait() }()
	// finish may call t.Fatalf, which must run on the test goroutine: the
	// waiting happens in a goroutine, the judging in await.
	go func() {
		err := <-errc
		r := result{args: args, stdout: stdout.String(), stderr: stderr.String(), end: time.Now()}
		var exit *exec.ExitError
		switch {
		case err == nil:
		case ctx.Err() != nil:
			r.code = -1
			r.stderr += "\n[killed after its 60 s deadline: " + err.Error() + "]"
		case errors.As(err, &exit):
			r.code = exit.ExitCode()
		default:
			r.code = -1
			r.stderr += "\n[" + err.Error() + "]"
		}
		cancel()
		done <- r
	}()
	// a test that ends early kills the process (cancel is idempotent)
	t.Cleanup(cancel)
	return done
}

// ok runs kubectl and fails the test unless it exits 0; it returns stdout.
func (k *kubectl) ok(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	r := k.run(t, stdin, args...)
	if r.code != 0 {
		t.Fatalf("want exit 0:\n%s", r)
	}
	return r.stdout
}

// await waits for a background kubectl (at most d).
func await(t *testing.T, done <-chan result, d time.Duration, what string) result {
	t.Helper()
	select {
	case r := <-done:
		return r
	case <-time.After(d):
		t.Fatalf("%s: kubectl still running after %s", what, d)
		return result{}
	}
}

// writeFile writes content to name in dir and returns the path.
func writeFile(t *testing.T, dir, name, content string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// kubectlTempDir is a temporary directory whose path kubectl can take as
// -f: t.TempDir() is named after the test, and kubectl splits -f on commas.
func kubectlTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "kubectl-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
