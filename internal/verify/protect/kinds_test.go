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
	base, cur string
}{
	{TestFileDeleted, "tests/test_cart.py", "def test_total():\n    assert total([1, 2]) == 3\n", "-"},
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
	{TestEnvCheck, "cart/total.py", "def total(items):\n    return sum(items)\n", "import os\n\n\ndef total(items):\n    if \"PYTEST_CURRENT_TEST\" in os.environ:\n        return 3\n    return sum(items)\n"},
	{Unparsable, "tests/test_cart.py", "def test_total():\n    assert total([1, 2]) == 3\n", "def test_total(:\n    assert total([1, 2]) == 3\n"},
}

func TestEveryKindHasAnExample(t *testing.T) {
	seen := map[Kind]bool{}
	var md strings.Builder
	for _, e := range kindExamples {
		seen[e.kind] = true
		base, cur := mapSource{e.file: e.base}, mapSource{}
		if e.cur != "-" {
			cur[e.file] = e.cur
		}
		vs, err := Compare(base, cur, []string{e.file}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		after := e.cur
		if after == "-" {
			after = "(deleted)\n"
		}
		fmt.Fprintf(&md, "### `%s`\n\n`%s` before:\n\n```\n%s```\n\nafter:\n\n```\n%s```\n\nreport:\n\n```\n", e.kind, e.file, e.base, after)
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
	for _, k := range []Kind{TestFileDeleted, TestRemoved, TestCommentedOut, AssertionRemoved, AssertionLoosened, ExpectedChanged,
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
