package detect

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/run"
)

// cargoLayout is a repository with a virtual workspace at the root, a
// member matched by a glob, a crate nested in a workspace of its own (as
// cargo fuzz lays out fuzz/), an excluded crate with no workspace, and a
// workspace nested inside the root one.
func cargoLayout(t *testing.T) string {
	root := t.TempDir()
	pkg := func(name string) string {
		return "[package]\nname = \"" + name + "\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"
	}
	write(t, root, "Cargo.toml", "[workspace]\nmembers = [\"core\", \"crates/*\"]\nexclude = [\"fuzz\", \"sub\"]\nresolver = \"2\"\n")
	write(t, root, "core/Cargo.toml", pkg("core"))
	write(t, root, "crates/a/Cargo.toml", pkg("a"))
	write(t, root, "tools/gen/Cargo.toml", pkg("gen")+"\n[workspace]\n")
	write(t, root, "fuzz/Cargo.toml", pkg("fuzz"))
	write(t, root, "sub/Cargo.toml", "[workspace]\nmembers = [\"b\"]\nresolver = \"2\"\n")
	write(t, root, "sub/b/Cargo.toml", pkg("b"))
	for _, d := range []string{"core", "crates/a", "tools/gen", "fuzz", "sub/b"} {
		write(t, root, d+"/src/lib.rs", "#[test]\nfn t() {}\n")
	}
	return root
}

// TestCargoWorkspaceRootMatchesCargo asks cargo itself which workspace
// each crate belongs to: a crate with its own [workspace] table, or one the
// root workspace excludes, is tested on its own, not by the root's cargo test.
func TestCargoWorkspaceRootMatchesCargo(t *testing.T) {
	root := cargoLayout(t)
	runner := &run.Runner{}
	for _, d := range []string{"core", "crates/a", "tools/gen", "fuzz", "sub/b"} {
		dir := filepath.Join(root, filepath.FromSlash(d))
		res, err := runner.Run(context.Background(), run.Spec{
			Args:    []string{"cargo", "locate-project", "--workspace", "--message-format", "plain", "--offline"},
			Dir:     dir,
			Purpose: run.Internal,
		})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("cargo locate-project in %s: %v %s", d, err, res.Output)
		}
		want := filepath.Dir(strings.TrimSpace(lastLine(string(res.Output))))
		if got := cargoWorkspaceRoot(root, dir); got != want {
			t.Errorf("%s: workspace root %s, cargo says %s", d, got, want)
		}
	}
}

func TestCargoNestedWorkspaceIsItsOwnProject(t *testing.T) {
	root := cargoLayout(t)
	ps, err := Projects(root, []string{"tools/gen/src/lib.rs", "fuzz/src/lib.rs", "core/src/lib.rs"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ps {
		rel, _ := filepath.Rel(root, p.Root)
		got = append(got, filepath.ToSlash(rel))
	}
	if strings.Join(got, " ") != ". fuzz tools/gen" {
		t.Fatalf("project roots %v, want . fuzz tools/gen", got)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
