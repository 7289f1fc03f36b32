package detect

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tox.ini's test command tells what a plain pytest run would leave out:
// doctests its pytest collects (boltons), or the load_tests doctests of a
// unittest run (more-itertools). What cannot be read for certain lifts
// nothing.
func TestToxTests(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"boltons", "tests", "src/pkg"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, tox string
		unittest  bool
		args      []string
	}{
		{"boltons", "[testenv]\nchangedir = .tox\ncommands = pytest --doctest-modules {env_site_packages_dir}/boltons {tox_root}/tests {posargs}\n",
			false, []string{"--doctest-modules", "boltons", "tests"}},
		{"unittest", "[tox]\nenvlist = py{310,311}\n\n[testenv]\ncommands = {envpython} -m unittest -v {posargs}\n", true, nil},
		{"coverage, src layout, second line", "[testenv]\ndeps = pytest\ncommands =\n    ruff check .\n    coverage run -m pytest --doctest-modules {envsitepackagesdir}/pkg {toxinidir}/tests\n",
			false, []string{"--doctest-modules", "src/pkg", "tests"}},
		{"a doctest glob, no paths", "[testenv]\ncommands = python -m pytest --doctest-glob=*.rst\n", false, []string{"--doctest-glob=*.rst"}},
		{"unittest in another folder", "[testenv]\nchangedir = tests\ncommands = python -m unittest -v\n", false, nil},
		{"unittest discover in a folder of its own", "[testenv]\ncommands = python -m unittest discover -s tests -p *_test.py\n", false, nil},
		{"an option that changes collection", "[testenv]\ncommands = pytest --doctest-modules --import-mode=importlib src/pkg\n", false, nil},
		{"options that change only the report", "[testenv]\ncommands = pytest -ra --tb=short --cov=pkg --doctest-modules src/pkg\n", false, []string{"--doctest-modules", "src/pkg"}},
		{"two pytest runs", "[testenv]\ncommands =\n    pytest --doctest-modules src/pkg\n    pytest tests\n", false, nil},
		{"no doctests", "[testenv]\ncommands = pytest --cov boltons tests\n", false, nil},
		{"an option whose value may be the next word", "[testenv]\ncommands = pytest --doctest-modules -p no:cacheprovider boltons\n", false, nil},
		{"changedir and no paths", "[testenv]\nchangedir = docs\ncommands = pytest --doctest-modules\n", false, nil},
		{"a path the project does not have", "[testenv]\ncommands = pytest --doctest-modules {toxinidir}/missing\n", false, nil},
		{"another env's command", "[testenv:docs]\ncommands = pytest --doctest-modules boltons\n", false, nil},
		{"quotes", "[testenv]\ncommands = pytest --doctest-modules \"boltons\"\n", false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			write(t, root, "tox.ini", c.tox)
			tr, ok := toxTests(root)
			if ok != (c.unittest || c.args != nil) || tr.unittest != c.unittest || !slices.Equal(tr.pytestArgs, c.args) {
				t.Errorf("got %+v, %v; want unittest %v, args %q", tr, ok, c.unittest, c.args)
			}
		})
	}
}

// The detected pytest run takes the doctest flags, or becomes unittest's.
func TestPythonCheckFollowsTox(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Fatal("no /usr/bin/python3")
	}
	t.Setenv("PATH", "/usr/bin:/bin")
	t.Setenv("VIRTUAL_ENV", "")
	root := t.TempDir()
	write(t, root, "boltons/a.py", "def f():\n    \"\"\"\n    >>> f()\n    1\n    \"\"\"\n    return 1\n")
	write(t, root, "tests/test_a.py", "def test_a():\n    assert True\n")
	write(t, root, "tox.ini", "[testenv]\ncommands = pytest --doctest-modules {env_site_packages_dir}/boltons {tox_root}/tests {posargs}\n")
	ps, err := Projects(root, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := commands(ps); len(got) != 1 || !strings.HasSuffix(got[0], "python3 -m pytest --doctest-modules boltons tests [pytest]") {
		t.Fatalf("got %v", got)
	}
	write(t, root, "tox.ini", "[testenv]\ncommands = {envpython} -m unittest -v {posargs}\n")
	ps, _ = Projects(root, nil, nil)
	if got := commands(ps); len(got) != 1 || !strings.HasSuffix(got[0], "python3 -m unittest [unittest]") {
		t.Fatalf("got %v", got)
	}
}
