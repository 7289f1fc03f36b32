package protect

import "testing"

func TestLoadTests(t *testing.T) {
	tests := "import unittest\n\n\nclass CalcTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(1 + 1, 2)\n"
	keep := "\n\ndef load_tests(loader, standard_tests, pattern):\n    standard_tests.addTests(loader.loadTestsFromName('calc.doctests'))\n    return standard_tests\n"
	viaSuite := "\n\ndef load_tests(loader, tests, pattern):\n    suite = unittest.TestSuite()\n    suite.addTests(tests)\n    return suite\n"
	empty := "\n\ndef load_tests(loader, tests, pattern):\n    return unittest.TestSuite()\n"
	early := "\n\ndef load_tests(loader, tests, pattern):\n    suite = unittest.TestSuite()\n    return suite\n    suite.addTests(tests)\n"
	subset := "\n\ndef load_tests(loader, tests, pattern):\n    return loader.loadTestsFromNames(['tests.test_calc.CalcTest.test_add'])\n"
	for _, c := range []struct {
		name, file, base, cur string
		weakened              bool
	}{
		{"added, keeps the tests", "tests/test_calc.py", tests, tests + keep, false},
		{"added, through a suite", "tests/test_calc.py", tests, tests + viaSuite, false},
		{"added, empty suite", "tests/test_calc.py", tests, tests + empty, true},
		{"changed to return before adding", "tests/test_calc.py", tests + viaSuite, tests + early, true},
		{"changed to a named subset", "tests/test_calc.py", tests + keep, tests + subset, true},
		{"in a package __init__", "tests/__init__.py", "", "import unittest\n" + empty, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			vs, err := Compare(mapSource{c.file: c.base}, mapSource{c.file: c.cur}, []string{c.file}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := false
			for _, v := range vs {
				got = got || v.Kind == HarnessWeakened
			}
			if got != c.weakened {
				t.Fatalf("weakened = %v, want %v: %v", got, c.weakened, vs)
			}
		})
	}
}
