package baseline

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/run"
)

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	r := &run.Runner{}
	argv := append([]string{"git", "-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)
	res, err := r.Run(context.Background(), run.Spec{Args: argv, Purpose: run.Internal})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("git %v: %v\n%s", args, err, res.Output)
	}
	return string(res.Output)
}

func writeT(t *testing.T, root, rel, content string, mode fs.FileMode) {
	t.Helper()
	abs := filepath.Join(root, filepath.FromSlash(rel))
	mustNo(t, os.MkdirAll(filepath.Dir(abs), 0o755))
	mustNo(t, os.WriteFile(abs, []byte(content), mode))
	mustNo(t, os.Chmod(abs, mode))
}

// repo makes a git repository with a committed tree, then changes the
// working tree on top of it; it returns the committed and the current state.
func repo(t *testing.T) (top string, committed, current map[string]entry) {
	top = filepath.Join(t.TempDir(), "repo ü")
	mustNo(t, os.MkdirAll(top, 0o755))
	gitT(t, top, "init", "-q")
	writeT(t, top, "go.mod", "module x\n", 0o644)
	writeT(t, top, "svc/api/main.go", "package main // v1\n", 0o644)
	writeT(t, top, "svc/api/run.sh", "#!/bin/sh\n", 0o755)
	writeT(t, top, "dir with space/日本.txt", "base\n", 0o644)
	writeT(t, top, "svc/api/gone.go", "package main // deleted later\n", 0o644)
	writeT(t, top, ".gitignore", "ignored.log\nnode_modules/\n", 0o644)
	mustNo(t, os.Symlink("main.go", filepath.Join(top, "svc/api/link")))
	gitT(t, top, "add", "-A")
	gitT(t, top, "commit", "-q", "-m", "base")
	committed = snapshot(t, top)
	delete(committed, ".git")
	for k := range committed {
		if strings.HasPrefix(k, ".git/") {
			delete(committed, k)
		}
	}
	writeT(t, top, "svc/api/main.go", "package main // v2\n", 0o644)
	mustNo(t, os.Remove(filepath.Join(top, "svc/api/gone.go")))
	writeT(t, top, "svc/api/new.go", "package main // untracked\n", 0o600)
	writeT(t, top, "ignored.log", "noise\n", 0o644)
	writeT(t, top, "svc/api/node_modules/dep/index.js", "module.exports = 1\n", 0o644)
	current = snapshot(t, top)
	for k := range current {
		if k == ".git" || strings.HasPrefix(k, ".git/") {
			delete(current, k)
		}
	}
	return top, committed, current
}

func TestCopyTreeFromRevision(t *testing.T) {
	top, committed, _ := repo(t)
	dir, cleanup, err := CopyTree(context.Background(), &run.Runner{}, filepath.Join(top, "svc", "api"), "HEAD", CopyOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	copyTop := filepath.Dir(filepath.Dir(dir))
	if filepath.Base(dir) != "api" {
		t.Errorf("dir %s is not the copy of svc/api", dir)
	}
	if d, _ := diffTrees(committed, snapshot(t, copyTop)); d != "" {
		t.Errorf("copy of HEAD differs from the commit:\n%s", d)
	}
	if strings.Contains(gitT(t, top, "status", "--porcelain"), "gone.go") == false {
		t.Error("the user's working tree changed")
	}
	mustNo(t, cleanup())
	if _, err := os.Stat(copyTop); err == nil {
		t.Error("cleanup left the copy")
	}
}

func TestCopyTreeUntrackedAndShared(t *testing.T) {
	top, committed, _ := repo(t)
	api := filepath.Join(top, "svc", "api")
	dir, cleanup, err := CopyTree(context.Background(), nil, api, "HEAD", CopyOptions{
		TempDir:   t.TempDir(),
		Untracked: []string{"new.go"},
		Share:     DefaultShare(api),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	got, err := os.ReadFile(filepath.Join(dir, "new.go"))
	if err != nil || string(got) != "package main // untracked\n" {
		t.Errorf("untracked file: %q %v", got, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "new.go")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("untracked file mode: %v %v", fi, err)
	}
	target, err := os.Readlink(filepath.Join(dir, "node_modules"))
	if err != nil || target != filepath.Join(api, "node_modules") {
		t.Errorf("node_modules not shared: %q %v", target, err)
	}
	if string(committed["svc/api/main.go"].Content) == "" {
		t.Fatal("fixture broken")
	}
}

func TestCopyTreeWorkingTree(t *testing.T) {
	top, _, current := repo(t)
	dir, cleanup, err := CopyTree(context.Background(), &run.Runner{}, top, "", CopyOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	want := map[string]entry{}
	for k, v := range current {
		if k == "ignored.log" || strings.Contains(k, "node_modules") {
			continue // ignored files are not part of the tree
		}
		want[k] = v
	}
	if d, _ := diffTrees(want, snapshot(t, dir)); d != "" {
		t.Errorf("copy of the working tree differs:\n%s", d)
	}
}

func TestCopyTreeNotGit(t *testing.T) {
	root := t.TempDir()
	writeT(t, root, "a/b.py", "x = 1\n", 0o755)
	writeT(t, root, ".git/HEAD", "not really\n", 0o644)
	dir, cleanup, err := CopyTree(context.Background(), nil, root, "", CopyOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if fi, err := os.Stat(filepath.Join(dir, "a/b.py")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("a/b.py: %v %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		t.Error(".git copied")
	}
	if _, _, err := CopyTree(context.Background(), nil, root, "HEAD", CopyOptions{TempDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "git") {
		t.Errorf("--base outside git: %v", err)
	}
}

func TestCopyTreeBadRevision(t *testing.T) {
	top, _, _ := repo(t)
	tmp := t.TempDir()
	_, _, err := CopyTree(context.Background(), nil, top, "no-such-rev", CopyOptions{TempDir: tmp})
	if err == nil || !strings.Contains(err.Error(), `"no-such-rev" is not a commit`) {
		t.Fatalf("err = %v", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("a failed copy left %v", left)
	}
}
