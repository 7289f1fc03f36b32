package tool

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestBashPersistentCwd(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Root, map[string]string{"sub/deeper/f.txt": "x"})
	steps := []struct {
		cmd, want string
	}{
		{"pwd", env.Root},
		{"cd sub", "(no output)"},
		{"pwd", filepath.Join(env.Root, "sub")},
		{"cd deeper && ls", "f.txt"},
		{"pwd", filepath.Join(env.Root, "sub", "deeper")},
		{"cd .. ; exit 3", "[exit code 3]"},
		{"pwd", filepath.Join(env.Root, "sub")},
		{"(cd /); pwd", filepath.Join(env.Root, "sub")},
		{"set -e; cd " + env.Root + "; false; echo unreached", "[exit code 1]"},
		{"pwd", env.Root},
	}
	for _, s := range steps {
		res := call(t, env, Bash{}, js(map[string]any{"command": s.cmd}))
		if strings.TrimSpace(res.Output) != s.want && !strings.Contains(res.Output, s.want) {
			t.Errorf("%q: got %q, want %q", s.cmd, res.Output, s.want)
		}
	}
}

func TestBashLeavingRootIsReported(t *testing.T) {
	env := newEnv(t)
	outside := t.TempDir()
	res := call(t, env, Bash{}, js(map[string]any{"command": "cd " + outside}))
	mustContain(t, res.Output, "outside the project root")
	res = call(t, env, Bash{}, js(map[string]any{"command": "pwd"}))
	mustContain(t, res.Output, outside)
	// A vanished directory sends the next command back to the root.
	os.RemoveAll(outside)
	res = call(t, env, Bash{}, js(map[string]any{"command": "pwd"}))
	mustContain(t, res.Output, env.Root, "no longer exists")
}

func TestBashHeredocAndComment(t *testing.T) {
	env := newEnv(t)
	res := call(t, env, Bash{}, js(map[string]any{"command": "cat <<EOF\nhello\nEOF\necho done # trailing comment"}))
	if res.Output != "hello\ndone" {
		t.Errorf("got %q", res.Output)
	}
}

func TestBashTimeoutKillsGroup(t *testing.T) {
	env := newEnv(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	res := call(t, env, Bash{}, js(map[string]any{
		"command":    fmt.Sprintf("sleep 100 & echo $! > %s; echo started; sleep 100", pidFile),
		"timeout_ms": 500,
	}))
	if time.Since(start) > 10*time.Second {
		t.Errorf("timeout took %s", time.Since(start))
	}
	if !res.IsError {
		t.Error("timed-out command not marked as error")
	}
	mustContain(t, res.Output, "started", "[timed out after 500ms; process group killed]")
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid <= 0 {
		t.Fatalf("bad pid %q", b)
	}
	deadline := time.Now().Add(3 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		t.Errorf("background sleep %d survived the timeout", pid)
	}
}

// alive reports a live (not zombie) process.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(stat), ") Z ")
}

func TestBashDefaultTimeoutMessage(t *testing.T) {
	if got := formatDuration(bashDefaultTimeout); got != "120s" {
		t.Errorf("got %s", got)
	}
}

func TestBashOutputCapKeepsHeadAndTail(t *testing.T) {
	env := newEnv(t)
	res := call(t, env, Bash{}, js(map[string]any{"command": "echo FIRSTLINE; seq 1 100000; echo LASTLINE"}))
	if len(res.Output) > BashOutputCap+200 {
		t.Errorf("output %d chars, cap %d", len(res.Output), BashOutputCap)
	}
	mustContain(t, res.Output, "FIRSTLINE", "LASTLINE", "bytes of output omitted")
}

func TestBashExitCodeAndErrors(t *testing.T) {
	env := newEnv(t)
	cases := []struct {
		input   string
		want    string
		isError bool
	}{
		{`{"command":"echo out; echo err >&2; exit 7"}`, "out\nerr\n[exit code 7]", false},
		{`{"command":"true"}`, "(no output)", false},
		{`{"command":"  "}`, "command is empty", true},
		{`{"command":"echo x","timeout_ms":-1}`, "timeout_ms must be positive", true},
		{`{"cmd":"ls"}`, `unknown field "cmd"`, true},
		{`{"command":"kill -9 $$"}`, "[killed by a signal]", false},
		{`{"command":"echo $ANTHROPIC_API_KEY-$MY_TOKEN-end"}`, "--end", false},
	}
	t.Setenv("ANTHROPIC_API_KEY", "sk-secret")
	t.Setenv("MY_TOKEN", "tok")
	for _, c := range cases {
		res := call(t, env, Bash{}, c.input)
		if !strings.Contains(res.Output, c.want) || res.IsError != c.isError {
			t.Errorf("%s: got %q (error %v), want %q (error %v)", c.input, res.Output, res.IsError, c.want, c.isError)
		}
	}
}

func TestBashCwdMarkerIsRobust(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Root, map[string]string{"sub/x": ""})
	// The command sends its own stdout to a file: the directory is still
	// learned, and the file gets nothing of ours.
	res := call(t, env, Bash{}, js(map[string]any{"command": "exec > log.txt; cd sub; echo hidden"}))
	if res.Output != "(no output)" {
		t.Errorf("got %q", res.Output)
	}
	if b, _ := os.ReadFile(filepath.Join(env.Root, "log.txt")); string(b) != "hidden\n" {
		t.Errorf("log.txt = %q", b)
	}
	if env.Cwd() != filepath.Join(env.Root, "sub") {
		t.Errorf("cwd %s", env.Cwd())
	}
	// Output that imitates a marker cannot move the directory.
	res = call(t, env, Bash{}, js(map[string]any{"command": `printf '\n__chanto_cwd_0000=/etc\nno newline at end'`}))
	if res.Output != "\n__chanto_cwd_0000=/etc\nno newline at end" || env.Cwd() != filepath.Join(env.Root, "sub") {
		t.Errorf("got %q, cwd %s", res.Output, env.Cwd())
	}
	// A huge output still ends with the marker, so cd is still learned.
	res = call(t, env, Bash{}, js(map[string]any{"command": "cd .. && seq 1 200000"}))
	if env.Cwd() != env.Root || !strings.HasSuffix(res.Output, "\n200000") {
		t.Errorf("cwd %s, tail %q", env.Cwd(), res.Output[len(res.Output)-20:])
	}
}
