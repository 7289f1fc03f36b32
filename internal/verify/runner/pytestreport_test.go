package runner

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/chanto-dev/chanto/internal/run"
)

// pytestEdgeCases is a project with every outcome the two reports must
// agree on.
const pytestEdgeCases = `
-- tests/__init__.py --
-- tests/test_outcomes.py --
import pytest

def test_pass():
    assert True

def test_fail():
    assert 1 == 2

@pytest.fixture
def broken_setup():
    raise RuntimeError("setup boom")

def test_setup_error(broken_setup):
    pass

@pytest.fixture
def broken_teardown():
    yield
    raise RuntimeError("teardown boom")

def test_teardown_error(broken_teardown):
    pass

def test_fail_and_teardown_error(broken_teardown):
    assert False

@pytest.mark.skip(reason="no")
def test_skipped():
    pass

def test_skip_inside():
    pytest.skip("later")

@pytest.mark.xfail
def test_xfail():
    assert False

@pytest.mark.xfail
def test_xpass():
    pass

@pytest.mark.xfail(strict=True)
def test_xpass_strict():
    pass

@pytest.mark.parametrize("v", ["a.b", "x/y", "sp ace", "ma\u00f1ana", "[br]", "tab\there"])
def test_param(v):
    assert "x" not in v

class TestKlass:
    def test_method(self):
        pass

    def test_method_fails(self):
        assert 0

    class TestInner:
        def test_deep(self):
            assert 0
-- tests/test_collect_error.py --
import nonexistent_module_for_chanto
def test_never():
    pass
-- tests/test_module_skip.py --
import pytest
pytest.skip("whole module", allow_module_level=True)
def test_never():
    pass
-- tests/sub/dir.with.dots/test_dots.py --
def test_dotted():
    assert 0
-- tests/sub/dir.with.dots/__init__.py --
-- tests/sub/__init__.py --
-- docs/usage.rst --
>>> 1 + 1
3
`

// Both reports, of one real pytest run each, name the same tests the same
// way: the edge cases above and every Python project of the CLI scripts
// (testdata/script). Run with Debian's pytest (/usr/bin/python3).
func TestPytestPluginReportMatchesJUnit(t *testing.T) {
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import pytest").Run() != nil {
		t.Skip("no pytest for " + py)
	}
	projects := map[string][]txtar.File{"edge-cases": txtar.Parse([]byte(pytestEdgeCases)).Files}
	scripts, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "script", "*.txtar"))
	for _, s := range scripts {
		ar, err := txtar.ParseFile(s)
		if err != nil {
			t.Fatal(err)
		}
		var files []txtar.File
		hasTests := false
		for _, f := range ar.Files {
			if strings.HasSuffix(f.Name, ".py") || strings.HasSuffix(f.Name, ".toml") || strings.HasSuffix(f.Name, ".ini") || strings.HasSuffix(f.Name, ".cfg") || strings.HasSuffix(f.Name, ".rst") {
				files = append(files, f)
				base := filepath.Base(f.Name)
				hasTests = hasTests || strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py")
			}
		}
		if hasTests {
			projects[filepath.Base(s)] = files
		}
	}
	if len(projects) < 10 {
		t.Fatalf("only %d projects found", len(projects))
	}
	for name, files := range projects {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range files {
				writeFile(t, filepath.Join(dir, f.Name), f.Data)
			}
			args := []string{py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--doctest-glob=*.rst"}
			if name == "edge-cases" {
				args = append(args, "--continue-on-collection-errors")
			}
			viaJUnit := runPytestWith(t, dir, args, false)
			viaPlugin := runPytestWith(t, dir, args, true)
			if name == "edge-cases" {
				checkEdgeCases(t, viaPlugin)
			}
			if !reflect.DeepEqual(viaJUnit, viaPlugin) {
				t.Errorf("the reports disagree\njunit:  %+v\nplugin: %+v", viaJUnit, viaPlugin)
			}
		})
	}
}

// reportedOutcome is what the gate reads from a pytest run.
type reportedOutcome struct {
	Tests    int
	Failures []Failure
	Passed   []Failure
	NoReport string
	// Timed are the tests a time is known of (the times themselves
	// differ between two runs).
	Timed []string
}

// runPytestWith runs args in dir with chanto's plugin report or with
// --junitxml, and reads it back as the gate does.
func runPytestWith(t *testing.T, dir string, args []string, plugin bool) reportedOutcome {
	t.Helper()
	c := newPytestCollector(t.TempDir())
	var argv []string
	if plugin {
		argv = c.Args(args)
		if !c.plugin {
			t.Fatalf("the plugin was not asked for: %v", argv)
		}
	} else {
		argv = c.junit.Args(args)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	cmd.Env = append(cmd.Env, c.Env(os.Getenv)...)
	out, err := cmd.CombinedOutput()
	exit := 0
	if ee, ok := err.(*exec.ExitError); ok {
		exit = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	o := c.Finish(run.Result{ExitCode: exit, Output: out})
	_, pluginWrote := os.Stat(filepath.Join(c.dir, pytestReportFile))
	if o.NoReport == "" && plugin != (pluginWrote == nil) {
		t.Fatalf("plugin=%v, but the plugin's report exists: %v", plugin, pluginWrote == nil)
	}
	noReport := ""
	if o.NoReport != "" {
		noReport = "none" // a project's pytest.py shadows pytest: neither report is written
	}
	timed := slices.Sorted(maps.Keys(o.Secs))
	return reportedOutcome{Tests: o.Tests, Failures: o.Failures, Passed: o.Passed, NoReport: noReport, Timed: timed}
}

// checkEdgeCases makes sure the edge cases ran as meant, so agreeing is
// not agreeing on nothing.
func checkEdgeCases(t *testing.T, o reportedOutcome) {
	t.Helper()
	count := map[string]int{}
	for _, f := range o.Failures {
		count[f.ID]++
	}
	for id, n := range map[string]int{
		"tests.test_collect_error":                           1,
		"tests.test_outcomes::test_setup_error":              1,
		"tests.test_outcomes::test_teardown_error":           1,
		"tests.test_outcomes::test_fail_and_teardown_error":  2, // pytest writes the teardown's error as a second case
		"tests.test_outcomes.TestKlass.TestInner::test_deep": 1,
		"tests.sub.dir.with.dots.test_dots::test_dotted":     1,
		"docs.usage.rst::usage.rst":                          1,
	} {
		if count[id] != n {
			t.Errorf("%s failed %d times, want %d", id, count[id], n)
		}
	}
	if o.Tests != 24 || len(o.Passed) != 8 || len(o.Timed) < 20 {
		t.Errorf("%d tests, %d passed, %d timed; want 24, 8 and 20 or more", o.Tests, len(o.Passed), len(o.Timed))
	}
}

// The plugin is asked for only where PYTHONPATH reaches the interpreter
// and the command leaves it on.
func TestPytestPluginLoads(t *testing.T) {
	bin := t.TempDir()
	writeFile(t, filepath.Join(bin, "pytest"), []byte("#!/usr/bin/python3\nimport pytest\n"))
	writeFile(t, filepath.Join(bin, "pytest-iso"), []byte("#!/usr/bin/python3 -I\nimport pytest\n"))
	writeFile(t, filepath.Join(bin, "pytest-env"), []byte("#!/usr/bin/env -S python3 -E\nimport pytest\n"))
	for _, f := range []string{"pytest", "pytest-iso", "pytest-env"} {
		os.Chmod(filepath.Join(bin, f), 0o755)
	}
	t.Setenv("PATH", bin)
	cases := []struct {
		argv string
		want bool
	}{
		{"python3 -m pytest", true},
		{"python3 -B -m pytest -q", true},
		{"python3 -I -m pytest", false},
		{"python3 -E -m pytest", false},
		{"python3 -sI -m pytest", false},
		{"python3 -m pytest -p no:cacheprovider", true},
		{"python3 -m pytest -p no:" + pytestPluginModule, false},
		{"python3 -m pytest -pno:" + pytestPluginModule, false},
		{"pytest -x", true},
		{filepath.Join(bin, "pytest-iso"), false},
		{"pytest-env", false},
		{"pytest-missing", false},
	}
	for _, c := range cases {
		if got := pluginLoads(strings.Fields(c.argv)); got != c.want {
			t.Errorf("%s: pluginLoads = %v, want %v", c.argv, got, c.want)
		}
	}
}

// A run whose plugin could not be imported (here: PYTHONPATH never
// reached it) is made again with --junitxml, whose report then counts.
func TestPytestPluginNotLoadedRetriesWithJUnit(t *testing.T) {
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import pytest").Run() != nil {
		t.Skip("no pytest for " + py)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "test_a.py"), []byte("def test_a():\n    assert 0\n"))
	c := newPytestCollector(t.TempDir())
	args := []string{py, "-m", "pytest", "-q"}
	run1 := func(col Collector, env []string) run.Result {
		argv := col.Args(args)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
		out, _ := cmd.CombinedOutput()
		return run.Result{ExitCode: cmd.ProcessState.ExitCode(), Output: out}
	}
	res := run1(c, nil) // the plugin's variables left out
	again, ok := c.Retry(res.Output)
	if !ok {
		t.Fatalf("no retry after:\n%s", res.Output)
	}
	res = run1(again, nil)
	o := again.Finish(res)
	if o.NoReport != "" || len(o.Failures) != 1 || o.Failures[0].ID != "test_a::test_a" {
		t.Fatalf("after the retry: %+v", o)
	}
	if _, ok := again.(Retrier); ok {
		t.Error("the retry's collector would retry again")
	}
	// A run that loaded the plugin is not made again.
	c = newPytestCollector(t.TempDir())
	c.Args(args)
	res = run1(c, c.Env(os.Getenv))
	if _, ok := c.Retry(res.Output); ok {
		t.Errorf("a run with its plugin report was retried:\n%s", res.Output)
	}
}
