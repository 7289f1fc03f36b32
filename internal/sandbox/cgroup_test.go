//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/run"
)

// TestCommandStartsInItsCgroup checks, where chanto can make pids cgroups
// (root with a writable hierarchy), that a command starts inside its own
// bounded cgroup and that none of chanto's own threads is left in one
// afterwards, with commands started from many goroutines at once.
func TestCommandStartsInItsCgroup(t *testing.T) {
	requireSandbox(t)
	base, _ := pidsHierarchy()
	if base == "" {
		t.Skip("no writable pids cgroup hierarchy (not root, or no access)")
	}
	root := t.TempDir()
	sb, err := New(config.Sandbox{}, root, WithMaxProcs(77))
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	r := &run.Runner{BaseEnv: []string{"PATH=/usr/bin:/bin"}, Sandbox: sb}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := r.Run(context.Background(), run.Spec{Shell: `cat /proc/self/cgroup; ulimit -u`, Dir: root, Purpose: run.Model})
			if err != nil {
				errs <- err
				return
			}
			if res.ExitCode != 0 {
				errs <- fmt.Errorf("exit %d: %s", res.ExitCode, res.Output)
				return
			}
			if !strings.Contains(string(res.Output), "chanto-") {
				errs <- fmt.Errorf("the command is in no chanto cgroup:\n%s", res.Output)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	tasks, _ := filepath.Glob("/proc/self/task/*/cgroup")
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), "chanto-") {
			t.Errorf("chanto's thread %s stayed in a command's cgroup:\n%s", f, b)
		}
	}
	for _, d := range sb.cgroups.made {
		b, err := os.ReadFile(filepath.Join(d, "pids.max"))
		if err != nil || strings.TrimSpace(string(b)) != "77" {
			t.Errorf("%s: pids.max %q, %v", d, b, err)
		}
	}
}
