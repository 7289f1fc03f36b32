package tui

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/chanto-dev/chanto/internal/config"
)

const placeholder = "Ask chanto, / for commands, @ to attach a file, ! to run a command"

// A paste longer than this collapses to a placeholder in the input.
const (
	pasteLines = 8
	pasteBytes = 2000
	// maxPrompts bounds the history file.
	maxPrompts = 500
)

// submit is Enter: a slash command, a !command, or a prompt (queued while
// the model works).
func (m *model) submit() tea.Cmd {
	if m.mode == modeReason {
		return m.reasonSubmit()
	}
	text := m.input.Value()
	if strings.TrimSpace(text) == "" {
		return nil
	}
	m.remember(text)
	m.input.Reset()
	m.fitInput()
	switch {
	case strings.HasPrefix(text, "/"):
		return m.command(strings.TrimSpace(text))
	case strings.HasPrefix(text, "!"):
		return m.shell(strings.TrimSpace(text[1:]))
	}
	m.queued = append(m.queued, text)
	if m.turn.busy || m.sess == nil {
		m.notice = fmt.Sprintf("queued (%d): sent when the model is done", len(m.queued))
		return nil
	}
	return m.sendNext()
}

// sendNext starts a turn with the first queued prompt.
func (m *model) sendNext() tea.Cmd {
	if len(m.queued) == 0 || m.sess == nil || m.turn.busy {
		return nil
	}
	text := m.queued[0]
	m.queued = m.queued[1:]
	shown := m.st.user.Render("› ") + text
	prompt := m.expand(text)
	if len(m.context) > 0 {
		prompt = strings.Join(m.context, "\n\n") + "\n\n" + prompt
		m.context = nil
	}
	if err := m.sess.Prompt(prompt); err != nil {
		m.queued = append([]string{text}, m.queued...)
		m.notice = err.Error()
		return nil
	}
	m.turn = turnView{busy: true, started: now(), inputs: map[string][]byte{}, subSums: map[string][2]string{}}
	return tea.Batch(m.print(shown), tick())
}

// expand puts pasted text back and attaches the @files the prompt names.
func (m *model) expand(text string) string {
	for ph, content := range m.pastes {
		text = strings.ReplaceAll(text, ph, content)
	}
	var files []string
	for _, w := range strings.Fields(text) {
		p, ok := strings.CutPrefix(w, "@")
		if !ok || p == "" {
			continue
		}
		path := p
		if !filepath.IsAbs(path) {
			path = filepath.Join(m.opts.App.Cwd, p)
		}
		b, err := os.ReadFile(path)
		if err != nil || !utf8.Valid(b) {
			continue // not a file, or not text: the word stays as typed
		}
		files = append(files, fmt.Sprintf("<file path=%q>\n%s\n</file>", p, b))
	}
	if len(files) > 0 {
		text += "\n\n" + strings.Join(files, "\n\n")
	}
	return text
}

// paste inserts pasted text; a large paste becomes "[pasted N lines]" and
// is sent whole. Binary bytes are dropped, so the prompt stays text.
func (m *model) paste(content string) tea.Cmd {
	content = cleanPaste(content)
	lines := strings.Count(content, "\n") + 1
	if lines > pasteLines || len(content) > pasteBytes {
		ph := fmt.Sprintf("[pasted %d lines]", lines)
		for n := 2; m.pastes[ph] != "" && m.pastes[ph] != content; n++ {
			ph = fmt.Sprintf("[pasted %d lines #%d]", lines, n)
		}
		m.pastes[ph] = content
		m.input.InsertString(ph)
	} else {
		m.input.InsertString(content)
	}
	m.fitInput()
	return nil
}

// cleanPaste keeps text: valid UTF-8 without control characters other
// than newline and tab; CRLF becomes LF.
func cleanPaste(s string) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

// remember adds a prompt to the history, in memory and on disk.
func (m *model) remember(text string) {
	if n := len(m.prompts); n == 0 || m.prompts[n-1] != text {
		m.prompts = append(m.prompts, text)
		appendPromptHistory(text)
	}
	m.at = len(m.prompts)
}

// historyStep walks the history by dir (-1 older); false when there is
// nowhere to go, so the key moves the cursor instead.
func (m *model) historyStep(dir int) bool {
	next := m.at + dir
	if next < 0 || next > len(m.prompts) {
		return false
	}
	if m.at == len(m.prompts) {
		m.draft = m.input.Value()
	}
	m.at = next
	if next == len(m.prompts) {
		m.input.SetValue(m.draft)
	} else {
		m.input.SetValue(m.prompts[next])
	}
	m.fitInput()
	return true
}

// The prompt history lives in ~/.chanto/prompts, one JSON-quoted prompt a line.
func promptFile() string { return filepath.Join(config.Home(), "prompts") }

func loadPromptHistory() []string {
	f, err := os.Open(promptFile())
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var s string
		if _, err := fmt.Sscanf(sc.Text(), "%q", &s); err == nil {
			out = append(out, s)
		}
	}
	if len(out) > maxPrompts {
		out = out[len(out)-maxPrompts:]
	}
	return out
}

func appendPromptHistory(text string) {
	if err := os.MkdirAll(config.Home(), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(promptFile(), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return // the history is a convenience; the prompt itself is in the transcript
	}
	fmt.Fprintf(f, "%q\n", text)
	f.Close()
}
