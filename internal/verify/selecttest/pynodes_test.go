package selecttest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// nodeTree is a project whose tests use a library's names in every way
// function-level selection must follow (or give up on).
func nodeTree() map[string]string {
	files := map[string]string{
		"lib/__init__.py": "from .core import add, mul\nfrom . import reg\n",
		"lib/core.py": "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n\n\n" +
			"def square(a):\n    return mul(a, a)\n\n\nclass Calc:\n    def run(self, a):\n        return add(a, 1)\n\n\n" +
			"class Sub(Calc):\n    pass\n\n\nLIMIT = 10\n",
		"lib/reg.py": "_REG = {}\n\n\ndef register(f):\n    _REG[f.__name__] = f\n    return f\n\n\ndef lookup(name):\n    return _REG[name]\n\n\n" +
			"@register\ndef plugin():\n    return 1\n\n\ndef unused():\n    return 2\n",
		"lib/out.py": "import atexit\n\n\ndef hook():\n    return 3\n\n\natexit.register(hook)\n\n\n" +
			"class Box:\n    @property\n    def v(self):\n        return self._v\n\n    @v.setter\n    def v(self, x):\n        self._v = x\n",
		"tests/test_core.py": "import lib\nfrom lib import add\nfrom lib.core import square, Calc\n\n\n" +
			"def helper():\n    return lib.mul(2, 3)\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\n" +
			"def test_mul():\n    assert lib.mul(2, 2) == 4\n\n\ndef test_helper():\n    assert helper() == 6\n\n\n" +
			"def test_square():\n    assert square(3) == 9\n\n\nclass TestCalc:\n    def test_run(self):\n        assert Calc().run(1) == 2\n\n" +
			"    def test_none(self):\n        assert True\n",
		"tests/test_class.py": "from lib.core import mul, add\n\n\nclass TestShared:\n    def setup_method(self):\n        self.v = mul(2, 2)\n\n" +
			"    def test_a(self):\n        assert self.v == 4\n\n    def test_b(self):\n        assert add(self.v, 0) == 4\n",
		"tests/test_base.py": "import unittest\nfrom lib.core import Sub\n\n\nclass TestSub(unittest.TestCase):\n" +
			"    def test_sub(self):\n        self.assertEqual(Sub().run(0), 1)\n\n\ndef test_other():\n    assert 1\n",
		"tests/test_fixture.py": "import pytest\nfrom lib.core import mul, add\n\n\n@pytest.fixture\ndef four():\n    return mul(2, 2)\n\n\n" +
			"def test_four(four):\n    assert four == 4\n\n\ndef test_add():\n    assert add(1, 1) == 2\n",
		"tests/test_param.py": "import pytest\nfrom lib.core import add, mul\n\n\n@pytest.mark.parametrize('x', [mul(1, 1)])\n" +
			"def test_param(x):\n    assert x == 1\n\n\ndef test_add():\n    assert add(0, 0) == 0\n",
		"tests/test_modlevel.py": "from lib.core import add, mul\n\nTWO = mul(1, 2)\n\n\ndef test_two():\n    assert TWO == 2\n\n\n" +
			"def test_add():\n    assert add(1, 1) == 2\n",
		"tests/test_reg.py": "from lib.reg import lookup, unused\n\n\ndef test_lookup():\n    assert lookup('plugin')() == 1\n\n\n" +
			"def test_unused():\n    assert unused() == 2\n",
		"tests/test_out.py": "from lib.out import hook, Box\n\n\ndef test_hook():\n    assert hook() == 3\n\n\n" +
			"def test_box():\n    b = Box()\n    b.v = 1\n    assert b.v == 1\n",
		"tests/sub/conftest.py": "import pytest\nfrom lib.core import square\n\n\n@pytest.fixture\ndef nine():\n    return square(3)\n",
		"tests/sub/test_sub.py": "from lib.core import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_nine(nine):\n    assert nine == 9\n",
	}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("tests/pad/test_pad_%02d.py", i)] = "def test_pad():\n    pass\n"
	}
	return files
}

// nodeSelect changes file (by applying edit to its text) in a fresh
// nodeTree and returns the selection's targets, base read from the tree
// before the edit.
func nodeSelect(t *testing.T, file string, edit func(string) string) string {
	t.Helper()
	old := MinPyNodeSecs
	MinPyNodeSecs = 0
	t.Cleanup(func() { MinPyNodeSecs = old })
	dir := t.TempDir()
	writeTree(t, dir, nodeTree())
	return nodeSelectIn(t, dir, file, edit)
}

// nodeSelectIn is nodeSelect in dir, which holds a nodeTree.
func nodeSelectIn(t *testing.T, dir, file string, edit func(string) string) string {
	t.Helper()
	base := nodeTree()
	cur := edit(base[file])
	if cur == base[file] {
		t.Fatalf("edit of %s changed nothing", file)
	}
	writeTree(t, dir, map[string]string{file: cur})
	in := Input{Check: pytestCheck(dir), Changed: []string{file}, Base: func(rel string) ([]byte, error) {
		if s, ok := base[rel]; ok {
			return []byte(s), nil
		}
		return nil, os.ErrNotExist
	}}
	sel := mustSelect(t, in)
	if sel.Full {
		return "full: " + sel.Reason.String()
	}
	return strings.Join(sel.Targets, " ")
}

func replace(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

func TestPyNodesSelectsTestFunctions(t *testing.T) {
	cases := []struct {
		name, file string
		edit       func(string) string
		want       string
	}{
		{"direct and through a package re-export", "lib/core.py", replace("return a + b", "return a - b"),
			// add: used by name in tests, by Calc.run (so Sub, TestSub), and
			// by conftest-free files; test_fixture's fixture uses mul only.
			"tests/sub/test_sub.py::test_add tests/test_base.py::TestSub tests/test_class.py::TestShared::test_b tests/test_core.py::test_add " +
				"tests/test_core.py::TestCalc::test_run tests/test_fixture.py::test_add tests/test_modlevel.py::test_add tests/test_param.py::test_add"},
		{"through helpers and attribute chains; fixtures and module-level code run whole", "lib/core.py", replace("return a * b", "return a ** b"),
			"tests/sub/test_sub.py tests/test_class.py tests/test_core.py::test_mul tests/test_core.py::test_helper " +
				"tests/test_core.py::test_square tests/test_fixture.py tests/test_modlevel.py tests/test_param.py::test_param"},
		{"a registry filled by a project decorator", "lib/reg.py", replace("return 1", "return 0"),
			"tests/test_reg.py::test_lookup"},
		{"a leaf name", "lib/reg.py", replace("return 2", "return 5"),
			"tests/test_reg.py::test_unused"},
		{"a property setter is no escape", "lib/out.py", replace("self._v = x", "self._v = -x"),
			"tests/test_out.py::test_box"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := nodeSelect(t, c.file, c.edit); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestPyNodesFallsBackToFiles(t *testing.T) {
	cases := []struct {
		name, file string
		edit       func(string) string
		want       string
	}{
		{"module-level code", "lib/core.py", replace("LIMIT = 10", "LIMIT = 11"), ""},
		{"a signature", "lib/core.py", replace("def add(a, b):", "def add(a, b=0):"), ""},
		{"a decorator", "lib/reg.py", replace("@register\n", "@register\n@register\n"), ""},
		{"a new def", "lib/core.py", func(s string) string { return s + "\n\ndef extra():\n    return 0\n" }, ""},
		{"a name handed outside the project", "lib/out.py", replace("return 3", "return 4"), "tests/test_out.py"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := nodeSelect(t, c.file, c.edit)
			if strings.Contains(got, "::") {
				t.Errorf("got node ids: %s", got)
			}
			if c.want != "" && got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}

func TestDiffUnits(t *testing.T) {
	const base = "import os\n\nX = 1\n\n\n@dec\ndef f(a):\n    '''doc'''\n    return a\n\n\nclass K(B):\n    y = 2\n\n    def m(self):\n        return 1\n"
	cases := []struct{ cur, want string }{
		{strings.Replace(base, "return a", "return a + 1", 1), "f"},
		{strings.Replace(base, "return 1", "return 2", 1), "K"},
		{strings.Replace(base, "'''doc'''", "'''other'''", 1), "f"},
		{strings.Replace(base, "return a\n", "return a  # note\n", 1), ""},
		{strings.Replace(base, "X = 1", "X = 2", 1), "why"},
		{strings.Replace(base, "y = 2", "y = 3", 1), "why"},
		{strings.Replace(base, "@dec", "@other", 1), "why"},
		{strings.Replace(base, "def f(a)", "def f(a, b)", 1), "why"},
		{strings.Replace(base, "import os", "import sys", 1), "why"},
	}
	for _, c := range cases {
		ch := diffUnits(base, c.cur)
		got := strings.Join(ch.names, ",")
		if ch.why != "" {
			got = "why"
		}
		if got != c.want {
			t.Errorf("%q: got %q (%s), want %q", c.cur, got, ch.why, c.want)
		}
	}
}

// TestPyNodesRunUnderPytest runs the narrowed node ids with the real
// pytest: each collects and passes.
// TestPyNodesPay: node ids are used only once whole runs of the selected
// files are known to take MinPyNodeSecs or more; until then, and while
// they take less, the files run whole.
func TestPyNodesPay(t *testing.T) {
	setHome(t)
	dir := t.TempDir()
	writeTree(t, dir, nodeTree())
	edit := replace("return 2", "return 5")
	if got := nodeSelectIn(t, dir, "lib/reg.py", edit); got != "tests/test_reg.py" {
		t.Fatalf("no times recorded: %s, want the file whole", got)
	}
	RecordPytestTimes(dir, map[string]float64{"tests.test_reg::test_lookup": 0.5, "tests.test_reg::test_unused": 0.4}, nil)
	if got := nodeSelectIn(t, dir, "lib/reg.py", edit); got != "tests/test_reg.py" {
		t.Fatalf("0.9s recorded: %s, want the file whole", got)
	}
	// A run of node ids does not count: it ran only some of the file.
	RecordPytestTimes(dir, map[string]float64{"tests.test_reg::test_unused": 5}, []string{"tests/test_reg.py::test_unused"})
	if got := nodeSelectIn(t, dir, "lib/reg.py", edit); got != "tests/test_reg.py" {
		t.Fatalf("a node-id run recorded: %s, want the file whole", got)
	}
	RecordPytestTimes(dir, map[string]float64{"tests.test_reg::test_lookup": 1.5, "tests.test_reg::test_unused": 0.6}, []string{"tests/test_reg.py"})
	if got := nodeSelectIn(t, dir, "lib/reg.py", edit); got != "tests/test_reg.py::test_unused" {
		t.Fatalf("2.1s recorded: %s, want tests/test_reg.py::test_unused", got)
	}
}

func TestPyNodesRunUnderPytest(t *testing.T) {
	if _, err := os.Stat(sysPython); err != nil {
		t.Skip("no " + sysPython)
	}
	dir := t.TempDir()
	writeTree(t, dir, nodeTree())
	ids := "tests/test_base.py::TestSub tests/test_class.py::TestShared::test_b tests/test_core.py::TestCalc::test_run tests/test_reg.py::test_lookup"
	out, err := runIn(dir, sysPython, append([]string{"-m", "pytest", "-q", "-p", "no:cacheprovider"}, strings.Fields(ids)...)...)
	if err != nil || !strings.Contains(out, "4 passed") {
		t.Fatalf("pytest %s: %v\n%s", ids, err, out)
	}
}

func runIn(dir, prog string, args ...string) (string, error) {
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}
