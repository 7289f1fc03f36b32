package detect

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPyenvTarget(t *testing.T) {
	root := t.TempDir()
	exe := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	shim := filepath.Join(root, "shims", "python3")
	exe(shim)
	exe(filepath.Join(root, "versions", "3.11.7", "bin", "python3"))
	exe(filepath.Join(root, "versions", "3.12.1", "bin", "python3"))
	if err := os.WriteFile(filepath.Join(root, "version"), []byte("# global\n3.11.7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	proj := t.TempDir()
	sub := filepath.Join(proj, "pkg")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PYENV_VERSION", "")
	if got, want := pyenvTarget(shim, sub), filepath.Join(root, "versions", "3.11.7", "bin", "python3"); got != want {
		t.Errorf("global version: %q, want %q", got, want)
	}
	if err := os.WriteFile(filepath.Join(proj, ".python-version"), []byte("3.10.0 3.12.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := pyenvTarget(shim, sub), filepath.Join(root, "versions", "3.12.1", "bin", "python3"); got != want {
		t.Errorf(".python-version (first installed of two): %q, want %q", got, want)
	}
	t.Setenv("PYENV_VERSION", "3.11.7")
	if got, want := pyenvTarget(shim, sub), filepath.Join(root, "versions", "3.11.7", "bin", "python3"); got != want {
		t.Errorf("PYENV_VERSION: %q, want %q", got, want)
	}
	for _, v := range []string{"system", "../../etc", "9.9.9"} {
		t.Setenv("PYENV_VERSION", v)
		if got := pyenvTarget(shim, sub); got != "" {
			t.Errorf("PYENV_VERSION=%s: %q, want the shim asked itself", v, got)
		}
	}
	if got := pyenvTarget("/usr/bin/python3", sub); got != "" {
		t.Errorf("not a shim: %q", got)
	}
}
