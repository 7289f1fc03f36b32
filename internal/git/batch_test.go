package git

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chanto-dev/chanto/internal/run"
)

// sandboxLike wraps nothing but stands in for a git sandbox, so Outputs
// batches its commands; it counts the starts.
type sandboxLike struct{ starts *int }

func (s sandboxLike) Wrap(*exec.Cmd, run.Spec) error { *s.starts++; return nil }

// markedRepo is a repository with a change and untracked files whose
// names look like markers or shell, and the change-set commands to run
// in it.
func markedRepo(t *testing.T) (string, [][]string) {
	t.Helper()
	dir := t.TempDir()
	sh(t, dir, "init", "-q")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	sh(t, dir, "add", "-A")
	sh(t, dir, "commit", "-qm", "init")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("b\n"), 0o644)
	for _, n := range []string{"new file.txt", "it's", "chanto-0123 0", "$(touch pwned)"} {
		os.WriteFile(filepath.Join(dir, n), []byte("n\n"), 0o644)
	}
	return dir, [][]string{
		{"diff", "--name-status", "-z", "-M", "HEAD", "--"},
		{"ls-files", "-z", "--others", "--exclude-standard"},
		{"rev-parse", "HEAD"},
	}
}

// Outputs gives each command the output Output gives it, in one start,
// with names that look like its markers, and reports the first failure.
func TestOutputsMatchesOutput(t *testing.T) {
	dir, cmds := markedRepo(t)
	ctx := context.Background()
	starts := 0
	batched := &run.Runner{GitSandbox: sandboxLike{&starts}}
	outs, err := Outputs(ctx, batched, dir, cmds...)
	if err != nil {
		t.Fatal(err)
	}
	if starts != 1 {
		t.Errorf("%d starts for %d commands, want 1", starts, len(cmds))
	}
	for i, c := range cmds {
		want, err := Output(ctx, &run.Runner{}, dir, c...)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(outs[i], want) {
			t.Errorf("%v: batched %q, alone %q", c, outs[i], want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("a file name ran as a command")
	}
	_, err = Outputs(ctx, batched, dir, []string{"rev-parse", "HEAD"}, []string{"rev-parse", "--verify", "no-such-rev"})
	ge, ok := err.(*Error)
	if !ok || ge.ExitCode == 0 || ge.Args[len(ge.Args)-1] != "no-such-rev" {
		t.Fatalf("a failing second command: %v", err)
	}
}
