package selecttest

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	ts "github.com/tree-sitter/go-tree-sitter"
	tspy "github.com/tree-sitter/tree-sitter-python/bindings/go"
)

// pyStmt is one simple statement, or the header of a compound one (`def
// f(x):`, `try:`), as tokens; top is set at module level.
type pyStmt struct {
	toks []pyTok
	top  bool
	// depth is how many blocks hold the statement (0 at module level).
	depth int
}

// pyQuery finds, in one pass of tree-sitter's query engine, what the Go
// lexer cannot tell by itself: where each statement starts, the blocks
// (for module level or not), the string literals and f-string replacement
// fields, and error regions. Tokens are then read in Go from the source:
// visiting every node through cgo cost five times the old lexer.
var pyQuery = sync.OnceValues(func() (*ts.Language, *ts.Query) {
	lang := ts.NewLanguage(tspy.Language())
	var b strings.Builder
	for i, group := range pyCaptures {
		for _, kind := range group {
			if kind == "ERROR" || lang.IdForNodeKind(kind, true) != 0 {
				fmt.Fprintf(&b, "(%s) @c%d\n", kind, i)
			}
		}
	}
	q, err := ts.NewQuery(lang, b.String())
	if err != nil {
		return lang, nil
	}
	return lang, q
})

// The capture groups of pyQuery, by index.
const (
	capStmt = iota
	capBlock
	capString
	capInterp
	capError
)

var pyCaptures = [][]string{
	capStmt: {"expression_statement", "import_statement", "import_from_statement", "future_import_statement",
		"print_statement", "assert_statement", "return_statement", "delete_statement", "raise_statement",
		"pass_statement", "break_statement", "continue_statement", "global_statement", "nonlocal_statement",
		"exec_statement", "type_alias_statement", "if_statement", "for_statement", "while_statement",
		"try_statement", "with_statement", "function_definition", "class_definition", "decorated_definition",
		"match_statement", "elif_clause", "else_clause", "except_clause", "except_group_clause",
		"finally_clause", "case_clause", "decorator"},
	capBlock:  {"block"},
	capString: {"string"},
	capInterp: {"interpolation"},
	capError:  {"ERROR"},
}

type span struct{ lo, hi int }

// pyLayout is what the tree says about a file.
type pyLayout struct {
	starts  []int  // statement starts, sorted
	blocks  []span // sorted by start
	strs    []span // string literals, sorted by start
	interps []span // f-string replacement fields, sorted by start
	errs    []span // error regions
}

var pyParsers = sync.Pool{New: func() any {
	useLibcAllocator()
	lang, q := pyQuery()
	p := ts.NewParser()
	if q == nil || p.SetLanguage(lang) != nil {
		return nil
	}
	return p
}}

// pyStatements parses src with tree-sitter and returns its statements as
// tokens. bad is set when the file has a syntax error (or tree-sitter
// cannot parse it); the tokens of an error region are still split into
// statements at line starts, so an import after it is never dropped.
func pyStatements(src string) (stmts []pyStmt, bad bool) {
	p, _ := pyParsers.Get().(*ts.Parser)
	if p == nil {
		return nil, true
	}
	defer pyParsers.Put(p)
	data := []byte(src)
	tree := p.Parse(data, nil)
	if tree == nil {
		return nil, true
	}
	defer tree.Close()
	root := tree.RootNode()
	_, q := pyQuery()
	qc := ts.NewQueryCursor()
	defer qc.Close()
	var l pyLayout
	matches := qc.Matches(q, root, data)
	for m := matches.Next(); m != nil; m = matches.Next() {
		for _, c := range m.Captures {
			sp := span{int(c.Node.StartByte()), int(c.Node.EndByte())}
			switch q.CaptureNames()[c.Index] {
			case "c0":
				l.starts = append(l.starts, sp.lo)
			case "c1":
				l.blocks = append(l.blocks, sp)
				l.starts = append(l.starts, sp.lo)
			case "c2":
				l.strs = append(l.strs, sp)
			case "c3":
				l.interps = append(l.interps, sp)
			case "c4":
				l.errs = append(l.errs, sp)
				l.starts = append(l.starts, sp.lo)
			}
		}
	}
	slices.Sort(l.starts)
	l.starts = slices.Compact(l.starts)
	for _, s := range [][]span{l.blocks, l.strs, l.interps, l.errs} {
		slices.SortFunc(s, func(a, b span) int { return a.lo - b.lo })
	}
	lx := &pyLexer{src: src, l: &l}
	lx.lex(0, len(src))
	lx.flush()
	return lx.stmts, root.HasError()
}

// pyLexer reads tokens from the source, cutting statements where the tree
// says they start.
type pyLexer struct {
	src   string
	l     *pyLayout
	stmts []pyStmt
	cur   []pyTok
	top   bool
	depth int
	next  int   // index in l.starts of the next statement start
	open  []int // ends of the blocks the current position is in
	nextB int
}

func (x *pyLexer) flush() {
	if len(x.cur) > 0 {
		x.stmts = append(x.stmts, pyStmt{toks: x.cur, top: x.top, depth: x.depth})
		x.cur = nil
	}
}

// boundary starts a new statement when i is at or past the next
// statement start, noting whether it is inside a block.
func (x *pyLexer) boundary(i int) {
	if x.next >= len(x.l.starts) || x.l.starts[x.next] > i {
		return
	}
	for x.next < len(x.l.starts) && x.l.starts[x.next] <= i {
		x.next++
	}
	x.flush()
	for len(x.open) > 0 && x.open[len(x.open)-1] <= i {
		x.open = x.open[:len(x.open)-1]
	}
	for x.nextB < len(x.l.blocks) && x.l.blocks[x.nextB].lo <= i {
		if b := x.l.blocks[x.nextB]; b.hi > i {
			x.open = append(x.open, b.hi)
		}
		x.nextB++
	}
	x.top = len(x.open) == 0
	x.depth = len(x.open)
}

// inError reports whether i is inside an error region.
func (x *pyLexer) inError(i int) bool {
	for _, e := range x.l.errs {
		if e.lo <= i && i < e.hi {
			return true
		}
	}
	return false
}

// lex emits the tokens of src[lo:hi].
func (x *pyLexer) lex(lo, hi int) {
	src := x.src
	newline := false
	for i := lo; i < hi; {
		c := src[i]
		switch {
		case c == '\n':
			newline = true
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\\':
			i++
			continue
		case c == '#':
			for i < hi && src[i] != '\n' {
				i++
			}
			continue
		}
		x.boundary(i)
		if newline && len(x.l.errs) > 0 && x.inError(i) && (bracketDepth(x.cur) <= 0 || startsStatement(wordAt(src, i))) {
			x.flush() // in an error region, a new line starts a new statement
		}
		newline = false
		if s, ok := x.stringAt(i); ok {
			x.str(s)
			i = s.hi
			continue
		}
		if tok, next := scanWord(src, i); next > i {
			x.cur = append(x.cur, tok)
			i = next
			continue
		}
		_, size := utf8.DecodeRuneInString(src[i:])
		if c != ';' {
			x.cur = append(x.cur, pyTok{'o', src[i : i+size]})
		}
		i += size
	}
}

// stringAt returns the string literal starting at i.
func (x *pyLexer) stringAt(i int) (span, bool) {
	k, ok := slices.BinarySearchFunc(x.l.strs, i, func(s span, i int) int { return s.lo - i })
	if !ok {
		return span{}, false
	}
	return x.l.strs[k], true
}

// str emits a string literal: its value as one token, then, for an
// f-string, the tokens of its replacement fields (braces included).
func (x *pyLexer) str(s span) {
	raw := x.src[s.lo:s.hi]
	p := strings.IndexAny(raw, `'"`)
	if p < 0 {
		return
	}
	prefix := raw[:p]
	q := 1
	if strings.HasPrefix(raw[p:], `"""`) || strings.HasPrefix(raw[p:], "'''") {
		q = 3
	}
	body := span{s.lo + p + q, s.hi}
	if s.hi-s.lo >= p+2*q && strings.HasSuffix(raw, raw[p:p+q]) {
		body.hi = s.hi - q
	}
	body.hi = max(body.hi, body.lo)
	if !strings.ContainsAny(prefix, "fF") {
		x.cur = append(x.cur, pyTok{'s', unescapeSimple(x.src[body.lo:body.hi], strings.ContainsAny(prefix, "rR"))})
		return
	}
	// The replacement fields directly in this string: the first one
	// starting after the last, nested ones being handled by lex.
	var text strings.Builder
	var fields []span
	k, _ := slices.BinarySearchFunc(x.l.interps, body.lo, func(s span, i int) int { return s.lo - i })
	at := body.lo
	for ; k < len(x.l.interps) && x.l.interps[k].lo < body.hi; k++ {
		f := x.l.interps[k]
		if f.lo < at {
			continue
		}
		text.WriteString(x.src[at:f.lo])
		fields = append(fields, f)
		at = f.hi
	}
	text.WriteString(x.src[min(at, body.hi):body.hi])
	t := strings.NewReplacer("{{", "{", "}}", "}").Replace(text.String())
	x.cur = append(x.cur, pyTok{'f', t})
	for _, f := range fields {
		x.lex(f.lo, f.hi)
	}
}

// wordAt returns the name or keyword starting at i, if any.
func wordAt(src string, i int) string {
	if tok, next := scanWord(src, i); next > i && tok.kind == 'n' {
		return tok.text
	}
	return ""
}

// unescapeSimple undoes the escapes that can appear in module names and
// paths; others are kept as written.
func unescapeSimple(s string, raw bool) string {
	if raw || !strings.Contains(s, `\`) {
		return s
	}
	r := strings.NewReplacer(`\\`, `\`, `\'`, `'`, `\"`, `"`)
	return r.Replace(s)
}

// bracketDepth is how many brackets toks leaves open.
func bracketDepth(toks []pyTok) int {
	d := 0
	for _, t := range toks {
		if t.kind != 'o' {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			d++
		case ")", "]", "}":
			d--
		}
	}
	return d
}

// startsStatement reports the keywords that begin a statement an error
// region must not swallow.
func startsStatement(text string) bool {
	switch text {
	case "import", "from", "def", "class", "async", "try", "if", "for", "while", "with", "@":
		return true
	}
	return false
}
