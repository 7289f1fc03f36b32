package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/run"
)

func sh(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// hostile is a repository whose configuration names a marker-writing
// command in every place a read could start one.
func hostile(t *testing.T) (dir, marker string) {
	t.Helper()
	dir, marker = t.TempDir(), filepath.Join(t.TempDir(), "ran")
	cmd := "sh -c 'echo $0 >> " + marker + "; cat' "
	sh(t, dir, "init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.txt filter=lfs diff=tc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sh(t, dir, "add", "-A")
	sh(t, dir, "commit", "-qm", "init")
	for k, v := range map[string]string{
		"filter.lfs.clean": cmd + "clean", "filter.lfs.smudge": cmd + "smudge", "filter.lfs.process": cmd + "process",
		"filter.lfs.required": "true", "core.fsmonitor": cmd + "fsmonitor", "diff.external": cmd + "external",
		"diff.tc.textconv": cmd + "textconv", "core.pager": cmd + "pager", "core.hooksPath": filepath.Join(dir, "hooks"),
	} {
		sh(t, dir, "config", k, v)
	}
	// Stat-dirty but the same bytes: git must look at the content.
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, marker
}

func TestReadsRunNothingTheRepositoryNames(t *testing.T) {
	dir, marker := hostile(t)
	ctx := context.Background()
	r := &run.Runner{}
	for _, args := range [][]string{
		{"diff", "--name-status", "-z", "-M", "HEAD", "--"},
		{"diff-files", "-z", "--name-only"},
		{"ls-files", "-z", "--cached", "--others", "--exclude-standard"},
		{"check-ignore", "-z", "--stdin"},
		{"cat-file", "blob", "HEAD:a.txt"},
	} {
		out, err := Run2(ctx, r, dir, args...)
		if err != nil && !strings.Contains(err.Error(), "check-ignore") {
			t.Errorf("git %v: %v", args, err)
		}
		if args[0] == "diff" && !strings.Contains(string(out), "a.txt") {
			t.Errorf("git diff missed the change: %q", out)
		}
	}
	objs := NewObjects(ctx, r, dir)
	if obj, err := objs.Read("HEAD:a.txt"); err != nil || obj.Type != "blob" {
		t.Errorf("cat-file --batch: %+v, %v", obj, err)
	}
	objs.Close()
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("a command the repository names ran: %s", b)
	}
}

// Run2 is Output with git's own errors ignored for commands that exit 1
// on purpose.
func Run2(ctx context.Context, r *run.Runner, dir string, args ...string) ([]byte, error) {
	return Output(ctx, r, dir, args...)
}

func TestFiltersOffHashesBytes(t *testing.T) {
	dir, _ := hostile(t)
	// With the filter off, a.txt is compared as its bytes: changed.
	out, err := Output(context.Background(), &run.Runner{}, dir, "diff-files", "-z", "--name-only")
	if err != nil {
		t.Fatal(err)
	}
	if got := Split0(out); len(got) != 1 || got[0] != "a.txt" {
		t.Errorf("diff-files = %q, want a.txt", got)
	}
}

func TestTimeout(t *testing.T) {
	dir := t.TempDir()
	sh(t, dir, "init", "-q")
	// A check-ignore waiting on a stdin that never ends.
	pr, pw, _ := os.Pipe()
	defer pw.Close()
	err := Run(context.Background(), &run.Runner{}, Cmd{Dir: dir, Args: []string{"check-ignore", "--stdin"}, Stdin: pr, Timeout: 200e6})
	if ge, ok := err.(*Error); !ok || !ge.TimedOut {
		t.Fatalf("err = %v, want a timeout", err)
	}
}

func TestFolders(t *testing.T) {
	main := t.TempDir()
	sh(t, main, "init", "-q")
	sh(t, main, "commit", "-q", "--allow-empty", "-m", "x")
	wt := filepath.Join(t.TempDir(), "wt")
	sh(t, main, "worktree", "add", "-q", wt)
	got := Folders(filepath.Join(wt))
	want := []string{wt, filepath.Join(main, ".git", "worktrees", "wt"), filepath.Join(main, ".git")}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Folders = %q, want %q", got, want)
	}
}
