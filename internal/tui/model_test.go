package tui

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/chanto-dev/chanto/internal/app"
	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/llm/scripted"
	"github.com/chanto-dev/chanto/internal/sandbox"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// project is a git repository with a broken Add and its test.
func project(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.22\n",
		"calc.go":      "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a - b }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"Add(2, 3) != 5\")\n\t}\n}\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// newTestModel builds a model on a real session playing script in dir,
// at 80×24, with the clock fixed so frames are stable.
func newTestModel(t testing.TB, dir, script string, edit func(*config.Config)) *model {
	t.Helper()
	t.Setenv("CHANTO_HOME", t.TempDir())
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now = func() time.Time { return fixed }
	t.Cleanup(func() { now = time.Now })
	sc, err := scripted.Parse("test.script", script)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := app.OpenTranscript(app.Reopen{}, dir, "scripted:test")
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Model = "scripted:test"
	cfg.Sandbox.Mode = sandbox.ModeOff
	if edit != nil {
		edit(&cfg)
	}
	m := newModel(Options{App: app.Options{Config: cfg, Cwd: dir, Provider: scripted.New(sc), Model: "test", Transcript: tr}, NoColor: true})
	m.record = true
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(m.build(m.opts.App)().(builtMsg))
	if m.sess == nil {
		t.Fatalf("no session: %v", m.printed)
	}
	t.Cleanup(func() { m.sess.Close() })
	return m
}

func typeText(m *model, s string) {
	for _, r := range s {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func press(m *model, code rune, mod tea.KeyMod) {
	m.Update(tea.KeyPressMsg{Code: code, Mod: mod})
}

// pump feeds session updates to the model until stop says so.
func pump(t *testing.T, m *model, stop func(app.Update) bool) {
	t.Helper()
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case u := <-m.sess.Updates():
			m.onUpdate(u)
			if stop(u) {
				return
			}
		case <-timeout:
			t.Fatalf("timed out; printed so far:\n%s", strings.Join(m.printed, "\n"))
		}
	}
}

func isQuestion(u app.Update) bool { return u.Question != nil }
func isTurnEnd(u app.Update) bool  { return u.TurnEnd != nil }

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

// frame is the live region with the session's temp paths made stable.
func frame(m *model) string {
	f := m.frame()
	f = strings.ReplaceAll(f, m.opts.App.Cwd, "$WORK")
	return f
}

const fixScript = `say I'll look at the code.
call read {"path":"calc.go"}
---
call edit {"path":"calc.go","old_string":"return a - b","new_string":"return a + b"}
---
say Fixed **Add**.
`

func TestPromptPermissionEditAndEvidence(t *testing.T) {
	dir := project(t)
	m := newTestModel(t, dir, fixScript, func(c *config.Config) { c.Guardrails.Enabled = true })
	golden(t, "idle.golden", frame(m))
	typeText(m, "fix add")
	press(m, tea.KeyEnter, 0)
	if !m.turn.busy {
		t.Fatal("Enter did not start a turn")
	}
	pump(t, m, isQuestion)
	if m.mode != modeQuestion {
		t.Fatalf("mode = %v after a question", m.mode)
	}
	golden(t, "question.golden", frame(m))
	typeText(m, "y")
	pump(t, m, isTurnEnd)
	out := strings.Join(m.printed, "\n")
	for _, want := range []string{"› fix add", "● Read calc.go (4 lines)", "allowed once: edit calc.go", "● Edited calc.go (+1 −1)", "- return a - b", "+ return a + b", "✓ go test ./... passed", "Verified: "} {
		if !strings.Contains(out, want) {
			t.Errorf("scrollback lacks %q:\n%s", want, out)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "calc.go"))
	if !strings.Contains(string(b), "a + b") {
		t.Fatal("the edit did not happen")
	}
}

func TestDenyWithReasonGoesToTheModel(t *testing.T) {
	m := newTestModel(t, project(t), `call bash {"command":"rm calc.go"}
---
expect the user declined this call: keep it
say OK, I left it.
`, nil)
	typeText(m, "delete it")
	press(m, tea.KeyEnter, 0)
	pump(t, m, isQuestion)
	typeText(m, "n")
	if m.mode != modeReason {
		t.Fatalf("mode = %v after n", m.mode)
	}
	typeText(m, "keep it")
	press(m, tea.KeyEnter, 0)
	pump(t, m, isTurnEnd)
	if out := strings.Join(m.printed, "\n"); !strings.Contains(out, "denied: bash rm calc.go (keep it)") || !strings.Contains(out, "OK, I left it.") {
		t.Fatalf("scrollback:\n%s", out)
	}
}

func TestCtrlCClearsThenQuits(t *testing.T) {
	m := newTestModel(t, project(t), "say hi\n", nil)
	typeText(m, "draft")
	press(m, 'c', tea.ModCtrl)
	if m.input.Value() != "" || m.quitting {
		t.Fatalf("first Ctrl+C: input %q, quitting %v", m.input.Value(), m.quitting)
	}
	if !strings.Contains(frame(m), "Press Ctrl+C again to quit") {
		t.Fatalf("no hint:\n%s", frame(m))
	}
	press(m, 'c', tea.ModCtrl)
	if !m.quitting {
		t.Fatal("second Ctrl+C did not quit")
	}
}

func TestCtrlDQuitsOnlyOnAnEmptyInput(t *testing.T) {
	m := newTestModel(t, project(t), "say hi\n", nil)
	typeText(m, "x")
	press(m, 'd', tea.ModCtrl)
	if m.quitting {
		t.Fatal("Ctrl+D quit with text in the input")
	}
	press(m, tea.KeyBackspace, 0)
	press(m, 'd', tea.ModCtrl)
	if !m.quitting {
		t.Fatal("Ctrl+D on an empty input did not quit")
	}
}

func TestEscInterruptsAndKeepsThePartialReply(t *testing.T) {
	m := newTestModel(t, project(t), `call bash {"command":"sleep 30"}
---
say never
`, func(c *config.Config) { c.Permissions.Mode = "bypass" })
	typeText(m, "wait")
	press(m, tea.KeyEnter, 0)
	pump(t, m, func(u app.Update) bool { return u.Event != nil && u.Event.Type == "tool.started" })
	press(m, tea.KeyEscape, 0)
	start := time.Now()
	pump(t, m, isTurnEnd)
	if time.Since(start) > 20*time.Second {
		t.Fatal("the command was not killed")
	}
	if out := strings.Join(m.printed, "\n"); !strings.Contains(out, "⏹ interrupted") {
		t.Fatalf("scrollback:\n%s", out)
	}
}

func TestSlashCommands(t *testing.T) {
	m := newTestModel(t, project(t), "say hi\n", nil)
	run := func(line string) string {
		m.printed = nil
		typeText(m, line)
		press(m, tea.KeyEnter, 0)
		return strings.Join(m.printed, "\n")
	}
	if out := run("/verfy"); !strings.Contains(out, "unknown command /verfy; did you mean /verify?") {
		t.Errorf("/verfy: %q", out)
	}
	if out := run("/verify full"); !strings.Contains(out, "verify: on, full suite (/verify full)") {
		t.Errorf("/verify full: %q", out)
	}
	if g := m.sess.Settings().Gate; !g.Verify || !g.Full {
		t.Errorf("gate after /verify full: %+v", g)
	}
	if out := run("/verify related"); !strings.Contains(out, "verify: on, related tests") {
		t.Errorf("/verify related: %q", out)
	}
	if out := run("/verify off"); !strings.Contains(out, "verify: off") {
		t.Errorf("/verify off: %q", out)
	}
	if out := run("/allow-test-edit calc_test.go"); !strings.Contains(out, "you allowed test edits in calc_test.go") {
		t.Errorf("/allow-test-edit: %q", out)
	}
	if g := m.sess.Settings().Gate; len(g.AllowTestEdits) != 1 {
		t.Errorf("allowed test edits: %v", g.AllowTestEdits)
	}
	if out := run("/status"); !strings.Contains(out, "session:     "+m.sess.ID()) || !strings.Contains(out, "trust:") {
		t.Errorf("/status: %q", out)
	}
	if out := run("/permissions"); !strings.Contains(out, "mode: default") {
		t.Errorf("/permissions: %q", out)
	}
	if out := run("/help"); !strings.Contains(out, "/allow-test-edit PATH") || !strings.Contains(out, "Ctrl+G") {
		t.Errorf("/help: %q", out)
	}
}

func TestShiftTabCyclesThePermissionMode(t *testing.T) {
	m := newTestModel(t, project(t), "say hi\n", nil)
	for _, want := range []string{"accept-edits", "plan", "default"} {
		press(m, tea.KeyTab, tea.ModShift)
		if got := m.sess.Settings().Permissions.Mode; got != want {
			t.Fatalf("mode = %q, want %q", got, want)
		}
		if !strings.Contains(m.footer(80), want) {
			t.Fatalf("footer does not show %q: %s", want, m.footer(80))
		}
	}
}

func TestLargePasteCollapsesAndIsSentWhole(t *testing.T) {
	m := newTestModel(t, project(t), "say hi\n", nil)
	big := strings.Repeat("line\n", 119) + "last\x00\x07"
	m.Update(tea.PasteMsg{Content: big})
	if v := m.input.Value(); v != "[pasted 120 lines]" {
		t.Fatalf("input = %q", v)
	}
	got := m.expand(m.input.Value())
	if strings.Count(got, "line\n") != 119 || !strings.HasSuffix(got, "last") {
		t.Fatalf("expanded paste lost text or kept control bytes: %q", got[len(got)-20:])
	}
}

func TestHistoryWalk(t *testing.T) {
	m := newTestModel(t, project(t), "say one\n---\nsay two\n", nil)
	for _, p := range []string{"first", "second"} {
		typeText(m, p)
		press(m, tea.KeyEnter, 0)
		pump(t, m, isTurnEnd)
	}
	press(m, tea.KeyUp, 0)
	if v := m.input.Value(); v != "second" {
		t.Fatalf("↑ = %q", v)
	}
	press(m, tea.KeyUp, 0)
	if v := m.input.Value(); v != "first" {
		t.Fatalf("↑↑ = %q", v)
	}
	press(m, tea.KeyDown, 0)
	press(m, tea.KeyDown, 0)
	if v := m.input.Value(); v != "" {
		t.Fatalf("↓↓ = %q", v)
	}
	press(m, 'r', tea.ModCtrl)
	typeText(m, "fir")
	press(m, tea.KeyEnter, 0)
	if v := m.input.Value(); v != "first" {
		t.Fatalf("Ctrl+R fir = %q", v)
	}
}

func TestTinyTerminalAndResizeStorm(t *testing.T) {
	m := newTestModel(t, project(t), "say hi\n", nil)
	for i := 0; i < 200; i++ {
		m.Update(tea.WindowSizeMsg{Width: 1 + i%120, Height: 1 + i%40})
	}
	m.Update(tea.WindowSizeMsg{Width: 20, Height: 6})
	typeText(m, "a prompt much longer than twenty cells")
	f := m.frame()
	if h := lipgloss.Height(f); h > 5 {
		t.Errorf("frame is %d lines on a 6-line screen (one row must stay free):\n%s", h, f)
	}
	if w := lipgloss.Width(f); w > 20 {
		t.Errorf("frame is %d cells wide on a 20-cell screen:\n%s", w, f)
	}
	golden(t, "tiny.golden", f)
}

func TestAtPathCompletion(t *testing.T) {
	m := newTestModel(t, project(t), "say hi\n", nil)
	m.Update(listFiles(m.sess.Runner(), m.opts.App.Cwd)().(filesMsg))
	typeText(m, "look at @cal")
	if s := m.suggestions(); len(s) == 0 || s[0] != "calc.go" {
		t.Fatalf("suggestions = %v", s)
	}
	press(m, tea.KeyTab, 0)
	if v := m.input.Value(); v != "look at @calc.go " {
		t.Fatalf("input = %q", v)
	}
	if got := m.expand(m.input.Value()); !strings.Contains(got, `<file path="calc.go">`) || !strings.Contains(got, "func Add") {
		t.Fatalf("expand = %q", got)
	}
}
