package genall

import (
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"go/scanner"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// WriteOptions tune Write.
type WriteOptions struct {
	// Verify writes nothing: Write returns the files that differ from the
	// output, are missing, or are stale (would be removed).
	Verify bool
	// StaleDirs are the directories (relative to root) searched for stale
	// zz_generated.*.go files; default "types" and "generated".
	StaleDirs []string
}

// Format formats every .go file with go/format. On the first failure it
// returns an error showing the numbered lines around the fault; files are
// returned only when all of them formatted.
func Format(files []File) ([]File, error) {
	out := make([]File, len(files))
	var errs []error
	for i, f := range files {
		out[i] = f
		if !strings.HasSuffix(f.Path, ".go") {
			continue
		}
		src, err := format.Source(groupImports(f.Content))
		if err != nil {
			errs = append(errs, formatError(f, err))
			continue
		}
		out[i].Content = src
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

func formatError(f File, err error) error {
	line := 0
	var el scanner.ErrorList
	if errors.As(err, &el) && len(el) > 0 {
		line = el[0].Pos.Line
	}
	lines := strings.Split(string(f.Content), "\n")
	var b strings.Builder
	lo, hi := max(1, line-5), min(len(lines), line+5)
	if line == 0 {
		lo, hi = 1, min(len(lines), 20)
	}
	for n := lo; n <= hi; n++ {
		mark := "  "
		if n == line {
			mark = "> "
		}
		fmt.Fprintf(&b, "%s%4d | %s\n", mark, n, lines[n-1])
	}
	return fmt.Errorf("format %s: %w\n%s", f.Path, err, b.String())
}

// Write formats files in memory, then writes those whose content changed and
// removes stale zz_generated.*.go files under types/ and generated/ (and
// directories under generated/ left empty). It returns the changed paths
// (relative, slash-separated, sorted). Nothing is written when any file
// fails to format. In Verify mode nothing is written and changed lists what
// differs, is missing or is stale.
func Write(root string, files []File, opts WriteOptions) (changed []string, err error) {
	formatted, err := Format(files)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, f := range formatted {
		if f.Path == "" || path.IsAbs(f.Path) || strings.HasPrefix(path.Clean(f.Path), "..") {
			return nil, fmt.Errorf("write %q: path must be relative to the module root", f.Path)
		}
		if want[f.Path] {
			return nil, fmt.Errorf("write %s: more than one output for the path", f.Path)
		}
		want[f.Path] = true
	}
	sort.Slice(formatted, func(i, j int) bool { return formatted[i].Path < formatted[j].Path })

	for _, f := range formatted {
		abs := filepath.Join(root, filepath.FromSlash(f.Path))
		old, err := os.ReadFile(abs)
		if err == nil && bytes.Equal(old, f.Content) {
			continue
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return changed, fmt.Errorf("read %s: %w", f.Path, err)
		}
		changed = append(changed, f.Path)
		if opts.Verify {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return changed, fmt.Errorf("write %s: %w", f.Path, err)
		}
		if err := os.WriteFile(abs, f.Content, 0o644); err != nil {
			return changed, fmt.Errorf("write %s: %w", f.Path, err)
		}
	}

	dirs := opts.StaleDirs
	if dirs == nil {
		dirs = []string{"types", "generated"}
	}
	stale, err := staleFiles(root, dirs, want)
	if err != nil {
		return changed, err
	}
	for _, s := range stale {
		changed = append(changed, s)
		if opts.Verify {
			continue
		}
		if err := os.Remove(filepath.Join(root, filepath.FromSlash(s))); err != nil {
			return changed, fmt.Errorf("remove stale %s: %w", s, err)
		}
	}
	if !opts.Verify {
		if err := removeEmptyDirs(filepath.Join(root, "generated"), false); err != nil {
			return changed, err
		}
	}
	sort.Strings(changed)
	return changed, nil
}

// staleFiles lists zz_generated.*.go files under dirs not in want.
func staleFiles(root string, dirs []string, want map[string]bool) ([]string, error) {
	var out []string
	for _, d := range dirs {
		base := filepath.Join(root, filepath.FromSlash(d))
		err := filepath.WalkDir(base, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if e.IsDir() {
				if p != base && (strings.HasPrefix(e.Name(), ".") || strings.HasPrefix(e.Name(), "_") || e.Name() == "testdata") {
					return filepath.SkipDir
				}
				return nil
			}
			name := e.Name()
			if !strings.HasPrefix(name, "zz_generated.") || !strings.HasSuffix(name, ".go") {
				return nil
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			if want[rel] {
				return nil
			}
			ours, err := writtenByUs(p)
			if err != nil {
				return err
			}
			if ours {
				out = append(out, rel)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("find stale files under %s: %w", d, err)
		}
	}
	sort.Strings(out)
	return out, nil
}

// writtenByUs reports whether the file at p starts with our Header: a
// zz_generated file of another tool (register-gen's, which Gateway API's
// types keep beside them) is the user's and stays.
func writtenByUs(p string) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", p, err)
	}
	defer f.Close()
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("read %s: %w", p, err)
	}
	return bytes.Contains(head[:n], []byte(Header)), nil
}

// removeEmptyDirs removes directories below dir that hold nothing.
func removeEmptyDirs(dir string, removeSelf bool) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove empty directories: %w", err)
	}
	n := len(ents)
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		if err := removeEmptyDirs(sub, true); err != nil {
			return err
		}
		if _, err := os.Stat(sub); errors.Is(err, fs.ErrNotExist) {
			n--
		}
	}
	if removeSelf && n == 0 {
		if err := os.Remove(dir); err != nil {
			return fmt.Errorf("remove empty directory %s: %w", dir, err)
		}
	}
	return nil
}

// groupImports puts the standard library's imports in a group of their own
// before the others, as goimports leaves them (jennifer writes one sorted
// block). It rewrites only a parenthesised import block of one spec per
// line, which is what jennifer renders; anything else is left to gofmt.
func groupImports(src []byte) []byte {
	start := bytes.Index(src, []byte("\nimport (\n"))
	if start < 0 {
		return src
	}
	start += len("\nimport (\n")
	n := bytes.Index(src[start:], []byte("\n)\n"))
	if n < 0 {
		return src
	}
	var std, other [][]byte
	for _, line := range bytes.Split(src[start:start+n], []byte("\n")) {
		q := bytes.IndexByte(line, '"')
		if q < 0 || bytes.Contains(line, []byte("//")) {
			return src // a comment or an unexpected shape: keep it as it is
		}
		first, _, _ := bytes.Cut(line[q+1:], []byte("/"))
		if bytes.IndexByte(first, '.') < 0 {
			std = append(std, line)
		} else {
			other = append(other, line)
		}
	}
	if len(std) == 0 || len(other) == 0 {
		return src
	}
	var b bytes.Buffer
	b.Write(src[:start])
	b.Write(bytes.Join(std, []byte("\n")))
	b.WriteString("\n\n")
	b.Write(bytes.Join(other, []byte("\n")))
	b.Write(src[start+n:])
	return b.Bytes()
}
