package tui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/chanto-dev/chanto/internal/config"

	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/event"
)

// A known model's tokens are priced in the footer and /cost; an unknown
// one shows tokens only, never a guessed price.
func TestCostInFooterAndSlashCost(t *testing.T) {
	m := newTestModel(t, project(t), "say hi\n", nil)
	m.width = 120
	m.usage = []event.Usage{{InputTokens: 1000, OutputTokens: 200, CacheReadTokens: 9000}, {InputTokens: 500, OutputTokens: 100}}
	if f := m.footer(120); !strings.Contains(f, "10.5k in / 300 out") || strings.Contains(f, "$") {
		t.Errorf("unknown model's footer = %q", f)
	}
	m.command("/cost")
	if got := m.printed[len(m.printed)-1]; !strings.Contains(got, "no price known for test: tokens only") || strings.Contains(got, "$") {
		t.Errorf("/cost for an unknown model:\n%s", got)
	}
	m.opts.App.Model = "claude-sonnet-4-5"
	// 1,500 in at $3, 300 out at $15, 9,000 from the cache at $0.30 (per million).
	if f := m.footer(120); !strings.Contains(f, "10.5k in / 300 out · $0.01") {
		t.Errorf("footer = %q", f)
	}
	m.command("/cost")
	got := m.printed[len(m.printed)-1]
	for _, want := range []string{"turn 1:  10.0k in, 200 out (9000 from the cache), $0.01", "turn 2:  500 in, 100 out, $0.00", "all:     10.5k in, 300 out (9000 from the cache), $0.01"} {
		if !strings.Contains(got, want) {
			t.Errorf("/cost lacks %q:\n%s", want, got)
		}
	}
}

// The footer shows how much of the model's window is left once the
// conversation was measured, from the turn's end.
func TestContextLeftFromTheTurnEnd(t *testing.T) {
	m := newTestModel(t, project(t), "say hi\n", nil)
	typeText(m, "hello")
	press(m, tea.KeyEnter, 0)
	pump(t, m, isTurnEnd)
	if m.ctxWindow <= 0 || m.ctxUsed <= 0 {
		t.Fatalf("context = %d of %d", m.ctxUsed, m.ctxWindow)
	}
	m.ctxUsed = m.ctxWindow * 3 / 4
	if f := m.footer(120); !strings.Contains(f, "25% context left") {
		t.Errorf("footer = %q", f)
	}
}

// "a" answers always: the rule is saved for the folder and /permissions
// says where it came from.
func TestAlwaysAnswerIsSavedAndListed(t *testing.T) {
	dir := project(t)
	m := newTestModel(t, dir, "call bash {\"command\":\"go vet ./...\"}\n---\nsay ok\n", nil)
	typeText(m, "vet it")
	press(m, tea.KeyEnter, 0)
	pump(t, m, isQuestion)
	typeText(m, "a")
	pump(t, m, isTurnEnd)
	out := strings.Join(m.printed, "\n")
	if !strings.Contains(out, "always allowed in this folder: Bash(go vet:*) (saved in ") {
		t.Errorf("scrollback:\n%s", out)
	}
	if saved, err := config.SavedAllows(dir); err != nil || len(saved) != 1 {
		t.Fatalf("saved = %v, %v", saved, err)
	}
	m.command("/permissions")
	if got := m.printed[len(m.printed)-1]; !strings.Contains(got, `Bash(go vet:*)  (your "always", saved in `) {
		t.Errorf("/permissions:\n%s", got)
	}
}

// A command another file registers is run, listed by /help and offered
// by the popup like a built-in one.
func TestRegisteredCommand(t *testing.T) {
	ran := ""
	registerCommand(command{"/zz-test", "ARG", "a test command", func(m *model, arg string) tea.Cmd { ran = arg; return nil }})
	t.Cleanup(func() { commands = commands[:len(commands)-1] })
	m := newTestModel(t, project(t), "say hi\n", nil)
	m.command("/zz-test hello")
	if ran != "hello" {
		t.Errorf("ran with %q", ran)
	}
	m.command("/help")
	if !strings.Contains(m.printed[len(m.printed)-1], "/zz-test ARG") {
		t.Error("/help does not list it")
	}
	typeText(m, "/zz")
	if s := m.suggestions(); len(s) != 1 || s[0] != "/zz-test" {
		t.Errorf("popup = %v", s)
	}
	defer func() {
		if recover() == nil {
			t.Error("a second /zz-test was accepted")
		}
	}()
	registerCommand(command{"/zz-test", "", "", nil})
}
