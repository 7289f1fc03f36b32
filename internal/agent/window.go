package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chanto-dev/chanto/internal/llm"

	"github.com/chanto-dev/chanto/internal/safetext"
)

// Context-window handling. Before each model call the conversation's size is
// estimated; past elideAt of the window, the oldest tool outputs are replaced
// by a one-line note until it is under elideTo. Messages are never dropped
// and every tool_use keeps its tool_result; the latest tool results (what
// the model is about to read) are never touched.
const (
	elideAt = 0.80
	elideTo = 0.60
	// minElide is the smallest output worth eliding.
	minElide = 512
	// charsPerToken is the rough estimate used where the provider has not
	// measured the conversation.
	charsPerToken = 4
	elisionPrefix = "[output elided to save context: "
)

// windowState remembers the provider's last measurement of the conversation.
type windowState struct {
	tokens int // tokens of messages[:count], as last reported
	count  int
}

// measured records usage from a reply that made the conversation count messages long.
func (w *windowState) measured(u llm.Usage, count int) {
	total := int(u.InputTokens + u.CacheReadTokens + u.CacheCreateTokens + u.OutputTokens)
	if total > 0 {
		w.tokens, w.count = total, count
	}
}

func (a *Agent) windowSize() int {
	if a.opts.ContextWindow > 0 {
		return a.opts.ContextWindow
	}
	if a.opts.Provider == nil {
		return 0
	}
	return a.opts.Provider.ContextWindow(a.opts.Model)
}

// estimate is the conversation's size in tokens: the provider's last
// measurement plus an estimate of what was added since, or an estimate of
// everything when nothing was measured.
func (a *Agent) estimate() int {
	if a.window.count > 0 && a.window.count <= len(a.messages) {
		return a.window.tokens + charsOf(a.messages[a.window.count:])/charsPerToken
	}
	n := len(a.opts.System)
	for _, t := range a.opts.Tools {
		n += len(t.Description()) + len(t.Schema())
	}
	return (n + charsOf(a.messages)) / charsPerToken
}

func charsOf(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		for _, p := range m.Parts {
			n += len(p.Text) + len(p.Input)
		}
	}
	return n
}

// fitWindow elides old tool outputs when the conversation nears the window.
func (a *Agent) fitWindow() {
	win := a.windowSize()
	if win <= 0 {
		return
	}
	est := a.estimate()
	if float64(est) < elideAt*float64(win) {
		return
	}
	target := int(elideTo * float64(win))
	calls := a.callIndex()
	// The last message holding tool results is the one the model is about
	// to read; everything before it may be elided, oldest first.
	last := -1
	for i := len(a.messages) - 1; i >= 0; i-- {
		if hasResults(a.messages[i]) {
			last = i
			break
		}
	}
	for i := 0; i < last && est > target; i++ {
		m := a.messages[i]
		if !hasResults(m) {
			continue
		}
		parts := append([]llm.Part(nil), m.Parts...)
		changed := false
		for k, p := range parts {
			if p.Type != llm.ToolResult || len(p.Text) < minElide || strings.HasPrefix(p.Text, elisionPrefix) {
				continue
			}
			note := elisionNote(len(p.Text), calls[p.ID])
			est -= (len(p.Text) - len(note)) / charsPerToken
			parts[k].Text = note
			changed = true
			if est <= target {
				break
			}
		}
		if changed {
			a.messages[i] = llm.Message{Role: m.Role, Parts: parts}
		}
	}
	// The last measurement no longer matches; start from the estimate.
	a.window = windowState{}
}

func hasResults(m llm.Message) bool {
	for _, p := range m.Parts {
		if p.Type == llm.ToolResult {
			return true
		}
	}
	return false
}

// callIndex maps tool_use IDs to their calls.
func (a *Agent) callIndex() map[string]llm.Part {
	idx := map[string]llm.Part{}
	for _, m := range a.messages {
		for _, p := range m.Parts {
			if p.Type == llm.ToolUse {
				idx[p.ID] = p
			}
		}
	}
	return idx
}

// elisionNote says what was removed and how to get it back, e.g.
// [output elided to save context: 14 KB from bash "go test ./..."; re-run if needed]
func elisionNote(size int, call llm.Part) string {
	what := "a tool call"
	if call.Name != "" {
		what = call.Name
		if arg := mainArg(call.Input); arg != "" {
			what += fmt.Sprintf(" %q", arg)
		}
	}
	return fmt.Sprintf("%s%s from %s; re-run if needed]", elisionPrefix, humanSize(size), what)
}

// mainArg picks the argument that best names a call (a command, a path, a
// pattern), shortened.
func mainArg(input json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(input, &m) != nil {
		return ""
	}
	for _, k := range []string{"command", "path", "file_path", "pattern", "query"} {
		if s, ok := m[k].(string); ok && s != "" {
			return safetext.Cut(s, 80)
		}
	}
	return ""
}

func humanSize(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d KB", (n+512)/1024)
}

// ContextUse is the conversation's size in tokens (as estimate measures
// it) and the model's window, for a face's "context left". Call it
// between turns: a running turn changes the conversation.
func (a *Agent) ContextUse() (used, window int) {
	return a.estimate(), a.windowSize()
}
