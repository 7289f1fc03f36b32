package tui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/chanto-dev/chanto/internal/event"
)

// bare is a model with no session, fed events by hand.
func bare(t *testing.T) *model {
	t.Helper()
	t.Setenv("CHANTO_HOME", t.TempDir())
	m := newModel(Options{NoColor: true})
	m.record = true
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.turn = turnView{busy: true, inputs: map[string][]byte{}, subSums: map[string][2]string{}}
	return m
}

func bashRun(m *model, id, command, output string) {
	in, _ := json.Marshal(map[string]string{"command": command})
	m.onEvent(&event.Event{Type: event.ToolStarted, Tool: &event.Tool{ID: id, Name: "bash", Input: in}})
	m.onEvent(&event.Event{Type: event.ToolCompleted, Tool: &event.Tool{ID: id, Name: "bash", Output: output, DurationMS: 1200}})
}

// The scrollback shows a failed command's tail; Ctrl+O shows all of it,
// and what finishes while the view is open reaches the scrollback after.
func TestCtrlOShowsTheWholeOutput(t *testing.T) {
	m := bare(t)
	var out []string
	for i := 1; i <= 30; i++ {
		out = append(out, "line "+strings.Repeat("x", i%3)+string(rune('a'+i%26)))
	}
	out[0] = "first line of the output"
	bashRun(m, "c1", "go test ./...", strings.Join(out, "\n")+"\n[exit code 1]\n")
	if short := m.printed[len(m.printed)-1]; strings.Contains(short, "first line of the output") {
		t.Fatalf("the scrollback line is not the tail:\n%s", short)
	}
	press(m, 'o', tea.ModCtrl)
	if m.mode != modeTranscript {
		t.Fatalf("mode = %v after Ctrl+O", m.mode)
	}
	if v := m.View(); !v.AltScreen {
		t.Error("the transcript view is not on the alternate screen")
	}
	press(m, 'g', 0)
	if v := m.View().Content; !strings.Contains(v, "first line of the output") || !strings.Contains(v, "Ran go test ./...") {
		t.Errorf("the transcript's top lacks the whole output:\n%s", v)
	}
	n := len(m.printed)
	if cmd := m.print("finished while open"); cmd != nil {
		t.Error("a print went to the scrollback under the transcript view")
	}
	press(m, tea.KeyEscape, 0)
	if m.mode != modeInput || len(m.pending) != 0 || len(m.printed) != n+1 {
		t.Errorf("after Esc: mode %v, %d pending", m.mode, len(m.pending))
	}
}

// A subagent shows under its task line while it runs and leaves one line
// summing it up; its own text never reaches the reply.
func TestSubagentNestedAndSummed(t *testing.T) {
	m := bare(t)
	task, _ := json.Marshal(map[string]string{"description": "find Sign"})
	m.onEvent(&event.Event{Type: event.ToolStarted, Tool: &event.Tool{ID: "call_1", Name: "task", Input: task}})
	sub := event.Subagent{ID: "call_1", Name: "explore", Model: "anthropic/claude-haiku-4-5", Description: "find Sign"}
	m.onEvent(&event.Event{Type: event.SubagentStarted, Subagent: &sub, SubagentID: "call_1", ParentToolID: "call_1"})
	rd, _ := json.Marshal(map[string]string{"path": "calc.go"})
	m.onEvent(&event.Event{Type: event.ToolStarted, Tool: &event.Tool{ID: "s1", Name: "read", Input: rd}, SubagentID: "call_1", ParentToolID: "call_1"})
	m.onEvent(&event.Event{Type: event.MessageDelta, Text: "subagent thinking aloud", SubagentID: "call_1", ParentToolID: "call_1"})
	f := m.frame()
	if !strings.Contains(f, "Task find Sign") || !strings.Contains(f, "↳ explore · find Sign · Read calc.go") {
		t.Errorf("live region:\n%s", f)
	}
	if strings.Contains(f, "thinking aloud") {
		t.Errorf("the subagent's text is in the reply:\n%s", f)
	}
	m.onEvent(&event.Event{Type: event.ToolCompleted, Tool: &event.Tool{ID: "s1", Name: "read", Output: "a\nb\n"}, SubagentID: "call_1", ParentToolID: "call_1"})
	ms := int64(2300)
	done := sub
	done.DurationMS, done.Usage = &ms, &event.Usage{InputTokens: 402, OutputTokens: 21}
	m.onEvent(&event.Event{Type: event.SubagentCompleted, Subagent: &done, SubagentID: "call_1", ParentToolID: "call_1"})
	if len(m.printed) != 0 {
		t.Errorf("the summary came before its task line: %q", m.printed)
	}
	m.onEvent(&event.Event{Type: event.ToolCompleted, Tool: &event.Tool{ID: "call_1", Name: "task", Output: "Sign is in calc.go"}})
	if got := m.printed[len(m.printed)-1]; got != "● Task find Sign\n  ↳ explore · find Sign: 1 step, 2.3 s, 402 in / 21 out" {
		t.Errorf("task line and summary = %q", got)
	}
	if strings.Contains(m.frame(), "↳") {
		t.Error("a finished subagent stays in the live region")
	}
	if log := strings.Join(m.log, "\n"); !strings.Contains(log, "    ● Read calc.go (2 lines)") {
		t.Errorf("the transcript lacks the subagent's steps:\n%s", log)
	}
}

// The oracle's review: a live line, then its verdict; findings whole.
func TestReviewShown(t *testing.T) {
	m := bare(t)
	m.onEvent(&event.Event{Type: event.ReviewStarted, Review: &event.Review{Files: 2, DiffBytes: 900}})
	if f := m.frame(); !strings.Contains(f, "Reviewing the change: 2 files (oracle)") {
		t.Errorf("live region:\n%s", f)
	}
	ms := int64(5200)
	m.onEvent(&event.Event{Type: event.ReviewCompleted, Review: &event.Review{Verdict: event.ReviewFindings, Model: "openai/gpt-5", DurationMS: &ms, Findings: "calc.go:12: Div returns 0 for b == 0."}})
	got := m.printed[len(m.printed)-1]
	for _, want := range []string{"⚠ review found something (oracle on openai/gpt-5, 5.2 s)", "calc.go:12: Div returns 0 for b == 0."} {
		if !strings.Contains(got, want) {
			t.Errorf("review lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(m.frame(), "Reviewing") {
		t.Error("the review line stays after the verdict")
	}
	m.onEvent(&event.Event{Type: event.ReviewCompleted, Review: &event.Review{Verdict: event.ReviewLGTM, Model: "openai/gpt-5", DurationMS: &ms}})
	if got := m.printed[len(m.printed)-1]; got != "✓ review: no findings (oracle on openai/gpt-5, 5.2 s)" {
		t.Errorf("lgtm = %q", got)
	}
}

// A turn that ends while the terminal is unfocused also sends OSC 9.
func TestNotifyWhenUnfocused(t *testing.T) {
	m := bare(t)
	if raw := m.notify("done")(); raw != (tea.RawMsg{Msg: "\a"}) {
		t.Errorf("focused: %q", raw)
	}
	m.Update(tea.BlurMsg{})
	if raw := m.notify("done, verified")(); raw != (tea.RawMsg{Msg: "\a\x1b]9;chanto: done, verified\x07"}) {
		t.Errorf("unfocused: %q", raw)
	}
	m.Update(tea.FocusMsg{})
	if !m.focused {
		t.Error("focus not back")
	}
}

// Escape sequences in what a tool printed are shown, not obeyed.
func TestToolOutputEscapesAreShown(t *testing.T) {
	m := bare(t)
	bashRun(m, "c1", "cat evil\x1b]0;pwned\x07", "\x1b[2J\x1b]0;title\x07gone\n[exit code 1]\n")
	got := m.printed[len(m.printed)-1]
	if strings.ContainsRune(got, 0x1b) || strings.ContainsRune(got, 0x07) {
		t.Fatalf("raw control bytes reach the terminal: %q", got)
	}
	if !strings.Contains(got, `\x1b[2J`) {
		t.Errorf("the escape is not shown: %q", got)
	}
}

// An edit's line carries what the language server said about it.
func TestEditLineShowsDiagnostics(t *testing.T) {
	m := bare(t)
	in, _ := json.Marshal(map[string]string{"path": "calc.go", "old_string": "return a - b", "new_string": "return a + c"})
	m.onEvent(&event.Event{Type: event.ToolStarted, Tool: &event.Tool{ID: "e1", Name: "edit", Input: in}})
	m.onEvent(&event.Event{Type: event.ToolCompleted, Tool: &event.Tool{ID: "e1", Name: "edit",
		Output:      "edited calc.go: replaced 1 occurrence\ngopls: 1 error in calc.go:\n  calc.go:5:9: error: undefined: c\n",
		Diagnostics: &event.Diagnostics{Server: "gopls", Errors: 1, Elsewhere: 2}}})
	got := m.printed[len(m.printed)-1]
	for _, want := range []string{"● Edited calc.go (+1 −1) · gopls: 1 error, 2 new errors elsewhere", "│ gopls: 1 error in calc.go:", "│ calc.go:5:9: error: undefined: c"} {
		if !strings.Contains(got, want) {
			t.Errorf("edit line lacks %q:\n%s", want, got)
		}
	}
	m.onEvent(&event.Event{Type: event.ToolStarted, Tool: &event.Tool{ID: "e2", Name: "edit", Input: in}})
	m.onEvent(&event.Event{Type: event.ToolCompleted, Tool: &event.Tool{ID: "e2", Name: "edit", Output: "edited", Diagnostics: &event.Diagnostics{Server: "gopls"}}})
	if got := m.printed[len(m.printed)-1]; !strings.Contains(got, "● Edited calc.go (+1 −1) · gopls: no errors") {
		t.Errorf("clean edit line:\n%s", got)
	}
}
