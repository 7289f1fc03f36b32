package durable

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// countSyncs replaces the fsync for one test and counts the calls.
func countSyncs(t *testing.T) *int {
	t.Helper()
	n := 0
	old := syncFile
	syncFile = func(f *os.File) error { n++; return old(f) }
	t.Cleanup(func() { syncFile = old })
	return &n
}

func TestWriteFileReplacesDurably(t *testing.T) {
	syncs := countSyncs(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "trusted.json")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(data, []byte("new\n")) {
		t.Fatalf("content %q, %v", data, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	// The file before the rename, the folder after it.
	if *syncs != 2 {
		t.Errorf("%d fsyncs, want 2 (file and folder)", *syncs)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("side files left: %v", entries)
	}
}

func TestWriteFileFailureKeepsTheOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "meta.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := syncFile
	syncFile = func(*os.File) error { return os.ErrClosed } // a disk that fails the flush
	defer func() { syncFile = old }()
	if err := WriteFile(path, []byte("new"), 0o600); err == nil {
		t.Fatal("no error")
	}
	if data, _ := os.ReadFile(path); string(data) != "old" {
		t.Errorf("old content lost: %q", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("side files left: %v", entries)
	}
}

// chanto's own state (trust store, sessions, putback saves) is written
// only through this package: a plain os.WriteFile, a rename of a side file
// written without fsync, or a Sync of its own elsewhere would bring back
// the empty-file-after-a-crash bug.
func TestStateIsWrittenOnlyThroughDurable(t *testing.T) {
	for _, dir := range []string{"../config", "../session", "../verify/baseline"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				pkg, _ := sel.X.(*ast.Ident)
				switch {
				case pkg != nil && pkg.Name == "os" && (sel.Sel.Name == "WriteFile" || sel.Sel.Name == "CreateTemp") && !procFile(call):
					t.Errorf("%s: os.%s; use durable.WriteFile", file, sel.Sel.Name)
				case pkg != nil && pkg.Name == "os" && sel.Sel.Name == "Rename" && !renamesDurably(f, call):
					t.Errorf("%s: os.Rename of a file not written by durable.Write", file)
				case sel.Sel.Name == "Sync" && (pkg == nil || pkg.Name != "durable"):
					t.Errorf("%s: a Sync of its own; use durable.Sync", file)
				}
				return true
			})
		}
	}
}

// renamesDurably accepts the putback's own side files: they are written
// by durable.Write in the same function (or are symlinks, or meant to be
// fast), which the function's body shows.
func renamesDurably(f *ast.File, call *ast.CallExpr) bool {
	var body *ast.BlockStmt
	ast.Inspect(f, func(n ast.Node) bool {
		if fd, ok := n.(*ast.FuncDecl); ok && fd.Body != nil && fd.Pos() <= call.Pos() && call.End() <= fd.End() {
			body = fd.Body
		}
		return true
	})
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "durable" && sel.Sel.Name == "Write" {
				found = true
			}
		}
		return true
	})
	return found
}

// procFile accepts writes to /proc (the watcher naming its process).
func procFile(call *ast.CallExpr) bool {
	lit, ok := call.Args[0].(*ast.BasicLit)
	return ok && strings.HasPrefix(lit.Value, `"/proc/`)
}
