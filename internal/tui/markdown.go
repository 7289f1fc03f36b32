package tui

import (
	"regexp"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// Replies are rendered from glamour's pieces: its parser (goldmark, with
// GFM tables, strikethrough and task lists), its style sheets (dark,
// light, and the plain one for NO_COLOR; sheet.go) and its highlighter's
// engine (chroma, with lexers of our own, lexers.go, coloured with the
// sheet's code theme). glamour's own renderer is not linked: it runs
// every styled token through text/template, whose reflection turns off
// the linker's dead-code elimination of methods
// (TestDeadCodeEliminationStaysOn). With it the binary was 121 MB instead
// of 64 and a one-prompt run took 71 MB of memory instead of 42
// (docs/tui.md, "Markdown").

// markdown renders finished replies at a width. It holds no state of a
// reply, so one serves the whole session.
type markdown struct {
	plain bool
	cfg   sheet
	md    goldmark.Markdown
	code  map[chroma.TokenType]styler
}

func newMarkdown(plain, light bool) *markdown {
	cfg := darkSheet
	switch {
	case plain:
		cfg = plainSheet
	case light:
		cfg = lightSheet
	}
	r := &markdown{plain: plain, cfg: cfg, md: goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList))}
	r.code = map[chroma.TokenType]styler{}
	if !plain {
		for t, st := range cfg.Tokens {
			r.code[t] = r.style(st)
		}
	}
	return r
}

// render lays text out in lines of at most width cells, indented two.
func (r *markdown) render(src string, width int) string {
	source := []byte(src)
	doc := r.md.Parser().Parse(text.NewReader(source))
	b := &mdBlocks{r: r, src: source}
	lines := b.children(doc, max(width-2, 8), true)
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// style turns one of the sheet's styles into a styler (x/ansi's, as
// glamour's renderer does: lipgloss underlines cell by cell); plain output
// has none.
func (r *markdown) style(p mdStyle) styler {
	var s xansi.Style
	if r.plain {
		return styler{}
	}
	if p.Color != "" {
		s = s.ForegroundColor(lipgloss.Color(p.Color))
	}
	if p.Background != "" {
		s = s.BackgroundColor(lipgloss.Color(p.Background))
	}
	if p.Bold {
		s = s.Bold()
	}
	if p.Faint {
		s = s.Faint()
	}
	if p.Italic {
		s = s.Italic(true)
	}
	if p.Underline {
		s = s.Underline(true)
	}
	if p.CrossedOut {
		s = s.Strikethrough(true)
	}
	return styler{s}
}

// styler wraps text in one style; the zero styler leaves it alone.
type styler struct{ s xansi.Style }

func (st styler) Render(text string) string {
	if len(st.s) == 0 || text == "" {
		return text
	}
	return st.s.Styled(text)
}

// mdBlocks walks one parsed reply.
type mdBlocks struct {
	r   *markdown
	src []byte
}

// children renders the blocks under n, a blank line between them unless
// the list is tight.
func (b *mdBlocks) children(n ast.Node, w int, spaced bool) []string {
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		lines := b.block(c, w)
		if len(lines) == 0 {
			continue
		}
		if spaced && len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

func (b *mdBlocks) block(n ast.Node, w int) []string {
	cfg := b.r.cfg
	switch n := n.(type) {
	case *ast.Heading:
		p := cfg.H[min(max(n.Level, 1), 6)-1]
		return wrapLines(b.r.style(p).Render(p.Prefix+plainInline(n, b.src)+p.Suffix), w)
	case *ast.Paragraph, *ast.TextBlock:
		return wrapLines(b.inline(n), w)
	case *ast.FencedCodeBlock:
		return b.code(n, string(n.Language(b.src)), w)
	case *ast.CodeBlock:
		return b.code(n, "", w)
	case *ast.List:
		return b.list(n, w)
	case *ast.Blockquote:
		return prefixed(b.children(n, w-2, true), b.r.style(cfg.BlockQuote).Render("│ "), "│ ")
	case *ast.ThematicBreak:
		return []string{b.r.style(cfg.HorizontalRule).Render(strings.Repeat("─", min(w, 40)))}
	case *ast.HTMLBlock:
		return splitLines(blockText(n, b.src))
	case *east.Table:
		return b.table(n, w)
	}
	return b.children(n, w, true)
}

// list renders bullets or numbers, items indented under their marker.
func (b *mdBlocks) list(n *ast.List, w int) []string {
	var out []string
	num := n.Start
	if num == 0 {
		num = 1
	}
	for it := n.FirstChild(); it != nil; it = it.NextSibling() {
		mark := "• "
		if n.IsOrdered() {
			mark = strconv.Itoa(num) + ". "
			num++
		}
		body := b.children(it, w-len([]rune(mark)), !n.IsTight)
		if !n.IsTight && len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, prefixed(body, b.r.style(b.r.cfg.Item).Render(mark), strings.Repeat(" ", len([]rune(mark))))...)
	}
	return out
}

// code highlights a code block with chroma in the style sheet's colours;
// lines longer than the width are left for the scrollback wrap.
func (b *mdBlocks) code(n ast.Node, lang string, w int) []string {
	src := strings.ReplaceAll(strings.TrimRight(blockText(n, b.src), "\n"), "\t", "    ")
	if b.r.plain {
		return prefixed(strings.Split(src, "\n"), "  ", "  ")
	}
	lx := lexerFor(lang, src)
	if lx == nil {
		return prefixed(b.r.textLines(src), "  ", "  ")
	}
	it, err := chroma.Coalesce(lx).Tokenise(nil, src)
	if err != nil {
		return prefixed(b.r.textLines(src), "  ", "  ")
	}
	var sb strings.Builder
	for t := it(); t != chroma.EOF; t = it() {
		st := b.r.tokenStyle(t.Type)
		// Styles end at line ends, so each line stands alone in the scrollback.
		for i, part := range strings.Split(t.Value, "\n") {
			if i > 0 {
				sb.WriteByte('\n')
			}
			if part != "" {
				sb.WriteString(st.Render(part))
			}
		}
	}
	return prefixed(strings.Split(strings.TrimRight(sb.String(), "\n"), "\n"), "  ", "  ")
}

// textLines is code no lexer knows, in the sheet's text colour.
func (r *markdown) textLines(src string) []string {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = r.tokenStyle(chroma.Text).Render(l)
		}
	}
	return lines
}

func (r *markdown) tokenStyle(t chroma.TokenType) styler {
	for _, k := range []chroma.TokenType{t, t.SubCategory(), t.Category()} {
		if s, ok := r.code[k]; ok {
			return s
		}
	}
	return r.code[chroma.Text]
}

// table lays a GFM table out in aligned columns; one too wide for the
// screen becomes one line per row.
func (b *mdBlocks) table(n *east.Table, w int) []string {
	var rows [][]string
	for r := n.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, b.inline(c))
		}
		rows = append(rows, cells)
	}
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], lipgloss.Width(c))
		}
	}
	total := 0
	for _, cw := range widths {
		total += cw + 3
	}
	var out []string
	for ri, r := range rows {
		if total > w {
			out = append(out, wrapLines(strings.Join(r, " · "), w)...)
			continue
		}
		var sb strings.Builder
		for i, c := range r {
			sb.WriteString(c + strings.Repeat(" ", widths[i]-lipgloss.Width(c)))
			if i < len(r)-1 {
				sb.WriteString(" │ ")
			}
		}
		line := sb.String()
		if ri == 0 {
			line = b.r.style(b.r.cfg.Strong).Render(line)
		}
		out = append(out, strings.TrimRight(line, " "))
		if ri == 0 {
			out = append(out, b.r.style(b.r.cfg.HorizontalRule).Render(strings.Repeat("─", total-3)))
		}
	}
	return out
}

// inline renders the spans under n: emphasis, code, links, breaks.
func (b *mdBlocks) inline(n ast.Node) string {
	var sb strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		sb.WriteString(b.span(c))
	}
	return sb.String()
}

func (b *mdBlocks) span(n ast.Node) string {
	cfg, r := b.r.cfg, b.r
	switch n := n.(type) {
	case *ast.Text:
		s := string(n.Segment.Value(b.src))
		switch {
		case n.HardLineBreak():
			s += "\n"
		case n.SoftLineBreak():
			s += " "
		}
		return s
	case *ast.String:
		return string(n.Value)
	case *ast.CodeSpan:
		p := cfg.Code
		if r.plain {
			return "`" + plainInline(n, b.src) + "`"
		}
		return r.style(p).Render(p.Prefix + plainInline(n, b.src) + p.Suffix)
	case *ast.Emphasis:
		p := cfg.Emph
		if n.Level >= 2 {
			p = cfg.Strong
		}
		if r.plain {
			return p.Mark + b.inline(n) + p.Mark
		}
		return r.style(p).Render(b.inline(n))
	case *east.Strikethrough:
		if r.plain {
			return "~~" + b.inline(n) + "~~"
		}
		return r.style(cfg.Strikethrough).Render(b.inline(n))
	case *east.TaskCheckBox:
		if n.IsChecked {
			return cfg.Ticked
		}
		return cfg.Unticked
	case *ast.Link:
		label, dest := b.inline(n), string(n.Destination)
		out := r.style(cfg.LinkText).Render(label)
		if dest != "" && dest != plainInline(n, b.src) {
			out += " " + r.style(cfg.Link).Render(dest)
		}
		return out
	case *ast.AutoLink:
		return r.style(cfg.Link).Render(string(n.URL(b.src)))
	case *ast.Image:
		return r.style(cfg.ImageText).Render("Image: "+plainInline(n, b.src)+" →") + " " + r.style(cfg.Image).Render(string(n.Destination))
	case *ast.RawHTML:
		var sb strings.Builder
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			sb.Write(seg.Value(b.src))
		}
		return sb.String()
	}
	return b.inline(n)
}

// plainInline is the text under n without styles.
func plainInline(n ast.Node, src []byte) string {
	var sb strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			sb.Write(c.Segment.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				sb.WriteByte(' ')
			}
		case *ast.String:
			sb.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return sb.String()
}

// blockText is the raw text of a code or HTML block.
func blockText(n ast.Node, src []byte) string {
	var sb strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		sb.Write(seg.Value(src))
	}
	return sb.String()
}

// wrapLines wraps styled text at word boundaries to w cells.
func wrapLines(s string, w int) []string {
	return strings.Split(xansi.Wrap(s, max(w, 1), ""), "\n")
}

// prefixed puts first before the first line and rest before the others.
func prefixed(lines []string, first, rest string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		p := rest
		if i == 0 {
			p = first
		}
		if l == "" && i > 0 {
			out[i] = strings.TrimRight(p, " ")
			continue
		}
		out[i] = p + l
	}
	return out
}

// commitBlocks prints the blocks of the streaming reply that are
// finished — those a blank line and the start of a new block follow — so
// a long reply reaches the scrollback rendered as it streams and the live
// region keeps only the block being written.
func (m *model) commitBlocks() tea.Cmd {
	s := m.turn.reply.String()
	cut := streamBoundary(s[m.turn.shown:])
	if cut == 0 {
		return nil
	}
	chunk := s[m.turn.shown : m.turn.shown+cut]
	m.turn.shown += cut
	return m.print(m.markdown(chunk) + "\n")
}

// streamBoundary is the length of the finished blocks at the start of s:
// up to the last blank line, outside a code fence, after which a line
// starts a new top-level block (not indented, not a list item, which
// could still belong to a list above).
func streamBoundary(s string) int {
	inFence, blank := false, false
	cut, candidate, off := 0, 0, 0
	for {
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			return cut // the last line is still being written
		}
		line := s[off : off+i+1]
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			if !inFence && blank && candidate > 0 {
				cut = candidate
			}
			inFence = !inFence
			blank = false
		case inFence:
		case t == "":
			if off > 0 && !blank {
				candidate = off + i + 1
			}
			blank = true
		default:
			if blank && candidate > 0 && topLevel(line) {
				cut = candidate
			}
			blank = false
		}
		off += i + 1
	}
}

var listItem = regexp.MustCompile(`^([-*+]|\d+[.)])\s`)

func topLevel(line string) bool {
	return line[0] != ' ' && line[0] != '\t' && !listItem.MatchString(line)
}
