package verify

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestBaselineNarrowing: each runner whose failures are named re-runs
// only those at the base; a failure that cannot be named keeps the
// check's own selection.
func TestBaselineNarrowing(t *testing.T) {
	dir := t.TempDir()
	for p, body := range map[string]string{
		"go.mod":                          "module example.com/m\n\ngo 1.22\n",
		"a/a.go":                          "package a\n",
		"b/b.go":                          "package b\n",
		"tests/test_x.py":                 "def test_one(): pass\n",
		"tests/__init__.py":               "",
		"docs/usage/create-a-version.rst": ">>> 1\n1\n",
		"src/pkg/mod.py":                  "def f():\n    \"\"\">>> f()\"\"\"\n",
		"tests/v1.2/test_dotted.py":       "def test_d(): pass\n",
	} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := func(ids ...string) []Failure {
		var out []Failure
		for _, id := range ids {
			out = append(out, Failure{ID: id, Name: id})
		}
		return out
	}
	cases := []struct {
		name string
		nr   func(baseTree, []string, []Failure) ([]string, bool)
		args []string
		fs   []Failure
		want []string // nil: not narrowed
	}{
		{"go tests and subtests", narrowGoTest, []string{"go", "test"},
			f("example.com/m/a.TestX/sub/case.1", "example.com/m/b.TestY", "example.com/m/a.TestZ"),
			[]string{"go", "test", "-run", "^(TestX|TestY|TestZ)$", "./a", "./b"}},
		{"a package that did not build is built again", narrowGoTest, []string{"go", "test"},
			f("example.com/m/a [build failed]", "example.com/m/b.TestY"),
			[]string{"go", "test", "-run", "^(TestY)$", "./a", "./b"}},
		{"a package new in the change is left out", narrowGoTest, []string{"go", "test"},
			f("example.com/m/a.TestX", "example.com/m/c.TestNew"),
			[]string{"go", "test", "-run", "^(TestNew|TestX)$", "./a"}},
		{"a package failing as a whole", narrowGoTest, []string{"go", "test"}, f("example.com/m/a"), nil},
		{"another module's package", narrowGoTest, []string{"go", "test"}, f("example.com/other.TestX"), nil},
		{"flags keep the selection", narrowGoTest, []string{"go", "test", "-race"}, f("example.com/m/a.TestX"), nil},
		{"vet findings by package", narrowGoVet, []string{"go", "vet"},
			f("a/a.go: printf: bad", "b/b_test.go: struct field tag", "a/a.go: other"),
			[]string{"go", "vet", "./a", "./b"}},
		{"vet finding outside the module", narrowGoVet, []string{"go", "vet"}, f("../x/x.go: bad"), nil},
		{"pytest: files and -k; a file the change added is left out", narrowPytest, []string{"python3", "-m", "pytest"},
			f("tests.test_x::test_one", "tests.test_x.TestK::test_two[1-2]", "tests.test_new::test_n"),
			[]string{"python3", "-m", "pytest", "tests/test_x.py", "-k", "test_one or test_two"}},
		{"pytest: doctests of a text file and of a module", narrowPytest, []string{"python3", "-m", "pytest"},
			f("docs.usage.create-a-version.rst::create-a-version.rst", "src.pkg.mod::pkg.mod.f"),
			[]string{"python3", "-m", "pytest", "docs/usage/create-a-version.rst", "src/pkg/mod.py", "-k", "create-a-version.rst or pkg.mod.f"}},
		{"pytest: a folder with a dot", narrowPytest, []string{"python3", "-m", "pytest"},
			f("tests.v1.2.test_dotted::test_d"),
			[]string{"python3", "-m", "pytest", "tests/v1.2/test_dotted.py", "-k", "test_d"}},
		{"pytest: a failure whose file is not found is not left out", narrowPytest, []string{"python3", "-m", "pytest"},
			f("tests.test_x::test_one", "docs.gone.rst::gone.rst"), nil},
		{"pytest collection error", narrowPytest, []string{"python3", "-m", "pytest"}, f("tests/test_x.py"), nil},
		{"unittest names", narrowUnittest, []string{"python3", "-m", "unittest", "discover"},
			f("tests.test_x.T.test_one"), []string{"python3", "-m", "unittest", "tests.test_x.T.test_one"}},
		{"unittest fixtures by their class and module", narrowUnittest, []string{"python3", "-m", "unittest"},
			f("tests.test_x.K.setUpClass", "tests.test_y.setUpModule", "tests.test_x.T.test_one"),
			[]string{"python3", "-m", "unittest", "tests.test_x.K", "tests.test_x.T.test_one", "tests.test_y"}},
		{"unittest module that did not import", narrowUnittest, []string{"python3", "-m", "unittest"},
			f("unittest.loader._FailedTest.tests.test_bad", "tests.test_x.T.test_one"), nil},
		{"cargo exact paths", narrowCargo, []string{"cargo", "test", "-p", "core"},
			f("core::tests::parse", "it::roundtrip"),
			[]string{"cargo", "test", "-p", "core", "--", "--exact", "roundtrip", "tests::parse"}},
		{"cargo build failure", narrowCargo, []string{"cargo", "test"}, f("core [build failed]"), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.nr(baseTree{dir: dir, added: map[string]bool{"tests/test_new.py": true}}, tc.args, tc.fs)
			if tc.want == nil {
				if ok {
					t.Fatalf("narrowed to %q, want the check's own selection", got)
				}
				return
			}
			if !ok || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %q (%v), want %q", got, ok, tc.want)
			}
		})
	}
}

func TestSplitGoID(t *testing.T) {
	for id, want := range map[string][2]string{
		"gopkg.in/yaml.v3.TestX/a.TestB": {"gopkg.in/yaml.v3", "TestX"},
		"example.com/a.TestB.TestC":      {"example.com/a.TestB", "TestC"},
		"example.com/Testing.x.TestY":    {"example.com/Testing.x", "TestY"},
		"example.com/m.ExampleFoo":       {"example.com/m", "ExampleFoo"},
	} {
		p, n, ok := splitGoID(id)
		if !ok || p != want[0] || n != want[1] {
			t.Errorf("%s: %q %q %v, want %q", id, p, n, ok, want)
		}
	}
}
