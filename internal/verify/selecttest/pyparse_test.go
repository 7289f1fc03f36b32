package selecttest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// importsOf renders a file's imports compactly: "a.b", "from ..m: x,y".
func importsOf(f *pyFile) string {
	var out []string
	for _, imp := range f.Imports {
		if !imp.From {
			out = append(out, strings.Repeat(".", imp.Level)+imp.Module)
			continue
		}
		var names []string
		for _, n := range imp.Names {
			if n.As != n.Name {
				names = append(names, n.Name+" as "+n.As)
			} else {
				names = append(names, n.Name)
			}
		}
		out = append(out, fmt.Sprintf("from %s%s: %s", strings.Repeat(".", imp.Level), imp.Module, strings.Join(names, ",")))
	}
	return strings.Join(out, "; ")
}

func TestParsePyImports(t *testing.T) {
	cases := []struct{ src, want string }{
		{"import a.b.c\n", "a.b.c"},
		{"import a, b.c as d\n", "a; b.c"},
		{"from a.b import c\n", "from a.b: c"},
		{"from . import x\n", "from .: x"},
		{"from ..m import y as z\n", "from ..m: y as z"},
		{"from pkg import (\n    one,\n    two as deux,  # comment\n)\n", "from pkg: one,two as deux"},
		{"from pkg import one, \\\n    two\n", "from pkg: one,two"},
		{"def f():\n    import inner.mod\n    return 1\n", "inner.mod"},
		{"try:\n    import fast\nexcept ImportError:\n    import slow\n", "fast; slow"},
		{"try: import fast\nexcept ImportError: import slow\n", "fast; slow"},
		{"import a; import b\n", "a; b"},
		{"if TYPE_CHECKING:\n    from x import Y\n", "from x: Y"},
		{"from m import *\n", "from m: *"},
		{"s = 'import not_me'\nt = \"\"\"\nimport nor_me\n\"\"\"\n# import comment\n", ""},
		{"x = f'{a}' ; r'\\'' ; import after_strings\n", "after_strings"},
		{"importlib.import_module(\"lit.mod\")\n", "lit.mod"},
		{"m = __import__('other')\n", "other"},
		{"import_module('.rel', __package__)\n", ".rel"},
		{"importer = 'from'\nfrom_ = 1\n", ""},
		// Python 3.12 f-strings (PEP 701) reuse the outer quote inside a
		// replacement field; the hand-written lexer lost its bracket depth
		// here and dropped every import after it (issue 10).
		{"x = f\"{d[\"(\"]}\"\nimport after_fstring\n", "after_fstring"},
		{"s = f\"{', '.join(f'{k}={v[\"[\"]}' for k, v in d.items())}\"\nfrom pkg import late\n", "from pkg: late"},
		{"s = f'''{\n  x  # a comment in a field\n}'''\nimport after_multiline\n", "after_multiline"},
		{"m = importlib.import_module(f\"{base}.mod\")\nimport after\n", "after"},
		// A syntax error: what follows it is still read, line by line.
		{"x = (\nimport a\nfrom b import c\n", "a; from b: c"},
		{"def f(:\n    import inner\nimport outer\n", "inner; outer"},
		{"import a\n)))\nimport b\n", "a; b"},
	}
	for _, tc := range cases {
		if got := importsOf(parsePy(tc.src)); got != tc.want {
			t.Errorf("%q:\n got  %s\n want %s", tc.src, got, tc.want)
		}
	}
}

// A file that does not parse counts as loading any module (selection
// widens); one that parses does not.
func TestParsePySyntaxError(t *testing.T) {
	for src, bad := range map[string]bool{
		"x = (\nimport a\n":                  true,
		"print 'py2'\n":                      false, // tree-sitter knows Python 2's print
		"def f[T](x: T) -> T: return x\n":    false,
		"type Point = tuple[float, float]\n": false,
		"match x:\n    case [a, *_]: pass\n": false,
		"x = f\"{d[\"(\"]}\"\n":              false,
		"class C(\n":                         true,
	} {
		f := parsePy(src)
		if f.SyntaxError != bad || f.Dynamic != bad {
			t.Errorf("%q: syntax error %v, dynamic %v; want %v", src, f.SyntaxError, f.Dynamic, bad)
		}
	}
}

// An f-string's replacement fields are code: an attribute read there is
// an attribute use, the literal text around them is not.
func TestParsePyFStringUses(t *testing.T) {
	f := parsePy("import shop\nmsg = f\"{shop.tax.rate()!r:>{width}} and {d[\"k\"]} shop.not_code\"\n")
	if len(f.Imports) != 1 || !equal(f.Imports[0].Attrs, []string{"tax.rate"}) || f.Imports[0].Escapes {
		t.Fatalf("imports = %+v", f.Imports)
	}
	g := parsePy("import shop\nmsg = f\"{shop}\"\n")
	if !g.Imports[0].Escapes {
		t.Fatalf("a bare name in a field does not escape: %+v", g.Imports)
	}
}

func TestParsePyFacts(t *testing.T) {
	f := parsePy("import importlib, subprocess, sys\n" +
		"def load(n):\n    return importlib.import_module('plug.' + n)\n" +
		"class K: pass\nX = 1\nA, B = 2, 3\nC: int = 4\nif X == 1:\n    Y = 2\n" +
		"subprocess.run([sys.executable, 'scripts/tool.py', '-m', 'pkg.cli', 'mycli'])\n" +
		"pytest_plugins = ['helpers.fixtures']\n")
	if !f.Dynamic || !f.Subprocess || !f.SysExecutable {
		t.Fatalf("dynamic=%v subprocess=%v sysexec=%v", f.Dynamic, f.Subprocess, f.SysExecutable)
	}
	for _, n := range []string{"load", "K", "X", "A", "B", "C", "importlib"} {
		if !f.Defined[n] {
			t.Errorf("%s not recorded as defined", n)
		}
	}
	if f.Defined["Y"] || f.Defined["n"] {
		t.Errorf("nested names recorded: %v", f.Defined)
	}
	if !equal(f.Scripts, []string{"scripts/tool.py"}) || !equal(f.ModuleRuns, []string{"pkg.cli"}) ||
		!contains(f.Strings, "mycli") || !equal(f.Plugins, []string{"helpers.fixtures"}) {
		t.Fatalf("scripts=%q modules=%q strings=%q plugins=%q", f.Scripts, f.ModuleRuns, f.Strings, f.Plugins)
	}
	if g := parsePy("import os\nos.system('ls')\n"); !g.Subprocess {
		t.Error("os.system not seen as a process start")
	}
}

func TestParsePyDunderAll(t *testing.T) {
	for src, want := range map[string]string{
		"__all__ = ['a', \"b\"]\n":                 "a b",
		"__all__ = ('a',)\n":                       "a",
		"__all__ = ['a']\n__all__ += ['b']\n":      "dynamic",
		"__all__ = mod.__all__ + ['a']\n":          "dynamic",
		"if X:\n    __all__ = ['a']\n":             "dynamic",
		"__all__ = ['a']\n__all__.extend(other)\n": "dynamic",
		"x = 1\n":        "none",
		"__all__ = []\n": "",
	} {
		f := parsePy(src)
		got := strings.Join(sortedKeys(f.All), " ")
		switch {
		case f.AllDynamic:
			got = "dynamic"
		case f.All == nil:
			got = "none"
		}
		if got != want {
			t.Errorf("%q: got %q, want %q", src, got, want)
		}
	}
}

// pytest.importorskip("pkg.mod") imports the module like import_module.
func TestParsePyImportorskip(t *testing.T) {
	f := parsePy("import pytest\n\nmod = pytest.importorskip('shop.extra', minversion='1')\n")
	if len(f.Imports) != 2 || f.Imports[1].Module != "shop.extra" {
		t.Fatalf("imports = %+v", f.Imports)
	}
}

// The facts survive the memo's JSON: a later selection reads them back
// instead of parsing.
func TestParsePyMemoRoundTrip(t *testing.T) {
	src := "import a.b as c, subprocess, sys\nfrom . import (x, y as z)\nfrom m import *\n" +
		"__all__ = ['p']\nP = c.q.r\nregister(P)\ntry:\n    import fast\nexcept ImportError:\n    fast = None\n" +
		"def f():\n    '''\n    >>> from doc import d\n    '''\n    return importlib.import_module(name)\n" +
		"subprocess.run([sys.executable, 'tool.py', '-m', 'pkg.cli'])\npytest_plugins = ['plug']\n"
	want := parsePy(src)
	data, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var got *pyFile
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after JSON:\n got  %+v\n want %+v", got, want)
	}
}
