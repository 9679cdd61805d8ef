package docs

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is contributing.md's limit on a hand-written function.
const maxFuncLines = 120

// dataTables are the functions allowed past the limit: each is one table
// of declarations, which reads best whole.
var dataTables = map[string]bool{
	"generators/markers/builtin.go:newBuiltin": true, // the marker registry
}

// TestNoLongFunctions fails on a hand-written function (tests and
// generated files aside) whose body is longer than maxFuncLines.
func TestNoLongFunctions(t *testing.T) {
	root := ".."
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || generated(t, p) {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			n := fset.Position(fn.Body.End()).Line - fset.Position(fn.Body.Pos()).Line - 1
			if n > maxFuncLines && !dataTables[rel+":"+fn.Name.Name] {
				t.Errorf("%s:%d: %s is %d lines; split it where a part has its own name (limit %d)", rel, fset.Position(fn.Pos()).Line, fn.Name.Name, n, maxFuncLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// generated reports whether p starts with Go's generated-code comment.
func generated(t *testing.T, p string) bool {
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for i := 0; i < 3 && sc.Scan(); i++ {
		if strings.HasPrefix(sc.Text(), "// Code generated ") && strings.HasSuffix(sc.Text(), " DO NOT EDIT.") {
			return true
		}
	}
	return false
}
