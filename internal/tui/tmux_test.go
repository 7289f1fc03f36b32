package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// End-to-end sessions: the real binary in a real terminal (tmux), driven
// by keys, with the scripted model; assertions read capture-pane output.

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// chantoBin builds cmd/chanto once for the tmux tests.
func chantoBin(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is missing (scripts/test installs it)")
		}
		t.Skip("tmux is not installed")
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "chanto-tui-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "chanto")
		out, err := exec.Command("go", "build", "-o", binPath, "../../cmd/chanto").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// term is one tmux session running chanto.
type term struct {
	t    *testing.T
	name string
}

// startTerm runs chanto with args in dir in a w×h terminal.
func startTerm(t *testing.T, dir string, w, h int, args ...string) *term {
	t.Helper()
	bin := chantoBin(t)
	name := fmt.Sprintf("chanto-test-%d", time.Now().UnixNano())
	home := os.Getenv("CHANTO_HOME")
	cmd := fmt.Sprintf("cd %q && CHANTO_HOME=%q NO_COLOR=1 TERM=xterm-256color %q %s; echo EXITED $?; sleep 600", dir, home, bin, strings.Join(args, " "))
	if out, err := exec.Command("tmux", "new-session", "-d", "-s", name, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), cmd).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	tm := &term{t: t, name: name}
	t.Cleanup(func() { exec.Command("tmux", "kill-session", "-t", name).Run() })
	return tm
}

func (tm *term) screen() string {
	out, err := exec.Command("tmux", "capture-pane", "-p", "-J", "-S", "-200", "-t", tm.name).Output()
	if err != nil {
		tm.t.Fatalf("capture-pane: %v", err)
	}
	return string(out)
}

// keys sends tmux key names (Enter, Escape, C-c, BTab) or literal text.
func (tm *term) keys(keys ...string) {
	tm.t.Helper()
	if out, err := exec.Command("tmux", append([]string{"send-keys", "-t", tm.name}, keys...)...).CombinedOutput(); err != nil {
		tm.t.Fatalf("send-keys: %v\n%s", err, out)
	}
}

func (tm *term) typeLine(s string) {
	tm.keys("-l", s)
	tm.keys("Enter")
}

// wait polls the screen until it holds want.
func (tm *term) wait(want string) string {
	tm.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		s := tm.screen()
		if strings.Contains(s, want) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("screen never showed %q:\n%s", want, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (tm *term) resize(w, h int) {
	exec.Command("tmux", "resize-window", "-t", tm.name, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h)).Run()
}

func writeScript(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "model.script")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTmuxFixWithPermissionAndGate(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	dir := project(t)
	// The first fix is wrong and the gate sends it back; the second passes.
	script := writeScript(t, `call read {"path":"calc.go"}
---
call edit {"path":"calc.go","old_string":"return a - b","new_string":"return a * b"}
---
say Fixed.
---
expect Add(2, 3) != 5
call edit {"path":"calc.go","old_string":"return a * b","new_string":"return a + b"}
---
say Fixed for real.
`)
	tm := startTerm(t, dir, 100, 40, "--model", "scripted:"+script, "--verify", "--sandbox", "off")
	tm.wait(" out")
	tm.typeLine("fix add")
	tm.wait("Allow edit?")
	tm.keys("y")
	tm.wait("↻ not verified, sent back (attempt 1 of ")
	tm.wait("Allow edit?")
	tm.keys("y")
	s := tm.wait("Verified: ")
	for _, want := range []string{"› fix add", "Edited calc.go (+1 −1)", "✗ go test ./... failed", "Fixed for real."} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
}

func TestTmuxVerifyFullThenAnswer(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	dir := project(t)
	script := writeScript(t, `call read {"path":"calc.go"}
---
call edit {"path":"calc.go","old_string":"return a - b","new_string":"return a + b"}
---
say Done.
`)
	tm := startTerm(t, dir, 120, 40, "--model", "scripted:"+script, "--permission-mode", "accept-edits", "--sandbox", "off")
	tm.wait("verify off")
	tm.typeLine("/verify full")
	tm.wait("verify: on, full suite (/verify full)")
	tm.wait("verify full")
	tm.typeLine("fix add")
	s := tm.wait("Verified: ")
	if !strings.Contains(s, "full suite: /verify full") {
		t.Errorf("the evidence does not name /verify full:\n%s", s)
	}
}

func TestTmuxProtectionCardAndTestEditQuestion(t *testing.T) {
	for _, allow := range []bool{true, false} {
		t.Run(fmt.Sprint("allow=", allow), func(t *testing.T) {
			t.Setenv("CHANTO_HOME", t.TempDir())
			dir := project(t)
			// The sleep gives the user time to answer before the answer is judged.
			script := writeScript(t, `call read {"path":"calc_test.go"}
---
call edit {"path":"calc_test.go","old_string":"if Add(2, 3) != 5 {","new_string":"if Add(2, 3) != -1 {"}
---
call bash {"command":"sleep 3"}
---
say I changed the test.
---
say I changed the test.
---
say I changed the test.
`)
			tm := startTerm(t, dir, 120, 40, "--model", "scripted:"+script, "--permission-mode", "bypass", "--sandbox", "off")
			tm.wait(" out")
			tm.typeLine("make the tests pass")
			tm.wait("⚠ Test protection:")
			tm.wait("Allow this test change for the session?")
			if allow {
				tm.keys("y")
				tm.wait("you allowed the test change in calc_test.go")
			} else {
				tm.keys("n")
				tm.wait("stays refused")
			}
			s := tm.wait("I changed the test.")
			if allow {
				time.Sleep(time.Second)
				if s = tm.screen(); strings.Contains(s, "Not verified") {
					t.Errorf("an allowed test edit was still refused:\n%s", s)
				}
			} else {
				tm.wait("⚠ Not verified: calc_test.go: TestAdd: expected value changed (fix the code, not the tests).")
			}
		})
	}
}

func TestTmuxEscCtrlCResumeAndResize(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	dir := project(t)
	script := writeScript(t, `call bash {"command":"sleep 30"}
---
say never
`)
	tm := startTerm(t, dir, 80, 24, "--model", "scripted:"+script, "--permission-mode", "bypass", "--sandbox", "off")
	tm.wait(" out")
	tm.typeLine("wait for it")
	tm.wait("Run sleep 30")
	tm.keys("Escape")
	tm.wait("⏹ interrupted")
	for _, size := range [][2]int{{20, 6}, {120, 40}, {30, 8}, {80, 24}} {
		tm.resize(size[0], size[1])
		time.Sleep(150 * time.Millisecond)
	}
	tm.wait(" out")
	tm.keys("-l", "draft")
	tm.keys("C-c")
	tm.wait("Press Ctrl+C again to quit")
	tm.keys("C-c")
	tm.wait("EXITED 0")
	if s := tm.screen(); strings.Count(s, "› wait for it") != 1 {
		t.Errorf("the prompt is not in the scrollback exactly once after resizes:\n%s", s)
	}

	// --continue opens the same session, and /resume offers the earlier one.
	script2 := writeScript(t, "say hello again\n")
	tm2 := startTerm(t, dir, 100, 30, "--continue", "--model", "scripted:"+script2, "--sandbox", "off")
	tm2.wait("resumed: ")
	tm2.wait("wait for it")
	tm2.typeLine("/clear")
	tm2.wait("new session")
	tm2.typeLine("/resume")
	tm2.wait("Resume which session?")
	tm2.keys("1")
	tm2.wait("── resumed ")
}

func TestTmuxNoTerminalKeepsTheError(t *testing.T) {
	bin := chantoBin(t)
	cmd := exec.Command(bin)
	cmd.Stdin = nil
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 {
		t.Fatalf("exit = %v, want 2; output %q", err, out)
	}
	if lines := strings.Count(strings.TrimSpace(string(out)), "\n"); lines != 0 {
		t.Fatalf("want one line, got %q", out)
	}
}
