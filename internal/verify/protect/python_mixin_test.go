package protect

import (
	"strings"
	"testing"
)

// A mixin's test methods run through the TestCase classes that inherit it
// (cachetools' DecoratorTestMixin): a skip or a deleted assertion there
// used to verify, since the mixin is neither Test* nor a TestCase.
const pyMixin = `import unittest

import cachetools.func


class DecoratorTestMixin:
    def decorator(self, maxsize, **kwargs):
        return self.DECORATOR(maxsize, **kwargs)

    def test_decorator(self):
        cached = self.decorator(maxsize=2)(lambda n: n)
        self.assertEqual(cached(1), 1)
        self.assertEqual(cached.cache_info(), (0, 1, 2, 1))

    def test_decorator_clear(self):
        cached = self.decorator(maxsize=2)(lambda n: n)
        cached.cache_clear()
        self.assertEqual(cached.cache_info(), (0, 0, 2, 0))


class CheckBase:
    def test_base(self):
        assert cachetools.func.lru_cache is not None


class CacheChecks(CheckBase):
    def test_size(self):
        assert len([1]) == 1


class Recorder:
    def test_record(self):
        assert record() == 1


class CacheCase(unittest.TestCase):
    pass


class Nested(CacheCase):
    def test_nested(self):
        self.assertEqual(1, 1)


class LFUDecoratorTest(unittest.TestCase, DecoratorTestMixin):
    DECORATOR = staticmethod(cachetools.func.lfu_cache)


class TestChecks(CacheChecks):
    pass
`

func TestPythonMixin(t *testing.T) {
	f := "tests/test_func.py"
	clear := "    def test_decorator_clear(self):\n        cached = self.decorator(maxsize=2)(lambda n: n)\n        cached.cache_clear()\n        self.assertEqual(cached.cache_info(), (0, 0, 2, 0))\n"
	runEdits(t, []edit{
		{"skip added to a mixin method", f, pyMixin, sub(pyMixin, "    def test_decorator(self):", "    @unittest.skip(\"flaky\")\n    def test_decorator(self):"), SkipAdded},
		{"mixin method deleted", f, pyMixin, sub(pyMixin, clear, ""), TestRemoved},
		{"assertion removed in a mixin method", f, pyMixin, sub(pyMixin, "        self.assertEqual(cached(1), 1)\n", ""), AssertionRemoved},
		{"early return in a mixin method", f, pyMixin, sub(pyMixin, clear, strings.Replace(clear, "        cached =", "        return\n        cached =", 1)), EarlyExit},
		{"mixin deleted", f, pyMixin, sub(pyMixin, "class DecoratorTestMixin:\n", "class DecoratorTestMixin:\n    pass\n\n\nclass Unused:\n"), TestRemoved},
		{"skip in a base of a base", f, pyMixin, sub(pyMixin, "    def test_base(self):", "    @unittest.skip(\"later\")\n    def test_base(self):"), SkipAdded},
		{"assertion removed in a subclass of a local TestCase", f, pyMixin, sub(pyMixin, "        self.assertEqual(1, 1)\n", "        pass\n"), AssertionRemoved},
		{"honest: a comment and reformatting in a mixin method", f, pyMixin, sub(pyMixin, "        self.assertEqual(cached(1), 1)\n", "        # a hit after a miss\n        self.assertEqual(cached(1),1)\n"), ""},
		{"an assertion added to a mixin method, as to a TestCase method", f, pyMixin, sub(pyMixin, "        cached.cache_clear()\n", "        self.assertEqual(cached(2), 2)\n        cached.cache_clear()\n"), TestStrengthened},
		{"honest: a new mixin test", f, pyMixin, sub(pyMixin, clear, clear+"\n    def test_decorator_more(self):\n        self.assertEqual(1, 1)\n"), ""},
		{"helper class no test class inherits", f, pyMixin, sub(pyMixin, "        assert record() == 1\n", ""), ""},
	})
	vs, err := Compare(mapSource{f: pyMixin}, mapSource{f: sub(pyMixin, "    def test_decorator(self):", "    @unittest.skip(\"flaky\")\n    def test_decorator(self):")}, []string{f}, Options{})
	if err != nil || len(vs) != 1 || vs[0].Test != "DecoratorTestMixin::test_decorator" {
		t.Fatalf("want one violation for DecoratorTestMixin::test_decorator, got %v %v", vs, err)
	}
}
