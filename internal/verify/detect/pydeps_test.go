package detect

import "testing"

func TestPythonProjectDependents(t *testing.T) {
	root := t.TempDir()
	write(t, root, "libs/core/pyproject.toml", "[project]\nname = \"Acme_Core\"\nversion = \"1\"\n")
	write(t, root, "libs/core/acme_core/__init__.py", "")
	write(t, root, "libs/core/tests/test_core.py", "def test_c():\n    pass\n")
	// uv: a requirement with extras and a marker, the source a workspace.
	write(t, root, "apps/api/pyproject.toml", "[project]\nname = \"api\"\ndependencies = [\"acme-core[fast]>=1; python_version >= '3.9'\", \"requests\"]\n\n[tool.uv.sources]\nacme-core = { workspace = true }\n")
	write(t, root, "apps/api/tests/test_api.py", "def test_a():\n    pass\n")
	// poetry, through api, in a dev group.
	write(t, root, "apps/cli/pyproject.toml", "[tool.poetry]\nname = \"cli\"\n\n[tool.poetry.group.dev.dependencies]\napi = { path = \"../api\", develop = true }\n")
	write(t, root, "apps/cli/tests/test_cli.py", "def test_x():\n    pass\n")
	write(t, root, "apps/other/pyproject.toml", "[project]\nname = \"other\"\ndependencies = [\"requests\"]\n")
	write(t, root, "apps/other/tests/test_o.py", "def test_o():\n    pass\n")

	ps, err := Projects(root, []string{"libs/core/acme_core/__init__.py"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "apps/api: it depends on acme-core from libs/core/ (pyproject.toml), which changed|" +
		"apps/cli: it depends on api from apps/api/ (pyproject.toml), which depends on a changed project|" +
		"libs/core: "
	if g := checkReasons(root, ps); g != want {
		t.Errorf("got  %s\nwant %s", g, want)
	}
	// Only core's tests changed: its dependents import none of them.
	ps, err = Projects(root, []string{"libs/core/tests/test_core.py"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g, want := checkReasons(root, ps), "libs/core: "; g != want {
		t.Errorf("a test-only change: got  %s\nwant %s", g, want)
	}
}

// A library at the repository root with example projects that depend on
// it (pallets/click's examples/): a change to its tests runs its tests
// only; a change to its code runs the examples too.
func TestPythonRootLibraryTestOnlyChange(t *testing.T) {
	root := t.TempDir()
	write(t, root, "pyproject.toml", "[project]\nname = \"click\"\nversion = \"1\"\n")
	write(t, root, "src/click/__init__.py", "")
	write(t, root, "tests/test_basic.py", "def test_b():\n    pass\n")
	write(t, root, "examples/colors/pyproject.toml", "[project]\nname = \"colors\"\ndependencies = [\"click>=8\"]\n")
	write(t, root, "examples/colors/colors.py", "import click\n")
	for changed, want := range map[string]string{
		"tests/test_basic.py":   ".: ",
		"src/click/__init__.py": ".: |examples/colors: it depends on click from ./ (pyproject.toml), which changed",
	} {
		ps, err := Projects(root, []string{changed}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if g := checkReasons(root, ps); g != want {
			t.Errorf("%s: got  %s\nwant %s", changed, g, want)
		}
	}
}

func TestTestOnly(t *testing.T) {
	for rel, want := range map[string]bool{
		"a/a_test.go": true, "a/a.go": false, "a/testdata/x.txt": false,
		"tests/test_core.py": true, "pkg/core_test.py": true, "tests/conftest.py": true, "tests/helpers.py": false, "pkg/testing.py": false,
		"src/a.test.ts": true, "src/__tests__/a.ts": true, "src/a.spec.mjs": true, "src/a.ts": false, "src/test-utils.ts": false,
		"tests/it.rs": true, "crates/x/tests/common/mod.rs": true, "src/tests/mod.rs": false, "src/lib.rs": false,
		"README.md": false,
	} {
		if got := testOnly(rel); got != want {
			t.Errorf("testOnly(%q) = %v, want %v", rel, got, want)
		}
	}
}
