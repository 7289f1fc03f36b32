package git

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
