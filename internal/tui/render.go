package tui

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/safetext"
)

// One renderer per kind of finished item. Each returns the text that goes
// into the terminal's scrollback (tea.Println), so each is a pure function
// of its input and the width, tested by golden files.

// toolInput is the union of the built-in tools' arguments the lines show.
type toolInput struct {
	Command   string `json:"command"`
	Path      string `json:"path"`
	Pattern   string `json:"pattern"`
	OldString string `json:"old_string"`
	NewString string `json:"new_string"`
	Content   string `json:"content"`
	Desc      string `json:"description"`
}

func parseInput(raw []byte) toolInput {
	var in toolInput
	_ = json.Unmarshal(raw, &in) // a broken input shows as the bare tool name
	for _, f := range []*string{&in.Command, &in.Path, &in.Pattern, &in.OldString, &in.NewString, &in.Content, &in.Desc} {
		*f = safetext.Clean(*f)
	}
	return in
}

// toolTitle is the running form of a tool line: "Run go test ./...".
func toolTitle(name string, raw []byte, root string) string {
	in := parseInput(raw)
	switch name {
	case "bash":
		return "Run " + oneLine(in.Command)
	case "read":
		return "Read " + relPath(root, in.Path)
	case "edit":
		return "Edit " + relPath(root, in.Path)
	case "write":
		return "Write " + relPath(root, in.Path)
	case "glob", "grep":
		return titleCase(name) + " " + in.Pattern
	case "task":
		return "Task " + in.Desc
	}
	return name
}

// toolLine is the finished form: `Ran go test ./... (2.1 s, exit 0)`,
// `Read x.go (120 lines)`, `Edited x.go (+12 −3)` with the diff, and the
// output's tail when a command failed.
func (st styles) toolLine(t *event.Tool, input []byte, root string, width int) string {
	return st.toolText(t, input, root, width, false)
}

// toolFull is the transcript view's form of a tool line: the whole
// output (up to maxFullLines) and the whole diff.
func (st styles) toolFull(t *event.Tool, input []byte, root string, width int) string {
	return st.toolText(t, input, root, width, true)
}

// maxFullLines caps one tool's output in the transcript view.
const maxFullLines = 2000

func (st styles) toolText(t *event.Tool, input []byte, root string, width int, full bool) string {
	in := parseInput(input)
	mark := st.ok.Render("●")
	if t.IsError {
		mark = st.bad.Render("●")
	}
	var head string
	var body []string
	switch t.Name {
	case "bash":
		code := exitOf(t)
		head = fmt.Sprintf("Ran %s (%s, %s)", oneLine(in.Command), seconds(t.DurationMS), code)
		if code != "exit 0" {
			mark = st.bad.Render("●")
			body = tail(t.Output, 8)
			if n := len(splitLines(strings.TrimRight(t.Output, "\n"))) - len(body); n > 0 && !full {
				body = append([]string{st.dim.Render(fmt.Sprintf("… %d lines above · Ctrl+O shows all", n))}, body...)
			}
		}
		if full {
			body = tail(t.Output, maxFullLines)
		}
	case "read":
		head = fmt.Sprintf("Read %s (%s)", relPath(root, in.Path), plural(len(splitLines(t.Output)), "line"))
	case "edit", "write":
		added, removed, diff := lineDiff(in.OldString, in.NewString+in.Content)
		verb := "Edited"
		if t.Name == "write" {
			verb = "Wrote"
		}
		head = fmt.Sprintf("%s %s (+%d −%d)", verb, relPath(root, in.Path), added, removed)
		if t.IsError {
			head = strings.TrimSpace(toolTitle(t.Name, input, root)) + " failed"
		} else {
			body = st.diffLines(diff, limit(full, 12))
		}
		if d := t.Diagnostics; d != nil && !t.IsError {
			note, found := diagnosticsNote(d)
			if found {
				mark = st.warn.Render("●")
				head += " · " + note
				body = append(body, diagnosticLines(t.Output, d.Server, limit(full, 4))...)
			} else {
				head += " · " + note
			}
		}
	default:
		head = toolTitle(t.Name, input, root)
		if full {
			body = tail(t.Output, maxFullLines)
		}
	}
	if t.IsError && t.Name != "bash" {
		body = tail(t.Output, limit(full, 4))
	}
	lines := []string{mark + " " + truncate(head, width-2)}
	for _, b := range body {
		if !full {
			b = truncate(b, width-4)
		}
		lines = append(lines, "  "+st.dim.Render("│ ")+b)
	}
	return strings.Join(lines, "\n")
}

// limit is how many lines of a body a tool line shows: short on the
// screen, all of it (up to maxFullLines) in the transcript view.
func limit(full bool, short int) int {
	if full {
		return maxFullLines
	}
	return short
}

// diagnosticsNote is what the language server said after an edit:
// "gopls: 1 error, 2 warnings" (found), or "gopls: no errors".
func diagnosticsNote(d *event.Diagnostics) (string, bool) {
	var parts []string
	if d.Errors > 0 {
		parts = append(parts, plural(d.Errors, "error"))
	}
	if d.Warnings > 0 {
		parts = append(parts, plural(d.Warnings, "warning"))
	}
	if d.Elsewhere > 0 {
		parts = append(parts, plural(d.Elsewhere, "new error")+" elsewhere")
	}
	if len(parts) == 0 {
		return d.Server + ": no errors", false
	}
	return d.Server + ": " + strings.Join(parts, ", "), true
}

// diagnosticLines are the server's report in an edit's output: the line
// naming the server and the indented lines under it.
func diagnosticLines(out, server string, n int) []string {
	var lines []string
	in := false
	for _, l := range splitLines(out) {
		switch {
		case strings.HasPrefix(l, server+":"):
			in = true
		case in && !strings.HasPrefix(l, " "):
			in = false
		}
		if in && len(lines) < n {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	return lines
}

// exitOf reads the bash tool's "[exit code N]" line; none means 0.
func exitOf(t *event.Tool) string {
	lines := splitLines(t.Output)
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if n, ok := strings.CutPrefix(l, "[exit code "); ok {
			return "exit " + strings.TrimSuffix(n, "]")
		}
	}
	if t.IsError {
		return "failed"
	}
	return "exit 0"
}

// diffLine is one line of a change, with its sign.
type diffLine struct {
	sign byte // '+', '-' or ' '
	text string
}

// lineDiff compares two texts line by line around their common head and
// tail: enough for the edit tool's old_string and new_string.
func lineDiff(before, after string) (added, removed int, lines []diffLine) {
	a, b := splitLines(before), splitLines(after)
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tl := 0
	for tl < len(a)-head && tl < len(b)-head && a[len(a)-1-tl] == b[len(b)-1-tl] {
		tl++
	}
	for _, l := range a[head : len(a)-tl] {
		lines = append(lines, diffLine{'-', l})
	}
	for _, l := range b[head : len(b)-tl] {
		lines = append(lines, diffLine{'+', l})
	}
	return len(b) - head - tl, len(a) - head - tl, lines
}

func (st styles) diffLines(d []diffLine, max int) []string {
	var out []string
	for i, l := range d {
		if i == max {
			out = append(out, st.dim.Render(fmt.Sprintf("… %d more lines", len(d)-max)))
			break
		}
		s := string(l.sign) + " " + l.text
		if l.sign == '+' {
			s = st.added.Render(s)
		} else {
			s = st.removed.Render(s)
		}
		out = append(out, s)
	}
	return out
}

// evidence is the line every answer ends with.
func (st styles) evidence(verdict, text string) string {
	switch {
	case text == "":
		return ""
	case verdict == "verified":
		return st.ok.Render(text)
	case verdict == "not_verified":
		return st.warn.Render(text)
	}
	return st.dim.Render(text)
}

// protectCard shows a test-protection violation the moment it happens.
func (st styles) protectCard(v *event.Violation, root string, width int) string {
	title := "⚠ Test protection: " + v.Kind + " in " + relPath(root, v.File)
	if v.Line > 0 {
		title += fmt.Sprintf(":%d", v.Line)
	}
	lines := []string{st.card.Render(truncate(title, width))}
	if v.Test != "" {
		lines = append(lines, "  test: "+v.Test)
	}
	if v.Message != "" {
		lines = append(lines, "  "+truncate(v.Message, width-2))
	}
	for _, l := range tail(v.Before, 4) {
		lines = append(lines, "  "+st.removed.Render(truncate("- "+l, width-2)))
	}
	for _, l := range tail(v.After, 4) {
		lines = append(lines, "  "+st.added.Render(truncate("+ "+l, width-2)))
	}
	return strings.Join(lines, "\n")
}

// checkLine is one gate check that finished.
func (st styles) checkLine(c *event.Check, width int) string {
	mark, verb := st.ok.Render("✓"), "passed"
	switch {
	case c.Refused:
		mark, verb = st.warn.Render("⚠"), "refused"
	case c.TimedOut:
		mark, verb = st.warn.Render("⚠"), "timed out"
	case !c.Passed:
		mark, verb = st.bad.Render("✗"), fmt.Sprintf("failed (exit %d)", c.ExitCode)
	}
	src := ""
	if c.FromModelRun {
		src = ", from your run"
	}
	return mark + " " + truncate(fmt.Sprintf("%s %s (%s, %s%s)", c.Command, verb, c.Scope, seconds(c.DurationMS), src), width-2)
}

// sentBack is the line a not-verified answer that goes back to the model gets.
func (st styles) sentBack(attempt, max int) string {
	return st.warn.Render(fmt.Sprintf("↻ not verified, sent back (attempt %d of %d)", attempt, max))
}

func seconds(ms int64) string {
	return fmt.Sprintf("%.1f s", float64(ms)/1000)
}

func elapsed(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

func relPath(root, p string) string {
	if p == "" {
		return "?"
	}
	if filepath.IsAbs(p) && root != "" {
		if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return p
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// tail is the last n non-empty lines of s.
func tail(s string, n int) []string {
	lines := splitLines(strings.TrimRight(s, "\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// truncate cuts s to width cells, marking the cut.
func truncate(s string, width int) string {
	if width < 1 {
		width = 1
	}
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	if width == 1 {
		return "…"
	}
	return string(r[:width-1]) + "…"
}
