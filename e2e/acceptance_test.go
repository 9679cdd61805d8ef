package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestAcceptance runs the shared kubectl acceptance scenarios
// (../shared/acceptance/run.sh --require core) from the repository root.
// hack/test.sh runs the same script as its own step, so this test runs only
// with E2E_ACCEPTANCE=1 (for example: E2E_ACCEPTANCE=1 go test -run Acceptance).
func TestAcceptance(t *testing.T) {
	if os.Getenv("E2E_ACCEPTANCE") != "1" {
		t.Skip("set E2E_ACCEPTANCE=1 to run the kubectl acceptance scenarios here (hack/test.sh runs them as a step)")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(root, "..", "shared", "acceptance", "run.sh")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("acceptance script: %v", err)
	}
	cmd := exec.Command("bash", script, "--require", "core", ".")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("acceptance scenarios failed: %v", err)
	}
	if !regexp.MustCompile(`(?m)^\d+ passed, \d+ failed`).Match(out) {
		t.Fatalf("acceptance output has no summary line")
	}
}
