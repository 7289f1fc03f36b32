package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/run"
)

// requireSandbox skips only when the machine cannot create namespaces,
// and says so loudly.
func requireSandbox(t *testing.T) {
	t.Helper()
	if err := Probe(); err != nil {
		t.Skipf("SANDBOX TESTS SKIPPED — this machine cannot run bubblewrap: %v", err)
	}
}

func newRunner(t *testing.T, root string, cfg config.Sandbox, opts ...Option) *run.Runner {
	t.Helper()
	sb, err := New(cfg, root, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return &run.Runner{Sandbox: sb}
}

func sh(t *testing.T, r *run.Runner, dir, line string) run.Result {
	t.Helper()
	res, err := r.Run(context.Background(), run.Spec{Shell: line, Dir: dir, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	return res
}

func TestSandboxBasics(t *testing.T) {
	requireSandbox(t)
	root := t.TempDir()
	outside := t.TempDir()
	r := newRunner(t, root, config.Sandbox{})
	res := sh(t, r, root, "echo hi > made.txt && cat made.txt && echo x > "+outside+"/evil; echo rc=$?")
	if !strings.Contains(string(res.Output), "hi") {
		t.Fatalf("output %q", res.Output)
	}
	if _, err := os.Stat(filepath.Join(root, "made.txt")); err != nil {
		t.Errorf("write inside the project failed: %v\n%s", err, res.Output)
	}
	if _, err := os.Stat(filepath.Join(outside, "evil")); err == nil {
		t.Errorf("write outside the project succeeded\n%s", res.Output)
	}
	t.Logf("%s", res.Output)
}

func TestHelperLayersActive(t *testing.T) {
	requireSandbox(t)
	root := t.TempDir()
	r := newRunner(t, root, config.Sandbox{})
	res := sh(t, r, root, "grep -E 'Seccomp|NoNewPrivs|CapEff' /proc/self/status; ulimit -u; echo $TMPDIR")
	out := string(res.Output)
	for _, want := range []string{"Seccomp:\t2", "NoNewPrivs:\t1", "CapEff:\t0000000000000000", "2048", "/tmp"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}
