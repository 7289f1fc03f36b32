package runner

import (
	"path/filepath"
	"testing"
)

func TestResolve(t *testing.T) {
	py := t.TempDir()
	for _, f := range []string{"tests/test_a.py", "tests/unit/test_b.py", "src/m.py", ".venv/lib/test_x.py", "node_modules/p/test_y.py"} {
		writeFile(t, filepath.Join(py, f), nil)
	}
	gomod := t.TempDir()
	for _, f := range []string{"go.mod", "a/a_test.go", "a/b/b_test.go", "c/c.go", "testdata/x/x_test.go", "sub/go.mod", "sub/s_test.go"} {
		writeFile(t, filepath.Join(gomod, f), nil)
	}
	cases := []struct {
		dir, cmd string
		all      bool
	}{
		{py, "python3 -m pytest -q tests/", true},
		{py, "pytest tests/unit", false},
		{py, "pytest tests/test_a.py tests/unit", true},
		{py, "pytest src", false},
		{gomod, "go test ./a/...", true},
		{gomod, "go test ./a", false},
		{gomod, "go test ./a ./a/b", true},
	}
	for _, c := range cases {
		inv, ok := Recognize(words(t, c.cmd))
		if !ok {
			t.Fatalf("%s: not recognised", c.cmd)
		}
		if got := Resolve(c.dir, inv); got.All != c.all {
			t.Errorf("%s: all = %v, want %v (targets %q)", c.cmd, got.All, c.all, got.Targets)
		}
	}
	// A project with a test outside the targets keeps them.
	writeFile(t, filepath.Join(py, "test_top.py"), nil)
	inv, _ := Recognize(words(t, "pytest tests"))
	if Resolve(py, inv).All {
		t.Error("tests/ covers the suite although test_top.py is outside it")
	}
}
