package protect

import (
	"strings"
	"testing"
)

// pyCommon is shaped like yamllint's tests/common.py: a base class every
// rule test derives from, whose check() holds the one assertEqual.
const pyCommon = `import unittest

import yaml

from yamllint import linter


def build_config(conf):
    return yaml.safe_dump({'extends': 'default', 'rules': conf})


class RuleTestCase(unittest.TestCase):
    def check(self, source, conf, **kwargs):
        expected_problems = []
        for key, value in kwargs.items():
            assert key.startswith('problem')
            expected_problems.append(linter.LintProblem(value[0], value[1]))
        expected_problems.sort()

        real_problems = list(linter.run(source, build_config(conf)))
        self.assertEqual(real_problems, expected_problems)


class Checker:
    def expect_ok(self, result):
        assert result.ok
        assert result.errors == []
`

// A helper module the tests import is analyzed like the helpers of a test
// file: yamllint's tests/common.py was weakened with a condition around
// its assertEqual and verified.
func TestPythonSupportModule(t *testing.T) {
	f := "tests/common.py"
	cases := []edit{
		{"same", f, pyCommon, pyCommon, ""},
		{"comment added", f, pyCommon, sub(pyCommon, "        expected_problems.sort()\n", "        # order as the linter does\n        expected_problems.sort()\n"), ""},
		{"local renamed", f, pyCommon, strings.ReplaceAll(pyCommon, "real_problems", "found"), ""},
		{"function extracted", f, pyCommon, sub(pyCommon, "        real_problems = list(linter.run(source, build_config(conf)))\n",
			"        real_problems = self.lint(source, conf)\n", "class Checker:", "    def lint(self, source, conf):\n        return list(linter.run(source, build_config(conf)))\n\n\nclass Checker:"), ""},
		{"new helper", f, pyCommon, pyCommon + "\n\ndef expect_empty(xs):\n    assert xs == []\n", ""},
		{"assertion added", f, pyCommon, sub(pyCommon, "        assert result.ok\n", "        assert result.ok\n        assert result.warnings == []\n"), ""},
		{"yamllint: assertEqual wrapped in a condition", f, pyCommon, sub(pyCommon, "        self.assertEqual(real_problems, expected_problems)\n",
			"        if type(self).__name__ != 'TruthyTestCase':\n            self.assertEqual(real_problems, expected_problems)\n"), ExpectationInverted},
		{"assertion removed", f, pyCommon, sub(pyCommon, "        assert result.errors == []\n", ""), AssertionRemoved},
		{"assertion removed in a plain class", "tests/helpers/checks.py", pyCommon, sub(pyCommon, "        assert result.errors == []\n", ""), AssertionRemoved},
		{"loosened", f, pyCommon, sub(pyCommon, "self.assertEqual(real_problems, expected_problems)", "self.assertTrue(real_problems)"), AssertionLoosened},
		{"return before the assertions", f, pyCommon, sub(pyCommon, "        expected_problems.sort()\n", "        expected_problems.sort()\n        if conf:\n            return\n"), EarlyExit},
		{"skip added", f, pyCommon, sub(pyCommon, "        expected_problems = []\n", "        self.skipTest('later')\n        expected_problems = []\n"), SkipAdded},
		{"pytest.skip added", "testing/util.py", pyCommon, sub(pyCommon, "        assert result.ok\n", "        pytest.skip('flaky')\n        assert result.ok\n"), SkipAdded},
		{"new support module", "tests/common2.py", "-", pyCommon, ""},
		{"support module deleted", f, pyCommon, "-", ""},
		// Code outside test folders is the code under test: an assert there
		// is a runtime check, changed freely.
		{"runtime assert outside tests", "src/pkg/util.py", pyCommon, sub(pyCommon, "        assert result.errors == []\n", ""), ""},
		{"name holding test is no test folder", "src/contest/util.py", pyCommon, sub(pyCommon, "        assert result.errors == []\n", ""), ""},
		{"installed package tests", ".venv/lib/python3.12/site-packages/yaml/tests/common.py", pyCommon, sub(pyCommon, "        assert result.errors == []\n", ""), ""},
	}
	runEdits(t, cases)
	t.Run("message names the helper", func(t *testing.T) {
		cur := sub(pyCommon, "        self.assertEqual(real_problems, expected_problems)\n",
			"        if type(self).__name__ != 'TruthyTestCase':\n            self.assertEqual(real_problems, expected_problems)\n")
		vs, err := Compare(mapSource{f: pyCommon}, mapSource{f: cur}, []string{f}, Options{})
		if err != nil || len(vs) != 1 {
			t.Fatalf("want one violation, got %v %v", vs, err)
		}
		v := vs[0]
		if v.File != f || v.Test != "helper RuleTestCase::check" || v.Line != 22 || !strings.HasPrefix(v.Message, "in a helper the tests call: assertion wrapped in a condition") {
			t.Fatalf("violation: %s", v)
		}
	})
}

// A module beside collected test files counts when it imports a test
// framework; beside them without one it is the code the tests test.
func TestPythonSupportBesideTests(t *testing.T) {
	const helper = "import pytest\n\n\ndef expect_sum(xs, want):\n    assert sum(xs) == want\n"
	const code = "def total(xs):\n    assert xs is not None\n    return sum(xs)\n"
	weak := sub(helper, "    assert sum(xs) == want\n", "    pass\n")
	cases := []struct {
		name, file, base, cur string
		want                  Kind
	}{
		{"helper beside tests", "pkg/checks.py", helper, weak, AssertionRemoved},
		{"code beside tests", "pkg/calc.py", code, sub(code, "    assert xs is not None\n", ""), ""},
		{"helper in a folder without tests", "lib/checks.py", helper, weak, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tree := func(src string) dirSource {
				return dirSource{"pkg/test_calc.py": "def test_total():\n    assert 1\n", c.file: src}
			}
			vs, err := Compare(tree(c.base), tree(c.cur), []string{c.file}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" && len(vs) > 0 || c.want != "" && (len(vs) == 0 || vs[0].Kind != c.want) {
				t.Fatalf("want %q, got %v", c.want, vs)
			}
		})
	}
}

// dirSource is a mapSource that lists its folders, as a work tree does.
type dirSource map[string]string

func (d dirSource) ReadFile(p string) ([]byte, error) { return mapSource(d).ReadFile(p) }

func (d dirSource) ListDir(dir string) ([]string, error) {
	var out []string
	for p := range d {
		if i := strings.LastIndexByte(p, '/'); (i < 0 && dir == ".") || (i >= 0 && p[:i] == dir) {
			out = append(out, p[i+1:])
		}
	}
	return out, nil
}

const goSupport = `package testutil

import (
	"errors"
	"testing"
)

// EqualLines fails t when got and want differ.
func EqualLines(t testing.TB, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("line %d: got %q, want %q", i, got[i], want[i])
		}
	}
}

// Describe is no check: err.Error() fails nothing.
func Describe(err error) string {
	if err == nil {
		return ""
	}
	return errors.Unwrap(err).Error()
}
`

// A Go package's non-test file that imports testing holds helpers the
// tests call (internal/testutil, fstest).
func TestGoSupportFile(t *testing.T) {
	f := "internal/testutil/lines.go"
	runEdits(t, []edit{
		{"same", f, goSupport, goSupport, ""},
		{"refactor", f, goSupport, sub(goSupport, "\tfor i := range got {\n\t\tif got[i] != want[i] {\n\t\t\tt.Errorf(\"line %d: got %q, want %q\", i, got[i], want[i])",
			"\tfor n := range got {\n\t\tif got[n] != want[n] {\n\t\t\tt.Errorf(\"line %d: got %q, want %q\", n, got[n], want[n])"), ""},
		{"not a check removed", f, goSupport, sub(goSupport, "\treturn errors.Unwrap(err).Error()\n", "\treturn err.Error()\n"), ""},
		{"new helper", f, goSupport, goSupport + "\nfunc Empty(t *testing.T, xs []string) {\n\tif len(xs) != 0 {\n\t\tt.Fatal(\"not empty\")\n\t}\n}\n", ""},
		{"check removed", f, goSupport, sub(goSupport, "\t\tif got[i] != want[i] {\n\t\t\tt.Errorf(\"line %d: got %q, want %q\", i, got[i], want[i])\n\t\t}\n", "\t\t_ = i\n"), AssertionRemoved},
		{"check wrapped in a condition", f, goSupport, sub(goSupport, "\t\tif got[i] != want[i] {\n\t\t\tt.Errorf(\"line %d: got %q, want %q\", i, got[i], want[i])\n\t\t}\n",
			"\t\tif len(want) > 1 {\n\t\t\tif got[i] != want[i] {\n\t\t\t\tt.Errorf(\"line %d: got %q, want %q\", i, got[i], want[i])\n\t\t\t}\n\t\t}\n"), ExpectationInverted},
		{"skip added", f, goSupport, sub(goSupport, "\tt.Helper()\n", "\tt.Helper()\n\tt.Skip(\"later\")\n"), SkipAdded},
		{"early return", f, goSupport, sub(goSupport, "\tt.Helper()\n", "\treturn\n\tt.Helper()\n"), EarlyExit},
		{"a library of test helpers (go-testdeep's td)", "td/t_anchor.go", "package td\n\nimport \"testing\"\n\nfunc check(t *testing.T, ok bool) {\n\tif !ok {\n\t\tt.Fatal(\"x\")\n\t}\n}\n", "package td\n\nimport \"testing\"\n\nfunc check(t *testing.T, ok bool) {\n}\n", ""},
		{"no testing import", "internal/calc/calc.go", "package calc\n\nfunc check(r interface{ Error(string) }) {\n\tr.Error(\"x\")\n}\n", "package calc\n\nfunc check(r interface{ Error(string) }) {\n}\n", ""},
	})
}

// An assertion newly wrapped in a condition can be skipped: in a test and
// in a helper of a test file alike.
func TestPythonAssertionWrappedInCondition(t *testing.T) {
	const src = "import unittest\n\n\nclass TestLint(unittest.TestCase):\n    def lint(self, a, b):\n        self.assertEqual(a, b)\n\n    def test_lint(self):\n        self.assertEqual(run('x'), [])\n"
	f := "tests/test_lint.py"
	runEdits(t, []edit{
		{"in a test", f, src, sub(src, "        self.assertEqual(run('x'), [])\n", "        if CHECK:\n            self.assertEqual(run('x'), [])\n"), ExpectationInverted},
		{"in a helper", f, src, sub(src, "        self.assertEqual(a, b)\n", "        if a:\n            self.assertEqual(a, b)\n"), ExpectationInverted},
		{"in a conditional expression", f, src, sub(src, "        self.assertEqual(a, b)\n", "        self.assertEqual(a, b) if a else None\n"), ExpectationInverted},
	})
}
