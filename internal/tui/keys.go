package tui

import (
	"os"
	"os/exec"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chanto-dev/chanto/internal/app"
	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/mcp"
)

// quitWindow is how soon a second Ctrl+C must follow the first to quit.
const quitWindow = 2 * time.Second

// modes is the Shift+Tab cycle.
var modes = []string{"default", "accept-edits", "plan"}

// key handles one key press, by what the keyboard is doing now.
func (m *model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if s == "ctrl+c" {
		return m.ctrlC()
	}
	if s == "ctrl+o" && m.mode != modeTranscript && m.mode != modeTrust {
		return m.openTranscript()
	}
	switch m.mode {
	case modeTranscript:
		return m.transcriptKey(k)
	case modeQuestion:
		return m.answerKey(s)
	case modeTestEdit:
		return m.testEditKey(s)
	case modeTrust:
		return m.trustKey(s)
	case modeResume:
		return m.resumeKey(s)
	case modeSearch:
		return m.searchKey(k)
	case modeHelp:
		m.mode = modeInput
		return nil
	}
	return m.inputKey(k)
}

// ctrlC clears the input; a second one within two seconds quits.
func (m *model) ctrlC() tea.Cmd {
	if time.Since(m.lastQuit) < quitWindow {
		return m.quit()
	}
	m.lastQuit = time.Now()
	m.input.Reset()
	m.fitInput()
	if m.mode == modeSearch || m.mode == modeHelp {
		m.mode = modeInput
	}
	if m.mode == modeTranscript {
		return m.closeTranscript()
	}
	m.notice = "Press Ctrl+C again to quit"
	return nil
}

func (m *model) quit() tea.Cmd {
	m.quitting = true
	if m.sess != nil {
		m.sess.Interrupt()
	}
	return tea.Quit
}

func (m *model) inputKey(k tea.KeyPressMsg) tea.Cmd {
	m.notice = ""
	switch k.String() {
	case "enter":
		if c := m.completion(); c != "" {
			m.acceptCompletion(c)
			return nil
		}
		return m.submit()
	case "esc":
		if m.turn.busy && m.sess != nil {
			m.sess.Interrupt()
			m.turn.interrupted = true
			m.queued = nil
		}
		return nil
	case "ctrl+d":
		if m.input.Value() == "" {
			return m.quit()
		}
		return nil
	case "shift+tab":
		return m.cycleMode()
	case "tab":
		if c := m.completion(); c != "" {
			m.acceptCompletion(c)
		}
		return nil
	case "up":
		if m.input.Line() == 0 && m.historyStep(-1) {
			return nil
		}
	case "down":
		if m.input.Line() == m.input.LineCount()-1 && m.historyStep(1) {
			return nil
		}
	case "ctrl+r":
		m.mode, m.search = modeSearch, ""
		return nil
	case "ctrl+g":
		return m.openEditor()
	case "?":
		if m.input.Value() == "" {
			m.mode = modeHelp
			return nil
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	m.fitInput()
	return cmd
}

// cycleMode is Shift+Tab: default → accept-edits → plan → default.
func (m *model) cycleMode() tea.Cmd {
	if m.sess == nil {
		return nil
	}
	cur := m.sess.Settings().Permissions.Mode
	next := modes[0]
	for i, md := range modes {
		if md == cur {
			next = modes[(i+1)%len(modes)]
		}
	}
	if err := m.sess.SetMode(next); err != nil {
		m.notice = "mode: " + err.Error()
	}
	return nil
}

// answerKey answers the permission question: y once, a always, n no.
func (m *model) answerKey(s string) tea.Cmd {
	q := m.question
	switch s {
	case "y", "Y", "enter":
		m.answer(app.Answer{Allow: true})
		return m.print(m.st.dim.Render("  allowed once: " + questionSubject(q)))
	case "a", "A":
		if q.Suggest == "" {
			return nil
		}
		m.answer(app.Answer{Allow: true, Always: true})
		if q.Tool == app.MCPServerQuestion {
			return m.print(m.st.dim.Render("  " + q.Suggest + ": approved in this folder (saved in " + mcp.ApprovalFile() + ")"))
		}
		return m.print(m.st.dim.Render("  always allowed in this folder: " + q.Suggest + " (saved in " + config.AllowFile() + ")"))
	case "n", "N":
		m.mode = modeReason
		m.draft = m.input.Value()
		m.input.Reset()
		m.input.Placeholder = "Why not? (told to the model; Enter to skip)"
		return nil
	case "esc":
		m.answer(app.Answer{})
		return m.print(m.st.dim.Render("  denied: " + questionSubject(q)))
	}
	return nil
}

// answer sends a to the open question and goes back to the input.
func (m *model) answer(a app.Answer) {
	if m.question != nil && m.sess != nil {
		m.sess.Answer(m.question.ID, a)
	}
	m.question = nil
	m.mode = modeInput
}

// reasonKey finishes a "no" with the reason typed.
func (m *model) reasonSubmit() tea.Cmd {
	reason := strings.TrimSpace(m.input.Value())
	q := m.question
	m.input.SetValue(m.draft)
	m.input.Placeholder = placeholder
	m.answer(app.Answer{Reason: reason})
	line := "  denied: " + questionSubject(q)
	if reason != "" {
		line += " (" + reason + ")"
	}
	return m.print(m.st.dim.Render(line))
}

// testEditKey answers "allow this test change?".
func (m *model) testEditKey(s string) tea.Cmd {
	if len(m.testEdits) == 0 {
		m.mode = modeInput
		return nil
	}
	file := m.testEdits[0]
	switch s {
	case "y", "Y":
		m.sess.AllowTestEdit(file)
		m.testEdits = m.testEdits[1:]
		m.afterTestEdit()
		return m.print(m.st.dim.Render("  you allowed the test change in " + relPath(m.opts.App.Cwd, file)))
	case "n", "N", "esc":
		m.testEdits = m.testEdits[1:]
		m.afterTestEdit()
		return m.print(m.st.dim.Render("  the test change in " + relPath(m.opts.App.Cwd, file) + " stays refused"))
	}
	return nil
}

func (m *model) afterTestEdit() {
	if len(m.testEdits) == 0 {
		m.mode = modeInput
		if m.question != nil {
			m.mode = modeQuestion
		}
	}
}

// trustKey answers the trust prompt; the session is built only now.
func (m *model) trustKey(s string) tea.Cmd {
	switch s {
	case "t", "T", "y", "Y":
		root := config.FindProjectRoot(m.opts.App.Cwd)
		if _, err := config.Trust(root); err != nil {
			m.notice = "trust: " + err.Error()
			return nil
		}
		m.mode = modeInput
		o := m.opts.App
		if m.opts.Reload != nil {
			cfg, err := m.opts.Reload()
			if err != nil {
				return m.print(m.st.bad.Render("✗ " + err.Error()))
			}
			o.Config = cfg
			m.opts.App = o
		}
		return tea.Sequence(m.print(m.st.dim.Render("trusted "+root)), m.build(o))
	case "n", "N", "esc":
		m.mode = modeInput
		return tea.Sequence(m.print(m.st.dim.Render("not trusted: the project's commands stay off for this session")), m.build(m.opts.App))
	}
	return nil
}

// searchKey is Ctrl+R: type to search the history, Enter takes the match.
func (m *model) searchKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "enter", "tab":
		if hit := m.searchHit(); hit != "" {
			m.input.SetValue(hit)
			m.fitInput()
		}
		m.mode = modeInput
	case "esc":
		m.mode = modeInput
	case "backspace":
		if r := []rune(m.search); len(r) > 0 {
			m.search = string(r[:len(r)-1])
		}
	case "ctrl+r":
		// Older matches: drop the newest one from the walk.
		if hit := m.searchHit(); hit != "" {
			m.at = m.searchIndex() // the next search starts below it
		}
	default:
		if k.Text != "" {
			m.search += k.Text
			m.at = len(m.prompts)
		}
	}
	return nil
}

func (m *model) searchIndex() int {
	for i := min(m.at, len(m.prompts)) - 1; i >= 0; i-- {
		if strings.Contains(m.prompts[i], m.search) {
			return i
		}
	}
	return len(m.prompts)
}

func (m *model) searchHit() string {
	if m.search == "" {
		return ""
	}
	if i := m.searchIndex(); i < len(m.prompts) {
		return m.prompts[i]
	}
	return ""
}

// openEditor is Ctrl+G: $EDITOR (else vi) on the prompt.
func (m *model) openEditor() tea.Cmd {
	f, err := os.CreateTemp("", "chanto-prompt-*.md")
	if err != nil {
		m.notice = "editor: " + err.Error()
		return nil
	}
	_, werr := f.WriteString(m.input.Value())
	cerr := f.Close()
	if werr != nil || cerr != nil {
		os.Remove(f.Name())
		m.notice = "editor: could not write the prompt file"
		return nil
	}
	editor := os.Getenv("VISUAL")
	if editor == "" {
		editor = os.Getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	// The user's editor is theirs to run, outside the sandbox: it is the
	// user typing, not the model.
	c := exec.Command("sh", "-c", editor+` "$1"`, "editor", f.Name())
	return tea.ExecProcess(c, func(err error) tea.Msg {
		defer os.Remove(f.Name())
		if err != nil {
			return editorMsg{err: err}
		}
		b, err := os.ReadFile(f.Name())
		return editorMsg{text: string(b), err: err}
	})
}
