package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chanto-dev/chanto/internal/run"
)

// headIsCommit is git's own answer to HasHead's question.
func headIsCommit(dir string) bool {
	cmd := exec.Command("git", "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	cmd.Dir = dir
	return cmd.Run() == nil
}

// HasHead answers yes only where git does: an unborn branch, loose and
// packed refs, a detached HEAD, a linked worktree.
func TestHasHeadAgreesWithGit(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	repo := filepath.Join(base, "repo")
	os.MkdirAll(repo, 0o755)
	sh(t, repo, "init", "-q", "-b", "main")
	check := func(step, dir string, want bool) {
		t.Helper()
		got := HasHead(nil, dir)
		if git := headIsCommit(dir); got && !git {
			t.Fatalf("%s: HasHead says yes, git no", step)
		}
		if got != want {
			t.Fatalf("%s: HasHead = %v, want %v", step, got, want)
		}
	}
	check("unborn", repo, false)
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\n"), 0o644)
	sh(t, repo, "add", "-A")
	sh(t, repo, "commit", "-qm", "init")
	check("loose ref", repo, true)
	sh(t, repo, "pack-refs", "--all")
	if _, err := os.Stat(filepath.Join(repo, ".git", "refs", "heads", "main")); err == nil {
		t.Fatal("pack-refs left the loose ref")
	}
	check("packed ref", repo, true)
	sh(t, repo, "checkout", "-q", "--detach")
	check("detached", repo, true)
	sh(t, repo, "checkout", "-q", "main")
	sh(t, repo, "checkout", "-q", "--orphan", "fresh")
	check("orphan branch", repo, false)
	sh(t, repo, "checkout", "-q", "main")
	sh(t, repo, "worktree", "add", "-q", "-b", "side", filepath.Join(base, "linked"))
	check("linked worktree", filepath.Join(base, "linked"), true)
	t.Setenv("GIT_DIR", filepath.Join(repo, ".git"))
	check("GIT_DIR set", repo, false)
}

// noFilters is sure only when no configuration file git reads mentions a
// filter or an include; then git config --get-regexp ^filter\. finds
// nothing either.
func TestNoFiltersAgreesWithGit(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	repo := t.TempDir()
	sh(t, repo, "init", "-q")
	gitSays := func() bool {
		_, err := Output(context.Background(), &run.Runner{}, repo, "config", "-z", "--name-only", "--get-regexp", `^filter\.`)
		return err != nil // exit 1: no such key
	}
	check := func(step string, want bool) {
		t.Helper()
		got := noFilters(nil, repo)
		if got && !gitSays() {
			t.Fatalf("%s: noFilters says none, git finds some", step)
		}
		if got != want {
			t.Fatalf("%s: noFilters = %v, want %v", step, got, want)
		}
	}
	check("plain", true)
	sh(t, repo, "config", "filter.lfs.clean", "cat")
	check("repository filter", false)
	sh(t, repo, "config", "--remove-section", "filter.lfs")
	check("filter removed", true)

	inc := filepath.Join(t.TempDir(), "inc")
	os.WriteFile(inc, []byte("[filter \"x\"]\n\tclean = cat\n"), 0o644)
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[include]\n\tpath = "+inc+"\n"), 0o644)
	check("global include", false)
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[FILTER \"Y\"] clean = cat\n"), 0o644)
	check("global filter, upper case, same line", false)
	os.Remove(filepath.Join(home, ".gitconfig"))
	os.MkdirAll(filepath.Join(home, ".config", "git"), 0o755)
	os.WriteFile(filepath.Join(home, ".config", "git", "config"), []byte("[filter.old]\nsmudge = cat\n"), 0o644)
	check("xdg filter, old syntax", false)
	os.Remove(filepath.Join(home, ".config", "git", "config"))
	check("all gone", true)
	t.Setenv("GIT_CONFIG_GLOBAL", inc)
	check("GIT_CONFIG_GLOBAL", false)
}
