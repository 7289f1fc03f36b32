package verify

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/chanto-dev/chanto/internal/run"
)

// gitRepo makes a repository in a temp folder; the harness may call git
// directly, the product goes through run.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_AUTHOR_NAME", "t")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "t")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@example.com")
	sh(t, dir, "git", "init", "-q")
	return dir
}

func sh(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
}

func put(t *testing.T, dir, rel, body string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestChangesKinds(t *testing.T) {
	dir := gitRepo(t)
	put(t, dir, "keep.txt", "k")
	put(t, dir, "mod.txt", "m")
	put(t, dir, "gone.txt", "g")
	put(t, dir, "old name.txt", "a file long enough to be recognized as a rename\n")
	put(t, dir, ".gitignore", "ignored/\n")
	sh(t, dir, "git", "add", "-A")
	sh(t, dir, "git", "commit", "-qm", "init")

	put(t, dir, "mod.txt", "m2")
	os.Remove(filepath.Join(dir, "gone.txt"))
	os.Mkdir(filepath.Join(dir, "dossier ü"), 0o755)
	sh(t, dir, "git", "mv", "old name.txt", "dossier ü/new name.txt")
	put(t, dir, "naïve file.go", "package x")
	put(t, dir, "ignored/x.txt", "x")
	put(t, dir, "pkg/__pycache__/m.pyc", "x")
	put(t, dir, "web/node_modules/jest/index.js", "x")
	put(t, dir, "target/debug/app", "x")
	put(t, dir, ".venv/lib/python3/site-packages/_pytest/x.py", "x")
	put(t, dir, "internal/target/target.go", "package target")
	put(t, dir, "staged.txt", "s")
	sh(t, dir, "git", "add", "staged.txt")

	cs, err := Changes(context.Background(), &run.Runner{}, filepath.Join(dir), "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"dossier ü/new name.txt", "gone.txt", "internal/target/target.go", "mod.txt", "naïve file.go", "old name.txt", "staged.txt"}
	if !reflect.DeepEqual(cs.Changed, want) {
		t.Errorf("changed = %q\nwant %q", cs.Changed, want)
	}
	if want := []string{"internal/target/target.go", "naïve file.go", "staged.txt"}; !reflect.DeepEqual(cs.Added, want) {
		t.Errorf("added = %q, want %q", cs.Added, want)
	}
	if want := []string{"gone.txt", "old name.txt"}; !reflect.DeepEqual(cs.Deleted, want) {
		t.Errorf("deleted = %q, want %q", cs.Deleted, want)
	}
	if !cs.Git || cs.Base != "HEAD" || cs.Unknown {
		t.Errorf("cs = %+v", cs)
	}
}

func TestChangesNoCommitsAndNotGit(t *testing.T) {
	dir := gitRepo(t)
	put(t, dir, "a.go", "package a")
	put(t, dir, "sub dir/b.go", "package b")
	cs, err := Changes(context.Background(), &run.Runner{}, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.go", "sub dir/b.go"}; !reflect.DeepEqual(cs.Changed, want) || !reflect.DeepEqual(cs.Added, want) || cs.Base != "" {
		t.Errorf("no commits: %+v", cs)
	}
	if _, err := Changes(context.Background(), &run.Runner{}, dir, "main"); err == nil {
		t.Error("--base in a repository without commits: no error")
	}

	plain := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(plain))
	cs, err = Changes(context.Background(), &run.Runner{}, plain, "")
	if err != nil {
		t.Fatal(err)
	}
	if !cs.Unknown || cs.Git || cs.Root != plain {
		t.Errorf("not git: %+v", cs)
	}
}

func TestChangesBaseAndSources(t *testing.T) {
	dir := gitRepo(t)
	put(t, dir, "a.txt", "one")
	sh(t, dir, "git", "add", "-A")
	sh(t, dir, "git", "commit", "-qm", "1")
	put(t, dir, "a.txt", "two")
	put(t, dir, "b.txt", "b")
	sh(t, dir, "git", "add", "-A")
	sh(t, dir, "git", "commit", "-qm", "2")
	sh(t, dir, "git", "checkout", "-q", "--detach")
	cs, err := Changes(context.Background(), &run.Runner{}, dir, "HEAD~1")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.txt", "b.txt"}; !reflect.DeepEqual(cs.Changed, want) {
		t.Errorf("changed = %q", cs.Changed)
	}
	src := GitSource{Runner: &run.Runner{}, Root: dir, Rev: "HEAD~1"}
	if b, err := src.ReadFile("a.txt"); err != nil || string(b) != "one" {
		t.Errorf("a.txt at base = %q, %v", b, err)
	}
	if _, err := src.ReadFile("b.txt"); !os.IsNotExist(err) {
		t.Errorf("b.txt at base: %v, want not exist", err)
	}
	if b, err := DirSource(dir).ReadFile("a.txt"); err != nil || string(b) != "two" {
		t.Errorf("a.txt now = %q, %v", b, err)
	}
}

func TestChangesBaseIsBranchPoint(t *testing.T) {
	dir := gitRepo(t)
	put(t, dir, "a.txt", "a")
	sh(t, dir, "git", "add", "-A")
	sh(t, dir, "git", "commit", "-qm", "1")
	sh(t, dir, "git", "branch", "-M", "main")
	sh(t, dir, "git", "checkout", "-qb", "feature")
	put(t, dir, "f.txt", "feature work")
	sh(t, dir, "git", "add", "-A")
	sh(t, dir, "git", "commit", "-qm", "feature")
	sh(t, dir, "git", "checkout", "-q", "main")
	put(t, dir, "m.txt", "main moved on")
	sh(t, dir, "git", "add", "-A")
	sh(t, dir, "git", "commit", "-qm", "main")
	sh(t, dir, "git", "checkout", "-q", "feature")
	put(t, dir, "wip.txt", "uncommitted")
	cs, err := Changes(context.Background(), &run.Runner{}, dir, "main")
	if err != nil {
		t.Fatal(err)
	}
	// m.txt is main's own later commit, not part of this branch's change.
	if want := []string{"f.txt", "wip.txt"}; !reflect.DeepEqual(cs.Changed, want) {
		t.Errorf("changed = %q, want %q", cs.Changed, want)
	}
}
