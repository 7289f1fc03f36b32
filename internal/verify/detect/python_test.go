package detect

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// At the repository root, test files two folders down make a Python
// project without any marker file; deeper ones, or ones in a virtualenv
// or hidden folder, do not.
func TestPythonProjectByTestFiles(t *testing.T) {
	cases := []struct {
		file string
		want bool
	}{
		{"test_a.py", true},
		{"tests/unit/test_a.py", true},
		{"pkg/tests/a_test.py", true},
		{"a/b/c/test_a.py", false},
		{"venv/lib/test_a.py", false},
		{".tox/test_a.py", false},
		{"tests/helper.py", false},
	}
	for _, tc := range cases {
		root := t.TempDir()
		write(t, root, tc.file, "def test_a():\n    pass\n")
		if got := isPythonProject(root, true); got != tc.want {
			t.Errorf("%s: isPythonProject = %v, want %v", tc.file, got, tc.want)
		}
		if isPythonProject(root, false) {
			t.Errorf("%s: a folder below the repository root needs a marker file", tc.file)
		}
	}
	root := t.TempDir()
	write(t, root, "sub/setup.cfg", "[metadata]\nname = x\n")
	if !isPythonProject(filepath.Join(root, "sub"), false) {
		t.Error("setup.cfg is a Python marker")
	}
}

// The command names the interpreter as PATH finds it, or by its path
// inside the project, or in full.
func TestPythonDisplayInterp(t *testing.T) {
	root := t.TempDir()
	bin := t.TempDir()
	write(t, bin, "python3", "")
	if err := os.Chmod(filepath.Join(bin, "python3"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	if got := displayInterp(root, filepath.Join(bin, "python3")); got != "python3" {
		t.Errorf("on PATH: %q", got)
	}
	if got := displayInterp(root, filepath.Join(root, ".venv", "bin", "python3")); got != ".venv/bin/python3" {
		t.Errorf("project venv: %q", got)
	}
	if got := displayInterp(root, "/usr/bin/python3"); !strings.HasPrefix(got, "/") {
		t.Errorf("elsewhere: %q", got)
	}
}

// A pyenv shim picks its version from the .python-version of the folder
// it is asked about (PYENV_DIR, else the working folder): the probe, run
// outside the project, must ask about the project.
func TestPythonProbeAsksPyenvAboutTheProject(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	root := t.TempDir()
	write(t, root, "test_a.py", "def test_a():\n    assert True\n")
	write(t, root, ".python-version", "3.11-with-pytest\n")
	// The shim: the project's version has pytest, the global one not.
	bin := t.TempDir()
	write(t, bin, "python3", "#!/bin/sh\nif [ -f \"${PYENV_DIR:-$PWD}/.python-version\" ]; then exec /usr/bin/python3 \"$@\"; fi\nexec /usr/bin/python3 -S \"$@\"\n")
	os.Chmod(filepath.Join(bin, "python3"), 0o755)
	t.Setenv("PATH", bin)
	t.Setenv("VIRTUAL_ENV", "")
	ps, err := Projects(root, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := commands(ps); len(got) != 1 || !strings.HasSuffix(got[0], ": python3 -m pytest [pytest]") {
		t.Fatalf("got %v, want the shim's pytest", got)
	}
}
