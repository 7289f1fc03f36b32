package attack

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// endsOnSIGTERM starts chanto, sends SIGTERM once it is inside whatever
// hangs, and fails unless chanto is gone well before that would end and
// left no process of the hang behind. The bound is a hang detector, not a
// speed figure: the hang itself lasts ten minutes.
func (w *world) endsOnSIGTERM(t *testing.T, hang string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(chantoBin(t), args...)
	cmd.Dir = w.proj
	cmd.Env = append(append(w.env(), w.extraEnv...), "CHANTO_HOME="+filepath.Join(w.base, "chanto-home"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	must(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(2 * time.Minute)
	for len(processesWith(hang)) == 0 && time.Now().Before(deadline) {
		select {
		case err := <-done:
			t.Fatalf("chanto ended before the hang started (%v):\n%s", err, out.Bytes())
		case <-time.After(100 * time.Millisecond):
		}
	}
	must(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("chanto ignored SIGTERM for a minute:\n%s", out.Bytes())
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit code %d after SIGTERM, want 1 (interrupted):\n%s", code, out.Bytes())
	}
	if left := waitGone(hang, 5*time.Second); len(left) > 0 {
		t.Errorf("processes outlived chanto: %v", left)
	}
	return out.Bytes()
}

func TestSIGTERMEndsChantoPromptly(t *testing.T) {
	requireSandbox(t)
	n := os.Getpid() % 1000
	t.Run("hanging check", func(t *testing.T) {
		w := newWorld(t)
		w.repo(t)
		w.write(t, "a.txt", "TWO\n")
		hang := fmt.Sprintf("sleep\x00%d.1", 600+n)
		w.endsOnSIGTERM(t, hang, "verify", "--check", fmt.Sprintf("sleep %d.1", 600+n))
	})
	t.Run("hanging model command", func(t *testing.T) {
		w := newWorld(t)
		w.repo(t)
		script := filepath.Join(w.base, "model.script")
		must(t, os.WriteFile(script, []byte(fmt.Sprintf("call bash {\"command\": \"sleep %d.2\"}\n---\nsay Done.\n", 600+n)), 0o644))
		w.endsOnSIGTERM(t, fmt.Sprintf("sleep\x00%d.2", 600+n), "-p", "wait", "--model", "scripted:"+script, "--permission-mode", "bypass")
	})
	t.Run("putback restored first", func(t *testing.T) {
		w := newWorld(t)
		w.repo(t)
		w.write(t, "check.sh", fmt.Sprintf("if grep -q TWO a.txt; then exit 1; fi\nsleep %d.3\n", 600+n))
		w.git(t, "add", "check.sh")
		w.git(t, "commit", "-qm", "check")
		w.write(t, "a.txt", "TWO\n")
		w.endsOnSIGTERM(t, fmt.Sprintf("sleep\x00%d.3", 600+n), "verify", "--check", "bash check.sh")
		if b, _ := os.ReadFile(filepath.Join(w.proj, "a.txt")); string(b) != "TWO\n" {
			t.Errorf("a.txt after SIGTERM during the baseline = %q, want the changed version back", b)
		}
	})
	t.Run("hanging transport", func(t *testing.T) {
		// A lazy fetch whose transport never answers: chanto's git must
		// not start it, and chanto must finish on its own.
		w := newWorld(t)
		w.repo(t)
		w.lazyFetch(t, "ext", w.script(t, "transport", fmt.Sprintf("sleep %d.4", 600+n)))
		w.change(t)
		out, err := w.chanto(t, 3*time.Minute, "verify", "--check", "true")
		if left := processesWith(fmt.Sprintf("sleep\x00%d.4", 600+n)); len(left) > 0 {
			t.Errorf("the transport ran: %v (%v)\n%s", left, err, out)
			for _, p := range left {
				var pid int
				fmt.Sscanf(p, "%d:", &pid)
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
}
