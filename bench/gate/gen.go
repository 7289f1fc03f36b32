package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/chanto-dev/chanto/internal/run"
)

// module writes a Go module of pkgs packages with perPkg files each (two of
// them tests), so pkgs*perPkg files in all besides go.mod, and commits it.
// Package N imports package N/2, which gives selection a real graph: a
// change deep in the tree reaches a chain of importers.
func module(ctx context.Context, r *run.Runner, root string, pkgs, perPkg int) error {
	if perPkg < 4 {
		return fmt.Errorf("need at least 4 files per package")
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module bench.example/big\n\ngo 1.22\n"), 0o644); err != nil {
		return err
	}
	for p := 0; p < pkgs; p++ {
		dir := filepath.Join(root, pkgName(p))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for f := 0; f < perPkg-2; f++ {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", f)), []byte(sourceFile(p, f)), 0o644); err != nil {
				return err
			}
		}
		for f := 0; f < 2; f++ {
			name := filepath.Join(dir, fmt.Sprintf("f%d_test.go", f))
			if err := os.WriteFile(name, []byte(testFile(p, f)), 0o644); err != nil {
				return err
			}
		}
	}
	return commitAll(ctx, r, root)
}

func pkgName(p int) string { return fmt.Sprintf("pkg%03d", p) }

// sourceFile is one small file; file 0 of every package but the first
// imports the parent package.
func sourceFile(p, f int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\n", pkgName(p))
	if f == 0 && p > 0 {
		fmt.Fprintf(&b, "import parent \"bench.example/big/%s\"\n\n", pkgName(p/2))
		fmt.Fprintf(&b, "// Up reaches the parent package.\nfunc Up() int { return parent.F0() + 1 }\n\n")
	}
	fmt.Fprintf(&b, "// F%d returns its number.\nfunc F%d() int { return %d }\n", f, f, f)
	b.WriteString(strings.Repeat("\n// A line of padding, so files have a realistic size.\n", 20))
	return b.String()
}

func testFile(p, f int) string {
	return fmt.Sprintf(`package %s

import "testing"

func TestF%d(t *testing.T) {
	if got := F%d(); got != %d {
		t.Fatalf("F%d() = %%d, want %d", got)
	}
}
`, pkgName(p), f, f, f, f, f)
}

// commitAll makes root a git repository with everything committed.
func commitAll(ctx context.Context, r *run.Runner, root string) error {
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"},
		{"-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "gc.auto=0",
			"-c", "maintenance.auto=false", "commit", "-qm", "init"}} {
		res, err := r.Run(ctx, run.Spec{Args: append([]string{"git"}, args...), Dir: root, Purpose: run.Internal})
		if err != nil {
			return err
		}
		if res.ExitCode != 0 {
			return fmt.Errorf("git %s: exit %d\n%s", args[0], res.ExitCode, res.Output)
		}
	}
	return nil
}

// edit is the model's change: a function body in a deep package, and a new
// test next to it (new tests are not tampering).
type edit struct {
	source, test string // slash paths relative to the root
}

func makeEdit(root string, pkgs int) (edit, error) {
	p := pkgs * 3 / 4
	e := edit{source: pkgName(p) + "/f1.go", test: pkgName(p) + "/f1_test.go"}
	src := filepath.Join(root, filepath.FromSlash(e.source))
	data, err := os.ReadFile(src)
	if err != nil {
		return e, err
	}
	data = []byte(strings.Replace(string(data), "return 1 }", "return 0 + 1 }", 1))
	if err := os.WriteFile(src, data, 0o644); err != nil {
		return e, err
	}
	f, err := os.OpenFile(filepath.Join(root, filepath.FromSlash(e.test)), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return e, err
	}
	defer f.Close()
	_, err = fmt.Fprintf(f, "\nfunc TestF1Sum(t *testing.T) {\n\tif F1() != 0+1 {\n\t\tt.Fatal(\"F1\")\n\t}\n}\n")
	return e, err
}
