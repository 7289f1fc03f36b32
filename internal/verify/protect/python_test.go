package protect

import (
	"fmt"
	"strings"
	"testing"
)

const pyBase = `import pytest

from calc import add, parse


def make(n):
    return [n] * 2


def test_add():
    """Adding small numbers."""
    assert add(2, 3) == 5
    assert add(-1, 1) == 0


@pytest.mark.parametrize("text,want", [
    ("1", 1),
    ("42", 42),
])
def test_parse(text, want):
    assert parse(text) == want


class TestParse:
    def test_empty(self):
        with pytest.raises(ValueError):
            parse("")

    def test_list(self):
        result = make(3)
        assert result == [3, 3]
        assert len(result) == 2
`

func TestPythonEdits(t *testing.T) {
	f := "tests/test_calc.py"
	cases := []edit{
		{"same", f, pyBase, pyBase, ""},
		{"new test", f, pyBase, pyBase + "\n\ndef test_mul():\n    assert 2 * 3 == 6\n", ""},
		{"new method", f, pyBase, pyBase + "\n    def test_more(self):\n        assert make(1) == [1, 1]\n", ""},
		{"quotes and comments", f, pyBase, sub(pyBase, `    assert add(2, 3) == 5`, "    # small\n    assert add(2,3)==5  # ok", `parse("")`, `parse('')`), ""},
		{"docstring edit", f, pyBase, sub(pyBase, `"""Adding small numbers."""`, `"""Add two small numbers."""`), ""},
		{"trailing comma and reindent", f, pyBase, sub(pyBase, "    (\"42\", 42),\n])", "    (\"42\", 42)\n])"), ""},
		{"crlf", f, pyBase, strings.ReplaceAll(pyBase, "\n", "\r\n"), ""},
		{"black wraps assert in parens", f, pyBase, sub(pyBase, "    assert add(2, 3) == 5\n", "    assert (\n        add(2, 3)\n        == 5\n    )\n"), ""},
		{"helper renamed", f, pyBase, strings.ReplaceAll(pyBase, "make(", "build("), ""},
		{"new file", "tests/test_new.py", "-", pyBase, ""},
		{"non-test file", "calc.py", "def add(a, b):\n    return a + b\n", "def add(a, b):\n    return b + a\n", ""},
		{"file deleted", f, pyBase, "-", TestFileDeleted},
		{"test removed", f, pyBase, sub(pyBase, "    def test_empty(self):\n        with pytest.raises(ValueError):\n            parse(\"\")\n", ""), TestRemoved},
		{"renamed out", f, pyBase, sub(pyBase, "def test_add():", "def check_add():"), TestRemoved},
		{"commented out", f, pyBase, sub(pyBase, "def test_add():\n    \"\"\"Adding small numbers.\"\"\"\n    assert add(2, 3) == 5\n    assert add(-1, 1) == 0\n", "# def test_add():\n#     assert add(2, 3) == 5\n"), TestCommentedOut},
		{"assertion removed", f, pyBase, sub(pyBase, "    assert add(-1, 1) == 0\n", ""), AssertionRemoved},
		{"loosened", f, pyBase, sub(pyBase, "assert add(2, 3) == 5", "assert add(2, 3)"), AssertionLoosened},
		{"trivial", f, pyBase, sub(pyBase, "assert len(result) == 2", "assert True"), AssertionLoosened},
		{"expected changed", f, pyBase, sub(pyBase, "assert result == [3, 3]", "assert result == [3, 3, 3]"), ExpectedChanged},
		{"row removed", f, pyBase, sub(pyBase, "    (\"42\", 42),\n", ""), TableRowsChanged},
		{"row changed", f, pyBase, sub(pyBase, "(\"42\", 42)", "(\"42\", 41)"), TableRowsChanged},
		{"class parametrize row removed", f, sub(pyBase, "class TestParse:", "@pytest.mark.parametrize(\"n\", [1, 2])\nclass TestParse:"), sub(pyBase, "class TestParse:", "@pytest.mark.parametrize(\"n\", [1])\nclass TestParse:"), TableRowsChanged},
		{"fixture params row removed", f, sub(pyBase, "def make(n):", "@pytest.fixture(params=[1, 2, 3])\ndef size(request):\n    return request.param\n\n\ndef make(n):"), sub(pyBase, "def make(n):", "@pytest.fixture(params=[1, 2])\ndef size(request):\n    return request.param\n\n\ndef make(n):"), TableRowsChanged},
		{"skip mark", f, pyBase, sub(pyBase, "def test_add():", "@pytest.mark.skip(reason=\"later\")\ndef test_add():"), SkipAdded},
		{"xfail mark", f, pyBase, sub(pyBase, "def test_add():", "@pytest.mark.xfail\ndef test_add():"), SkipAdded},
		{"class skip", f, pyBase, sub(pyBase, "class TestParse:", "@pytest.mark.skipif(True, reason=\"x\")\nclass TestParse:"), SkipAdded},
		{"pytestmark", f, pyBase, sub(pyBase, "from calc import add, parse\n", "from calc import add, parse\n\npytestmark = pytest.mark.skip\n"), SkipAdded},
		{"class pytestmark", f, pyBase, sub(pyBase, "class TestParse:\n", "class TestParse:\n    pytestmark = pytest.mark.skip\n\n"), SkipAdded},
		{"flaky retries", f, pyBase, sub(pyBase, "def test_add():", "@pytest.mark.flaky(reruns=5)\ndef test_add():"), ExpectationInverted},
		{"pytest.skip call", f, pyBase, sub(pyBase, "        result = make(3)\n", "        pytest.skip(\"slow\")\n        result = make(3)\n"), SkipAdded},
		{"raise SkipTest", f, pyBase, sub(pyBase, "        result = make(3)\n", "        raise unittest.SkipTest(\"x\")\n        result = make(3)\n"), SkipAdded},
		{"early return", f, pyBase, sub(pyBase, "    assert add(2, 3) == 5\n", "    return\n    assert add(2, 3) == 5\n"), EarlyExit},
		{"sys exit", f, pyBase, sub(pyBase, "        result = make(3)\n", "        sys.exit(0)\n        result = make(3)\n"), EarlyExit},
		{"wrapped in try", f, pyBase, sub(pyBase, "    assert add(-1, 1) == 0\n", "    try:\n        assert add(-1, 1) == 0\n    except AssertionError:\n        pass\n"), ExpectationInverted},
		{"raises added", f, pyBase, sub(pyBase, "    assert parse(text) == want\n", "    with pytest.raises(Exception):\n        assert parse(text) == want\n"), ExpectationInverted},
		{"body changed", f, pyBase, sub(pyBase, "result = make(3)", "result = make(3) or []"), BodyChanged},
		{"strengthened", f, pyBase, sub(pyBase, "    assert add(-1, 1) == 0\n", "    assert add(-1, 1) == 0\n    assert add(0, 0) == 0\n"), TestStrengthened},
		{"unparsable", f, pyBase, sub(pyBase, "def test_add():", "def test_add(:"), Unparsable},
		{"moved to other collected file", f, pyBase, "-", ""},
	}
	runEdits(t, cases[:len(cases)-1])
	t.Run("moved", func(t *testing.T) {
		base := mapSource{f: pyBase}
		cur := mapSource{"tests/test_calc2.py": pyBase}
		vs, err := Compare(base, cur, []string{f, "tests/test_calc2.py"}, Options{})
		if err != nil || len(vs) != 0 {
			t.Fatalf("rename within collection reported: %v %v", vs, err)
		}
		cur = mapSource{"tests/calc_check.py": pyBase}
		vs, _ = Compare(base, cur, []string{f, "tests/calc_check.py"}, Options{})
		if len(vs) != 4 || vs[0].Kind != RenamedOutOfCollection || vs[0].Test != "test_add" || vs[0].After != "tests/calc_check.py" {
			t.Fatalf("rename out of collection: %v", vs)
		}
	})
}

// A file the grammar already failed on in the base is still compared:
// only a parse error the change introduced is reported as unparsable.
func TestPythonBaseUnparsable(t *testing.T) {
	base := "x = = 1\n\n\n" + pyBase
	runEdits(t, []edit{
		{"honest edit", "tests/test_calc.py", base, base + "\n\ndef test_mul():\n    assert 2 * 3 == 6\n", ""},
		{"tamper", "tests/test_calc.py", base, sub(base, "assert add(2, 3) == 5", "assert add(2, 3)"), AssertionLoosened},
	})
}

// Large files are copied partially; edits that reach beyond one test must
// still see every test they affect.
func TestPythonLargeFileStructuralEdits(t *testing.T) {
	var b strings.Builder
	b.WriteString("import pytest\n\n\nclass TestBig:\n")
	for i := 0; b.Len() < 40<<10; i++ {
		fmt.Fprintf(&b, "    def test_case_%d(self):\n        value = compute(%d)\n        assert value == %d\n\n", i, i, 2*i)
	}
	b.WriteString("\ndef test_last():\n    for fix in (1, 2):\n        x = fix\n        assert x > 0\n")
	base := b.String()
	runEdits(t, []edit{
		{"class renamed out of collection", "tests/test_big.py", base, sub(base, "class TestBig:", "class Big:"), TestRemoved},
		{"class skipped", "tests/test_big.py", base, sub(base, "class TestBig:", "@pytest.mark.skip\nclass TestBig:"), SkipAdded},
		{"last line removed", "tests/test_big.py", base, sub(base, "        assert x > 0\n", ""), AssertionRemoved},
		{"one test loosened", "tests/test_big.py", base, sub(base, "assert value == 20\n", "assert value\n"), AssertionLoosened},
		{"new test at end", "tests/test_big.py", base, base + "\n\ndef test_more():\n    assert compute(1) == 2\n", ""},
		{"comment in middle", "tests/test_big.py", base, sub(base, "        value = compute(7)\n", "        # seven\n        value = compute(7)\n"), ""},
	})
}

// pytest's python_classes and python_functions name the tests too: mako
// sets python_classes = ["*Test", "Test*"] and names every test class
// UtilTest, LexerTest…; none of them was guarded, so an assertion removed
// from one verified.
func TestPythonConfiguredNames(t *testing.T) {
	const cfg = "[tool.pytest.ini_options]\npython_files = [\"test/*test_*.py\"]\npython_classes = [\"*Test\", \"Test*\"]\npython_functions = [\"check_*\"]\n"
	const src = "from m import eq_\n\n\nclass UtilTest:\n    def test_write(self):\n        eq_(1, 1)\n        assert 2 == 2\n\n\ndef check_sum():\n    assert sum([1]) == 1\n"
	cases := []struct {
		name, cur string
		want      Kind
	}{
		{"assertion removed in a *Test class", sub(src, "        assert 2 == 2\n", ""), AssertionRemoved},
		{"body changed in a *Test class", sub(src, "eq_(1, 1)", "pass"), BodyChanged},
		{"python_functions test removed", sub(src, "def check_sum():\n    assert sum([1]) == 1\n", ""), TestRemoved},
		{"honest: a new test", src + "\n\ndef check_len():\n    assert len([1]) == 1\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := mapSource{"pyproject.toml": cfg, "test/test_util.py": src}
			cur := mapSource{"pyproject.toml": cfg, "test/test_util.py": c.cur}
			vs, err := Compare(base, cur, []string{"test/test_util.py"}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			found := false
			for _, v := range vs {
				got = append(got, v.String())
				found = found || v.Kind == c.want
			}
			if c.want == "" && len(vs) > 0 || c.want != "" && !found {
				t.Fatalf("want %q, got:\n%s", c.want, strings.Join(got, "\n"))
			}
		})
	}
}

// A table bound to a name of the module or the class feeds parametrize or
// a loop in the test: its rows are the test's.
const pyNamedTables = `import pytest

CASES = [
    (1, 2),
    (2, 4),
]

PAIRS: list = [(1, 1), (2, 2)]


@pytest.mark.parametrize("a,want", CASES)
def test_double(a, want):
    assert a * 2 == want


def test_loop():
    for a, want in PAIRS:
        assert a == want


class TestSquares:
    SQUARES = ((2, 4), (3, 9))

    def test_each(self):
        for n, sq in self.SQUARES:
            assert n * n == sq
`

func TestPythonNamedTables(t *testing.T) {
	f := "tests/test_tables.py"
	runEdits(t, []edit{
		{"same", f, pyNamedTables, pyNamedTables, ""},
		{"parametrize row removed", f, pyNamedTables, sub(pyNamedTables, "    (2, 4),\n", ""), TableRowsChanged},
		{"parametrize row changed", f, pyNamedTables, sub(pyNamedTables, "    (2, 4),\n", "    (2, 5),\n"), TableRowsChanged},
		{"loop row removed", f, pyNamedTables, sub(pyNamedTables, "[(1, 1), (2, 2)]", "[(1, 1)]"), TableRowsChanged},
		{"class table row changed", f, pyNamedTables, sub(pyNamedTables, "(3, 9)", "(3, 8)"), TableRowsChanged},
		{"table rebound to nothing", f, pyNamedTables, sub(pyNamedTables, "    (2, 4),\n]\n\n", "    (2, 4),\n]\nCASES = []\n\n"), TableRowsChanged},
		{"reformatted", f, pyNamedTables, sub(pyNamedTables, "CASES = [\n    (1, 2),\n    (2, 4),\n]", "CASES = [(1, 2), (2, 4)]"), ""},
		{"a new test", f, pyNamedTables, pyNamedTables + "\n\ndef test_more():\n    assert 1 == 1\n", ""},
	})
}
