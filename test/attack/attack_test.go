package attack

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/hook"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/sandbox"
)

// world is a fake machine around a project: a home folder with start-up
// files, the project (a git repo with .chanto/), a sibling folder sharing
// the project's name prefix and a plain outside folder. It lives under the
// real home folder, not /tmp, so the sandbox sees it (read-only) and must
// refuse writes rather than hide the folder.
type world struct {
	base, home, proj, sibling, outside string
	extraEnv                           []string // for the chanto binary (chantoEnv)
}

func newWorld(t *testing.T) *world {
	t.Helper()
	parent, _ := os.UserHomeDir()
	if fi, err := os.Stat(parent); err != nil || !fi.IsDir() {
		parent = ""
	}
	base, err := os.MkdirTemp(parent, "chanto-attack-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	w := &world{base: base, home: filepath.Join(base, "home"), proj: filepath.Join(base, "proj"),
		sibling: filepath.Join(base, "proj-sibling"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{w.home, w.proj, w.sibling, w.outside, filepath.Join(w.proj, ".chanto")} {
		must(t, os.MkdirAll(d, 0o755))
	}
	must(t, os.WriteFile(filepath.Join(w.home, ".bashrc"), []byte("# original\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(w.proj, ".chanto", "config.toml"), []byte("# project config\n"), 0o644))
	git := exec.Command("git", "init", "-q", w.proj)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	must(t, os.Symlink(w.outside, filepath.Join(w.proj, "planted")))
	return w
}

// snapshot records every file under the world except the project's
// ordinary files, which commands may change.
func (w *world) snapshot(t *testing.T) map[string]string {
	t.Helper()
	snap := map[string]string{}
	err := filepath.Walk(w.base, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(w.base, p)
		inProj := strings.HasPrefix(rel, "proj"+string(filepath.Separator)) || rel == "proj"
		guarded := strings.Contains(rel, ".chanto") || strings.Contains(rel, filepath.Join(".git", "hooks")) ||
			strings.HasSuffix(rel, filepath.Join(".git", "config")) || rel == filepath.Join("proj", ".git")
		if inProj && !guarded {
			return nil
		}
		v := fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			v += ":" + string(b)
		}
		snap[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func (w *world) assertUnchanged(t *testing.T, before map[string]string, what string) {
	t.Helper()
	after := w.snapshot(t)
	for k, v := range after {
		if before[k] != v {
			t.Errorf("%s: host changed: %s is now %q (was %q)", what, k, v, before[k])
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			t.Errorf("%s: host changed: %s disappeared", what, k)
		}
	}
}

func requireSandbox(t *testing.T) {
	t.Helper()
	if err := sandbox.Probe(); err != nil {
		t.Skipf("ATTACK SUITE SKIPPED — this machine cannot run bubblewrap: %v", err)
	}
}

// purposes runs each attack as the model's bash call and as a gate check.
var purposes = []struct {
	name string
	p    run.Purpose
}{{"bash", run.Model}, {"check", run.Check}}

func (w *world) runner(t *testing.T, cfg config.Sandbox, opts ...sandbox.Option) *run.Runner {
	t.Helper()
	sb, err := sandbox.New(cfg, w.proj, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "LANG=C"}
	return &run.Runner{BaseEnv: env, Sandbox: sb}
}

func runLine(t *testing.T, r *run.Runner, p run.Purpose, dir, line string, timeout time.Duration) run.Result {
	t.Helper()
	res, err := r.Run(context.Background(), run.Spec{Shell: line, Dir: dir, Purpose: p, Timeout: timeout})
	if err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	return res
}

func TestFileWritesStayInTheProject(t *testing.T) {
	requireSandbox(t)
	attacks := []struct{ name, line string }{
		{"bashrc", `echo evil >> ~/.bashrc; echo evil >> "$HOME/.bashrc"`},
		{"dotdot", `echo evil > ../outside/x; mkdir ../outside/d`},
		{"sibling prefix", `echo evil > ../proj-sibling/x; echo evil > "$PWD-sibling/y"`},
		{"planted symlink", `echo evil > planted/x; cp /etc/hostname planted/`},
		{"own symlink", `ln -s ../outside own && echo evil > own/x; ln -s ~ h && echo evil >> h/.bashrc`},
		{"git hooks", `printf '#!/bin/sh\necho pwned\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; rm -rf .git/hooks`},
		{"git config", `echo '[core]\n\tfsmonitor = touch /tmp/pwned' >> .git/config; git config core.pager evil; rm -f .git/config`},
		{"git swap", `mv .git .git-old; mkdir -p .git/hooks && echo evil > .git/hooks/post-checkout`},
		{"chanto", `echo evil > .chanto/config.toml; rm -rf .chanto; mv .chanto gone; mkdir -p .chanto/x`},
		{"cd chanto", `cd .chanto && echo evil > config.toml; cd .. && cd ./.chanto/ && touch new`},
		{"tmpdir home", `TMPDIR=$HOME mktemp; TMPDIR=$HOME/ go env GOTMPDIR >/dev/null; export TMPDIR=$HOME; mktemp -d`},
		{"remount", `mount -o remount,rw / ; mount -o remount,rw .chanto; umount .chanto; umount -l .git/hooks; echo evil > .chanto/config.toml; echo evil >> ~/.bashrc`},
		{"nested userns", `unshare -r -m sh -c 'mount -o remount,rw /; echo evil >> ~/.bashrc'; unshare -U id`},
	}
	for _, pp := range purposes {
		for _, a := range attacks {
			t.Run(pp.name+"/"+a.name, func(t *testing.T) {
				w := newWorld(t)
				r := w.runner(t, config.Sandbox{})
				before := w.snapshot(t)
				res := runLine(t, r, pp.p, w.proj, a.line, 20*time.Second)
				w.assertUnchanged(t, before, a.line)
				if t.Failed() {
					t.Logf("output:\n%s", res.Output)
				}
			})
		}
	}
}

// TestSystemFoldersStayReadOnly writes new files only, so a failure does
// not damage the machine; it removes what it finds.
func TestSystemFoldersStayReadOnly(t *testing.T) {
	requireSandbox(t)
	w := newWorld(t)
	r := w.runner(t, config.Sandbox{})
	name := fmt.Sprintf("chanto-attack-%d", os.Getpid())
	targets := []string{"/etc/" + name, "/usr/local/" + name, "/root/" + name, "/var/" + name}
	for _, pp := range purposes {
		runLine(t, r, pp.p, w.proj, "for f in "+strings.Join(targets, " ")+"; do echo evil > $f; done", 10*time.Second)
		for _, f := range targets {
			if _, err := os.Stat(f); err == nil {
				os.Remove(f)
				t.Errorf("%s: %s was created on the host", pp.name, f)
			}
		}
	}
}

// TestSuiteSeesUnsandboxedWrites proves the host checks can fail: the same
// harmless attacks with the sandbox off do change the fake home.
func TestSuiteSeesUnsandboxedWrites(t *testing.T) {
	w := newWorld(t)
	r := w.runner(t, config.Sandbox{Mode: sandbox.ModeOff})
	before := w.snapshot(t)
	runLine(t, r, run.Model, w.proj, `echo evil >> ~/.bashrc; echo evil > ../outside/x; echo evil > .chanto/config.toml`, 10*time.Second)
	after := w.snapshot(t)
	for _, k := range []string{"home/.bashrc", "outside/x", "proj/.chanto/config.toml"} {
		if before[k] == after[k] {
			t.Errorf("unsandboxed write to %s went unnoticed by the snapshot", k)
		}
	}
}

func TestReadOnlyModeKeepsTheProject(t *testing.T) {
	requireSandbox(t)
	w := newWorld(t)
	r := w.runner(t, config.Sandbox{Mode: sandbox.ModeReadOnly})
	runLine(t, r, run.Model, w.proj, "echo x > made.txt; touch /tmp/ok", 10*time.Second)
	if _, err := os.Stat(filepath.Join(w.proj, "made.txt")); err == nil {
		t.Error("read-only mode let a command write into the project")
	}
}

func TestParentIsOutOfReach(t *testing.T) {
	requireSandbox(t)
	marker := "parent-secret-" + strconv.Itoa(os.Getpid())
	t.Setenv("CHANTO_ATTACK_PARENT_TOKEN", marker)
	w := newWorld(t)
	r := w.runner(t, config.Sandbox{})
	pid := strconv.Itoa(os.Getpid())
	line := `cat /proc/` + pid + `/environ; cat /proc/1/environ; cat /proc/*/environ; tr '\0' '\n' < /proc/self/environ;` +
		`python3 -c 'import ctypes,sys; l=ctypes.CDLL(None,use_errno=True); print("attach", l.ptrace(16,int(sys.argv[1]),0,0), ctypes.get_errno())' ` + pid + `;` +
		`sleep 5 & python3 -c 'import ctypes,sys; l=ctypes.CDLL(None,use_errno=True); print("attach-child", l.ptrace(16,int(sys.argv[1]),0,0), ctypes.get_errno())' $!; kill %1`
	for _, pp := range purposes {
		res := runLine(t, r, pp.p, w.proj, line, 20*time.Second)
		out := string(res.Output)
		if strings.Contains(out, marker) {
			t.Errorf("%s: the parent's environment leaked:\n%s", pp.name, out)
		}
		if !strings.Contains(out, "attach -1") || !strings.Contains(out, "attach-child -1") {
			t.Errorf("%s: ptrace did not fail:\n%s", pp.name, out)
		}
		status, _ := os.ReadFile("/proc/self/status")
		if !bytes.Contains(status, []byte("TracerPid:\t0\n")) {
			t.Errorf("%s: the test process is being traced", pp.name)
		}
	}
}

// processesWith lists host processes whose command line holds marker.
func processesWith(marker string) []string {
	var out []string
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(marker)) {
			out = append(out, d.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

func waitGone(marker string, within time.Duration) []string {
	deadline := time.Now().Add(within)
	for {
		left := processesWith(marker)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestBackgroundProcessesDieWithTheCall(t *testing.T) {
	requireSandbox(t)
	w := newWorld(t)
	r := w.runner(t, config.Sandbox{})
	for _, pp := range purposes {
		marker := fmt.Sprintf("3%d.%d", os.Getpid()%1000, pp.p)
		line := `(sleep ` + marker + `; echo late > late.txt) & disown; setsid sleep ` + marker + ` & nohup sleep ` + marker + ` >/dev/null 2>&1 & echo started`
		res := runLine(t, r, pp.p, w.proj, line, 10*time.Second)
		if !strings.Contains(string(res.Output), "started") {
			t.Fatalf("%s: %s", pp.name, res.Output)
		}
		if left := waitGone("sleep\x00"+marker, 3*time.Second); len(left) > 0 {
			t.Errorf("%s: processes outlived the call: %v", pp.name, left)
		}
	}
}

// TestProcessCountIsBounded counts what the kernel let one command start:
// the bound must hold for every user, root included (the kernel does not
// apply RLIMIT_NPROC to real root, so there the sandbox needs a pids
// cgroup).
func TestProcessCountIsBounded(t *testing.T) {
	requireSandbox(t)
	w := newWorld(t)
	r := w.runner(t, config.Sandbox{}, sandbox.WithMaxProcs(64))
	script := `import os, time
n = 0
for i in range(400):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    n += 1
print("forked", n)
`
	res, err := r.Run(context.Background(), run.Spec{Args: []string{"/usr/bin/python3", "-c", script}, Dir: w.proj, Purpose: run.Model, Timeout: 60 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if _, err := fmt.Sscanf(lastLine(string(res.Output)), "forked %d", &n); err != nil {
		t.Fatalf("no count in %q", res.Output)
	}
	if n >= 64 {
		t.Errorf("one command started %d processes under a bound of 64", n)
	}
}

// TestForkBombIsBounded runs a real fork bomb: it must stay inside the
// bound (counted from the host while it runs) and leave nothing behind.
func TestForkBombIsBounded(t *testing.T) {
	requireSandbox(t)
	w := newWorld(t)
	r := w.runner(t, config.Sandbox{}, sandbox.WithMaxProcs(128))
	marker := fmt.Sprintf("bomb%d", os.Getpid())
	line := marker + `(){ ` + marker + `|` + marker + `& }; ` + marker
	peak := make(chan int)
	done := make(chan struct{})
	go func() {
		most := 0
		for {
			most = max(most, len(processesWith(marker)))
			select {
			case <-done:
				peak <- most
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	runLine(t, r, run.Model, w.proj, line, 3*time.Second)
	close(done)
	if most := <-peak; most > 128 {
		t.Errorf("the fork bomb reached %d processes under a bound of 128", most)
	}
	if left := waitGone(marker, 30*time.Second); len(left) > 0 {
		t.Errorf("%d fork-bomb processes survived, e.g. %s", len(left), left[0])
	}
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// listener counts connections and datagrams reaching the host.
type listener struct {
	port int
	hits atomic.Int32
}

func listen(t *testing.T) *listener {
	t.Helper()
	l := &listener{}
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	l.port = tl.Addr().(*net.TCPAddr).Port
	ul, err := net.ListenPacket("udp", "127.0.0.1:"+strconv.Itoa(l.port))
	if err != nil {
		ul, err = net.ListenPacket("udp", "127.0.0.1:0")
		must(t, err)
	}
	t.Cleanup(func() { tl.Close(); ul.Close() })
	go func() {
		for {
			c, err := tl.Accept()
			if err != nil {
				return
			}
			l.hits.Add(1)
			c.Write([]byte("HTTP/1.0 200 OK\r\n\r\nreached\n"))
			c.Close()
		}
	}()
	go func() {
		buf := make([]byte, 512)
		for {
			if _, _, err := ul.ReadFrom(buf); err != nil {
				return
			}
			l.hits.Add(1)
		}
	}()
	return l
}

func TestNetworkDeny(t *testing.T) {
	requireSandbox(t)
	w := newWorld(t)
	l := listen(t)
	p := strconv.Itoa(l.port)
	r := w.runner(t, config.Sandbox{Network: sandbox.NetDeny})
	line := `curl -s -m 3 http://127.0.0.1:` + p + `/; echo curl=$?;` +
		`(exec 3<>/dev/tcp/127.0.0.1/` + p + ` && echo tcp-open) ; ` +
		`nc -w 2 127.0.0.1 ` + p + ` </dev/null; ` +
		`python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"x", ("127.0.0.1", ` + p + `))'; ` +
		`python3 -c 'import socket; socket.create_connection(("127.0.0.1", ` + p + `), 2)'; ` +
		`getent hosts example.com; echo dns=$?; echo done`
	for _, pp := range purposes {
		res := runLine(t, r, pp.p, w.proj, line, 20*time.Second)
		out := string(res.Output)
		if l.hits.Load() != 0 || strings.Contains(out, "reached") || strings.Contains(out, "tcp-open") {
			t.Errorf("%s: the host listener was reached (%d hits):\n%s", pp.name, l.hits.Load(), out)
		}
		if !strings.Contains(out, "dns=2") && !strings.Contains(out, "dns=1") {
			t.Errorf("%s: a DNS lookup worked without network:\n%s", pp.name, out)
		}
		if !strings.Contains(out, "done") {
			t.Errorf("%s: the line did not finish:\n%s", pp.name, out)
		}
	}
}

// TestNetworkDenyKeepsOwnLoopback: with the network denied, a test can
// still serve and reach its own loopback (httptest, a local database),
// while families that leave the namespace (vsock) stay refused.
func TestNetworkDenyKeepsOwnLoopback(t *testing.T) {
	requireSandbox(t)
	w := newWorld(t)
	r := w.runner(t, config.Sandbox{Network: sandbox.NetDeny})
	line := `python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
c = socket.create_connection(s.getsockname(), 2); a, _ = s.accept()
c.sendall(b"ping"); print("loopback", a.recv(4).decode())
try:
    socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM); print("vsock opened")
except OSError as e:
    print("vsock refused", e.errno)
'`
	for _, pp := range purposes {
		out := string(runLine(t, r, pp.p, w.proj, line, 20*time.Second).Output)
		if !strings.Contains(out, "loopback ping") {
			t.Errorf("%s: the sandbox's own loopback did not work:\n%s", pp.name, out)
		}
		if !strings.Contains(out, "vsock refused") {
			t.Errorf("%s: an AF_VSOCK socket was not refused:\n%s", pp.name, out)
		}
	}
}

func TestAllowlistRefusesLocalTargets(t *testing.T) {
	requireSandbox(t)
	w := newWorld(t)
	l := listen(t)
	p := strconv.Itoa(l.port)
	r := w.runner(t, config.Sandbox{Network: sandbox.NetAllowlist,
		AllowDomains: []string{"localhost:" + p, "127.0.0.1:" + p, "allowed.test"}})
	line := `curl -s -m 5 http://localhost:` + p + `/; echo; ` +
		`curl -s -m 5 http://127.0.0.1:` + p + `/; echo; ` +
		`curl -s -m 5 -p http://localhost:` + p + `/; echo; ` +
		`curl -s -m 5 "http://allowed.test.127.0.0.1.nip.io:` + p + `/"; echo; ` +
		`curl -s -m 5 "http://user@localhost:` + p + `/"; echo; ` +
		`curl -s -m 5 --noproxy '*' http://127.0.0.1:` + p + `/; echo direct=$?; ` +
		`curl -s -m 5 http://allowed.test:` + p + `/; echo`
	for _, pp := range purposes {
		res := runLine(t, r, pp.p, w.proj, line, 40*time.Second)
		out := string(res.Output)
		if l.hits.Load() != 0 || strings.Contains(out, "reached") {
			t.Errorf("%s: the loopback listener was reached through the allowlist (%d hits):\n%s", pp.name, l.hits.Load(), out)
		}
		if !strings.Contains(out, "refused") {
			t.Errorf("%s: no refusal from the proxy:\n%s", pp.name, out)
		}
	}
}

func TestSecretsNeverReachCommands(t *testing.T) {
	requireSandbox(t)
	w := newWorld(t)
	sb, err := sandbox.New(config.Sandbox{}, w.proj)
	must(t, err)
	secrets := map[string]string{
		"OPENAI_API_KEY": "", "MY_SECRET": "", "GH_TOKEN": "", "DB_PASSWORD": "", "LDAP_PASSWD": "",
		"AWS_CREDENTIAL_FILE": "", "PRIVATE_THING": "", "SESSION_ID": "", "COOKIE_JAR": "",
		"GITHUB_PAT": "", "SENTRY_DSN": "", "AWS_REGION": "", "AZURE_TENANT": "",
		"GOOGLE_APPLICATION_CREDENTIALS": "", "VAULT_ADDR": "", "KUBECONFIG": "", "SSH_AUTH_SOCK": "",
		"DATABASE_URL": "postgres://app:hunter2@db/app", "MYLLM": "", "DEPLOY_TOKEN": "",
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "HARMLESS=visible"}
	for k, v := range secrets {
		if v == "" {
			v = "leak-" + strings.ToLower(k)
			secrets[k] = v
		}
		env = append(env, k+"="+v)
	}
	r := &run.Runner{BaseEnv: env, Sandbox: sb, ScrubExtra: []string{"MYLLM"}, PassEnv: []string{"DEPLOY_TOKEN"}}
	for _, pp := range purposes {
		res := runLine(t, r, pp.p, w.proj, "env; tr '\\0' '\\n' < /proc/self/environ", 10*time.Second)
		out := string(res.Output)
		if !strings.Contains(out, "HARMLESS=visible") {
			t.Fatalf("%s: env did not run:\n%s", pp.name, out)
		}
		for k, v := range secrets {
			leaked := strings.Contains(out, v)
			if k == "DEPLOY_TOKEN" && pp.p == run.Check {
				if !leaked {
					t.Errorf("check: pass_env DEPLOY_TOKEN missing")
				}
				continue
			}
			if leaked {
				t.Errorf("%s: %s reached the command", pp.name, k)
			}
		}
	}
}

func TestRefusesWhenBwrapIsMissing(t *testing.T) {
	w := newWorld(t)
	sb, err := sandbox.New(config.Sandbox{}, w.proj, sandbox.WithBwrapPath(filepath.Join(w.base, "no-bwrap")))
	must(t, err)
	r := &run.Runner{Sandbox: sb}
	_, err = r.Run(context.Background(), run.Spec{Shell: "echo evil >> ~/.bashrc", Dir: w.proj})
	if err == nil || !strings.Contains(err.Error(), "sandbox unavailable") || !strings.Contains(err.Error(), "mode = \"off\"") {
		t.Fatalf("err = %v, want a refusal saying how to fix it", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestHostUnixSocketsOutOfReach listens on a path socket under /run (where
// docker, dbus and databases live) and on an abstract socket, and checks
// that no sandboxed command reaches either.
func TestHostUnixSocketsOutOfReach(t *testing.T) {
	requireSandbox(t)
	w := newWorld(t)
	path := fmt.Sprintf("/run/chanto-attack-%d.sock", os.Getpid())
	abstract := fmt.Sprintf("@chanto-attack-%d", os.Getpid())
	var hits atomic.Int32
	for _, addr := range []string{path, abstract} {
		l, err := net.Listen("unix", addr)
		if err != nil {
			t.Skipf("cannot listen on %s: %v", addr, err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				hits.Add(1)
				c.Close()
			}
		}()
	}
	connect := func(addr string) string {
		py := strings.Replace(addr, "@", `\0`, 1)
		return `python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect("` + py + `"); print("connected")'; `
	}
	for _, network := range []string{sandbox.NetDeny, sandbox.NetAllow} {
		r := w.runner(t, config.Sandbox{Network: network})
		for _, pp := range purposes {
			for _, addr := range []string{path, abstract} {
				before := hits.Load()
				res := runLine(t, r, pp.p, w.proj, connect(addr)+"echo done", 10*time.Second)
				if hits.Load() == before {
					continue
				}
				if addr == abstract && network == sandbox.NetAllow && !landlockScoping() {
					t.Logf("ABSTRACT SOCKET REACHABLE with network = allow: this kernel lacks Landlock scoping (ABI 6)")
					continue
				}
				t.Errorf("%s/%s: reached host socket %s:\n%s", network, pp.name, addr, res.Output)
			}
		}
	}
}

// landlockScoping reports Landlock ABI 6 or later (abstract socket scoping).
func landlockScoping() bool {
	out, err := exec.Command("python3", "-c", "import ctypes;l=ctypes.CDLL(None);print(l.syscall(444,None,0,1))").Output()
	if err != nil {
		return false
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return n >= 6
}

// TestNoPrivilegeRegained: a setuid copy of bash and sudo gain no
// capability inside the sandbox (no_new_privs, capabilities dropped).
func TestNoPrivilegeRegained(t *testing.T) {
	requireSandbox(t)
	w := newWorld(t)
	r := w.runner(t, config.Sandbox{})
	line := `cp /bin/bash ./suid-bash && chmod u+s ./suid-bash && ./suid-bash -p -c 'grep CapEff /proc/self/status';` +
		`sudo -n grep CapEff /proc/self/status 2>/dev/null; grep -E 'CapEff|NoNewPrivs' /proc/self/status`
	for _, pp := range purposes {
		res := runLine(t, r, pp.p, w.proj, line, 10*time.Second)
		out := string(res.Output)
		if !strings.Contains(out, "NoNewPrivs:\t1") {
			t.Errorf("%s: no_new_privs not set:\n%s", pp.name, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "CapEff:") && strings.TrimSpace(strings.TrimPrefix(l, "CapEff:")) != "0000000000000000" {
				t.Errorf("%s: a process regained capabilities: %s", pp.name, l)
			}
		}
	}
}

// TestHooksRunSandboxed: a trusted hook's command is confined like any
// other; an untrusted one never starts.
func TestHooksRunSandboxed(t *testing.T) {
	requireSandbox(t)
	w := newWorld(t)
	r := w.runner(t, config.Sandbox{})
	before := w.snapshot(t)
	evil := config.Hooks{PreToolUse: []config.Hook{{Command: `echo evil >> ~/.bashrc; echo evil > .git/hooks/pre-commit; echo ran > hook-ran`}}}
	for _, trusted := range []bool{true, false} {
		h, err := hook.New(evil, r, trusted)
		must(t, err)
		if _, err := h.Run(context.Background(), hook.PreToolUse, hook.Payload{Cwd: w.proj, ToolName: "bash"}); err != nil {
			t.Logf("hook error (not blocking): %v", err)
		}
		_, ranErr := os.Stat(filepath.Join(w.proj, "hook-ran"))
		if trusted && ranErr != nil {
			t.Errorf("the trusted hook did not run at all: %v", ranErr)
		}
		if !trusted && ranErr == nil {
			t.Errorf("the untrusted hook ran")
		}
		os.Remove(filepath.Join(w.proj, "hook-ran"))
	}
	w.assertUnchanged(t, before, "hook")
}

// TestCredentialStoresHidden: keys and tokens in the home folder and
// chanto's own folder read as empty inside the sandbox.
func TestCredentialStoresHidden(t *testing.T) {
	requireSandbox(t)
	w := newWorld(t)
	chantoHome := filepath.Join(w.base, "chanto-home")
	t.Setenv("CHANTO_HOME", chantoHome)
	marker := fmt.Sprintf("secret-material-%d", os.Getpid())
	files := []string{filepath.Join(w.home, ".ssh", "id_ed25519"), filepath.Join(w.home, ".aws", "credentials"),
		filepath.Join(w.home, ".netrc"), filepath.Join(w.home, ".config", "gh", "hosts.yml"),
		filepath.Join(chantoHome, "history", "s1.jsonl")}
	for _, f := range files {
		must(t, os.MkdirAll(filepath.Dir(f), 0o700))
		must(t, os.WriteFile(f, []byte(marker), 0o600))
	}
	r := w.runner(t, config.Sandbox{})
	line := "cat " + strings.Join(files, " ") + "; grep -r " + marker + " " + w.home + " " + chantoHome + "; echo done"
	for _, pp := range purposes {
		res := runLine(t, r, pp.p, w.proj, line, 10*time.Second)
		out := string(res.Output)
		if strings.Contains(out, marker) || !strings.Contains(out, "done") {
			t.Errorf("%s: credential material readable:\n%s", pp.name, out)
		}
	}
	for _, f := range files {
		if b, _ := os.ReadFile(f); string(b) != marker {
			t.Errorf("%s changed on the host", f)
		}
	}
}
