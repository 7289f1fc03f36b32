package protect

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var examplesOut = flag.String("examples", "", "write the per-kind examples as Markdown to this file (for the Test protection examples in docs/verify.md)")

// kindExamples holds one small edit per kind; the "Test protection" section of docs/verify.md shows them
// with the report they produce.
var kindExamples = []struct {
	kind      Kind
	file      string
	base, cur string // cur "=> PATH" renames the file unchanged
}{
	{TestFileDeleted, "tests/test_cart.py", "def test_total():\n    assert total([1, 2]) == 3\n", "-"},
	{RenamedOutOfCollection, "cart/cart_test.go", "package cart\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {\n\tif Total(1, 2) != 3 {\n\t\tt.Fatal(\"total\")\n\t}\n}\n", "=> cart/_cart_test.go"},
	{TestRemoved, "cart_test.go", "package cart\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {\n\tif Total(1, 2) != 3 {\n\t\tt.Fatal(\"total\")\n\t}\n}\n", "package cart\n\nimport \"testing\"\n\nfunc testTotal(t *testing.T) {\n\tif Total(1, 2) != 3 {\n\t\tt.Fatal(\"total\")\n\t}\n}\n"},
	{TestCommentedOut, "test/cart.test.js", "test(\"total\", () => {\n  expect(total([1, 2])).toBe(3);\n});\n", "// test(\"total\", () => {\n//   expect(total([1, 2])).toBe(3);\n// });\n"},
	{AssertionRemoved, "tests/test_cart.py", "def test_total():\n    assert total([1, 2]) == 3\n    assert total([]) == 0\n", "def test_total():\n    assert total([1, 2]) == 3\n"},
	{AssertionLoosened, "test/cart.test.js", "test(\"total\", () => {\n  expect(total([1, 2])).toBe(3);\n});\n", "test(\"total\", () => {\n  expect(total([1, 2])).toBeDefined();\n});\n"},
	{ExpectedChanged, "src/lib.rs", "#[test]\nfn total_adds() {\n    assert_eq!(total(&[1, 2]), 3);\n}\n", "#[test]\nfn total_adds() {\n    assert_eq!(total(&[1, 2]), 4);\n}\n"},
	{TableRowsChanged, "src/test/java/CartTest.java", "class CartTest {\n    @ParameterizedTest\n    @ValueSource(ints = {1, 2, 3})\n    void positive(int n) {\n        assertTrue(total(n) > 0);\n    }\n}\n", "class CartTest {\n    @ParameterizedTest\n    @ValueSource(ints = {1, 2})\n    void positive(int n) {\n        assertTrue(total(n) > 0);\n    }\n}\n"},
	{ExpectationInverted, "tests/test_cart.py", "def test_total():\n    assert total([1, 2]) == 3\n", "def test_total():\n    try:\n        assert total([1, 2]) == 3\n    except AssertionError:\n        pass\n"},
	{SkipAdded, "tests/test_cart.py", "import pytest\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n", "import pytest\n\n\n@pytest.mark.skip(reason=\"later\")\ndef test_total():\n    assert total([1, 2]) == 3\n"},
	{EarlyExit, "cart_test.go", "package cart\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {\n\tif Total(1, 2) != 3 {\n\t\tt.Fatal(\"total\")\n\t}\n}\n", "package cart\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {\n\treturn\n\tif Total(1, 2) != 3 {\n\t\tt.Fatal(\"total\")\n\t}\n}\n"},
	{BodyChanged, "tests/test_cart.py", "def test_total():\n    items = [1, 2]\n    assert total(items) == 3\n", "def test_total():\n    items = [3]\n    assert total(items) == 3\n"},
	{TestStrengthened, "tests/test_cart.py", "def test_total():\n    assert total([1, 2]) == 3\n", "def test_total():\n    assert total([1, 2]) == 3\n    assert total([]) == 0\n"},
	{HarnessWeakened, "package.json", "{\n  \"scripts\": {\n    \"test\": \"jest\"\n  }\n}\n", "{\n  \"scripts\": {\n    \"test\": \"jest --passWithNoTests\"\n  }\n}\n"},
	{HarnessWeakened, ".github/workflows/ci.yml", "jobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - name: Tests\n        run: python -m pytest tests\n", "jobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - name: Tests\n        run: python -m pytest tests -k \"not slow\"\n"},
	{TestEnvCheck, "cart/total.py", "def total(items):\n    return sum(items)\n", "import os\n\n\ndef total(items):\n    if \"PYTEST_CURRENT_TEST\" in os.environ:\n        return 3\n    return sum(items)\n"},
	{Unparsable, "tests/test_cart.py", "def test_total():\n    assert total([1, 2]) == 3\n", "def test_total(:\n    assert total([1, 2]) == 3\n"},
}

func TestEveryKindHasAnExample(t *testing.T) {
	seen := map[Kind]bool{}
	var md strings.Builder
	for _, e := range kindExamples {
		base, cur := mapSource{e.file: e.base}, mapSource{}
		changed := []string{e.file}
		after := e.cur
		switch {
		case strings.HasPrefix(e.cur, "=> "):
			to := strings.TrimPrefix(e.cur, "=> ")
			cur[to] = e.base
			changed = append(changed, to)
			after = "(renamed to " + to + ")\n"
		case e.cur == "-":
			after = "(deleted)\n"
		default:
			cur[e.file] = e.cur
		}
		vs, err := Compare(base, cur, changed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !seen[e.kind] {
			fmt.Fprintf(&md, "### `%s`\n\n", e.kind)
		}
		seen[e.kind] = true
		fmt.Fprintf(&md, "`%s` before:\n\n```\n%s```\n\nafter:\n\n```\n%s```\n\nreport:\n\n```\n", e.file, e.base, after)
		found := false
		for _, v := range vs {
			md.WriteString(v.String() + "\n")
			found = found || v.Kind == e.kind
		}
		md.WriteString("```\n\n")
		if !found {
			t.Errorf("%s: example reports %v", e.kind, vs)
		}
	}
	for _, k := range []Kind{TestFileDeleted, RenamedOutOfCollection, TestRemoved, TestCommentedOut, AssertionRemoved, AssertionLoosened, ExpectedChanged,
		TableRowsChanged, ExpectationInverted, SkipAdded, EarlyExit, BodyChanged, TestStrengthened, HarnessWeakened, TestEnvCheck, Unparsable} {
		if !seen[k] {
			t.Errorf("no example for %s", k)
		}
	}
	if *examplesOut != "" {
		if err := os.WriteFile(*examplesOut, []byte(md.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
