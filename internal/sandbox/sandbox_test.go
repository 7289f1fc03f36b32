//go:build linux

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

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
	for _, want := range []string{"Seccomp:\t2", "NoNewPrivs:\t1", "CapEff:\t0000000000000000", strconv.Itoa(DefaultMaxProcs), "/tmp"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

// landlockABI is the kernel's Landlock ABI version, 0 without Landlock.
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, 1)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// TestHelperAloneConfines runs the helper without bubblewrap, so each of
// its layers is seen on its own.
func TestHelperAloneConfines(t *testing.T) {
	home, _ := os.UserHomeDir()
	base, err := os.MkdirTemp(home, "chanto-helper-")
	if err != nil {
		t.Skipf("no folder outside /tmp: %v", err)
	}
	defer os.RemoveAll(base)
	rw, ro := filepath.Join(base, "rw"), filepath.Join(base, "ro")
	os.Mkdir(rw, 0o755)
	os.Mkdir(ro, 0o755)
	exe, _ := os.Executable()
	line := `echo ok > ` + rw + `/f; echo bad > ` + ro + `/f;` +
		`python3 -c 'import ctypes,os; l=ctypes.CDLL(None,use_errno=True); print("ptrace", l.ptrace(16, os.getppid(), 0, 0))';` +
		`python3 -c 'import socket
try:
    socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM); print("vsock allowed")
except OSError as e: print("vsock refused", e.errno)
socket.socket(socket.AF_INET, socket.SOCK_STREAM); print("inet allowed")
socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); print("unix allowed")';` +
		`python3 -c 'import ctypes; l=ctypes.CDLL(None,use_errno=True); print("uring", l.syscall(425, 1, None), ctypes.get_errno())';` +
		`unshare -U true && echo userns-made; ulimit -u`
	out, _ := exec.Command(exe, HelperArg, "--net", "deny", "--nproc", "77", "--rw", rw, "--", "/bin/bash", "bash", "-c", line).CombinedOutput()
	s := string(out)
	// The helper alone has no network namespace; under bubblewrap, inet
	// reaches only the sandbox's own loopback (test/attack checks both).
	for _, want := range []string{"ptrace -1", "vsock refused 97", "inet allowed", "unix allowed", "77", "uring -1 1"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in:\n%s", want, s)
		}
	}
	if strings.Contains(s, "userns-made") {
		t.Errorf("a nested user namespace was created:\n%s", s)
	}
	if b, err := os.ReadFile(filepath.Join(rw, "f")); err != nil || string(b) != "ok\n" {
		t.Errorf("write to the writable root failed: %v\n%s", err, s)
	}
	_, err = os.Stat(filepath.Join(ro, "f"))
	switch abi := landlockABI(); {
	case abi == 0:
		t.Logf("LANDLOCK NOT AVAILABLE on this kernel: the file layer is bubblewrap alone here")
	case err == nil:
		t.Errorf("Landlock (ABI %d) let the helper write outside its roots:\n%s", abi, s)
	}
}

func TestRefusalWithoutBwrap(t *testing.T) {
	sb, err := New(config.Sandbox{}, t.TempDir(), WithBwrapPath("/nonexistent/bwrap"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = (&run.Runner{Sandbox: sb}).Run(context.Background(), run.Spec{Shell: "true"})
	want := `sandbox unavailable: /nonexistent/bwrap not found; install bubblewrap (apt-get install bubblewrap) or set [sandbox] mode = "off"`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	off, _ := New(config.Sandbox{Mode: ModeOff}, t.TempDir(), WithBwrapPath("/nonexistent/bwrap"))
	if _, err := (&run.Runner{Sandbox: off}).Run(context.Background(), run.Spec{Shell: "true"}); err != nil {
		t.Errorf("mode off: %v", err)
	}
	for _, c := range []config.Sandbox{{Mode: "strict"}, {Network: "some"}, {Network: NetAllowlist, AllowDomains: []string{"a@b"}}} {
		if _, err := New(c, t.TempDir()); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

// BenchmarkSandboxOverhead compares `true` run directly and sandboxed and
// reports the median as well as the mean (the budget is on the median).
// CHANTO_BENCH_HELPER names a chanto binary to use as the helper instead
// of this test binary: the real one links far more packages, whose start-up
// the helper pays.
func BenchmarkSandboxOverhead(b *testing.B) {
	if err := Probe(); err != nil {
		b.Skip(err)
	}
	root := b.TempDir()
	var opts []Option
	if h := os.Getenv("CHANTO_BENCH_HELPER"); h != "" {
		opts = append(opts, WithHelper(h))
	}
	sb, _ := New(config.Sandbox{}, root, opts...)
	for _, c := range []struct {
		name string
		r    *run.Runner
	}{{"direct", &run.Runner{}}, {"sandboxed", &run.Runner{Sandbox: sb}}} {
		b.Run(c.name, func(b *testing.B) {
			times := make([]time.Duration, 0, b.N)
			for i := 0; i < b.N; i++ {
				start := time.Now()
				if _, err := c.r.Run(context.Background(), run.Spec{Args: []string{"/bin/true"}, Dir: root}); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
		})
	}
}

// The temp folder: each purpose's own, kept across runs, at its own path;
// the model's commands cannot reach the checks' one, and nothing else of
// chanto's home shows.
func TestTempDirPerProject(t *testing.T) {
	requireSandbox(t)
	home := t.TempDir()
	t.Setenv("CHANTO_HOME", home)
	if err := os.WriteFile(filepath.Join(home, "trust.json"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	r := newRunner(t, root, config.Sandbox{})
	sb := r.Sandbox.(*Sandbox)
	checkTmp, modelTmp := sb.TempDir(run.Check), sb.TempDir(run.Model)
	if checkTmp == "" || modelTmp == "" || checkTmp == modelTmp || !strings.HasPrefix(checkTmp, home+"/tmp/") {
		t.Fatalf("temp dirs %q %q", checkTmp, modelTmp)
	}
	run1 := func(p run.Purpose, line string) string {
		res, err := r.Run(context.Background(), run.Spec{Shell: line, Dir: root, Purpose: p, Timeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return string(res.Output)
	}
	if out := run1(run.Check, `echo $TMPDIR; echo cached > "$TMPDIR/jest_0"`); strings.TrimSpace(out) != checkTmp {
		t.Fatalf("check TMPDIR: %q, want %q", out, checkTmp)
	}
	if out := run1(run.Check, `echo $GOTMPDIR`); strings.TrimSpace(out) != "/tmp" {
		t.Errorf("GOTMPDIR %q: the go command's scratch belongs on the tmpfs", out)
	}
	if out := run1(run.Check, `cat "$TMPDIR/jest_0"`); strings.TrimSpace(out) != "cached" {
		t.Errorf("the checks' temp folder was not kept across runs: %q", out)
	}
	out := run1(run.Model, `echo $TMPDIR; cat `+checkTmp+`/jest_0; cat `+home+`/trust.json; echo x > `+home+`/evil; echo x > "$TMPDIR/mine" && echo wrote`)
	if !strings.HasPrefix(out, modelTmp+"\n") || strings.Contains(out, "cached") || strings.Contains(out, "secret") || !strings.Contains(out, "wrote") {
		t.Errorf("model command saw: %q", out)
	}
	if _, err := os.Stat(filepath.Join(home, "evil")); err == nil {
		t.Error("a model command wrote into chanto's home")
	}
	if out := run1(run.Check, `cat `+home+`/trust.json; ls /tmp`); strings.Contains(out, "secret") {
		t.Errorf("a check read chanto's home: %q", out)
	}
}

// An activated virtualenv and PATH entries under the hidden /tmp are
// bound read-only; the rest of /tmp stays hidden.
func TestInterpreterUnderTmp(t *testing.T) {
	requireSandbox(t)
	base, err := os.MkdirTemp("/tmp", "chanto-interp-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	for _, d := range []string{"venv/bin", "tools/bin", "tools/lib", "other"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"venv/bin/python3", "tools/bin/lintit"} {
		if err := os.WriteFile(filepath.Join(base, f), []byte("#!/bin/sh\necho ran "+f+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(base, "other", "hidden.txt"), []byte("s3cr3t"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	r := newRunner(t, root, config.Sandbox{})
	r.BaseEnv = []string{"VIRTUAL_ENV=" + base + "/venv", "PATH=" + base + "/tools/bin:/usr/bin:/bin"}
	res := sh(t, r, root, base+"/venv/bin/python3; lintit; ls "+base+"/tools/lib && echo lib-ok; cat "+base+"/other/hidden.txt; touch "+base+"/tools/x || echo ro")
	out := string(res.Output)
	for _, want := range []string{"ran venv/bin/python3", "ran tools/bin/lintit", "lib-ok", "ro"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in %q", want, out)
		}
	}
	if strings.Contains(out, "s3cr3t") {
		t.Errorf("the rest of /tmp showed: %q", out)
	}
}
