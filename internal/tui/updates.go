package tui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/app"
	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/llm"
)

// now is the clock; tests fix it so frames are stable.
var now = time.Now

// onUpdate folds one session update into the view, printing what finished.
func (m *model) onUpdate(u app.Update) tea.Cmd {
	switch {
	case u.Event != nil:
		return m.onEvent(u.Event)
	case u.Question != nil:
		m.question = u.Question
		if m.mode == modeInput {
			m.mode = modeQuestion
		}
		return bell()
	case u.TurnEnd != nil:
		return m.onTurnEnd(u.TurnEnd)
	case u.Notice != "":
		return m.print(m.st.warn.Render("chanto: " + u.Notice))
	}
	return nil
}

func (m *model) onEvent(e *event.Event) tea.Cmd {
	if e.ParentToolID != "" {
		return nil // a subagent's steps show as its task line
	}
	var cmds []tea.Cmd
	switch e.Type {
	case event.VerifySentBack:
		if sb := e.SentBack; sb != nil {
			cmds = append(cmds, m.print(m.st.sentBack(sb.Attempt, sb.Max)))
		}
	case event.MessageDelta:
		m.turn.reply.WriteString(e.Text)
		cmds = append(cmds, m.commitBlocks())
	case event.MessageCompleted:
		rest := e.Text
		if done := m.turn.reply.String()[:m.turn.shown]; strings.HasPrefix(rest, done) {
			rest = rest[len(done):]
		}
		m.turn.reply.Reset()
		m.turn.shown = 0
		cmds = append(cmds, m.print(m.markdown(rest)))
	case event.ToolStarted:
		m.turn.tools = append(m.turn.tools, runningTool{id: e.Tool.ID, title: toolTitle(e.Tool.Name, e.Tool.Input, m.opts.App.Cwd), started: now()})
		m.turn.inputs[e.Tool.ID] = e.Tool.Input
	case event.ToolCompleted:
		m.dropTool(e.Tool.ID)
		cmds = append(cmds, m.print(m.st.toolLine(e.Tool, m.turn.inputs[e.Tool.ID], m.opts.App.Cwd, m.width)))
	case event.ProtectViolation:
		cmds = append(cmds, m.print(m.st.protectCard(e.Violation, m.opts.App.Cwd, m.width)))
		m.askTestEdit(e.Violation.File)
	case event.VerifyStarted:
		m.turn.verify = &verifying{checks: e.Checks, scope: e.Scope, started: now()}
	case event.VerifyCheck:
		if m.turn.verify != nil {
			m.turn.verify.done++
		}
		cmds = append(cmds, m.print(m.st.checkLine(e.Check, m.width)))
	case event.VerifyResult:
		m.turn.verify = nil
	case event.TurnCompleted:
		if e.Usage != nil {
			m.usage = append(m.usage, *e.Usage)
		}
	case event.Error:
		cmds = append(cmds, m.print(m.st.bad.Render("✗ "+e.Error)))
	}
	return tea.Batch(cmds...)
}

func (m *model) dropTool(id string) {
	for i, t := range m.turn.tools {
		if t.id == id {
			m.turn.tools = append(m.turn.tools[:i], m.turn.tools[i+1:]...)
			return
		}
	}
}

// askTestEdit queues the question whether the user allows a test change.
func (m *model) askTestEdit(file string) {
	for _, f := range m.testEdits {
		if f == file {
			return
		}
	}
	m.testEdits = append(m.testEdits, file)
	if m.mode == modeInput {
		m.mode = modeTestEdit
	}
}

// onTurnEnd prints the end of the answer: the evidence line, or what
// stopped the turn; the partial reply of an interrupted turn is kept.
func (m *model) onTurnEnd(end *app.TurnEnd) tea.Cmd {
	var lines []string
	if partial := strings.TrimSpace(m.turn.reply.String()[m.turn.shown:]); partial != "" {
		lines = append(lines, m.markdown(partial))
	}
	out, err := end.Outcome, end.Err
	if end.ContextWindow > 0 {
		m.ctxUsed, m.ctxWindow = end.ContextUsed, end.ContextWindow
	}
	var refused *agent.PromptRefusedError
	switch {
	case errors.Is(err, agent.ErrInterrupted) || m.turn.interrupted && err != nil:
		lines = append(lines, m.st.warn.Render("⏹ interrupted"))
	case errors.As(err, &refused):
		lines = append(lines, m.st.warn.Render("⚠ "+err.Error()))
	case err != nil:
		lines = append(lines, m.st.bad.Render("✗ error: "+err.Error()), m.st.dim.Render("  the session goes on; send another prompt"))
	case out.Evidence != "":
		lines = append(lines, m.st.evidence(string(out.Verdict), out.Evidence))
	}
	m.turn = turnView{}
	m.question = nil
	if m.mode == modeQuestion || m.mode == modeReason {
		m.mode = modeInput
		m.input.Placeholder = placeholder
	}
	cmds := []tea.Cmd{m.print(strings.Join(lines, "\n")), bell()}
	if m.compacting {
		cmds = append(cmds, m.finishCompact(out.Answer, err))
	}
	cmds = append(cmds, m.sendNext())
	return tea.Sequence(cmds...)
}

// bell rings when a turn ends or needs an answer.
func bell() tea.Cmd {
	return tea.Raw("\a")
}

// markdown renders a finished reply for the scrollback.
func (m *model) markdown(text string) string {
	text = strings.TrimSpace(text)
	if text == "" {
		return ""
	}
	return strings.Trim(m.md.render(text, m.width), "\n")
}

// replayHistory shows a resumed session's conversation, briefly.
func (m *model) replayHistory() string {
	msgs := m.sess.Messages()
	if len(msgs) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", m.st.dim.Render(fmt.Sprintf("── resumed: %d messages ──", len(msgs))))
	// The last few messages with text, oldest first.
	var keep []llm.Message
	for i := len(msgs) - 1; i >= 0 && len(keep) < 6; i-- {
		if strings.TrimSpace(msgs[i].TextOf()) != "" {
			keep = append([]llm.Message{msgs[i]}, keep...)
		}
	}
	msgs = keep
	for _, msg := range msgs {
		t := strings.TrimSpace(msg.TextOf())
		if t == "" {
			continue
		}
		if msg.Role == llm.User {
			fmt.Fprintf(&b, "%s%s\n", m.st.user.Render("› "), truncate(oneLine(t), m.width-2))
		} else {
			fmt.Fprintf(&b, "%s\n", truncate(oneLine(t), m.width))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
