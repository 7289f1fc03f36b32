package detect

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/run"
)

// A remembered probe answers only while nothing it depends on changed:
// pytest put into the virtualenv's site-packages (as pip would) makes the
// interpreter be asked again, and the answer follows.
func TestPythonProbeRememberedUntilSitePackagesChange(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	t.Setenv("CHANTO_HOME", t.TempDir())
	venv := filepath.Join(t.TempDir(), "venv")
	if out, err := exec.Command("/usr/bin/python3", "-m", "venv", "--without-pip", venv).CombinedOutput(); err != nil {
		t.Skipf("no venv module: %v: %s", err, out)
	}
	interp := filepath.Join(venv, "bin", "python3")
	ctx := context.Background()
	r := &run.Runner{}
	probe := func(step string, wantOK, wantRemembered bool) {
		t.Helper()
		ok, _, remembered := probePytest(ctx, t.TempDir(), interp, r)
		if ok != wantOK || remembered != wantRemembered {
			t.Fatalf("%s: has pytest %v, remembered %v; want %v, %v", step, ok, remembered, wantOK, wantRemembered)
		}
	}
	probe("first", false, false)
	probe("second", false, true)

	site, err := filepath.Glob(filepath.Join(venv, "lib", "python3*", "site-packages"))
	if err != nil || len(site) != 1 {
		t.Fatalf("site-packages: %v %v", site, err)
	}
	time.Sleep(10 * time.Millisecond) // a coarse clock must still see the change
	write(t, site[0], "pytest/__init__.py", "")
	probe("after installing pytest", true, false)
	probe("again", true, true)

	// A .pth file can add folders of its own: a new one asks again.
	write(t, site[0], "extra.pth", "/nonexistent\n")
	probe("after a new .pth", true, false)

	// A changed pyvenv.cfg (the base interpreter moved) asks again.
	cfg := filepath.Join(venv, "pyvenv.cfg")
	b, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, append(b, "\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	probe("after pyvenv.cfg changed", true, false)
}

// A script is never remembered: what it runs may change without a trace.
func TestPythonProbeOfAScriptIsNotRemembered(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	t.Setenv("CHANTO_HOME", t.TempDir())
	bin := t.TempDir()
	write(t, bin, "python3", "#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n")
	if err := os.Chmod(filepath.Join(bin, "python3"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, _, remembered := probePytest(context.Background(), t.TempDir(), filepath.Join(bin, "python3"), &run.Runner{}); remembered {
			t.Fatalf("run %d: a script's answer was remembered", i+1)
		}
	}
}

// The probe tells pytest's version, remembered with the answer: it
// decides which configuration files pytest reads.
func TestPythonProbeTellsPytestVersion(t *testing.T) {
	out, err := exec.Command("/usr/bin/python3", "-c", "import pytest; print(pytest.__version__)").Output()
	if err != nil {
		t.Skip("needs /usr/bin/python3 with pytest")
	}
	want := strings.TrimSpace(string(out))
	t.Setenv("CHANTO_HOME", t.TempDir())
	for _, step := range []string{"asked", "remembered"} {
		v, ok := hasPytest(context.Background(), t.TempDir(), "/usr/bin/python3", &run.Runner{})
		if !ok || v != want {
			t.Fatalf("%s: version %q (has pytest %v), want %q", step, v, ok, want)
		}
	}
}
