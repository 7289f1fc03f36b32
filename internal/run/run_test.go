package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRunExitCodeAndOutput(t *testing.T) {
	r := &Runner{}
	res, err := r.Run(context.Background(), Spec{Shell: "echo out; echo err >&2; exit 3"})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || !strings.Contains(string(res.Output), "out") || !strings.Contains(string(res.Output), "err") {
		t.Fatalf("got %+v", res)
	}
}

func TestRunStdoutSeparate(t *testing.T) {
	var stdout bytes.Buffer
	res, err := (&Runner{}).Run(context.Background(), Spec{Args: []string{"sh", "-c", "echo json; echo noise >&2"}, Stdout: &stdout})
	if err != nil || res.ExitCode != 0 {
		t.Fatal(err, res.ExitCode)
	}
	if stdout.String() != "json\n" {
		t.Fatalf("stdout = %q", stdout.String())
	}
}

// samePipe prints "same" when the child's stdout and stderr are one pipe.
const samePipe = `if [ /proc/self/fd/1 -ef /proc/self/fd/2 ]; then echo same; else echo two; fi`

func TestRunCombinedSharesOnePipe(t *testing.T) {
	var script strings.Builder
	script.WriteString(samePipe + "\n")
	var want strings.Builder
	want.WriteString("same\n")
	for i := range 50 {
		fmt.Fprintf(&script, "echo out%d; echo err%d >&2\n", i, i)
		fmt.Fprintf(&want, "out%d\nerr%d\n", i, i)
	}
	var stdout bytes.Buffer
	res, err := (&Runner{}).Run(context.Background(), Spec{Shell: script.String(), Stdout: &stdout, Combined: true})
	if err != nil || res.ExitCode != 0 {
		t.Fatal(err, res.ExitCode)
	}
	if stdout.String() != want.String() {
		t.Errorf("Stdout saw %q, want both streams in order", stdout.String())
	}
	if string(res.Output) != want.String() {
		t.Errorf("Output = %q, want both streams in order", res.Output)
	}
	if _, err := (&Runner{}).Run(context.Background(), Spec{Shell: "true", Stderr: &stdout, Combined: true}); err == nil {
		t.Error("Combined with Stderr: no error")
	}
}

func TestRunPipes(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec Spec
		want string
	}{
		{"nothing asked", Spec{}, "same"},
		{"live only", Spec{Live: io.Discard}, "same"},
		{"stdout apart", Spec{Stdout: io.Discard}, "two"},
		{"stderr apart", Spec{Stderr: io.Discard}, "two"},
	} {
		tc.spec.Shell = samePipe
		res, err := (&Runner{}).Run(context.Background(), tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(res.Output)); got != tc.want {
			t.Errorf("%s: child saw %q pipes, want %q", tc.name, got, tc.want)
		}
	}
}

func TestRunNotFound(t *testing.T) {
	_, err := (&Runner{}).Run(context.Background(), Spec{Args: []string{"chanto-no-such-program"}})
	var nf *NotFoundError
	if !errors.As(err, &nf) || nf.Name != "chanto-no-such-program" {
		t.Fatalf("want NotFoundError, got %v", err)
	}
}

// A timeout kills the whole group, including a child in the background.
func TestRunTimeoutKillsGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	res, err := (&Runner{}).Run(context.Background(), Spec{
		Shell:   "sleep 100 & echo $! > " + pidFile + "; wait",
		Timeout: 300 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut {
		t.Fatalf("want TimedOut, got %+v", res)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
	assertGone(t, pidFile)
}

// A daemon left behind by a command that exited is killed with its group.
func TestRunKillsLeftoverDaemon(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	res, err := (&Runner{}).Run(context.Background(), Spec{Shell: "(sleep 100 >/dev/null 2>&1 &  echo $! > " + pidFile + "); exit 0"})
	if err != nil || res.ExitCode != 0 {
		t.Fatal(err, res)
	}
	assertGone(t, pidFile)
}

func assertGone(t *testing.T, pidFile string) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		// A killed child of ours may linger as a zombie until reaped by init.
		if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(stat), ") Z ") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("process %d still running", pid)
}

func TestCappedKeepsHeadAndTail(t *testing.T) {
	c := NewCapped(100)
	for i := 0; i < 1000; i++ {
		c.Write([]byte("line " + strconv.Itoa(i) + "\n"))
	}
	out := string(c.Bytes())
	if !c.Truncated() || !strings.HasPrefix(out, "line 0\n") || !strings.HasSuffix(out, "line 999\n") || !strings.Contains(out, "omitted") {
		t.Fatalf("got %q", out)
	}
	if len(out) > 200 {
		t.Fatalf("cap not enforced: %d bytes", len(out))
	}
}

func TestEnvironScrubsSecrets(t *testing.T) {
	r := &Runner{
		BaseEnv:    []string{"PATH=/bin", "ANTHROPIC_API_KEY=x", "GITHUB_TOKEN=x", "MY_PAT=x", "DB=postgres://u:pw@h/db", "AWS_REGION=x", "HOME=/root", "NPM_CONFIG=x", "OWN=x", "CI_PASS=keep"},
		PassEnv:    []string{"GITHUB_TOKEN"},
		ScrubExtra: []string{"OWN"},
	}
	model := strings.Join(r.Environ(Model, nil), " ")
	if model != "PATH=/bin HOME=/root NPM_CONFIG=x CI_PASS=keep" {
		t.Fatalf("model env: %s", model)
	}
	check := strings.Join(r.Environ(Check, []string{"X=1"}), " ")
	if check != "PATH=/bin GITHUB_TOKEN=x HOME=/root NPM_CONFIG=x CI_PASS=keep X=1" {
		t.Fatalf("check env: %s", check)
	}
	if dl := strings.Join(r.Environ(Download, nil), " "); dl != "PATH=/bin GITHUB_TOKEN=x HOME=/root NPM_CONFIG=x CI_PASS=keep" {
		t.Fatalf("download env: %s", dl)
	}
	if in := strings.Join(r.Environ(Internal, nil), " "); strings.Contains(in, "GITHUB_TOKEN") {
		t.Fatalf("internal env: %s", in)
	}
}

// wrapRecorder notes that it wrapped a command and leaves it as it is.
type wrapRecorder struct{ wrapped int }

func (w *wrapRecorder) Wrap(*exec.Cmd, Spec) error { w.wrapped++; return nil }

func TestRunDownloadSandbox(t *testing.T) {
	sb, dl := &wrapRecorder{}, &wrapRecorder{}
	r := &Runner{Sandbox: sb, DownloadSandbox: dl}
	for _, p := range []Purpose{Check, Download, Internal} {
		if _, err := r.Run(context.Background(), Spec{Args: []string{"true"}, Purpose: p}); err != nil {
			t.Fatal(err)
		}
	}
	if sb.wrapped != 2 || dl.wrapped != 1 {
		t.Errorf("sandbox wrapped %d, download sandbox %d; want 2 and 1", sb.wrapped, dl.wrapped)
	}
	// chanto's own git runs in the git sandbox only, or unwrapped.
	gs := &wrapRecorder{}
	r.GitSandbox = gs
	if _, err := r.Run(context.Background(), Spec{Args: []string{"true"}, Purpose: Git}); err != nil {
		t.Fatal(err)
	}
	if gs.wrapped != 1 || sb.wrapped != 2 {
		t.Errorf("git: git sandbox wrapped %d, sandbox %d; want 1 and 2", gs.wrapped, sb.wrapped)
	}
	// Without a download sandbox, downloads stay in the sandbox.
	r.DownloadSandbox = nil
	if _, err := r.Run(context.Background(), Spec{Args: []string{"true"}, Purpose: Download}); err != nil {
		t.Fatal(err)
	}
	if sb.wrapped != 3 {
		t.Errorf("a download without a download sandbox was not sandboxed")
	}
}
