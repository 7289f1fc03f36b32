package verify

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/chanto-dev/chanto/internal/run"
)

// Reads through the shared cat-file process give the bytes, the absence,
// the folder listings and the modes that a git call each gives.
func TestGitSourceSharedReadsAsOneCallEach(t *testing.T) {
	dir := gitRepo(t)
	put(t, dir, "a.txt", "a\n")
	put(t, dir, "with space.py", "def test_x():\n    pass\n")
	put(t, dir, "sub/empty", "")
	put(t, dir, "sub/deep/x.py", "x = 1\n")
	put(t, dir, "run.sh", "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin.dat"), []byte("x\n\x00\n\nend"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	sh(t, dir, "git", "add", "-A")
	sh(t, dir, "git", "commit", "-qm", "init")
	ctx := context.Background()
	r := &run.Runner{}
	plain := GitSource{Ctx: ctx, Runner: r, Root: dir, Rev: "HEAD"}
	starts := 0
	shared := newGitSource(ctx, &run.Runner{GitSandbox: countStarts{&starts}}, dir, "HEAD")
	defer shared.Close()
	for _, p := range []string{"a.txt", "with space.py", "sub/empty", "bin.dat", "link", "run.sh", "sub", "gone.txt", "sub/gone", "sub/deep/x.py"} {
		want, werr := plain.ReadFile(p)
		got, gerr := shared.ReadFile(p)
		if !bytes.Equal(got, want) || (werr == nil) != (gerr == nil) || errors.Is(werr, fs.ErrNotExist) != errors.Is(gerr, fs.ErrNotExist) {
			t.Errorf("ReadFile(%s): shared %q, %v; alone %q, %v", p, got, gerr, want, werr)
		}
	}
	for _, d := range []string{".", "sub", "sub/deep", "gone", "a.txt"} {
		want, werr := plain.ListDir(d)
		got, gerr := shared.ListDir(d)
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) || (werr == nil) != (gerr == nil) {
			t.Errorf("ListDir(%s): shared %q, %v; alone %q, %v", d, got, gerr, want, werr)
		}
	}
	if names, _ := shared.ListDir("."); !slices.Contains(names, "with space.py") || !slices.Contains(names, "sub") {
		t.Errorf("root listing %q", names)
	}
	if starts != 1 {
		t.Errorf("the shared reads took %d git starts, want 1", starts)
	}
	changed := []string{"a.txt", "run.sh", "link", "sub/deep/x.py", "new.txt"}
	e := &engine{r: r, cs: ChangeSet{Root: dir, Changed: changed}, src: shared}
	viaObjects := gitModes(ctx, e, "HEAD", e.cs.Changed)
	e.src = plain
	viaLsTree := gitModes(ctx, e, "HEAD", e.cs.Changed)
	if len(viaLsTree) != 4 || viaLsTree["run.sh"] != 0o755 || viaLsTree["link"] != fs.ModeSymlink {
		t.Fatalf("ls-tree modes %v", viaLsTree)
	}
	for p, m := range viaLsTree {
		if viaObjects[p] != m {
			t.Errorf("mode of %s: shared %v, ls-tree %v", p, viaObjects[p], m)
		}
	}
	if _, ok := viaObjects["new.txt"]; ok {
		t.Errorf("a file the base lacks has a mode: %v", viaObjects)
	}
	if starts != 1 {
		t.Errorf("the modes took %d more git starts", starts-1)
	}
}

// countStarts stands in for the git sandbox and counts its starts.
type countStarts struct{ n *int }

func (c countStarts) Wrap(*exec.Cmd, run.Spec) error { *c.n++; return nil }

// After Close, reads still answer, each by a git call of its own.
func TestGitSourceAfterCloseAsksGit(t *testing.T) {
	dir := gitRepo(t)
	put(t, dir, "a.txt", "a\n")
	sh(t, dir, "git", "add", "-A")
	sh(t, dir, "git", "commit", "-qm", "init")
	s := newGitSource(context.Background(), &run.Runner{}, dir, "HEAD")
	if b, err := s.ReadFile("a.txt"); err != nil || string(b) != "a\n" {
		t.Fatalf("before Close: %q, %v", b, err)
	}
	s.Close()
	if b, err := s.ReadFile("a.txt"); err != nil || string(b) != "a\n" {
		t.Fatalf("after Close: %q, %v", b, err)
	}
}
