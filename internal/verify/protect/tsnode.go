package protect

import (
	"strings"
	"sync"

	ts "github.com/tree-sitter/go-tree-sitter"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tspy "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// node is a Go copy of a tree-sitter node. Copying the tree once costs a
// few cgo calls per node and makes every later walk plain Go.
type node struct {
	kind     string
	field    string
	named    bool
	start    int
	end      int
	line     int // 1-based
	parent   *node
	children []*node
}

type grammar struct {
	name  string
	once  sync.Once
	lang  *ts.Language
	load  func() *ts.Language
	kinds []string
	named []bool
}

var grammars = map[string]*grammar{
	"python":     {name: "python", load: func() *ts.Language { return ts.NewLanguage(tspy.Language()) }},
	"javascript": {name: "javascript", load: func() *ts.Language { return ts.NewLanguage(tsjs.Language()) }},
	"typescript": {name: "typescript", load: func() *ts.Language { return ts.NewLanguage(tsts.LanguageTypescript()) }},
	"tsx":        {name: "tsx", load: func() *ts.Language { return ts.NewLanguage(tsts.LanguageTSX()) }},
	"rust":       {name: "rust", load: func() *ts.Language { return ts.NewLanguage(tsrust.Language()) }},
	"java":       {name: "java", load: func() *ts.Language { return ts.NewLanguage(tsjava.Language()) }},
}

func (g *grammar) language() *ts.Language {
	g.once.Do(func() {
		g.lang = g.load()
		n := int(g.lang.NodeKindCount())
		g.kinds = make([]string, n+1)
		g.named = make([]bool, n+1)
		for i := 0; i < n; i++ {
			g.kinds[i] = g.lang.NodeKindForId(uint16(i))
			g.named[i] = g.lang.NodeKindIsNamed(uint16(i))
		}
	})
	return g.lang
}

func (g *grammar) isNamed(id uint16) bool { return int(id) < len(g.named) && g.named[id] }

func (g *grammar) kind(id uint16) string {
	if int(id) < len(g.kinds) {
		return g.kinds[id]
	}
	return ""
}

// shallowDepth bounds how deep a file above MaxDeepSize is copied: enough
// to reach test names, not their bodies.
var shallowDepth = map[string]int{"python": 5, "rust": 8, "java": 8, "javascript": 24, "typescript": 24, "tsx": 24}

// parsed is a copied syntax tree and whether it had syntax errors.
type parsed struct {
	root *node
	bad  bool
}

// span is the byte range of a file that differs from the other side; only
// nodes touching it are copied in full, since everything else is
// byte-identical on both sides.
type span struct{ lo, hi int }

var whole = span{0, 1 << 62}

// parseTS parses one file in full.
func parseTS(lang string, src []byte) (*node, bool) {
	g := grammars[lang]
	p := ts.NewParser()
	defer p.Close()
	if err := p.SetLanguage(g.language()); err != nil {
		return nil, true
	}
	tree := p.Parse(src, nil)
	if tree == nil {
		return nil, true
	}
	defer tree.Close()
	pt := copyParsed(g, tree, src, whole)
	return pt.root, pt.bad
}

func copyParsed(g *grammar, tree *ts.Tree, src []byte, sp span) parsed {
	c := tree.Walk()
	defer c.Close()
	depth := 1 << 30
	if len(src) > MaxDeepSize {
		depth = shallowDepth[g.name]
	}
	return parsed{root: copyTree(g, c, depth, sp), bad: tree.RootNode().HasError()}
}

// parsePair parses both sides of a changed file: the base in full, the
// current incrementally from it, copying only what touches the change.
func parsePair(lang string, b, a []byte, full bool) (parsed, parsed) {
	g := grammars[lang]
	lo, bhi, ahi := changedSpan(b, a)
	p := ts.NewParser()
	defer p.Close()
	if err := p.SetLanguage(g.language()); err != nil {
		return parsed{bad: true}, parsed{bad: true}
	}
	key := treeKey(lang, b)
	bt := baseTrees.get(key)
	if bt == nil {
		if bt = p.Parse(b, nil); bt == nil {
			return parsed{bad: true}, parsed{bad: true}
		}
		baseTrees.put(key, bt)
	}
	defer bt.Close()
	bs, as := span{lo, bhi}, span{lo, ahi}
	if full {
		bs, as = whole, whole
	}
	bp := copyParsed(g, bt, b, bs)
	edit := &ts.InputEdit{StartByte: uint(lo), OldEndByte: uint(bhi), NewEndByte: uint(ahi),
		StartPosition: point(b, lo), OldEndPosition: point(b, bhi), NewEndPosition: point(a, ahi)}
	bt.Edit(edit)
	at := p.Parse(a, bt)
	if at == nil {
		return bp, parsed{bad: true}
	}
	defer at.Close()
	return bp, copyParsed(g, at, a, as)
}

// changedSpan returns the start of the first difference and the ends of
// the differing ranges in b and a.
func changedSpan(b, a []byte) (lo, bhi, ahi int) {
	for lo < len(b) && lo < len(a) && b[lo] == a[lo] {
		lo++
	}
	bhi, ahi = len(b), len(a)
	for bhi > lo && ahi > lo && b[bhi-1] == a[ahi-1] {
		bhi--
		ahi--
	}
	return lo, bhi, ahi
}

func point(src []byte, off int) ts.Point {
	row, col := 0, 0
	for i := 0; i < off && i < len(src); i++ {
		if src[i] == '\n' {
			row++
			col = 0
		} else {
			col++
		}
	}
	return ts.Point{Row: uint(row), Column: uint(col)}
}

// fullLimit is the size below which a node touching the change is copied
// with its whole subtree: a test is copied whole, a file or suite is not.
const fullLimit = 16 << 10

// copyTree copies the tree under the cursor. Nodes that do not touch the
// span are kept without children (their text is still reachable by byte
// range), except Rust attributes, which belong to the item after them.
func copyTree(g *grammar, c *ts.TreeCursor, maxDepth int, sp span) *node {
	root := newNode(g, c, nil)
	copyChildren(g, c, root, 0, maxDepth, sp, sp == whole)
	return root
}

func copyChildren(g *grammar, c *ts.TreeCursor, n *node, depth, maxDepth int, sp span, full bool) {
	if depth >= maxDepth {
		return
	}
	if !full {
		if n.start > sp.hi || n.end < sp.lo {
			return
		}
		full = n.end-n.start <= fullLimit
	}
	if !c.GotoFirstChild() {
		return
	}
	for {
		ch := newNode(g, c, n)
		n.children = append(n.children, ch)
		copyChildren(g, c, ch, depth+1, maxDepth, sp, full || ch.kind == "attribute_item")
		if !c.GotoNextSibling() {
			break
		}
	}
	c.GotoParent()
}

func newNode(g *grammar, c *ts.TreeCursor, parent *node) *node {
	n := c.Node()
	s, e := n.ByteRange()
	id := n.KindId()
	k := g.kind(id)
	if n.IsMissing() || n.IsError() {
		k = "ERROR"
	}
	field := ""
	if parent != nil {
		field = c.FieldName()
	}
	return &node{kind: k, field: field, named: g.isNamed(id), start: int(s), end: int(e), line: int(n.StartPosition().Row) + 1, parent: parent}
}

func (n *node) text(src []byte) string { return string(src[n.start:n.end]) }

// child returns the first child with the given field name.
func (n *node) child(field string) *node {
	for _, c := range n.children {
		if c.field == field {
			return c
		}
	}
	return nil
}

// firstOf returns the first child of one of the kinds.
func (n *node) firstOf(kinds ...string) *node {
	for _, c := range n.children {
		for _, k := range kinds {
			if c.kind == k {
				return c
			}
		}
	}
	return nil
}

func (n *node) namedChildren() []*node {
	var out []*node
	for _, c := range n.children {
		if c.named && !isComment(c.kind) {
			out = append(out, c)
		}
	}
	return out
}

// walk visits n and its descendants depth first; f returns false to skip
// a node's children.
func (n *node) walk(f func(*node) bool) {
	if !f(n) {
		return
	}
	for _, c := range n.children {
		c.walk(f)
	}
}

func isComment(kind string) bool {
	return kind == "comment" || kind == "line_comment" || kind == "block_comment"
}

// tokenizer turns subtrees into normalized token strings: comments and
// whitespace dropped, quote style unified, trailing commas removed.
type tokenizer struct {
	src         []byte
	unifyQuotes bool
	dropSemi    bool
	holes       map[*node]string
}

func (t *tokenizer) tokens(n *node, out []string) []string {
	if isComment(n.kind) {
		return out
	}
	if h, ok := t.holes[n]; ok {
		return append(out, h)
	}
	if inner := redundantParens(n); inner != nil {
		return t.tokens(inner, out)
	}
	if n.kind == "formal_parameters" && n.parent != nil && n.parent.kind == "arrow_function" {
		// Prettier writes x => … as (x) => …
		if named := n.namedChildren(); len(named) == 1 && named[0].kind == "identifier" {
			return t.tokens(named[0], out)
		}
	}
	if t.unifyQuotes && (n.kind == "string" || n.kind == "string_literal") {
		return append(out, unquote(n.text(t.src)))
	}
	if len(n.children) == 0 || n.kind == "string_literal" || n.kind == "raw_string_literal" || n.kind == "char_literal" {
		tok := strings.TrimSpace(n.text(t.src))
		if tok == "" || (t.dropSemi && tok == ";") {
			return out
		}
		return append(out, tok)
	}
	for _, c := range n.children {
		out = t.tokens(c, out)
	}
	return out
}

// norm returns the normalized text of n.
func (t *tokenizer) norm(n *node) string {
	return joinTokens(t.tokens(n, nil))
}

func joinTokens(toks []string) string {
	var b strings.Builder
	for i, tok := range toks {
		if tok == "," && i+1 < len(toks) && closes(toks[i+1]) {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(tok)
	}
	return b.String()
}

func closes(tok string) bool { return tok == ")" || tok == "]" || tok == "}" || tok == ">" }

// unquote rewrites a single- or double-quoted string literal to one form so
// that 'a' and "a" normalize alike; other strings pass through.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	prefix := ""
	for len(s) > 0 && strings.ContainsRune("rbuRBUfF", rune(s[0])) {
		prefix += s[:1]
		s = s[1:]
	}
	if len(s) >= 6 && (strings.HasPrefix(s, `"""`) || strings.HasPrefix(s, `'''`)) {
		return prefix + `"""` + s[3:len(s)-3] + `"""`
	}
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		body := s[1 : len(s)-1]
		body = strings.ReplaceAll(body, `\'`, `'`)
		body = strings.ReplaceAll(body, `\"`, `"`)
		return prefix + `"` + body + `"`
	}
	return prefix + s
}

// stringValue returns the content of a string literal node without quotes.
func stringValue(n *node, src []byte) string {
	s := unquote(n.text(src))
	s = strings.TrimLeft(s, "rbuRBUfF")
	s = strings.TrimPrefix(strings.TrimSuffix(s, `"""`), `"""`)
	s = strings.Trim(s, "\"`")
	return s
}

// redundantParens returns the expression inside parentheses that cannot
// change precedence (around a whole assert, statement, return value or
// right-hand side, as black and prettier add them when wrapping lines).
func redundantParens(n *node) *node {
	if n.kind != "parenthesized_expression" || n.parent == nil {
		return nil
	}
	switch n.parent.kind {
	case "assert_statement", "expression_statement", "return_statement", "assignment", "parenthesized_expression",
		"variable_declarator", "assignment_expression", "arguments", "argument_list":
	default:
		return nil
	}
	named := n.namedChildren()
	if len(named) != 1 || named[0].kind == "generator_expression" {
		return nil
	}
	if n.parent.kind == "arguments" || n.parent.kind == "argument_list" {
		// f((a, b)) passes a tuple in Python; only unwrap lone arguments.
		if len(n.parent.namedChildren()) != 1 || named[0].kind == "tuple" || named[0].kind == "sequence_expression" {
			return nil
		}
	}
	return named[0]
}
