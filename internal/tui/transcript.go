package tui

import (
	"strings"

	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Ctrl+O opens the transcript view: the session's finished items in full
// (every tool's whole output, whole diffs), full screen on the terminal's
// alternate screen, so the scrollback is left as it was. What finishes
// while it is open waits and goes to the scrollback when it closes.

// maxLog bounds the lines the transcript view keeps (the oldest go).
const maxLog = 20000

// keep records the full form of a finished item for the transcript view.
func (m *model) keep(full string) {
	m.log = append(m.log, strings.Split(full, "\n")...)
	if over := len(m.log) - maxLog; over > 0 {
		m.log = append(m.log[:0:0], m.log[over:]...)
	}
	if m.mode == modeTranscript {
		m.fillPager(false)
	}
}

// openTranscript is Ctrl+O: the full transcript, scrolled to its end.
func (m *model) openTranscript() tea.Cmd {
	m.back = m.mode
	m.mode = modeTranscript
	m.pager = viewport.New()
	m.fillPager(true)
	return nil
}

// closeTranscript goes back to the input (or the question that waits)
// and prints what finished meanwhile.
func (m *model) closeTranscript() tea.Cmd {
	m.mode = m.back
	if m.mode == modeInput || m.mode == modeTranscript {
		m.mode = modeInput
		switch {
		case len(m.testEdits) > 0:
			m.mode = modeTestEdit
		case m.question != nil:
			m.mode = modeQuestion
		}
	}
	if m.mode == modeQuestion && m.question == nil {
		m.mode = modeInput
	}
	return m.flushPending()
}

// flushPending prints what waited for the transcript view to close (or
// for the terminal's size).
func (m *model) flushPending() tea.Cmd {
	var cmds []tea.Cmd
	for _, s := range m.pending {
		cmds = append(cmds, m.println(s))
	}
	m.pending = nil
	return tea.Sequence(cmds...)
}

// fillPager lays the log out at the screen's size.
func (m *model) fillPager(bottom bool) {
	atEnd := bottom || m.pager.AtBottom()
	m.pager.SetWidth(max(m.width, 1))
	m.pager.SetHeight(max(m.height-1, 1))
	lines := make([]string, 0, len(m.log))
	for _, l := range m.log {
		lines = append(lines, strings.Split(ansi.Wrap(l, max(m.width, 1), ""), "\n")...)
	}
	m.pager.SetContentLines(lines)
	if atEnd {
		m.pager.GotoBottom()
	}
}

// transcriptKey scrolls the view; Esc, q or Ctrl+O close it.
func (m *model) transcriptKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "esc", "q", "ctrl+o":
		return m.closeTranscript()
	case "g", "home":
		m.pager.GotoTop()
		return nil
	case "G", "end":
		m.pager.GotoBottom()
		return nil
	}
	var cmd tea.Cmd
	m.pager, cmd = m.pager.Update(k)
	return cmd
}

// transcriptView is the full-screen frame of the transcript view.
func (m *model) transcriptView() string {
	hint := "transcript · ↑/↓ PgUp/PgDn scroll · g/G top/end · Esc or Ctrl+O back"
	if m.question != nil || len(m.testEdits) > 0 {
		hint = "a question waits · Esc to answer it · " + hint
	}
	if m.turn.busy {
		hint = "working… · " + hint
	}
	return m.pager.View() + "\n" + m.st.dim.Render(truncate(hint, max(m.width, 1)))
}
