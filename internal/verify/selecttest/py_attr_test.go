package selecttest

import (
	"fmt"
	"strings"
	"testing"
)

// attrTree is a package whose __init__ star-imports subpackages that
// star-import their modules, like networkx, and tests that reach it
// through `import lib` / `import lib as L` and attributes.
func attrTree(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{
		"lib/__init__.py": "from lib.algo import *\nfrom lib.core import *\n\n\n" +
			"def helper():\n    return 1\n\n\ndef __getattr__(name):\n    return name\n",
		"lib/core.py":                "def base():\n    return 0\n",
		"lib/algo/__init__.py":       "from lib.algo.paths import *\nfrom lib.algo.flow import *\n",
		"lib/algo/flow.py":           "__all__ = ['maxflow']\n\n\ndef maxflow():\n    return 2\n\n\ndef shortest():\n    return 'shadowed, not exported'\n",
		"lib/algo/paths/__init__.py": "from lib.algo.paths.generic import *\n",
		"lib/algo/paths/generic.py":  "import lib\n\n\ndef shortest():\n    return lib.base() + 3\n",
		"tests/test_short.py":        "import lib as L\n\n\ndef test_short():\n    assert L.shortest() == 3\n",
		"tests/test_from.py":         "from lib import shortest\n\n\ndef test_from():\n    assert shortest() == 3\n",
		"tests/test_flow.py":         "import lib\n\n\ndef test_flow():\n    assert lib.maxflow() == 2\n",
		"tests/test_chain.py":        "import lib.algo\n\n\ndef test_chain():\n    assert lib.algo.paths.generic.shortest() == 3\n",
		"tests/test_chain_name.py":   "import lib.algo.paths as P\n\n\ndef test_chain_name():\n    assert P.shortest() == 3\n",
		"tests/test_escape.py":       "import lib\n\n\ndef test_escape():\n    assert getattr(lib, 'maxflow')() == 2\n",
		"tests/test_fstring.py":      "import lib\n\n\ndef test_fstring():\n    assert f'{lib.maxflow()}' == '2'\n",
		"tests/test_helper.py":       "import lib\n\n\ndef test_helper():\n    assert lib.helper() == 1\n",
		"tests/test_lazy.py":         "import lib\n\n\ndef test_lazy():\n    assert lib.lazything == 'lazything'\n",
		"tests/test_unused.py":       "import lib\n\n\ndef test_unused():\n    pass\n",
		"tests/conftest.py":          "import pytest\nimport lib\n\n\n@pytest.fixture(autouse=True)\ndef add_lib(doctest_namespace):\n    doctest_namespace['lib'] = lib\n",
	}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("tests/pad/test_pad_%02d.py", i)] = "def test_pad():\n    pass\n"
	}
	writeTree(t, dir, files)
	return dir
}

// reaches lists which of files the test reaches.
func reaches(p *pyProject, test string, files ...string) string {
	r := p.reach(test)
	var out []string
	for _, f := range files {
		if _, ok := r.All[f]; ok {
			out = append(out, f)
		}
	}
	return strings.Join(out, " ")
}

func TestPyAttrNestedStarReExports(t *testing.T) {
	p := loadPyProject(attrTree(t), pytestConfig{}, nil)
	const gen, flow = "lib/algo/paths/generic.py", "lib/algo/flow.py"
	// L.shortest comes through lib → lib.algo → lib.algo.paths → generic;
	// flow.py defines a shortest too, but its __all__ does not export it.
	if got := reaches(p, "tests/test_short.py", gen, flow); got != gen {
		t.Errorf("test_short reaches %q, want only %s", got, gen)
	}
	if got := reaches(p, "tests/test_from.py", gen, flow); got != gen {
		t.Errorf("test_from reaches %q, want only %s", got, gen)
	}
	if got := reaches(p, "tests/test_flow.py", gen, flow); got != flow {
		t.Errorf("test_flow reaches %q, want only %s", got, flow)
	}
	// generic.py's own `lib.base()` leads to core.py, and the __init__
	// files passed through still count for their own lines.
	if got := reaches(p, "tests/test_short.py", "lib/core.py", "lib/__init__.py", "lib/algo/__init__.py"); got != "lib/core.py lib/__init__.py lib/algo/__init__.py" {
		t.Errorf("test_short reaches %q", got)
	}
}

func TestPyAttrChainThroughSubpackages(t *testing.T) {
	p := loadPyProject(attrTree(t), pytestConfig{}, nil)
	const gen, flow = "lib/algo/paths/generic.py", "lib/algo/flow.py"
	for _, test := range []string{"tests/test_chain.py", "tests/test_chain_name.py"} {
		if got := reaches(p, test, gen, flow); got != gen {
			t.Errorf("%s reaches %q, want only %s", test, got, gen)
		}
	}
}

func TestPyAttrFallsBackToWholePackage(t *testing.T) {
	p := loadPyProject(attrTree(t), pytestConfig{}, nil)
	const gen, flow = "lib/algo/paths/generic.py", "lib/algo/flow.py"
	both := gen + " " + flow
	for _, test := range []string{
		"tests/test_escape.py", // getattr(lib, ...)
		"tests/test_helper.py", // defined in lib/__init__.py itself
		"tests/test_lazy.py",   // only lib.__getattr__ can answer
		"tests/test_unused.py", // imported for its side effects
	} {
		if got := reaches(p, test, gen, flow); got != both {
			t.Errorf("%s reaches %q, want the whole package", test, got)
		}
	}
	// Beside them, a test reading one name stays narrow.
	if got := reaches(p, "tests/test_fstring.py", gen, flow); got != flow {
		t.Errorf("test_fstring reaches %q, want only %s", got, flow)
	}
	// conftest hands lib to doctests: that counts only when they run.
	if got := reaches(p, "tests/pad/test_pad_00.py", gen, flow); got != "" {
		t.Errorf("a test importing nothing reaches %q through conftest.py", got)
	}
	p = loadPyProject(p.dir, pytestConfig{DoctestModules: true}, nil)
	if got := reaches(p, "tests/pad/test_pad_00.py", gen, flow); got != both {
		t.Errorf("with doctests, conftest.py reaches %q, want the whole package", got)
	}
}

func TestParsePyAttrUses(t *testing.T) {
	cases := []struct{ src, want string }{
		{"import a.b as c\nc.X(c.d.Y)\n", "c: X,d.Y"},
		{"import a.b.c\na.b.c.f()\n", "a: b.c.f"},
		{"import nx\nf(nx)\n", "nx: escapes"},
		{"import nx\ng = getattr(nx, 'x')\n", "nx: escapes"},
		{"import nx\nnx[0]\n", "nx: escapes"},
		{"import nx\ndel nx\n", "nx: escapes"},
		{"import nx\nx = nx\n", "nx: escapes"},
		{"import nx\ns = f'{nx.f()} nx'\n", "nx: f"},
		{"import nx\ns = f'{nx!r}'\n", "nx: escapes"},
		{"import nx\ns = 'nx'\no.nx.g()\n\"\"\">>> nx.doc()\"\"\"\n", "nx: doc:doc"},
		{"import nx\ndef f(ns):\n    ns['nx'] = nx\n", "nx: escapes"},
		{"import nx\ndef f(doctest_namespace):\n    doctest_namespace['nx'] = nx\n", "nx: doctest"},
		{"import nx\nfrom nx import y\nimport nx.sub\n", "nx:; nx:"},
	}
	for _, tc := range cases {
		var got []string
		for _, imp := range parsePy(tc.src).Imports {
			if imp.Bind == "" {
				continue
			}
			s := imp.Bind + ": " + strings.Join(imp.Attrs, ",")
			if imp.Escapes {
				s += "escapes"
			}
			if imp.Doctest {
				s += "doctest"
			}
			if len(imp.DocAttrs) > 0 {
				s += "doc:" + strings.Join(imp.DocAttrs, ",")
			}
			got = append(got, strings.TrimSpace(s))
		}
		if g := strings.Join(got, "; "); g != tc.want {
			t.Errorf("%q:\n got  %s\n want %s", tc.src, g, tc.want)
		}
	}
}

// A name an __init__ imports in a try/except comes from either source.
func TestPyExportConditionalImports(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"pkg/__init__.py": "from pkg.other import thing\n\ntry:\n    from pkg._fast import speed\n" +
			"except ImportError:\n    from pkg._slow import speed\n",
		"pkg/other.py":       "thing = 1\n",
		"pkg/_fast.py":       "speed = 2\n",
		"pkg/_slow.py":       "speed = 3\n",
		"tests/test_one.py":  "import pkg\n\n\ndef test_one():\n    assert pkg.speed in (2, 3)\n",
		"tests/test_from.py": "from pkg import speed\n",
	})
	p := loadPyProject(dir, pytestConfig{}, nil)
	for _, test := range []string{"tests/test_one.py", "tests/test_from.py"} {
		if got := reaches(p, test, "pkg/_fast.py", "pkg/_slow.py", "pkg/other.py"); got != "pkg/_fast.py pkg/_slow.py" {
			t.Errorf("%s reaches %q, want both sources of speed and not other.py", test, got)
		}
	}
}

// `import a.b.mod` read as `a.X` counts mod whole and resolves a.X.
func TestPyAttrDottedModuleImport(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"a/__init__.py":     "from a.x import *\nfrom a.y import *\n",
		"a/x.py":            "def fx():\n    return 1\n",
		"a/y.py":            "def fy():\n    return 2\n",
		"a/b/__init__.py":   "",
		"a/b/mod.py":        "V = 3\n",
		"tests/test_mod.py": "import a.b.mod\n\n\ndef test_mod():\n    assert a.b.mod.V + a.fx() == 4\n",
	})
	p := loadPyProject(dir, pytestConfig{}, nil)
	if got := reaches(p, "tests/test_mod.py", "a/b/mod.py", "a/x.py", "a/y.py"); got != "a/b/mod.py a/x.py" {
		t.Errorf("test_mod reaches %q, want a/b/mod.py a/x.py", got)
	}
}

// `L.bip.matching` where the __init__ re-exports subpackage bip from
// deeper down (`nx.bipartite.maximum_matching`) continues into bip.
func TestPyAttrReExportedSubpackage(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"lib/__init__.py":           "from lib.algo import *\n",
		"lib/algo/__init__.py":      "from lib.algo import bip\nfrom lib.algo.other import *\n",
		"lib/algo/other.py":         "def other():\n    return 0\n",
		"lib/algo/bip/__init__.py":  "from lib.algo.bip.match import *\nfrom lib.algo.bip.gen import *\n",
		"lib/algo/bip/match.py":     "def matching():\n    return 1\n",
		"lib/algo/bip/gen.py":       "def gen():\n    return 2\n",
		"tests/test_match.py":       "import lib as L\n\n\ndef test_match():\n    assert L.bip.matching() == 1\n",
		"tests/test_bip_whole.py":   "import lib\n\n\ndef test_whole():\n    assert lib.bip\n",
		"tests/test_other_names.py": "import lib\n\n\ndef test_other():\n    assert lib.other() == 0\n",
	})
	p := loadPyProject(dir, pytestConfig{}, nil)
	files := []string{"lib/algo/bip/match.py", "lib/algo/bip/gen.py", "lib/algo/other.py", "lib/algo/__init__.py"}
	for test, want := range map[string]string{
		"tests/test_match.py":       "lib/algo/bip/match.py lib/algo/__init__.py",
		"tests/test_bip_whole.py":   "lib/algo/bip/match.py lib/algo/bip/gen.py lib/algo/__init__.py",
		"tests/test_other_names.py": "lib/algo/other.py lib/algo/__init__.py",
	} {
		if got := reaches(p, test, files...); got != want {
			t.Errorf("%s reaches %q, want %q", test, got, want)
		}
	}
}
