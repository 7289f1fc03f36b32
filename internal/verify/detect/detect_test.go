package detect

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, root, rel, body string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func commands(ps []Project) []string {
	var out []string
	for _, p := range ps {
		for _, c := range p.Checks {
			out = append(out, filepath.Base(c.Dir)+": "+c.Command+" ["+string(c.Runner)+"]")
		}
	}
	return out
}

func TestProjects(t *testing.T) {
	root := t.TempDir()
	write(t, root, "go.mod", "module example.com/root\n\ngo 1.22\n")
	write(t, root, "main.go", "package main\n")
	write(t, root, "services/api/go.mod", "module example.com/api\n\ngo 1.22\n")
	write(t, root, "services/api/h/h.go", "package h\n")
	write(t, root, "web/package.json", `{"scripts":{"test":"vitest run"},"devDependencies":{"vitest":"^1"}}`)
	write(t, root, "web/src/a.js", "")
	write(t, root, "placeholder/package.json", `{"scripts":{"test":"echo \"Error: no test specified\" && exit 1"}}`)
	write(t, root, "placeholder/Makefile", "test:\n\t@true\n")
	write(t, root, "placeholder/x.js", "")
	write(t, root, "crates/a/Cargo.toml", "[package]\nname='a'\n")
	write(t, root, "crates/a/src/lib.rs", "")
	write(t, root, "Cargo.toml", "[workspace]\nmembers=['crates/a']\n")
	write(t, root, "node/package.json", `{"scripts":{"test":"node --test"}}`)
	write(t, root, "node/t.test.js", "")
	write(t, root, "node/pkgs/a/package.json", `{"name":"a","scripts":{"build":"tsc"}}`)
	write(t, root, "node/pkgs/a/index.js", "")

	cases := []struct {
		changed []string
		want    string
	}{
		{nil, "ROOT: go vet ./... [go-vet]|ROOT: go test ./... [go]|ROOT: cargo test [cargo]"},
		{[]string{"services/api/h/h.go"}, "api: go vet ./... [go-vet]|api: go test ./... [go]"},
		{[]string{"web/src/a.js"}, "web: npm test [vitest]"},
		{[]string{"placeholder/x.js"}, "placeholder: make test [make]"},
		{[]string{"crates/a/src/lib.rs"}, "ROOT: go vet ./... [go-vet]|ROOT: go test ./... [go]|ROOT: cargo test [cargo]"},
		{[]string{"node/t.test.js"}, "node: npm test [node-test]"},
		{[]string{"node/pkgs/a/index.js"}, "node: npm test [node-test]"},
	}
	for _, c := range cases {
		ps, err := Projects(root, c.changed, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.ReplaceAll(strings.Join(commands(ps), "|"), filepath.Base(root)+":", "ROOT:")
		if got != c.want {
			t.Errorf("%v:\n got %s\nwant %s", c.changed, got, c.want)
		}
	}
}

func TestManifestErrors(t *testing.T) {
	root := t.TempDir()
	write(t, root, "go.mod", "module x\n\ngo 1.22\nbogus line\n")
	_, err := Projects(root, nil, nil)
	var me *ManifestError
	if !errors.As(err, &me) || err.Error() != "go.mod:4: unknown directive: bogus" {
		t.Fatalf("go.mod: %v", err)
	}
	root = t.TempDir()
	write(t, root, "package.json", "{\n  \"scripts\": {\n    \"test\": \"jest\",\n  }\n}\n")
	_, err = Projects(root, nil, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "package.json:4: invalid JSON: ") {
		t.Fatalf("package.json: %v", err)
	}
	// A broken member manifest, under a workspace root that parses.
	root = t.TempDir()
	write(t, root, "Cargo.toml", "[workspace]\nmembers = [\"core\"]\n")
	write(t, root, "core/Cargo.toml", "[package]\nname = \"core\"\nversion = \"0.1.0\"\n\ngarbage = [\n")
	_, err = Projects(root, []string{"core/Cargo.toml"}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "core/Cargo.toml:5: ") {
		t.Fatalf("core/Cargo.toml: %v", err)
	}
	// A broken fixture is not the project's manifest.
	write(t, root, "core/Cargo.toml", "[package]\nname = \"core\"\nversion = \"0.1.0\"\n")
	write(t, root, "core/testdata/bad/Cargo.toml", "garbage = [\n")
	if _, err = Projects(root, []string{"core/testdata/bad/Cargo.toml"}, nil); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	write(t, root, "Cargo.toml", "[workspace\n")
	_, err = Projects(root, nil, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "Cargo.toml:2: expected") {
		t.Fatalf("Cargo.toml: %v", err)
	}
}

func TestPythonInterpreter(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	root := t.TempDir()
	write(t, root, "test_a.py", "def test_a():\n    assert True\n")
	// A python3 without pytest first on PATH, then /usr/bin.
	bin := t.TempDir()
	write(t, bin, "python3", "#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n")
	os.Chmod(filepath.Join(bin, "python3"), 0o755)
	t.Setenv("PATH", bin+":/usr/bin:/bin")
	t.Setenv("VIRTUAL_ENV", "")
	ps, err := Projects(root, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := commands(ps); len(got) != 1 || !strings.HasSuffix(got[0], "/usr/bin/python3 -m pytest [pytest]") {
		t.Fatalf("got %v", got)
	}
	// A $TMPDIR that does not exist must not make the probe fail.
	t.Setenv("TMPDIR", filepath.Join(bin, "missing"))
	ps, _ = Projects(root, nil, nil)
	if got := commands(ps); len(got) != 1 || !strings.HasSuffix(got[0], "/usr/bin/python3 -m pytest [pytest]") {
		t.Fatalf("with $TMPDIR missing: got %v", got)
	}
	t.Setenv("PATH", bin)
	ps, _ = Projects(root, nil, nil)
	if got := commands(ps); len(got) != 1 || !strings.HasSuffix(got[0], ": python3 -m unittest [unittest]") {
		t.Fatalf("got %v", got)
	}
}

func TestRuleDefinesTest(t *testing.T) {
	for line, want := range map[string]bool{
		"test:":             true,
		"test: build":       true,
		"lint test: x":      true,
		".PHONY: test":      false,
		"test := 1":         false,
		"\ttest: x":         false,
		"testing: x":        false,
		"TEST = a:b":        false,
		"# test: commented": false,
		"check test::":      true,
	} {
		if got := ruleDefinesTest(line); got != want {
			t.Errorf("%q: got %v", line, got)
		}
	}
}

func TestCargoWorkspaceWithRootPackage(t *testing.T) {
	root := t.TempDir()
	write(t, root, "Cargo.toml", "[package]\nname = \"app\"\n\n[workspace]\nmembers = [\"crates/*\"]\n")
	write(t, root, "crates/a/Cargo.toml", "[package]\nname = \"a\"\n")
	write(t, root, "crates/a/src/lib.rs", "")
	ps, err := Projects(root, []string{"crates/a/src/lib.rs"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := commands(ps); len(got) != 1 || !strings.HasSuffix(got[0], ": cargo test --workspace [cargo]") || ps[0].Root != root {
		t.Fatalf("got %v", got)
	}
}
