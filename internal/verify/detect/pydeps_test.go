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
}
