package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/run"
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

// A put-back baseline keeps one bytecode folder per project across runs,
// and no bytecode of a changed file outlives the run that put it back: a
// base file compiled there could later match the changed file's size and
// mtime second.
func TestProjectBytecodeFolder(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	root := t.TempDir()
	e := &engine{r: &run.Runner{}, cs: ChangeSet{Root: root, Changed: []string{"pkg/calc.py", "notes.txt"}}}
	env, done := e.baselineBytecode(filepath.Join(root, "pkg"), t.TempDir())
	if done == nil || len(env) != 2 || !strings.HasPrefix(env[0], "PYTHONPYCACHEPREFIX=") || env[1] != "PYTHONDONTWRITEBYTECODE=" {
		t.Fatalf("env %q, done %v: want the project's folder and writes allowed", env, done != nil)
	}
	prefix := strings.TrimPrefix(env[0], "PYTHONPYCACHEPREFIX=")
	mirror := filepath.Join(prefix, strings.TrimLeft(filepath.Join(root, "pkg"), "/"))
	stdlib := filepath.Join(prefix, "usr", "lib", "python3.11", "json")
	for _, f := range []string{filepath.Join(mirror, "calc.cpython-311.pyc"), filepath.Join(mirror, "other.cpython-311.pyc"), filepath.Join(stdlib, "decoder.cpython-311.pyc")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	done()
	if _, err := os.Stat(filepath.Join(mirror, "calc.cpython-311.pyc")); err == nil {
		t.Error("the changed file's bytecode outlived the run")
	}
	for _, f := range []string{filepath.Join(mirror, "other.cpython-311.pyc"), filepath.Join(stdlib, "decoder.cpython-311.pyc")} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s: kept for the next run? %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(prefix, pycacheMarker)); err == nil {
		t.Error("the in-use marker stayed after the run")
	}

	// The next run finds the folder as it was left, unless the last run
	// did not end: then it starts empty.
	env2, done2 := e.baselineBytecode(root, "")
	if env2[0] != env[0] {
		t.Fatalf("second run's folder %q, want %q", env2[0], env[0])
	}
	if _, err := os.Stat(filepath.Join(stdlib, "decoder.cpython-311.pyc")); err != nil {
		t.Errorf("the standard library's bytecode went between runs: %v", err)
	}
	_ = done2 // killed: the marker stays
	e.baselineBytecode(root, "")
	if _, err := os.Stat(filepath.Join(stdlib, "decoder.cpython-311.pyc")); err == nil {
		t.Error("a run after one that did not end read its folder")
	}

	// A baseline in a copy of the base gets a folder of its own run.
	report := t.TempDir()
	env3, done3 := e.baselineBytecode(filepath.Join(t.TempDir(), "copy"), report)
	if done3 != nil || len(env3) != 1 || env3[0] != "PYTHONPYCACHEPREFIX="+filepath.Join(report, "pycache") {
		t.Errorf("copy baseline: env %q, done %v", env3, done3 != nil)
	}
}
