// Package docs holds the project's documentation; its test keeps
// contributing.md's layout table complete.
package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLayoutTableListsEveryPackage fails when a directory with Go files is
// not in the layout table of contributing.md, itself or through an
// ancestor at least two levels deep. A "<name>" segment in the table
// matches any one directory name (generators/<name>).
func TestLayoutTableListsEveryPackage(t *testing.T) {
	doc, err := os.ReadFile("contributing.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(doc)
	if i := strings.Index(section, "## Layout"); i >= 0 {
		section = section[i:]
	}
	if i := strings.Index(section[1:], "\n## "); i >= 0 {
		section = section[:i+1]
	}
	var listed [][]string
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)`").FindAllStringSubmatch(section, -1) {
		p := strings.Trim(m[1], "/")
		if strings.HasSuffix(p, ".go") { // a file row lists its directory
			p = filepath.ToSlash(filepath.Dir(p))
		}
		listed = append(listed, strings.Split(p, "/"))
	}
	if len(listed) < 10 {
		t.Fatalf("found only %d rows in the layout table of contributing.md", len(listed))
	}
	covered := func(dir string) bool {
		parts := strings.Split(dir, "/")
		for n := len(parts); n >= 1; n-- {
			if n < 2 && len(parts) >= 2 {
				break
			}
			for _, l := range listed {
				if matches(l, parts[:n]) {
					return true
				}
			}
		}
		return false
	}
	root := ".."
	seen := map[string]bool{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		// Like the go tool, skip ., _ and testdata directories (tests
		// running beside this one make _gentest_* copies of the tree).
		if d.IsDir() && p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == "." || rel == "docs" || seen[rel] {
			return nil
		}
		seen[rel] = true
		if !covered(rel) {
			t.Errorf("%s is not in docs/contributing.md's layout table", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func matches(pattern, parts []string) bool {
	if len(pattern) != len(parts) {
		return false
	}
	for i, seg := range pattern {
		if strings.HasPrefix(seg, "<") && strings.HasSuffix(seg, ">") {
			continue
		}
		if seg != parts[i] {
			return false
		}
	}
	return true
}
