package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// clientProgramTimeout bounds a run of another language's client program.
const clientProgramTimeout = 2 * time.Minute

// runClientProgram runs argv in dir with env added to the test's
// environment, for at most clientProgramTimeout, and decodes the one JSON
// document it prints into out; anything else fails the test with what the
// program wrote.
func runClientProgram(t *testing.T, dir string, env []string, out any, argv ...string) {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), clientProgramTimeout)
	defer cancel()
	cmd := exec.CommandContext(c, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	name := strings.Join(argv, " ")
	start := time.Now()
	if err := cmd.Run(); err != nil {
		if c.Err() != nil {
			err = fmt.Errorf("%w (killed after %s)", err, clientProgramTimeout)
		}
		t.Fatalf("%s: %v\nstderr:\n%s\nstdout:\n%s", name, err, stderr.String(), stdout.String())
	}
	t.Logf("%s: %s", name, time.Since(start).Round(100*time.Millisecond))
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("decode the output of %s: %v\n%s", name, err, stdout.String())
	}
}

// aptInstall installs Debian packages with apt-get, again after an
// apt-get update when that fails, if the test runs as root on a machine
// that has apt-get; it reports whether it tried. Failures are logged: the
// caller looks for what it needs again and fails the test itself.
func aptInstall(t *testing.T, pkgs ...string) bool {
	t.Helper()
	if _, err := exec.LookPath("apt-get"); err != nil || os.Geteuid() != 0 {
		return false
	}
	install := func(args ...string) error {
		c, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(c, "apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("apt-get %s: %w\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	args := append([]string{"install", "-y", "--no-install-recommends"}, pkgs...)
	t.Logf("apt-get %s", strings.Join(args, " "))
	if err := install(args...); err != nil {
		t.Logf("%v; apt-get update and again", err)
		if err := install("update"); err != nil {
			t.Logf("%v", err)
		} else if err := install(args...); err != nil {
			t.Logf("%v", err)
		}
	}
	return true
}
