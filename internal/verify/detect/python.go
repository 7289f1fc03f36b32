package detect

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/run"
)

// pytestProbe exits 0 when the interpreter can import pytest. It is run
// isolated (-I) from a folder outside the project, so no conftest,
// sitecustomize or package of the project is imported. It writes the
// folders it searched (NUL-separated), which the remembered answer
// depends on (probecache.go), after pytest's version ("pytest-version=7.2.1"),
// which decides the configuration files pytest reads (pytestconf).
const pytestProbe = "import importlib.util,sys\n" +
	"s=importlib.util.find_spec('pytest')\n" +
	"p=[]\n" +
	"try:\n import importlib.metadata as m; p.append('pytest-version='+m.version('pytest'))\nexcept Exception: pass\n" +
	"p+=list(sys.path)\n" +
	"try:\n import site; p+=site.getsitepackages()\nexcept Exception: pass\n" +
	"if s is not None: p+=[s.origin or '']+list(s.submodule_search_locations or [])\n" +
	"sys.stdout.write('\\0'.join(x for x in p if isinstance(x,str)))\n" +
	"sys.exit(0 if s else 1)"

// isPythonProject reports whether root is a Python project: a marker file,
// or (at the repository root only, so tests/ folders do not become roots)
// test_*.py files at most two folders down (tests/unit/test_a.py).
func isPythonProject(root string, isRepoRoot bool) bool {
	for _, m := range pythonMarkers {
		if fileExists(filepath.Join(root, m)) {
			return true
		}
	}
	if !isRepoRoot {
		return false
	}
	found := false
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || found {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			name := d.Name()
			if p != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "venv" || name == "target" || strings.Count(rel, string(filepath.Separator)) >= 2) {
				return filepath.SkipDir
			}
			return nil
		}
		n := d.Name()
		if strings.HasSuffix(n, ".py") && (strings.HasPrefix(n, "test_") || strings.HasSuffix(n, "_test.py")) {
			found = true
		}
		return nil
	})
	return found
}

// pythonCheck picks the interpreter and the runner: the first candidate
// that has pytest runs "-m pytest"; when none has, the first that exists
// runs "-m unittest".
func pythonCheck(ctx context.Context, root string, runner *run.Runner) Check {
	cands := pythonCandidates(root)
	first := ""
	asked := map[string]bool{}
	for _, c := range cands {
		if first == "" {
			first = c
		}
		// Two names (python3, python; a shim and its target) are often one
		// interpreter: ask each interpreter once.
		probe := c
		if t := pyenvTarget(c, root); t != "" {
			probe = t
		}
		key := probe
		if real, err := filepath.EvalSymlinks(probe); err == nil {
			key = real
		}
		// A virtualenv's python links to its base interpreter but has
		// packages of its own (pyvenv.cfg next to its bin/).
		if venv := filepath.Dir(filepath.Dir(probe)); fileExists(filepath.Join(venv, "pyvenv.cfg")) {
			key = venv + "\x00" + key
		}
		if asked[key] {
			continue
		}
		asked[key] = true
		if version, ok := hasPytest(ctx, root, probe, runner); ok {
			chk := pythonCmd(root, c, Pytest)
			chk.Version = version
			if venv := venvOf(root, first); venv != "" && c != first {
				chk.Note = "the virtualenv " + venv + " has no pytest, so " + displayInterp(root, c) + " ran the tests"
			}
			return withTox(root, chk)
		}
	}
	if first == "" {
		first = "python3"
	}
	return pythonCmd(root, first, Unittest)
}

// venvOf is the virtualenv interp belongs to (the activated one, or the
// project's .venv/ or venv/), as the user would name it; "" for another
// interpreter.
func venvOf(root, interp string) string {
	dir := filepath.Dir(filepath.Dir(interp))
	if venv := os.Getenv("VIRTUAL_ENV"); venv != "" && dir == filepath.Clean(venv) {
		return venv
	}
	for _, v := range []string{".venv", "venv"} {
		if dir == filepath.Join(root, v) {
			return v + "/"
		}
	}
	return ""
}

func pythonCmd(root, interp string, r Runner) Check {
	shown := displayInterp(root, interp)
	mod := "pytest"
	if r == Unittest {
		mod = "unittest"
	}
	return Check{
		Command:    shown + " -m " + mod,
		Args:       []string{interp, "-m", mod},
		Dir:        root,
		Runner:     r,
		Narrowable: narrowable(r),
	}
}

// displayInterp shortens the interpreter path for the pasteable command:
// the bare name when PATH finds the same file, a project-relative path for
// a virtualenv inside the project, else the absolute path.
func displayInterp(root, interp string) string {
	base := filepath.Base(interp)
	if found := lookPath(base); found == interp {
		return base
	}
	if rel, err := filepath.Rel(root, interp); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return interp
}

// pythonCandidates lists interpreters in preference order: the active
// virtualenv, the project's .venv/ and venv/, then every python3 and python
// on PATH in PATH order.
func pythonCandidates(root string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p == "" || seen[p] || !isExecutable(p) {
			return
		}
		seen[p] = true
		out = append(out, p)
	}
	if venv := os.Getenv("VIRTUAL_ENV"); venv != "" {
		add(filepath.Join(venv, "bin", "python3"))
		add(filepath.Join(venv, "bin", "python"))
	}
	for _, v := range []string{".venv", "venv"} {
		add(filepath.Join(root, v, "bin", "python3"))
		add(filepath.Join(root, v, "bin", "python"))
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			continue
		}
		for _, name := range []string{"python3", "python"} {
			add(filepath.Join(dir, name))
		}
	}
	return out
}

// hasPytest asks interp, outside the project, whether it can import
// pytest. PYENV_DIR makes a pyenv shim pick the version the project's
// .python-version names, as it will when the check runs in root.
// An answer remembered from an earlier run is used when nothing it
// depends on changed (probecache.go).
func hasPytest(ctx context.Context, root, interp string, runner *run.Runner) (version string, ok bool) {
	ok, version, _ = probePytest(ctx, root, interp, runner)
	return version, ok
}

// probePytest is hasPytest, also telling whether the answer was remembered.
func probePytest(ctx context.Context, root, interp string, runner *run.Runner) (ok bool, version string, remembered bool) {
	key := interpKey(interp, runner != nil && runner.Sandbox != nil)
	if ok, version, found := cachedProbe(key); found {
		return ok, version, true
	}
	var out bytes.Buffer
	res, err := runner.Run(ctx, run.Spec{
		Args:    []string{interp, "-I", "-c", pytestProbe},
		Dir:     probeDir(),
		Env:     []string{"PYENV_DIR=" + root},
		Stdout:  &out,
		Purpose: run.Internal,
		Timeout: 30 * time.Second,
	})
	if err != nil || res.TimedOut {
		return false, "", false
	}
	ok = res.ExitCode == 0
	if ok {
		version = probedVersion(out.Bytes())
	}
	if res.ExitCode == 0 || res.ExitCode == 1 {
		rememberProbe(key, ok, version, out.Bytes())
	}
	return ok, version, false
}

// probedVersion is the version the probe wrote before the folders.
func probedVersion(out []byte) string {
	first, _, _ := bytes.Cut(out, []byte{0})
	v, _ := strings.CutPrefix(string(first), "pytest-version=")
	if len(v) == len(first) {
		return ""
	}
	return v
}

// probeDir is where the pytest probe runs: outside the project, so no
// project file can shadow pytest. It is / rather than the temporary
// folder: a sandboxed probe cannot see a $TMPDIR outside the project (the
// sandbox hides /tmp), and could not even start there.
func probeDir() string { return "/" }

func lookPath(name string) string {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if isExecutable(p) {
			return p
		}
	}
	return ""
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}
