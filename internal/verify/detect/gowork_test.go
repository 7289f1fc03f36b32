package detect

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// reasons lists each check's folder, command and FullReason.
func reasons(ps []Project) string {
	var out []string
	for _, p := range ps {
		for _, c := range p.Checks {
			if c.Runner == Go {
				out = append(out, filepath.Base(c.Dir)+": "+c.FullReason.String())
			}
		}
	}
	return strings.Join(out, "|")
}

// checkReasons lists each check's folder (relative to root) and
// FullReason: "b: it builds against …|c: …".
func checkReasons(root string, ps []Project) string {
	var out []string
	for _, p := range ps {
		for _, c := range p.Checks {
			rel, _ := filepath.Rel(root, c.Dir)
			out = append(out, filepath.ToSlash(rel)+": "+c.FullReason.String())
		}
	}
	return strings.Join(out, "|")
}

func TestGoWorkspaceModules(t *testing.T) {
	root := t.TempDir()
	write(t, root, "go.work", "go 1.22\n\nuse (\n\t./a\n\t./b\n\t./c\n\t./d\n\t./g\n)\n")
	// g imports a without a require line, which a workspace allows.
	write(t, root, "g/go.mod", "module example.com/g\n\ngo 1.22\n")
	write(t, root, "g/internal/use.go", "package internal\n\nimport _ \"example.com/a/sub\"\n")
	write(t, root, "a/go.mod", "module example.com/a\n\ngo 1.22\n")
	write(t, root, "a/a.go", "package a\n")
	write(t, root, "b/go.mod", "module example.com/b\n\ngo 1.22\n\nrequire example.com/a v0.0.0\n")
	write(t, root, "c/go.mod", "module example.com/c\n\ngo 1.22\n\nrequire example.com/b v0.0.0\n")
	write(t, root, "d/go.mod", "module example.com/d\n\ngo 1.22\n")
	// e is outside the workspace but replaces a with its folder.
	write(t, root, "tools/e/go.mod", "module example.com/e\n\ngo 1.22\n\nrequire example.com/a v0.0.0\n\nreplace example.com/a => ../../a\n")
	// f replaces a with a published version: it builds against that, not the folder.
	write(t, root, "f/go.mod", "module example.com/f\n\ngo 1.22\n\nrequire example.com/a v0.0.0\n\nreplace example.com/a => example.com/a v0.1.0\n")

	for _, tc := range []struct {
		changed []string
		want    string
	}{
		{[]string{"a/a.go"}, "a: |b: it builds against example.com/a from a/ (go.work), which changed|" +
			"c: it builds against example.com/b from b/ (go.work), which builds against a changed module|" +
			"g: it builds against example.com/a from a/ (go.work), which changed|" +
			"e: it builds against example.com/a from a/ (a replace in its go.mod), which changed"},
		// b changed too: it still runs in full, since a changed under it.
		{[]string{"a/a.go", "b/b.go"}, "a: |b: it builds against example.com/a from a/ (go.work), which changed|" +
			"c: it builds against example.com/b from b/ (go.work), which changed|" +
			"g: it builds against example.com/a from a/ (go.work), which changed|" +
			"e: it builds against example.com/a from a/ (a replace in its go.mod), which changed"},
		{[]string{"d/d.go"}, "d: "},
		// Only a's tests changed: no module builds against them.
		{[]string{"a/a_test.go"}, "a: "},
		{[]string{"a/a_test.go", "b/b.go"}, "a: |b: |c: it builds against example.com/b from b/ (go.work), which changed"},
		// Nothing changed: the workspace's modules are the project.
		{nil, "a: |b: |c: |d: |g: "},
		{[]string{"go.work"}, "a: |b: |c: |d: |g: "},
	} {
		ps, err := Projects(root, tc.changed, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := reasons(ps); got != tc.want {
			t.Errorf("%v:\n got %s\nwant %s", tc.changed, got, tc.want)
		}
	}
}

func TestProjectsAtFolderOfProjects(t *testing.T) {
	root := t.TempDir()
	write(t, root, "README.md", "")
	write(t, root, "services/api/go.mod", "module example.com/api\n\ngo 1.22\n")
	write(t, root, "services/api/web/package.json", `{"scripts":{"test":"vitest run"}}`)
	write(t, root, "web/package.json", `{"scripts":{"test":"node --test"}}`)
	write(t, root, "docs/package.json", `{"name":"docs"}`)
	write(t, root, "node_modules/x/package.json", `{"scripts":{"test":"jest"}}`)
	write(t, root, "a/b/c/d/e/go.mod", "module example.com/deep\n\ngo 1.22\n")
	ps, err := ProjectsAt(context.Background(), root, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "api: go vet ./... [go-vet]|api: go test ./... [go]|web: npm test [node-test]"
	if got := strings.Join(commands(ps), "|"); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// Standing in a project, only that one.
	ps, err = ProjectsAt(context.Background(), root, filepath.Join(root, "web"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(commands(ps), "|"); got != "web: npm test [node-test]" {
		t.Errorf("in web/: got %s", got)
	}
}
