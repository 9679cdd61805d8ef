// Package projectcopy copies the project's tracked files into another
// directory, so that tests and benchmarks can add types to a copy, generate
// and build it the way a user would, without touching the work tree.
package projectcopy

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Copy copies the files git tracks under root (the main module) to dst, as
// they are in the work tree: a tracked file deleted there is skipped, and
// new files must be added to git first. Paths under the skipped prefixes
// (slash-separated, relative to root) are left out.
func Copy(ctx context.Context, root, dst string, skip ...string) error {
	ls := exec.CommandContext(ctx, "git", "ls-files", "-z")
	ls.Dir = root
	out, err := ls.Output()
	if err != nil {
		return fmt.Errorf("copy project: git ls-files in %s: %w", root, err)
	}
files:
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if f == "" {
			continue
		}
		for _, p := range skip {
			if strings.HasPrefix(f, p) {
				continue files
			}
		}
		src := filepath.Join(root, f)
		st, err := os.Stat(src)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("copy project: %w", err)
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return fmt.Errorf("copy project: %w", err)
		}
		p := filepath.Join(dst, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("copy project: %w", err)
		}
		if err := os.WriteFile(p, data, st.Mode().Perm()); err != nil {
			return fmt.Errorf("copy project: %w", err)
		}
	}
	return nil
}
