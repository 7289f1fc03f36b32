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
	"github.com/chanto-dev/chanto/internal/safetext"
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
		return m.notify("a question waits for your answer")
	case u.TurnEnd != nil:
		return m.onTurnEnd(u.TurnEnd)
	case u.Notice != "":
		return m.print(m.st.warn.Render("chanto: " + u.Notice))
	}
	return nil
}

func (m *model) onEvent(e *event.Event) tea.Cmd {
	e = cleanEvent(e)
	if e.SubagentID != "" || e.ParentToolID != "" {
		return m.onSubagent(e)
	}
	var cmds []tea.Cmd
	switch e.Type {
	case event.VerifySentBack:
		if sb := e.SentBack; sb != nil {
			cmds = append(cmds, m.print(m.st.sentBack(sb.Attempt, sb.Max)))
		}
	case event.MessageDelta:
		m.turn.reply.WriteString(e.Text)
		if strings.Contains(e.Text, "\n") { // a block can only end at a line end
			cmds = append(cmds, m.commitBlocks())
		}
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
		in := m.turn.inputs[e.Tool.ID]
		short, full := m.st.toolLine(e.Tool, in, m.opts.App.Cwd, m.width), m.st.toolFull(e.Tool, in, m.opts.App.Cwd, m.width)
		if sum, ok := m.turn.subSums[e.Tool.ID]; ok {
			short, full = short+"\n"+sum[0], full+"\n"+sum[1]
			delete(m.turn.subSums, e.Tool.ID)
		}
		cmds = append(cmds, m.printFull(short, full))
	case event.ProtectViolation:
		cmds = append(cmds, m.print(m.st.protectCard(e.Violation, m.opts.App.Cwd, m.width)))
		m.askTestEdit(e.Violation.File)
	case event.ReviewStarted, event.ReviewCompleted:
		cmds = append(cmds, m.onReview(e))
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
		lines = append(lines, m.st.warn.Render("⚠ "+safetext.Clean(err.Error())))
	case err != nil:
		lines = append(lines, m.st.bad.Render("✗ error: "+safetext.Clean(err.Error())), m.st.dim.Render("  the session goes on; send another prompt"))
	case out.Evidence != "":
		lines = append(lines, m.st.evidence(string(out.Verdict), safetext.Clean(out.Evidence)))
	}
	m.turn = turnView{}
	m.question = nil
	if m.mode == modeQuestion || m.mode == modeReason {
		m.mode = modeInput
		m.input.Placeholder = placeholder
	}
	cmds := []tea.Cmd{m.print(strings.Join(lines, "\n")), m.notify(turnSummary(out.Verdict, err))}
	if m.compacting {
		cmds = append(cmds, m.finishCompact(out.Answer, err))
	}
	cmds = append(cmds, m.sendNext())
	return tea.Sequence(cmds...)
}

// notify rings the bell when a turn ends or needs an answer; while the
// terminal is not focused it also sends a desktop notification (OSC 9,
// which iTerm2, kitty, WezTerm, Ghostty and Windows Terminal show, and
// others ignore), as Codex does.
func (m *model) notify(what string) tea.Cmd {
	if m.focused {
		return tea.Raw("\a")
	}
	return tea.Raw("\a" + osc9("chanto: "+what))
}

// osc9 is the desktop-notification sequence for text (one safe line).
func osc9(text string) string {
	return "\x1b]9;" + safetext.Line(text) + "\x07"
}

// turnSummary is what the notification says about a turn's end.
func turnSummary(v event.Verdict, err error) string {
	switch {
	case err != nil:
		return "the turn stopped"
	case v == event.Verified:
		return "done, verified"
	case v == event.NotVerified:
		return "done, not verified"
	}
	return "done"
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
		t := safetext.Clean(strings.TrimSpace(msg.TextOf()))
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
