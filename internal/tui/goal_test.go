package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/chanto-dev/chanto/internal/config"
)

func TestGoalCommand(t *testing.T) {
	dir := project(t)
	m := newTestModel(t, dir, "say I did nothing.\n---\nsay Still nothing.\n", func(c *config.Config) {
		c.TeamChecks = []config.TeamCheck{{Name: "lint", Command: "true", Paths: []string{"**/*.go"}}}
	})
	run := func(line string) string {
		m.printed = nil
		typeText(m, line)
		press(m, tea.KeyEnter, 0)
		return strings.Join(m.printed, "\n")
	}
	if out := run("/goal"); !strings.Contains(out, "no goal set") {
		t.Errorf("/goal: %q", out)
	}
	if out := run("/goal notes exist"); !strings.Contains(out, "goal: notes exist") || !strings.Contains(out, "no criteria yet") {
		t.Errorf("/goal TEXT: %q", out)
	}
	if out := run("/goal criteria file: notes.md ;; test: TestAdd"); !strings.Contains(out, "1. file: notes.md") || !strings.Contains(out, "2. test: TestAdd") {
		t.Errorf("/goal criteria: %q", out)
	}
	if g := m.sess.Goal(); g == nil || g.Statement != "notes exist" || len(g.Criteria) != 2 {
		t.Fatalf("session goal %+v", g)
	}
	if out := run("/goal criteria output: v1"); !strings.Contains(out, "want output: /REGEX/ COMMAND") {
		t.Errorf("bad criterion: %q", out)
	}
	if out := run("/status"); !strings.Contains(out, "goal:        notes exist (2 criteria)") || !strings.Contains(out, "team checks: lint (**/*.go)") {
		t.Errorf("/status: %q", out)
	}
	// A goal file in an untrusted folder is refused; trusted, it loads.
	os.MkdirAll(filepath.Join(dir, ".chanto", "goals"), 0o755)
	os.WriteFile(filepath.Join(dir, ".chanto", "goals", "ship.toml"), []byte("statement = \"ship\"\ncriteria = [\"true\"]\nmax_turns = 9\n"), 0o644)
	if out := run("/goal file ship"); !strings.Contains(out, "is not trusted") {
		t.Errorf("untrusted goal file: %q", out)
	}
	if _, err := config.Trust(dir); err != nil {
		t.Fatal(err)
	}
	if out := run("/goal file ship"); !strings.Contains(out, "goal: ship") || !strings.Contains(out, "budget: max_turns 9") || !strings.Contains(out, "goal files: ship") {
		t.Errorf("/goal file: %q", out)
	}
	if out := run("/goal clear"); !strings.Contains(out, "goal cleared") || m.sess.Goal() != nil {
		t.Errorf("/goal clear: %q, goal %+v", out, m.sess.Goal())
	}
}

// TestGoalTurn: a goal set with /goal decides the turn: its unmet
// criterion goes back to the model, then ends the turn not verified.
func TestGoalTurn(t *testing.T) {
	m := newTestModel(t, project(t), "expect [Goal set by the user]\nsay I did nothing.\n---\nexpect Criterion 1 of 1 is not met\nsay Still nothing.\n", func(c *config.Config) {
		c.Guardrails.Checks = []string{"true"} // the project's own test is broken
	})
	typeText(m, "/goal criteria file: notes.md")
	press(m, tea.KeyEnter, 0)
	m.printed = nil
	typeText(m, "write the notes")
	press(m, tea.KeyEnter, 0)
	pump(t, m, isTurnEnd)
	if out := strings.Join(m.printed, "\n"); !strings.Contains(out, "goal criterion 1 of 1 not met: notes.md: it does not exist") {
		t.Fatalf("scrollback:\n%s", out)
	}
}
