package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/llm"
)

// Subagents (a task call's, the oracle's review) run nested under their
// parent: the live region shows each one under its task line with the
// step it is on; when it ends one line sums it up, and its steps go to
// the transcript view (Ctrl+O). The oracle's review is announced around
// it by review.started and review.completed, from the gate.

// subView is a running subagent.
type subView struct {
	id, name, model, desc string
	started               time.Time
	step                  string   // the tool it runs now
	steps                 []string // the tools it ran, for the transcript view
	ran                   int      // how many
}

// reviewing is the live "Reviewing …" line.
type reviewing struct {
	files   int
	started time.Time
}

// onSubagent folds in an event of a subagent.
func (m *model) onSubagent(e *event.Event) tea.Cmd {
	id := e.SubagentID
	if id == "" {
		id = e.ParentToolID
	}
	switch e.Type {
	case event.SubagentStarted:
		s := &subView{id: id, started: now()}
		if a := e.Subagent; a != nil {
			s.name, s.model, s.desc = a.Name, a.Model, a.Description
		}
		m.turn.subs = append(m.turn.subs, s)
		return nil
	case event.SubagentCompleted:
		s := m.sub(id)
		m.dropSub(id)
		if s == nil || e.Subagent == nil {
			return nil
		}
		line := m.subDone(s, e.Subagent)
		full := strings.Join(append([]string{line}, s.steps...), "\n")
		if e.ParentToolID != "" && m.runningTool(e.ParentToolID) {
			// Printed under its task line, when that finishes.
			m.turn.subSums[e.ParentToolID] = [2]string{line, full}
			return nil
		}
		return m.printFull(line, full)
	}
	s := m.sub(id)
	if s == nil || e.Tool == nil {
		return nil
	}
	switch e.Type {
	case event.ToolStarted:
		s.step = toolTitle(e.Tool.Name, e.Tool.Input, m.opts.App.Cwd)
		m.turn.inputs[e.Tool.ID] = e.Tool.Input
	case event.ToolCompleted:
		s.step = ""
		s.ran++
		line := m.st.toolFull(e.Tool, m.turn.inputs[e.Tool.ID], m.opts.App.Cwd, m.width)
		s.steps = append(s.steps, prefixed(strings.Split(line, "\n"), "    ", "    ")...)
	}
	return nil
}

func (m *model) runningTool(id string) bool {
	for _, t := range m.turn.tools {
		if t.id == id {
			return true
		}
	}
	return false
}

func (m *model) sub(id string) *subView {
	for _, s := range m.turn.subs {
		if s.id == id {
			return s
		}
	}
	return nil
}

func (m *model) dropSub(id string) {
	for i, s := range m.turn.subs {
		if s.id == id {
			m.turn.subs = append(m.turn.subs[:i], m.turn.subs[i+1:]...)
			return
		}
	}
}

// label is "explore · find Sign" (or the oracle's "review").
func (s *subView) label() string {
	l := s.name
	if s.desc != "" {
		l += " · " + s.desc
	}
	return l
}

// subDone is the line a finished subagent leaves:
// `  ↳ explore · find Sign: 3 steps, 2.3 s, 402 in / 21 out`.
func (m *model) subDone(s *subView, a *event.Subagent) string {
	parts := []string{plural(s.ran, "step")}
	if a.DurationMS != nil {
		parts = append(parts, seconds(*a.DurationMS))
	}
	if u := a.Usage; u != nil {
		lu := llm.Usage(*u)
		parts = append(parts, fmt.Sprintf("%s in / %s out", tokens(lu.TotalInput()), tokens(lu.OutputTokens)))
	}
	line := "  ↳ " + s.label() + ": " + strings.Join(parts, ", ")
	if a.IsError {
		return m.st.warn.Render(truncate(line+" — ended without a report", m.width))
	}
	return m.st.dim.Render(truncate(line, m.width))
}

// subLines are the live lines of the running subagents.
func (m *model) subLines(w int) []string {
	var out []string
	for _, s := range m.turn.subs {
		step := s.step
		if step == "" {
			step = "thinking"
		}
		out = append(out, m.st.dim.Render(truncate(fmt.Sprintf("  ↳ %s · %s (%s)", s.label(), step, elapsed(now().Sub(s.started))), w)))
	}
	if r := m.turn.review; r != nil {
		out = append(out, m.st.accent.Render(truncate(fmt.Sprintf("Reviewing the change: %s (oracle) %s", plural(r.files, "file"), elapsed(now().Sub(r.started))), w)))
	}
	return out
}

// onReview shows the oracle's review: a live line while it runs, then
// its verdict; findings are shown whole (they go back to the model).
func (m *model) onReview(e *event.Event) tea.Cmd {
	r := e.Review
	if r == nil {
		return nil
	}
	if e.Type == event.ReviewStarted {
		m.turn.review = &reviewing{files: r.Files, started: now()}
		return nil
	}
	m.turn.review = nil
	took := ""
	if r.DurationMS != nil && *r.DurationMS > 0 {
		took = ", " + seconds(*r.DurationMS)
	}
	by := "oracle"
	if r.Model != "" {
		by += " on " + r.Model
	}
	switch r.Verdict {
	case event.ReviewLGTM:
		return m.print(m.st.ok.Render("✓") + " " + truncate("review: no findings ("+by+took+")", m.width-2))
	case event.ReviewFindings:
		head := m.st.card.Render(truncate("⚠ review found something ("+by+took+"); the model is told", m.width))
		return m.print(head + "\n" + m.markdown(r.Findings))
	case event.ReviewFailed:
		return m.print(m.st.warn.Render(truncate("⚠ review failed: "+r.Reason+" (the checks decide without it)", m.width)))
	}
	return m.print(m.st.dim.Render(truncate("review skipped: "+r.Reason, m.width)))
}
