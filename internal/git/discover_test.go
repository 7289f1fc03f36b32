package git

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/run"
)

// TestDiscoverAgreesWithGit: wherever Discover answers, git's
// rev-parse --show-toplevel answers the same; where it cannot be sure it
// leaves the answer to git.
func TestDiscoverAgreesWithGit(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	main := filepath.Join(base, "main")
	os.MkdirAll(filepath.Join(main, "sub", "deep"), 0o755)
	sh(t, main, "init", "-q")
	os.WriteFile(filepath.Join(main, "sub", "a.txt"), []byte("a\n"), 0o644)
	sh(t, main, "add", "-A")
	sh(t, main, "commit", "-qm", "init")
	sh(t, main, "worktree", "add", "-q", filepath.Join(base, "linked"))
	os.Symlink(filepath.Join(main, "sub"), filepath.Join(base, "link"))
	moved := filepath.Join(base, "moved")
	os.MkdirAll(filepath.Join(moved, "wt"), 0o755)
	sh(t, moved, "init", "-q")
	sh(t, moved, "config", "core.worktree", filepath.Join(moved, "wt"))
	bare := filepath.Join(main, "sub", "bare.git")
	sh(t, main, "init", "-q", "--bare", bare)
	os.MkdirAll(filepath.Join(bare, "x"), 0o755)
	outside := filepath.Join(base, "none")
	os.MkdirAll(outside, 0o755)

	cases := []struct {
		dir    string
		wantOK bool
	}{
		{main, true},
		{filepath.Join(main, "sub", "deep"), true},
		{filepath.Join(base, "linked"), true},
		{filepath.Join(base, "link"), true},
		{filepath.Join(main, ".git"), false},
		{filepath.Join(moved, "wt"), false},
		{moved, false},
		{filepath.Join(bare, "x"), false},
		{outside, false},
	}
	for _, c := range cases {
		repo, ok := Discover(nil, c.dir)
		if ok != c.wantOK {
			t.Errorf("%s: ok = %v, want %v", c.dir, ok, c.wantOK)
		}
		if !ok {
			continue
		}
		cmd := exec.Command("git", "rev-parse", "--show-toplevel")
		cmd.Dir = c.dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: git: %v", c.dir, err)
		}
		if got, want := repo.Top, strings.TrimSpace(string(out)); got != want {
			t.Errorf("%s: Top = %s, git says %s", c.dir, got, want)
		}
	}
	if _, ok := Discover(&run.Runner{BaseEnv: []string{"GIT_DIR=" + filepath.Join(moved, ".git")}}, main); ok {
		t.Error("GIT_DIR set: Discover answered instead of git")
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

// TestReadIndexAgreesWithGit: the entries are ls-files --stage's, and an
// entry called clean is one git's diff-files finds clean too, with the
// same blob id; index versions 2, 3 and 4; a split index is left to git.
func TestReadIndexAgreesWithGit(t *testing.T) {
	for _, version := range []string{"2", "3", "4"} {
		dir, _ := filepath.EvalSymlinks(t.TempDir())
		sh(t, dir, "init", "-q")
		write := func(name, content string, mode os.FileMode) {
			os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), mode); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 20 {
			write(filepath.Join("pkg", "deep", strings.Repeat("x", i+1)+".go"), "package x\n", 0o644)
		}
		write("run.sh", "#!/bin/sh\n", 0o755)
		write("edited.txt", "one\n", 0o644)
		write("touched.txt", "same\n", 0o644)
		write("assumed.txt", "a\n", 0o644)
		write("skipped.txt", "s\n", 0o644)
		os.Symlink("run.sh", filepath.Join(dir, "link"))
		sh(t, dir, "add", "-A")
		sh(t, dir, "commit", "-qm", "init")
		write("new.txt", "new\n", 0o644)
		sh(t, dir, "add", "-N", "new.txt")
		sh(t, dir, "update-index", "--assume-unchanged", "assumed.txt")
		sh(t, dir, "update-index", "--skip-worktree", "skipped.txt")
		sh(t, dir, "update-index", "--index-version", version)
		write("edited.txt", "two\n", 0o644)
		write("assumed.txt", "b\n", 0o644)
		now := time.Now().Add(time.Hour)
		os.Chtimes(filepath.Join(dir, "touched.txt"), now, now)

		repo, ok := Discover(nil, dir)
		if !ok {
			t.Fatal("Discover: not sure")
		}
		entries, _, err := ReadIndex(repo)
		if err != nil {
			t.Fatalf("v%s: %v", version, err)
		}
		stage := map[string]string{}
		for _, rec := range Split0([]byte(gitOut(t, dir, "ls-files", "-z", "--stage"))) {
			meta, p, _ := strings.Cut(rec, "\t")
			stage[p] = meta
		}
		dirty := map[string]bool{}
		for _, p := range Split0([]byte(gitOut(t, dir, "diff-files", "-z", "--name-only"))) {
			dirty[p] = true
		}
		if len(entries) != len(stage) {
			t.Errorf("v%s: %d entries, ls-files has %d", version, len(entries), len(stage))
		}
		clean := map[string]bool{}
		for _, e := range entries {
			f := strings.Fields(stage[e.Path])
			if len(f) != 3 || f[1] != e.ID || f[0] != strconv.FormatUint(uint64(e.Mode), 8) {
				t.Errorf("v%s: %s: entry %o %s, ls-files %q", version, e.Path, e.Mode, e.ID, stage[e.Path])
			}
			fi, err := os.Lstat(filepath.Join(dir, e.Path))
			if err == nil && e.CleanFor(fi) {
				clean[e.Path] = true
				if dirty[e.Path] {
					t.Errorf("v%s: %s clean here, dirty to git", version, e.Path)
				}
			}
		}
		for _, p := range []string{"edited.txt", "touched.txt", "assumed.txt", "skipped.txt", "new.txt"} {
			if clean[p] {
				t.Errorf("v%s: %s trusted as clean", version, p)
			}
		}
		for _, p := range []string{"run.sh", "link", "pkg/deep/xxx.go"} {
			if !clean[p] {
				t.Errorf("v%s: %s not clean", version, p)
			}
		}
	}
	dir := t.TempDir()
	sh(t, dir, "init", "-q")
	os.WriteFile(filepath.Join(dir, "a"), []byte("a"), 0o644)
	sh(t, dir, "add", "a")
	sh(t, dir, "update-index", "--split-index")
	repo, _ := Discover(nil, dir)
	if _, _, err := ReadIndex(repo); err == nil {
		t.Error("split index read in-process")
	}
}
