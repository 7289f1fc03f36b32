package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/app"
	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/safetext"
)

// View draws the live region only: the streaming reply, running tools,
// the gate's progress, the prompt or question, the popup and the footer.
// Everything finished is already in the scrollback. On a small screen the
// parts drop in reverse order of importance; the input always stays.
func (m *model) View() tea.View {
	if m.quitting || !m.sized {
		return tea.NewView("")
	}
	if m.mode == modeTranscript {
		v := tea.NewView(m.transcriptView())
		v.AltScreen = true
		v.WindowTitle = "chanto"
		return v
	}
	v := tea.NewView(m.frame())
	v.WindowTitle = "chanto"
	v.ReportFocus = true
	return v
}

// frame is the live region as text, a function of the state.
func (m *model) frame() string {
	w := max(m.width, 1)
	if m.height <= smallScreen && m.mode == modeInput {
		return m.smallFrame(w)
	}
	bottom := m.bottom(w)
	room := m.height - 1 - lipgloss.Height(bottom)
	var top []string
	if m.turn.busy {
		top = append(top, m.liveLines(w)...)
	}
	if room < len(top) {
		top = top[len(top)-max(room, 0):]
	}
	// One row stays free: with the live region as tall as the screen, the
	// lines printed above it would have nowhere to go and the terminal
	// would scroll parts of the old frame into the history.
	lines := strings.Split(strings.Join(append(top, bottom), "\n"), "\n")
	if limit := max(m.height-1, 1); len(lines) > limit {
		lines = lines[len(lines)-limit:]
	}
	return strings.Join(lines, "\n")
}

// smallScreen is the height at and below which the input's frame has
// one fixed height: a status line, one row of input and the footer. A
// frame that changed height while lines were printed above it left rows
// of the old frame in the scrollback there (the 20×6 leftovers).
const smallScreen = 8

func (m *model) smallFrame(w int) string {
	status := m.st.dim.Render(truncate("? keys · /help", w))
	if m.turn.busy {
		if live := m.liveLines(w); len(live) > 0 {
			status = live[len(live)-1]
		}
	}
	if m.notice != "" {
		status = m.st.dim.Render(truncate(m.notice, w))
	}
	lines := []string{status, m.input.View()}
	if m.height >= 4 {
		lines = append(lines, m.footer(w))
	}
	if limit := max(m.height-1, 1); len(lines) > limit {
		lines = lines[len(lines)-limit:]
	}
	return strings.Join(lines, "\n")
}

// liveLines are the running parts of a turn.
func (m *model) liveLines(w int) []string {
	var out []string
	if r := streamTail(m.turn.reply.String()[m.turn.shown:], 12*w); r != "" {
		// Only the tail is redrawn while it streams; the whole reply goes
		// to the scrollback, rendered, when it completes.
		lines := wrap(r, w)
		if len(lines) > 12 {
			lines = lines[len(lines)-12:]
		}
		out = append(out, lines...)
	}
	for _, t := range m.turn.tools {
		out = append(out, m.st.accent.Render(spinner(now().Sub(t.started)))+" "+truncate(fmt.Sprintf("%s (%s)", t.title, elapsed(now().Sub(t.started))), w-2))
	}
	out = append(out, m.subLines(w)...)
	if v := m.turn.verify; v != nil {
		out = append(out, m.st.accent.Render(truncate(verifyLine(v), w)))
	}
	if len(m.turn.tools) == 0 && m.turn.verify == nil && len(m.turn.subs) == 0 && m.turn.review == nil {
		out = append(out, m.st.dim.Render(truncate(fmt.Sprintf("%s working… %s · Esc to interrupt", spinner(now().Sub(m.turn.started)), elapsed(now().Sub(m.turn.started))), w)))
	}
	return out
}

// verifyLine is `Verifying: go test ./p ./q (related) 4.2 s`.
func verifyLine(v *verifying) string {
	checks := v.checks
	if v.done < len(checks) {
		checks = checks[v.done:]
	}
	what := strings.Join(checks, ", ")
	if what == "" {
		what = "the project's checks"
	}
	scope := ""
	if v.scope != "" {
		scope = " (" + v.scope + ")"
	}
	return fmt.Sprintf("Verifying: %s%s %s", what, scope, elapsed(now().Sub(v.started)))
}

// bottom is the prompt or question, the popup and the footer.
func (m *model) bottom(w int) string {
	var parts []string
	switch m.mode {
	case modeQuestion:
		parts = append(parts, m.questionBox(w))
	case modeTestEdit:
		parts = append(parts, m.testEditBox(w))
	case modeTrust:
		parts = append(parts, m.trustBox(w))
	case modeResume:
		parts = append(parts, m.resumeBox(w))
	case modeSearch:
		parts = append(parts, truncate(fmt.Sprintf("(history search) %q: %s", m.search, oneLine(m.searchHit())), w))
	case modeHelp:
		parts = append(parts, m.helpBox(w))
	default:
		if m.mode == modeReason && m.question != nil {
			parts = append(parts, m.st.warn.Render(truncate("Deny "+questionSubject(m.question)+": why? (Enter to skip)", w)))
		}
		parts = append(parts, m.input.View())
		if s := m.suggestions(); len(s) > 0 && m.height >= 10 {
			parts = append(parts, m.popup(s, w))
		}
	}
	if m.notice != "" && m.height >= 6 {
		parts = append(parts, m.st.dim.Render(truncate(m.notice, w)))
	}
	if m.height >= 4 {
		parts = append(parts, m.footer(w))
	}
	return strings.Join(parts, "\n")
}

func (m *model) popup(items []string, w int) string {
	var lines []string
	for i, it := range items {
		if i == maxPopup {
			break
		}
		help := ""
		for _, c := range commands {
			if c.name == it {
				help = "  " + c.help
			}
		}
		line := truncate("  "+it+help, w)
		if i == 0 {
			line = m.st.accent.Render(line)
		} else {
			line = m.st.dim.Render(line)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// footer: model · permission mode · verify · tokens · hint.
func (m *model) footer(w int) string {
	if m.sess == nil {
		return m.st.dim.Render(truncate(m.opts.App.Config.Model+" · starting…", w))
	}
	st := m.sess.Settings()
	mode := st.Permissions.Mode
	if mode == "" {
		mode = agent.ModeDefault
	}
	if st.Permissions.Lockdown {
		mode += " (lockdown)"
	}
	verify := "verify off"
	if st.Gate.Verify {
		verify = "verify related"
		if st.Gate.Full {
			verify = "verify full"
		}
	}
	parts := []string{shortModel(m.opts.App.Config.Model), mode, verify}
	if left := m.contextLeft(); left != "" {
		parts = append(parts, left)
	}
	parts = append(parts, m.spent())
	if len(m.queued) > 0 {
		parts = append(parts, fmt.Sprintf("%d queued", len(m.queued)))
	}
	line := strings.Join(parts, " · ")
	if len([]rune(line))+9 <= w {
		line += " · ? keys"
	}
	return m.st.dim.Render(truncate(line, w))
}

// shortModel names a scripted model by its file alone.
func shortModel(spec string) string {
	if path, ok := strings.CutPrefix(spec, "scripted:"); ok {
		return "scripted:" + filepath.Base(path)
	}
	return spec
}

// spent is the session's tokens, and their cost when the model's price
// is known: "12.3k in / 800 out · $0.05".
func (m *model) spent() string {
	var all llm.Usage
	for _, u := range m.usage {
		addUsage(&all, u)
	}
	s := fmt.Sprintf("%s in / %s out", tokens(all.TotalInput()), tokens(all.OutputTokens))
	if p, ok := llm.KnownPrice(m.opts.App.Model); ok {
		s += " · " + dollars(p.Cost(all))
	}
	return s
}

func addUsage(to *llm.Usage, u event.Usage) {
	to.InputTokens += u.InputTokens
	to.OutputTokens += u.OutputTokens
	to.CacheReadTokens += u.CacheReadTokens
	to.CacheCreateTokens += u.CacheCreateTokens
}

// contextLeft is "83% context left" once the conversation was measured.
func (m *model) contextLeft() string {
	if m.ctxWindow <= 0 {
		return ""
	}
	left := 100 - (m.ctxUsed*100+m.ctxWindow-1)/m.ctxWindow // rounded down
	return fmt.Sprintf("%d%% context left", min(max(left, 0), 100))
}

func dollars(v float64) string {
	if v < 10 {
		return fmt.Sprintf("$%.2f", v)
	}
	return fmt.Sprintf("$%.0f", v)
}

func tokens(n int64) string {
	if n >= 10000 {
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}

func questionSubject(q *app.Question) string {
	if q == nil {
		return ""
	}
	if q.Subject != "" {
		return safetext.Line(q.Tool + " " + q.Subject)
	}
	return safetext.Line(q.Tool)
}

// questionBox shows the exact command or change and the answers.
func (m *model) questionBox(w int) string {
	q := m.question
	lines := []string{m.st.warn.Render(truncate("Allow "+q.Tool+"?", w))}
	in := parseInput(q.Input)
	switch q.Tool {
	case "bash":
		for _, l := range splitLines(in.Command) {
			lines = append(lines, "  "+m.st.bold.Render(truncate(l, w-2)))
		}
	case "edit", "write":
		lines = append(lines, "  "+relPath(m.opts.App.Cwd, in.Path))
		_, _, d := lineDiff(in.OldString, in.NewString+in.Content)
		room := max(m.height-6, 1)
		for _, l := range m.st.diffLines(d, min(room, 20)) {
			lines = append(lines, "  "+l)
		}
	default:
		lines = append(lines, "  "+truncate(safetext.Line(q.Subject), w-2))
	}
	keys := "[y] yes once  [n] no"
	if q.Suggest != "" {
		keys = "[y] yes once  [a] always " + q.Suggest + "  [n] no"
	}
	lines = append(lines, m.st.bold.Render(truncate(keys, w)))
	return strings.Join(lines, "\n")
}

func (m *model) testEditBox(w int) string {
	f := relPath(m.opts.App.Cwd, m.testEdits[0])
	return m.st.warn.Render(truncate("The model changed the test "+f+". Allow this test change for the session?", w)) + "\n" +
		m.st.bold.Render(truncate("[y] allow  [n] keep it refused (the model must fix the code)", w))
}

func (m *model) trustBox(w int) string {
	lines := []string{m.st.warn.Render(truncate("This folder has a .chanto/config.toml. Until you trust it, these settings stay off:", w))}
	for _, u := range m.opts.Untrusted {
		lines = append(lines, "  "+truncate(u, w-2))
	}
	lines = append(lines, m.st.bold.Render(truncate("[t] trust this folder  [n] not now", w)))
	return strings.Join(lines, "\n")
}

func (m *model) resumeBox(w int) string {
	lines := []string{m.st.bold.Render("Resume which session? (Esc: none)")}
	for i, c := range m.picker {
		lines = append(lines, truncate(fmt.Sprintf("  %d  %s", i+1, c.label), w))
	}
	return strings.Join(lines, "\n")
}

func (m *model) helpBox(w int) string {
	var lines []string
	for _, k := range keyHelp {
		lines = append(lines, truncate(fmt.Sprintf("  %-12s %s", k[0], k[1]), w))
	}
	lines = append(lines, m.st.dim.Render("  /help lists the commands · any key closes"))
	return strings.Join(lines, "\n")
}

var spinFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func spinner(d interface{ Milliseconds() int64 }) string {
	return spinFrames[int(d.Milliseconds()/100)%len(spinFrames)]
}

// wrap breaks s into lines of at most w cells.
func wrap(s string, w int) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		r := []rune(l)
		for len(r) > w {
			out = append(out, string(r[:w]))
			r = r[w:]
		}
		out = append(out, string(r))
	}
	return out
}

// streamTail is the end of a streaming reply, at most n bytes cut at a
// line or rune start, so a frame costs the same however long the reply.
func streamTail(s string, n int) string {
	if len(s) > n {
		s = s[len(s)-n:]
		if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
			s = s[i+1:]
		}
		s = strings.ToValidUTF8(s, "")
	}
	return strings.TrimSpace(s)
}
