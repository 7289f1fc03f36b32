package selecttest

import (
	"testing"

	"github.com/chanto-dev/chanto/internal/verify/pytestconf"
)

func TestReadPytestConfig(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  pytestConfig
	}{
		{"pytest.ini wins over pyproject", map[string]string{
			"pytest.ini":     "[pytest]\ntestpaths = unit\n    integration\npython_files = check_*.py\n",
			"pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = [\"other\"]\n",
		}, pytestConfig{File: "pytest.ini", TestPaths: []string{"unit", "integration"}, PythonFiles: []string{"check_*.py"}}},
		{"pyproject lists", map[string]string{
			"pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\npythonpath = [\"src\", \"lib\"]\naddopts = \"--doctest-modules -q\"\n",
		}, pytestConfig{File: "pyproject.toml", TestPaths: []string{"tests"}, PythonPath: []string{"src", "lib"},
			PythonFiles: []string{"test_*.py", "*_test.py"}, DoctestModules: true}},
		{"pyproject without pytest table falls through to tox.ini", map[string]string{
			"pyproject.toml": "[project]\nname = \"x\"\n",
			"tox.ini":        "[tox]\nenvlist = py3\n\n[pytest]\ntestpaths = t\n",
		}, pytestConfig{File: "tox.ini", TestPaths: []string{"t"}, PythonFiles: []string{"test_*.py", "*_test.py"}}},
		{"setup.cfg", map[string]string{
			"setup.cfg": "[metadata]\nname = x\n\n[tool:pytest]\npython_files = *_spec.py\n",
		}, pytestConfig{File: "setup.cfg", PythonFiles: []string{"*_spec.py"}}},
		{"none", map[string]string{"setup.py": "\n"}, pytestConfig{PythonFiles: []string{"test_*.py", "*_test.py"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, tc.files)
			got := readPytestConfig(dir, pytestconf.Version{})
			if got.File != tc.want.File || !equal(got.TestPaths, tc.want.TestPaths) || !equal(got.PythonPath, tc.want.PythonPath) ||
				!equal(got.PythonFiles, tc.want.PythonFiles) || got.DoctestModules != tc.want.DoctestModules {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestConsoleScripts(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"setup.cfg": "[options.entry_points]\nconsole_scripts =\n    tool = pkg.cli:main\n    other=pkg.other:run\n",
	})
	cfg := readPytestConfig(dir, pytestconf.Version{})
	if cfg.Scripts["tool"] != "pkg.cli" || cfg.Scripts["other"] != "pkg.other" {
		t.Fatalf("scripts = %v", cfg.Scripts)
	}
}

func TestDiscoveryTop(t *testing.T) {
	cases := map[string][]string{
		".":     {},
		"tests": {"discover", "-s", "tests"},
		"src":   {"discover", "-s", "tests", "-t", "src"},
		"lib":   {"discover", "lib"},
	}
	for want, args := range cases {
		if got := discoveryTop(args); got != want {
			t.Errorf("discoveryTop(%q) = %q, want %q", args, got, want)
		}
	}
	if got := discoveryTop([]string{"discover", "-s", "tests", "-t", "."}); got != "." {
		t.Errorf("explicit top . = %q", got)
	}
}

func TestPytestDoctestGlobs(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"setup.cfg": "[tool:pytest]\naddopts = -q --doctest-glob='*.rst' --doctest-glob \"*.md\"\n"})
	if got := readPytestConfig(dir, pytestconf.Version{}).DoctestGlobs; !equal(got, []string{"*.rst", "*.md"}) {
		t.Fatalf("globs = %q", got)
	}
	if got := readPytestConfig(t.TempDir(), pytestconf.Version{}).DoctestGlobs; !equal(got, []string{"test*.txt"}) {
		t.Fatalf("default globs = %q, want pytest's test*.txt", got)
	}
}

// The configuration read is the one the pytest that runs reads: a hidden
// .pytest.ini (python-semver's testpaths and doctest globs) since pytest
// 7.2, the pyproject.toml below it before.
func TestReadPytestConfigByVersion(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".pytest.ini":    "[pytest]\ntestpaths = tests docs\naddopts =\n    --doctest-glob='*.rst'\n",
		"pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n",
	})
	if got := readPytestConfig(dir, pytestconf.Version{Major: 7, Minor: 2}); got.File != ".pytest.ini" || !equal(got.TestPaths, []string{"tests", "docs"}) || !equal(got.DoctestGlobs, []string{"*.rst"}) {
		t.Errorf("pytest 7.2: %+v", got)
	}
	if got := readPytestConfig(dir, pytestconf.Version{Major: 7, Minor: 1}); got.File != "pyproject.toml" || !equal(got.TestPaths, []string{"tests"}) || !equal(got.DoctestGlobs, []string{"test*.txt"}) {
		t.Errorf("pytest 7.1: %+v", got)
	}
}
