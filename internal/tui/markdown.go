package tui

import (
	"regexp"
	"strings"
)

// A small markdown renderer for finished replies: headings, bold, inline
// code, fenced code blocks and lists, wrapped to the width. glamour/v2 was
// the plan, but its renderer executes text/template (ansi.formatToken),
// which turns off the linker's dead-code elimination of methods that
// TestDeadCodeEliminationStaysOn guards: the binary would double in size
// and resident memory (docs/benchmarks.md).

var (
	boldRe   = regexp.MustCompile(`\*\*([^*\n]+)\*\*`)
	codeRe   = regexp.MustCompile("`([^`\n]+)`")
	headRe   = regexp.MustCompile(`^(#{1,6})\s+(.*)$`)
	bulletRe = regexp.MustCompile(`^(\s*)[-*+]\s+(.*)$`)
)

// renderMarkdown renders text at the current width, indented two cells.
func (m *model) renderMarkdown(text string) (string, error) {
	w := max(m.width-2, 10)
	var out []string
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
			continue
		}
		if inCode {
			out = append(out, "  "+m.st.accent.Render(truncate("  "+line, w)))
			continue
		}
		if h := headRe.FindStringSubmatch(line); h != nil {
			out = append(out, "  "+m.st.bold.Render(h[2]))
			continue
		}
		indent := "  "
		if b := bulletRe.FindStringSubmatch(line); b != nil {
			indent += b[1] + "• "
			line = b[2]
		}
		for i, l := range wordWrap(line, w-len([]rune(indent))) {
			pre := indent
			if i > 0 {
				pre = strings.Repeat(" ", len([]rune(indent)))
			}
			out = append(out, pre+m.inline(l))
		}
	}
	return strings.Join(out, "\n"), nil
}

// inline styles **bold** and `code` (plain terminals keep the text only).
func (m *model) inline(s string) string {
	s = boldRe.ReplaceAllStringFunc(s, func(x string) string { return m.st.bold.Render(x[2 : len(x)-2]) })
	return codeRe.ReplaceAllStringFunc(s, func(x string) string { return m.st.accent.Render(x[1 : len(x)-1]) })
}

// wordWrap breaks s at spaces into lines of at most w cells; a longer
// word is cut.
func wordWrap(s string, w int) []string {
	w = max(w, 1)
	if len([]rune(s)) <= w {
		return []string{s}
	}
	var lines []string
	var cur []rune
	for _, word := range strings.Fields(s) {
		r := []rune(word)
		for len(r) > w {
			if len(cur) > 0 {
				lines, cur = append(lines, string(cur)), nil
			}
			lines, r = append(lines, string(r[:w])), r[w:]
		}
		switch {
		case len(cur) == 0:
			cur = r
		case len(cur)+1+len(r) <= w:
			cur = append(append(cur, ' '), r...)
		default:
			lines, cur = append(lines, string(cur)), r
		}
	}
	if len(cur) > 0 {
		lines = append(lines, string(cur))
	}
	return lines
}
