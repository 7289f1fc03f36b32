package protect

import "testing"

func TestPythonRebinds(t *testing.T) {
	base := "from shop.m5 import f5\nimport shop.m5\n\n\ndef test_above():\n    assert f5(8) == 3\n"
	f := "tests/test_m5.py"
	runEdits(t, []edit{
		{"function under test replaced", f, base, sub(base, "import shop.m5\n", "import shop.m5\nf5 = lambda x: 3\n"), ExpectationInverted},
		{"module attribute replaced", f, base, sub(base, "import shop.m5\n", "import shop.m5\nshop.m5.LIMIT = 5\n"), ExpectationInverted},
		{"aliased import replaced", f, "from shop import m5 as m\n" + base, "from shop import m5 as m\nm.f5 = print\n" + base, ExpectationInverted},
		{"new module constant", f, base, sub(base, "import shop.m5\n", "import shop.m5\nWANT = 3\n"), ""},
		{"environment set", f, base, sub(base, "import shop.m5\n", "import shop.m5\nimport os\nos.environ['TZ'] = 'UTC'\n"), ""},
		{"existing rebinding reformatted", f, base + "f5 = f5\n", base + "f5  =  f5\n", ""},
	})
}
