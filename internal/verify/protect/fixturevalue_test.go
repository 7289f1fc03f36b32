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
