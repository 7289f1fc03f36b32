package selecttest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify/detect"
)

const sysPython = "/usr/bin/python3" // has pytest on this machine

// pyTree is a src-layout project exercising every import form and hidden
// dependency selection knows about.
func pyTree(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{
		"pyproject.toml": "[project]\nname = \"shop\"\n\n[project.scripts]\nshopcli = \"shop.cli:main\"\n\n" +
			"[tool.pytest.ini_options]\npythonpath = [\"src\"]\ntestpaths = [\"tests\"]\n",
		"README.md":                     "# shop\n",
		"src/shop/__init__.py":          "from .cart import Cart\nfrom .price import total\nfrom .tax import rate as tax_rate\n",
		"src/shop/cart.py":              "from .price import total\n\n\nclass Cart:\n    def __init__(self):\n        self.items = []\n\n    def sum(self):\n        return total(self.items)\n",
		"src/shop/price.py":             "def total(xs):\n    return sum(xs)\n",
		"src/shop/tax.py":               "def rate():\n    return 0.2\n",
		"src/shop/cli.py":               "from .tax import rate\n\n\ndef main():\n    print(rate())\n",
		"src/shop/util/__init__.py":     "",
		"src/shop/util/fmt.py":          "def money(x):\n    return '%.2f' % x\n",
		"src/shop/util/deep.py":         "from ..tax import rate\n\nthing = rate()\n",
		"src/plug/__init__.py":          "",
		"src/plug/loader.py":            "import importlib\n\n\ndef load(name):\n    return importlib.import_module('plug.backends.' + name)\n",
		"src/plug/backends/__init__.py": "",
		"src/plug/backends/memory.py":   "NAME = 'memory'\n",
		"scripts/tool.py":               "import sys\nsys.path.insert(0, 'src')\nfrom shop.price import total\nprint(total([1, 2]))\n",
		"scripts/orphan.py":             "print('alone')\n",
		"tests/helpers.py":              "from shop.util.fmt import money\n",
		"tests/test_cart.py":            "from shop import Cart\n\n\ndef test_cart():\n    assert Cart().sum() == 0\n",
		"tests/test_tax.py":             "from shop import tax_rate\n\n\ndef test_tax():\n    assert tax_rate() == 0.2\n",
		"tests/test_price.py":           "def test_total():\n    from shop.price import total\n    assert total([1]) == 1\n",
		"tests/test_deep.py":            "from shop.util.deep import thing\n\n\ndef test_deep():\n    assert thing == 0.2\n",
		"tests/test_multi.py":           "from shop import (\n    Cart,\n    total,\n)\n\n\ndef test_multi():\n    assert total([]) == Cart().sum()\n",
		"tests/test_try.py":             "try:\n    import shop.util.fmt as f\nexcept ImportError:\n    f = None\n\n\ndef test_fmt():\n    assert f.money(1) == '1.00'\n",
		"tests/test_literal.py":         "import importlib\n\n\ndef test_literal():\n    assert importlib.import_module('shop.tax').rate() == 0.2\n",
		"tests/test_plugins.py":         "from plug.loader import load\n\n\ndef test_load():\n    assert load('memory').NAME == 'memory'\n",
		"tests/test_script.py":          "import subprocess\nimport sys\n\n\ndef test_tool():\n    subprocess.run([sys.executable, 'scripts/tool.py'], check=True)\n",
		"tests/test_cli.py":             "import subprocess\n\n\ndef test_cli():\n    subprocess.run(['echo', 'shopcli'], check=True)\n",
		"tests/test_helper_user.py":     "import helpers\n\n\ndef test_money():\n    assert helpers.money(2) == '2.00'\n",
		"tests/sub/conftest.py":         "import pytest\nfrom shop.util import fmt\n\n\n@pytest.fixture\ndef money():\n    return fmt.money\n",
		"tests/sub/test_sub.py":         "def test_sub(money):\n    assert money(3) == '3.00'\n",
		"notests/test_outside.py":       "def test_outside():\n    pass\n",
		"tests/test_gone.py":            "from shop.gone import thing\n",
	}
	for i := 0; i < 10; i++ {
		files[fmt.Sprintf("tests/pad/test_pad_%02d.py", i)] = "def test_pad():\n    pass\n"
	}
	writeTree(t, dir, files)
	return dir
}

func pytestCheck(dir string) detect.Check {
	return detect.Check{Command: sysPython + " -m pytest", Args: []string{sysPython, "-m", "pytest"},
		Dir: dir, Runner: detect.Pytest, Narrowable: true}
}

func TestPythonSelection(t *testing.T) {
	dir := pyTree(t)
	py := sysPython + " -m pytest "
	cases := []struct {
		name    string
		changed []string
		added   []string
		command string
		reason  string
	}{
		{"re-exported name resolves to its defining module", []string{"src/shop/tax.py"}, nil,
			py + "tests/test_cli.py tests/test_deep.py tests/test_literal.py tests/test_tax.py", ""},
		{"through another module, a multi-line import and an import inside a function, and a script run in a subprocess",
			[]string{"src/shop/price.py"}, nil,
			py + "tests/test_cart.py tests/test_multi.py tests/test_price.py tests/test_script.py", ""},
		{"try-block import, sibling helper module, conftest import", []string{"src/shop/util/fmt.py"}, nil,
			py + "tests/sub/test_sub.py tests/test_helper_user.py tests/test_try.py", ""},
		{"console script run by name", []string{"src/shop/cli.py"}, nil, py + "tests/test_cli.py", ""},
		{"module loaded by computed name", []string{"src/plug/backends/memory.py"}, nil, py + "tests/test_plugins.py", ""},
		{"changed test file", []string{"tests/test_tax.py"}, nil, py + "tests/test_tax.py", ""},
		{"deleted module selects the tests that still import it", []string{"src/shop/gone.py"}, nil, py + "tests/test_gone.py", ""},
		{"new file nothing imports does not widen", []string{"src/shop/tax.py", "src/shop/new.py"},
			[]string{"src/shop/new.py"}, py + "tests/test_cli.py tests/test_deep.py tests/test_literal.py tests/test_tax.py", ""},
		{"renamed module: the old path nothing imports adds no tests", []string{"src/shop/price_old.py", "src/shop/price.py"},
			nil, py + "tests/test_cart.py tests/test_multi.py tests/test_price.py tests/test_script.py", ""},
		{"only new unimported files", []string{"repro.py"}, []string{"repro.py"}, "", "no related tests for the change"},
		{"not Python", []string{"src/shop/tax.py", "README.md"}, nil, "", "README.md is not Python code"},
		{"no related tests", []string{"scripts/orphan.py"}, nil, "", "scripts/orphan.py has no related tests"},
		{"test outside testpaths is not a test", []string{"notests/test_outside.py"}, nil, "",
			"notests/test_outside.py has no related tests"},
		{"conftest", []string{"tests/sub/conftest.py"}, nil, "", "tests/sub/conftest.py changed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, f := range tc.added {
				writeTree(t, dir, map[string]string{f: "print(1)\n"})
				defer os.Remove(filepath.Join(dir, f))
			}
			sel := mustSelect(t, Input{Check: pytestCheck(dir), Changed: tc.changed, Added: tc.added})
			if tc.command == "" {
				wantFull(t, sel, tc.reason)
				return
			}
			wantNarrow(t, sel, tc.command)
		})
	}
}

func TestPythonWidenedReasons(t *testing.T) {
	dir := pyTree(t)
	sel := mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{"src/shop/price.py"}})
	want := []string{"tests/test_script.py: it runs project code in a subprocess"}
	if !equal(sel.Widened, want) {
		t.Fatalf("widened = %q, want %q", sel.Widened, want)
	}
	if !strings.Contains(sel.Scope.String(), "including tests/test_script.py") {
		t.Fatalf("reason %q does not name the widening", sel.Reason)
	}
	sel = mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{"src/plug/backends/memory.py"}})
	if !equal(sel.Widened, []string{"tests/test_plugins.py: it loads modules by name"}) {
		t.Fatalf("widened = %q", sel.Widened)
	}
}

func TestPythonRootLayoutRelativeImports(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"setup.cfg":              "[metadata]\nname = lib\n",
		"lib/__init__.py":        "from .a import *\n",
		"lib/a.py":               "from .b import helper\n\n\ndef fa():\n    return helper()\n",
		"lib/b.py":               "def helper():\n    return 1\n",
		"lib/c.py":               "VALUE = 3\n",
		"lib/sub/__init__.py":    "",
		"lib/sub/d.py":           "from .. import c\n",
		"test/test_fa.py":        "from lib import fa\n",
		"test/test_d.py":         "from lib.sub import d\n",
		"test/test_star_none.py": "import os\n",
	}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("test/test_pad%02d.py", i)] = "def test_x():\n    pass\n"
	}
	writeTree(t, dir, files)
	py := sysPython + " -m pytest "
	sel := mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{"lib/b.py"}})
	wantNarrow(t, sel, py+"test/test_fa.py")
	sel = mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{"lib/c.py"}})
	wantNarrow(t, sel, py+"test/test_d.py")
}

func TestPythonSmallProjectRunsFull(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"m.py": "X = 1\n", "test_m.py": "import m\n"})
	sel := mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{"m.py"}})
	wantFull(t, sel, "the project has 20 or fewer test files")
}

func TestUnittestSelection(t *testing.T) {
	dir := pyTree(t)
	check := detect.Check{Command: sysPython + " -m unittest", Args: []string{sysPython, "-m", "unittest"},
		Dir: dir, Runner: detect.Unittest, Narrowable: true}
	sel := mustSelect(t, Input{Check: check, Changed: []string{"src/shop/tax.py"}})
	wantNarrow(t, sel, sysPython+" -m unittest tests.test_cli tests.test_deep tests.test_literal tests.test_tax")
	check.Args = []string{sysPython, "-m", "unittest", "discover", "-s", "tests"}
	sel = mustSelect(t, Input{Check: check, Changed: []string{"src/shop/tax.py"}})
	wantFull(t, sel, "unittest discovers tests from tests, which module names cannot narrow")
}

// The narrowed command really runs: pytest collects exactly the selected
// files, and they pass.
func TestPythonNarrowedCommandRuns(t *testing.T) {
	if _, err := os.Stat(sysPython); err != nil {
		t.Skip("no system python with pytest")
	}
	dir := pyTree(t)
	sel := mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{"src/shop/tax.py"}})
	res, err := (&run.Runner{}).Run(t.Context(), run.Spec{Args: append(sel.Args, "-q", "-p", "no:cacheprovider"), Dir: dir, Purpose: run.Check})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || !strings.Contains(string(res.Output), "4 passed") {
		t.Fatalf("%s: exit %d\n%s", sel.Command, res.ExitCode, res.Output)
	}
}

// A test reading attributes of `import lib` / `import lib as L` depends on
// the modules defining them, through nested star re-exports, not on the
// whole package; unclear uses still take all of it.
func TestPythonAttrSelection(t *testing.T) {
	dir := attrTree(t)
	py := sysPython + " -m pytest "
	cases := []struct {
		changed, command string
	}{
		{"lib/algo/paths/generic.py", py + "tests/test_chain.py tests/test_chain_name.py tests/test_escape.py " +
			"tests/test_from.py tests/test_helper.py tests/test_lazy.py tests/test_short.py tests/test_unused.py"},
		{"lib/algo/flow.py", py + "tests/test_escape.py tests/test_flow.py tests/test_fstring.py tests/test_helper.py " +
			"tests/test_lazy.py tests/test_unused.py"},
		{"lib/core.py", py + "tests/test_chain.py tests/test_chain_name.py tests/test_escape.py " +
			"tests/test_from.py tests/test_helper.py tests/test_lazy.py tests/test_short.py tests/test_unused.py"},
	}
	for _, tc := range cases {
		t.Run(tc.changed, func(t *testing.T) {
			wantNarrow(t, mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{tc.changed}}), tc.command)
		})
	}
	if _, err := os.Stat(sysPython); err != nil {
		return
	}
	// The selected tests really pass, and each name resolves as claimed.
	for changed, want := range map[string]string{"lib/algo/flow.py": "6 passed", "lib/algo/paths/generic.py": "8 passed"} {
		sel := mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{changed}})
		res, err := (&run.Runner{}).Run(t.Context(), run.Spec{Args: append(sel.Args, "-q", "-p", "no:cacheprovider"), Dir: dir, Purpose: run.Check})
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode != 0 || !strings.Contains(string(res.Output), want) {
			t.Fatalf("%s: exit %d\n%s", sel.Command, res.ExitCode, res.Output)
		}
	}
}

// With --doctest-modules every module's doctests are tests too, and they
// exercise what the module imports: changing lib/core.py must also run the
// doctests of lib/recipes.py, which calls into it, or a fault only those
// doctests catch passes the narrowed run (toolz's countby doctest, caught
// by the full suite, was missed this way).
func TestPythonDoctestModulesSelectImporters(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"setup.cfg":          "[tool:pytest]\naddopts = --doctest-modules\ntestpaths = lib tests\n",
		"lib/__init__.py":    "",
		"lib/core.py":        "def freq(xs):\n    d = {}\n    for x in xs:\n        d[x] = d.get(x, 0) + 1\n    return d\n",
		"lib/recipes.py":     "from .core import freq\n\n\ndef count(xs):\n    \"\"\"\n    >>> count('aab')\n    {'a': 2, 'b': 1}\n    \"\"\"\n    return freq(xs)\n",
		"lib/plain.py":       "from .core import freq\n\n\ndef nodoc(xs):\n    return freq(xs)\n",
		"lib/other.py":       "def other():\n    \"\"\"\n    >>> other()\n    1\n    \"\"\"\n    return 1\n",
		"tests/test_core.py": "from lib.core import freq\n\n\ndef test_freq():\n    assert freq('aab') == {'a': 2, 'b': 1}\n",
	}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("tests/test_pad_%02d.py", i)] = "def test_pad():\n    pass\n"
	}
	writeTree(t, dir, files)
	sel := mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{"lib/core.py"}})
	wantNarrow(t, sel, sysPython+" -m pytest lib/core.py lib/recipes.py tests/test_core.py")
	// A module whose only doctests are its own still narrows to them.
	sel = mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{"lib/other.py"}})
	wantNarrow(t, sel, sysPython+" -m pytest lib/other.py")
	if _, err := os.Stat(sysPython); err != nil {
		return
	}
	// A fault only the importer's doctest sees fails the narrowed run.
	writeTree(t, dir, map[string]string{"lib/core.py": "def freq(xs):\n    d = {}\n    for x in xs:\n        d[x] = d.get(x, 0) + 1\n" +
		"    return dict(sorted(d.items(), reverse=True))\n"})
	sel = mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{"lib/core.py"}})
	res, err := (&run.Runner{}).Run(t.Context(), run.Spec{Args: append(sel.Args, "-q", "-p", "no:cacheprovider"), Dir: dir, Purpose: run.Check})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 1 || !strings.Contains(string(res.Output), "lib.recipes.count") {
		t.Fatalf("%s: exit %d, want the recipes doctest to fail\n%s", sel.Command, res.ExitCode, res.Output)
	}
}

// A package __init__ that imports a module for its effects (filling a
// registry another module reads) runs it for every user of the package:
// changing pkg/_register.py must select the tests that only name
// pkg.Thing, not just the one test importing _register.
func TestPythonInitEffectModules(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"pyproject.toml":      "[project]\nname = \"pkg\"\n",
		"pkg/__init__.py":     "from .core import Thing\nfrom . import _register\n",
		"pkg/core.py":         "REGISTRY = {}\n\n\nclass Thing:\n    def get(self):\n        return REGISTRY['x']\n",
		"pkg/_register.py":    "from .core import REGISTRY\n\nREGISTRY['x'] = 1\n",
		"pkg/_decor.py":       "import os\nfrom .core import Thing\n\nos.environ.get('X')\nDEFAULT = Thing()\n",
		"pkg/plain.py":        "from .core import Thing\n\n\ndef make():\n    return Thing()\n",
		"pkg/sub/__init__.py": "from .. import _decor\nfrom ..core import Thing\nfrom . import reg\n",
		"pkg/sub/reg.py":      "from .. import core\n\ncore.Thing.name = 'sub'\n",
		"tests/test_thing.py": "from pkg import Thing\n\n\ndef test_thing():\n    assert Thing().get() == 1\n",
		"tests/test_attr.py":  "import pkg\n\n\ndef test_attr():\n    assert pkg.Thing().get() == 1\n",
		"tests/test_reg.py":   "from pkg import _register\n\n\ndef test_reg():\n    assert _register.REGISTRY\n",
		"tests/test_plain.py": "from pkg.plain import make\n\n\ndef test_plain():\n    assert make()\n",
		"tests/test_sub.py":   "from pkg.sub import Thing\n\n\ndef test_sub():\n    assert Thing.name == 'sub'\n",
	}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("tests/test_pad_%02d.py", i)] = "def test_pad():\n    pass\n"
	}
	writeTree(t, dir, files)
	py := sysPython + " -m pytest "
	wantNarrow(t, mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{"pkg/_register.py"}}),
		py+"tests/test_attr.py tests/test_plain.py tests/test_reg.py tests/test_sub.py tests/test_thing.py")
	// A module-level call of a stdlib name or a plain rebinding is no
	// effect: _decor.py keeps to the tests that import it (none here).
	wantFull(t, mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{"pkg/_decor.py"}}), "pkg/_decor.py has no related tests")
	// A subpackage's effect module (an attribute set on another module's
	// class) counts for the tests passing through that subpackage only.
	wantNarrow(t, mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{"pkg/sub/reg.py"}}), py+"tests/test_sub.py")
	if _, err := os.Stat(sysPython); err != nil {
		return
	}
	writeTree(t, dir, map[string]string{"pkg/_register.py": "from .core import REGISTRY\n\nREGISTRY['x'] = 2\n"})
	sel := mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{"pkg/_register.py"}})
	res, err := (&run.Runner{}).Run(t.Context(), run.Spec{Args: append(sel.Args, "-q", "-p", "no:cacheprovider"), Dir: dir, Purpose: run.Check})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 1 || !strings.Contains(string(res.Output), "2 failed") {
		t.Fatalf("%s: exit %d, want test_thing and test_attr to fail\n%s", sel.Command, res.ExitCode, res.Output)
	}
}

func TestParsePyEffects(t *testing.T) {
	src := "import os\nfrom .core import REG, Cls\n\nREG['k'] = 1\nCls.attr += 2\nregister(1)\nx = make()\n" +
		"y == REG[0]\nos.environ.get('A')\nz = lambda a=1: a\n\n\ndef f():\n    hidden(1)\n"
	got := parsePy(src).Effects
	want := []string{"REG", "Cls", "register", "os"}
	if !equal(got, want) {
		t.Fatalf("effects = %q, want %q", got, want)
	}
}

// pytest collects doctests from text files matching --doctest-glob
// (test*.txt by default): they are tests, their `>>>` imports are their
// dependencies, and a change only such a file catches must select it.
func TestPythonDoctestTextFiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"pyproject.toml":     "[tool.pytest.ini_options]\naddopts = \"--doctest-glob='*.rst'\"\n",
		"pkg/__init__.py":    "",
		"pkg/core.py":        "def add(a, b):\n    return a + b\n",
		"pkg/other.py":       "def one():\n    return 1\n",
		"tests/test_add.py":  "from pkg.core import add\n\n\ndef test_add():\n    assert add(0, 0) == 0\n",
		"tests/test_one.py":  "from pkg.other import one\n\n\ndef test_one():\n    assert one() == 1\n",
		"docs/adding.rst":    "Adding\n======\n\n    >>> from pkg.core import (\n    ...     add,\n    ... )\n    >>> add(2, 3)\n    5\n",
		"docs/notes.txt":     ">>> import pkg.other\n",
		"tests/test_old.txt": ">>> from pkg.other import one\n>>> one()\n1\n",
		"tests/test_in.rst":  "input data a test reads\n",
	}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("tests/test_pad_%02d.py", i)] = "def test_pad():\n    pass\n"
	}
	writeTree(t, dir, files)
	py := sysPython + " -m pytest "
	wantNarrow(t, mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{"pkg/core.py"}}), py+"docs/adding.rst tests/test_add.py")
	wantNarrow(t, mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{"docs/adding.rst"}}), py+"docs/adding.rst")
	// A matching file without a prompt is data: changing it is no doctest change.
	wantFull(t, mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{"tests/test_in.rst"}}), "tests/test_in.rst is not Python code")
	// notes.txt is no doctest file once the glob is *.rst, so it is not a test.
	wantNarrow(t, mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{"pkg/other.py"}}), py+"tests/test_one.py")
	if _, err := os.Stat(sysPython); err != nil {
		return
	}
	writeTree(t, dir, map[string]string{"pkg/core.py": "def add(a, b):\n    return a * b\n"})
	sel := mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{"pkg/core.py"}})
	res, err := (&run.Runner{}).Run(t.Context(), run.Spec{Args: append(sel.Args, "-p", "no:cacheprovider"), Dir: dir, Purpose: run.Check})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 1 || !strings.Contains(string(res.Output), "1 failed, 1 passed") {
		t.Fatalf("%s: exit %d, want the rst doctest to fail\n%s", sel.Command, res.ExitCode, res.Output)
	}
}

// A docstring's `>>> from lib.core import freq` is a dependency of that
// module's doctests, though the module's code never imports lib.core.
func TestPythonDocstringImports(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"pytest.ini":         "[pytest]\naddopts = --doctest-modules\n",
		"lib/__init__.py":    "",
		"lib/core.py":        "def freq(xs):\n    return {x: xs.count(x) for x in xs}\n",
		"lib/show.py":        "def show(d):\n    \"\"\"\n    >>> from lib.core import freq\n    >>> show(freq('aab'))\n    'a=2 b=1'\n    \"\"\"\n    return ' '.join('%s=%s' % kv for kv in sorted(d.items()))\n",
		"tests/test_core.py": "from lib.core import freq\n\n\ndef test_freq():\n    assert freq('a') == {'a': 1}\n",
	}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("tests/test_pad_%02d.py", i)] = "def test_pad():\n    pass\n"
	}
	writeTree(t, dir, files)
	wantNarrow(t, mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{"lib/core.py"}}),
		sysPython+" -m pytest lib/core.py lib/show.py tests/test_core.py")
	// Without doctest collection the docstring is prose.
	writeTree(t, dir, map[string]string{"pytest.ini": "[pytest]\n"})
	wantNarrow(t, mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{"lib/core.py"}}),
		sysPython+" -m pytest tests/test_core.py")
}

// A python_files glob with a slash matches the whole path, as pytest's
// fnmatch does (its * crosses folders): mako's "test/*test_*.py" collects
// test/test_ast.py and test/ext/test_babelplugin.py alike, and matched no
// file at all when matched against base names.
func TestPythonFilesGlobWithSlash(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"pyproject.toml":        "[tool.pytest.ini_options]\npython_files = [\"test/*test_*.py\"]\n",
		"pkg/__init__.py":       "",
		"pkg/a.py":              "X = 1\n",
		"pkg/b.py":              "Y = 2\n",
		"test/__init__.py":      "",
		"test/test_a.py":        "from pkg.a import X\n\n\ndef test_a():\n    assert X == 1\n",
		"test/ext/__init__.py":  "",
		"test/ext/test_b.py":    "from pkg.b import Y\n\n\ndef test_b():\n    assert Y == 2\n",
		"test/helper_test_x.py": "",
	}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("test/test_pad_%02d.py", i)] = "def test_pad():\n    pass\n"
	}
	writeTree(t, dir, files)
	sel := mustSelect(t, Input{Check: pytestCheck(dir), Changed: []string{"pkg/b.py"}})
	wantNarrow(t, sel, sysPython+" -m pytest test/ext/test_b.py")
}

// A --doctest-glob on the command (tox.ini's, lifted by detection) makes
// text files doctests as one in the configuration does.
func TestPythonDoctestGlobOnTheCommand(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"pyproject.toml":    "[project]\nname = \"p\"\nversion = \"0\"\n",
		"pkg/__init__.py":   "",
		"pkg/core.py":       "def add(a, b):\n    return a + b\n",
		"tests/test_add.py": "from pkg.core import add\n\n\ndef test_add():\n    assert add(0, 0) == 0\n",
		"docs/adding.rst":   "    >>> from pkg.core import add\n    >>> add(2, 3)\n    5\n",
	}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("tests/test_pad_%02d.py", i)] = "def test_pad():\n    pass\n"
	}
	writeTree(t, dir, files)
	check := pytestCheck(dir)
	wantNarrow(t, mustSelect(t, Input{Check: check, Changed: []string{"pkg/core.py"}}), sysPython+" -m pytest tests/test_add.py")
	check.Args = append(check.Args, "--doctest-glob=*.rst")
	wantNarrow(t, mustSelect(t, Input{Check: check, Changed: []string{"pkg/core.py"}}), sysPython+" -m pytest '--doctest-glob=*.rst' docs/adding.rst tests/test_add.py")
}
