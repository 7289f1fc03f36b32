package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/sandbox"
)

// The oracle's bash runs in the read-only sandbox even when the session's
// sandbox is off: a command the read-only policy would not even let start
// cannot write here either, which is the second layer.
func TestReadOnlyRunnerCannotWrite(t *testing.T) {
	if err := sandbox.Probe(); err != nil {
		t.Fatalf("the sandbox is needed here (scripts/test installs bubblewrap): %v", err)
	}
	t.Setenv("CHANTO_HOME", t.TempDir())
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Sandbox.Mode = sandbox.ModeOff
	r, err := readOnlyRunner(cfg, dir, RunnerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(context.Background(), run.Spec{Shell: "echo x > made.txt", Dir: dir, Timeout: time.Minute, Purpose: run.Model})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode == 0 {
		t.Errorf("the write succeeded: %s", res.Output)
	}
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Error("made.txt was created")
	}
}
