package verify

import (
	"os"
	"path/filepath"
	"testing"
)

// A changed .py file's cached bytecode goes before a check runs: Python
// would trust it when the file kept its size and its mtime second.
func TestDropBytecodeOfChangedFiles(t *testing.T) {
	root := t.TempDir()
	cache := filepath.Join(root, "pkg", "__pycache__")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"calc.cpython-311.pyc", "calc.cpython-311.opt-1.pyc", "other.cpython-311.pyc"} {
		if err := os.WriteFile(filepath.Join(cache, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dropBytecode(root, []string{"README.md", "pkg/calc.py"})
	left, _ := filepath.Glob(filepath.Join(cache, "*.pyc"))
	if len(left) != 1 || filepath.Base(left[0]) != "other.cpython-311.pyc" {
		t.Errorf("left in __pycache__: %v, want only other.cpython-311.pyc", left)
	}
}
