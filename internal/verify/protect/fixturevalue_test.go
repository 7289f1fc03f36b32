package protect

import "testing"

func TestConftestFixtureValue(t *testing.T) {
	base := "import pytest\n\n\n@pytest.fixture\ndef want():\n    return 3\n\n\n@pytest.fixture\ndef client(tmp_path):\n    c = make_client(tmp_path)\n    return c\n"
	f := "tests/conftest.py"
	runEdits(t, []edit{
		{"fixture value changed", f, base, sub(base, "return 3", "return 4"), ExpectedChanged},
		{"fixture list value changed", f, sub(base, "return 3", "return [1, 2]"), sub(base, "return 3", "return [1, 3]"), ExpectedChanged},
		{"fixture value reformatted", f, base, sub(base, "return 3", "return (3)  # three"), ""},
		{"fixture setup refactored", f, base, sub(base, "c = make_client(tmp_path)\n    return c", "return make_client(tmp_path / \"c\")"), ""},
		{"fixture now computes its value", f, base, sub(base, "return 3", "return compute()"), ""},
	})
}

func TestPythonHelperReturnsValue(t *testing.T) {
	base := "from shop import Cart\n\n\ndef make_cart():\n    c = Cart()\n    return c\n\n\ndef check(c):\n    assert c.total() == 0\n\n\ndef test_empty():\n    check(make_cart())\n"
	f := "tests/test_cart.py"
	runEdits(t, []edit{
		{"helper returns at once", f, base, sub(base, "    c = Cart()\n    return c\n", "    return Cart()\n"), ""},
		{"asserting helper exits at once", f, base, sub(base, "def check(c):\n", "def check(c):\n    return\n"), EarlyExit},
		{"test returns a value first", f, base, sub(base, "def test_empty():\n", "def test_empty():\n    return 0\n"), EarlyExit},
	})
}

func TestGoRustHelperReturnsValue(t *testing.T) {
	goBase := "package c\n\nimport \"testing\"\n\nfunc newCart() *Cart {\n\tc := &Cart{}\n\treturn c\n}\n\nfunc check(t *testing.T, c *Cart) {\n\tif c.Total() != 0 {\n\t\tt.Fatal(\"not empty\")\n\t}\n}\n\nfunc TestEmpty(t *testing.T) { check(t, newCart()) }\n"
	rsBase := "pub fn f() -> i32 { 1 }\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n    fn make() -> i32 {\n        let x = f();\n        x\n    }\n    #[test]\n    fn one() {\n        assert_eq!(make(), 1);\n    }\n}\n"
	runEdits(t, []edit{
		{"go helper returns at once", "c_test.go", goBase, sub(goBase, "\tc := &Cart{}\n\treturn c\n", "\treturn &Cart{}\n"), ""},
		{"go asserting helper exits at once", "c_test.go", goBase, sub(goBase, "func check(t *testing.T, c *Cart) {\n", "func check(t *testing.T, c *Cart) {\n\treturn\n"), EarlyExit},
		{"rust helper returns at once", "src/lib.rs", rsBase, sub(rsBase, "        let x = f();\n        x\n", "        return f();\n"), ""},
		{"rust test returns at once", "src/lib.rs", rsBase, sub(rsBase, "    fn one() {\n", "    fn one() {\n        return;\n"), EarlyExit},
	})
}
