package protect

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// pyAnalyzer extracts pytest and unittest tests with tree-sitter-python.
type pyAnalyzer struct {
	names *pyNaming
	// classes names the module's classes whose test methods run.
	classes map[string]bool
	helper  bool
	src     []byte
	tk      *tokenizer
	m       *fileModel
}

func analyzePython(src []byte, pt parsed, names *pyNaming) *fileModel {
	m := &fileModel{helpers: map[string]string{}, classes: map[string]bool{}}
	root, bad := pt.root, pt.bad
	if root == nil || bad {
		// Keep going on the error-recovered tree: when the base did not
		// parse either, the comparison still has something to compare.
		m.parseErr = true
		m.markers = append(m.markers, marker{kind: Unparsable, line: errLine(root)})
		if root == nil {
			return m
		}
	}
	if names == nil {
		names = &pyNaming{}
	}
	a := &pyAnalyzer{src: src, m: m, names: names, tk: &tokenizer{src: src, unifyQuotes: true}}
	m.shallow = len(src) > MaxDeepSize
	root.walk(func(n *node) bool {
		if n.kind == "comment" {
			m.comments = append(m.comments, n.text(src))
		}
		return true
	})
	var inherited []marker
	imported := a.pyImported(root)
	for _, st := range root.children {
		switch st.kind {
		case "expression_statement":
			if s := st.firstOf("string"); s != nil {
				m.comments = append(m.comments, s.text(src))
			}
			if as := st.firstOf("assignment"); as != nil {
				if l := as.child("left"); l != nil && l.text(src) == "pytestmark" {
					inherited = append(inherited, a.markersIn(as, "pytestmark")...)
				}
				m.markers = append(m.markers, a.skipList(as, "")...)
			}
			m.markers = append(m.markers, a.moduleCalls(st)...)
			m.markers = append(m.markers, a.rebinds(st, imported)...)
		}
	}
	m.markers = append(m.markers, inherited...)
	a.classes = a.testClasses(root)
	a.block(root, "", nil, false)
	return m
}

// errLine finds the line of the first syntax error.
func errLine(root *node) int {
	line := 1
	if root == nil {
		return line
	}
	found := false
	root.walk(func(n *node) bool {
		if !found && n.kind == "ERROR" {
			line, found = n.line, true
		}
		return !found
	})
	return line
}

// block walks definitions of a module or class body.
func (a *pyAnalyzer) block(b *node, prefix string, inherited []marker, inTestClass bool) {
	if inTestClass {
		// pytestmark = pytest.mark.skip inside a class marks its tests.
		owner := strings.TrimSuffix(prefix, "::")
		a.m.classes[owner] = true
		for _, st := range b.children {
			if as := st.firstOf("assignment"); st.kind == "expression_statement" && as != nil {
				if l := as.child("left"); l != nil && l.text(a.src) == "pytestmark" {
					inherited = append(append([]marker{}, inherited...), a.markersIn(as, "pytestmark")...)
				}
				a.m.markers = append(a.m.markers, a.skipList(as, owner)...)
			}
		}
	}
	for _, st := range b.children {
		def, decos := st, []*node(nil)
		if st.kind == "decorated_definition" {
			def = st.child("definition")
			for _, c := range st.children {
				if c.kind == "decorator" {
					decos = append(decos, c)
				}
			}
		}
		if def == nil {
			continue
		}
		name := ""
		if n := def.child("name"); n != nil {
			name = n.text(a.src)
		}
		if name == "" {
			continue // not copied: outside the change
		}
		switch def.kind {
		case "class_definition":
			collected := a.names.class(name) || a.isTestCase(def) || (prefix == "" && a.classes[name])
			if !collected && !a.names.support {
				continue
			}
			own := a.decoMarkers(decos)
			body := def.child("body")
			if body == nil {
				continue
			}
			a.tk.holes = map[*node]string{}
			var rows []row
			for _, d := range decos {
				rows = append(rows, a.paramRows(d)...)
			}
			if len(rows) > 0 {
				a.m.add(&testCase{name: prefix + name + " (parametrize rows)", line: st.line, end: lastLine(st, a.src), from: st.start, to: st.end, rows: rows, isTable: true}, false)
			}
			a.block(body, prefix+name+"::", append(append([]marker{}, inherited...), own...), true)
		case "function_definition":
			if !a.names.function(name) || (prefix != "" && !inTestClass) || a.names.support {
				if prefix == "" {
					if body := def.child("body"); body != nil {
						a.m.helpers[name] = strings.Join(a.stmts(body), "\n")
					}
				}
				if prefix == "" || inTestClass {
					a.helper = true
					a.test(st, def, decos, prefix+name, name, nil)
					a.helper = false
				}
				continue
			}
			a.test(st, def, decos, prefix+name, name, inherited)
		}
	}
}

func hasPrefix(s, p string) bool { return strings.HasPrefix(s, p) }

// pyNaming is pytest's python_classes and python_functions of the file's
// configuration. pytest's own defaults (Test, test) always count as well,
// and so do unittest's TestCase classes, so a setting protection misreads
// can only make it guard more (mako's python_classes = ["*Test", "Test*"]
// named every one of its test classes, and none of them was guarded).
type pyNaming struct {
	classes, functions []string
	// support marks a test support file (support.go), in any language:
	// every function and method in it is a helper the tests call.
	support bool
}

func (n *pyNaming) class(name string) bool {
	return hasPrefix(name, "Test") || pyNameMatches(n.classes, name)
}

func (n *pyNaming) function(name string) bool {
	return hasPrefix(name, "test") || pyNameMatches(n.functions, name)
}

// pyNameMatches is pytest's rule for those settings: each entry is a
// prefix, or a glob when it holds *, ? or [.
func pyNameMatches(opts []string, name string) bool {
	for _, o := range opts {
		if hasPrefix(name, o) {
			return true
		}
		if strings.ContainsAny(o, "*?[") {
			if m, err := path.Match(o, name); err == nil && m {
				return true
			}
		}
	}
	return false
}

func (a *pyAnalyzer) isTestCase(def *node) bool {
	sup := def.child("superclasses")
	return sup != nil && strings.Contains(sup.text(a.src), "TestCase")
}

// testClasses names the module's classes whose test methods run: those
// pytest or unittest collect (Test*, a TestCase subclass, also through
// classes of the file) and every class of the file they inherit from, so
// a mixin's tests count (cachetools' DecoratorTestMixin runs in five
// TestCase classes). Bases imported from another module are not followed.
func (a *pyAnalyzer) testClasses(root *node) map[string]bool {
	bases := map[string][]string{}
	defs := map[string]*node{}
	for _, st := range root.children {
		def := st
		if st.kind == "decorated_definition" {
			def = st.child("definition")
		}
		if def == nil || def.kind != "class_definition" || def.child("name") == nil {
			continue
		}
		name := def.child("name").text(a.src)
		defs[name], bases[name] = def, nil
		if sup := def.child("superclasses"); sup != nil {
			for _, b := range sup.namedChildren() {
				if b.kind == "identifier" {
					bases[name] = append(bases[name], b.text(a.src))
				}
			}
		}
	}
	isCase := map[string]bool{}
	for grew := true; grew; {
		grew = false
		for name, def := range defs {
			if !isCase[name] && (a.isTestCase(def) || anyIn(bases[name], isCase)) {
				isCase[name], grew = true, true
			}
		}
	}
	out := map[string]bool{}
	var mark func(name string)
	mark = func(name string) {
		if out[name] || defs[name] == nil {
			return
		}
		out[name] = true
		for _, b := range bases[name] {
			mark(b)
		}
	}
	for name := range defs {
		if isCase[name] || a.names.class(name) {
			mark(name)
		}
	}
	return out
}

func anyIn(names []string, set map[string]bool) bool {
	for _, n := range names {
		if set[n] {
			return true
		}
	}
	return false
}

func (a *pyAnalyzer) test(outer, def *node, decos []*node, name, simple string, inherited []marker) {
	tc := &testCase{name: name, simple: "def " + simple + "(", line: outer.line, end: lastLine(outer, a.src), from: outer.start, to: outer.end}
	a.tk.holes = map[*node]string{}
	for _, d := range decos {
		tc.rows = append(tc.rows, a.paramRows(d)...)
	}
	var head []string
	for _, d := range decos {
		head = append(head, a.tk.norm(d))
	}
	if p := def.child("parameters"); p != nil {
		head = append(head, a.tk.norm(p))
	}
	tc.head = strings.Join(head, " ")
	tc.markers = append(append([]marker{}, inherited...), a.decoMarkers(decos)...)
	body := def.child("body")
	if body != nil {
		tc.stmts = a.stmts(body)
		for _, s := range a.bodyStmts(body) {
			tc.isAsrt = append(tc.isAsrt, s.kind == "assert_statement" || (s.kind == "expression_statement" && a.isAssertCall(s.firstOf("call"))))
		}
		a.scan(tc, body)
		tc.rows = append(tc.rows, a.loopRows(body)...)
	}
	a.m.add(tc, a.helper)
}

// loopRows are the rows of the tables a test's loops walk when the table
// is a literal of the module or the class (for a, want in CASES, for case
// in self.CASES): the test checks each row, so each is part of it.
func (a *pyAnalyzer) loopRows(body *node) []row {
	var out []row
	seen := map[string]bool{}
	body.walk(func(n *node) bool {
		if n.kind == "function_definition" && n != body {
			return false
		}
		if n.kind != "for_statement" {
			return true
		}
		right := n.child("right")
		if right == nil {
			return true
		}
		name := ""
		switch right.kind {
		case "identifier":
			name = right.text(a.src)
		case "attribute":
			if obj, attr := right.child("object"), right.child("attribute"); obj != nil && attr != nil && (obj.text(a.src) == "self" || obj.text(a.src) == "cls") {
				name = attr.text(a.src)
			}
		}
		if name != "" && !seen[name] {
			seen[name] = true
			out = append(out, a.nameRows(name, n)...)
		}
		return true
	})
	return out
}

// nameRows are the elements of the list or tuple literal that name is
// bound to in the nearest enclosing class body or the module, seen from n
// (the last binding there wins, as at run time); nil when that binding is
// no literal or there is none.
func (a *pyAnalyzer) nameRows(name string, n *node) []row {
	for anc := n.parent; anc != nil; anc = anc.parent {
		inClass := anc.kind == "block" && anc.parent != nil && anc.parent.kind == "class_definition"
		if !inClass && anc.kind != "module" {
			continue
		}
		var value *node
		found := false
		for _, st := range anc.namedChildren() {
			if st.kind != "expression_statement" {
				continue
			}
			as := st.firstOf("assignment")
			if as == nil {
				continue
			}
			if left := as.child("left"); left != nil && left.kind == "identifier" && left.text(a.src) == name {
				value, found = as.child("right"), true
			}
		}
		if !found {
			continue
		}
		if value == nil || (value.kind != "list" && value.kind != "tuple") {
			return nil
		}
		var rows []row
		for _, e := range value.namedChildren() {
			if e.kind != "comment" {
				rows = append(rows, row{text: a.tk.norm(e), line: e.line})
			}
		}
		return rows
	}
	return nil
}

// lastLine returns the line of the last byte of n.
func lastLine(n *node, src []byte) int {
	end := n.end
	if end > len(src) {
		end = len(src)
	}
	return n.line + strings.Count(string(src[n.start:end]), "\n")
}

// bodyStmts returns the statements of a block without a leading docstring.
func (a *pyAnalyzer) bodyStmts(body *node) []*node {
	var out []*node
	for i, s := range body.namedChildren() {
		if i == 0 && s.kind == "expression_statement" && len(s.namedChildren()) == 1 && s.namedChildren()[0].kind == "string" {
			continue
		}
		out = append(out, s)
	}
	return out
}

func (a *pyAnalyzer) stmts(body *node) []string {
	var out []string
	for _, s := range a.bodyStmts(body) {
		out = append(out, a.tk.norm(s))
	}
	return out
}

// paramRows returns the rows of @pytest.mark.parametrize and cuts them out
// of the head.
func (a *pyAnalyzer) paramRows(d *node) []row {
	txt := d.text(a.src)
	if strings.Contains(txt, "fixture") && strings.Contains(txt, "params") {
		return a.fixtureRows(d)
	}
	if !strings.Contains(txt, "parametrize") {
		return nil
	}
	var call *node
	d.walk(func(n *node) bool {
		if call == nil && n.kind == "call" {
			call = n
		}
		return call == nil
	})
	if call == nil {
		return nil
	}
	args := call.child("arguments")
	if args == nil {
		return nil
	}
	pos := args.namedChildren()
	if len(pos) >= 2 && pos[1].kind == "identifier" {
		// parametrize("a,want", CASES) with CASES a literal table of the
		// module or the class: its rows.
		return a.nameRows(pos[1].text(a.src), d)
	}
	if len(pos) < 2 || (pos[1].kind != "list" && pos[1].kind != "tuple") {
		return nil
	}
	var rows []row
	for _, e := range pos[1].namedChildren() {
		rows = append(rows, row{text: a.tk.norm(e), line: e.line})
	}
	a.tk.holes[pos[1]] = "[…]"
	return rows
}

var pySkipWords = []string{"skip", "xfail", "expectedFailure"}

// skipListWords begin a word of a name that holds tests to leave out:
// Python-Markdown's test classes keep `exclude = ['Images', ...]`, whose
// entries their metaclass turns into skipped tests; a suite may keep
// SKIP_TESTS, KNOWN_FAILURES or an ignore list for its parametrized cases.
var skipListWords = []string{"exclud", "skip", "xfail", "ignor", "disabl", "blacklist", "denylist", "blocklist"}

// skipList reads an assignment of a literal list, tuple, set or dict of
// strings to a name of skipListWords (at module level, or in the body of
// test class owner) as one skip marker per string (a dict's keys): adding
// one leaves a test out. Removing one runs a test again, which is allowed.
func (a *pyAnalyzer) skipList(as *node, owner string) []marker {
	l, r := as.child("left"), as.child("right")
	if l == nil || r == nil || l.kind != "identifier" || !skipListName(l.text(a.src), owner == "") {
		return nil
	}
	switch r.kind {
	case "list", "tuple", "set", "dictionary":
	default:
		return nil
	}
	name := l.text(a.src)
	if owner != "" {
		name = owner + "." + name
	}
	var out []marker
	for _, el := range r.namedChildren() {
		if el.kind == "pair" {
			el = el.child("key")
		}
		if el == nil || el.kind != "string" {
			continue
		}
		s := strconv.Quote(pyStringValue(el.text(a.src)))
		out = append(out, marker{kind: SkipAdded, text: name + " " + s, line: el.line, owner: owner,
			note: fmt.Sprintf("%s added to %s, a list of tests left out", s, name)})
	}
	return out
}

// pyStringValue is a string literal's text without its prefix and
// quotes, so that a reformat from 'x' to "x" changes nothing.
func pyStringValue(lit string) string {
	lit = strings.TrimLeft(lit, "rRbBuUfF")
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if len(lit) >= 2*len(q) && strings.HasPrefix(lit, q) && strings.HasSuffix(lit, q) {
			return lit[len(q) : len(lit)-len(q)]
		}
	}
	return lit
}

// skipListName reports a name with a word of skipListWords, or known or
// expected failures (words split at underscores and lower-to-upper case
// changes). At module level the name must also say it holds tests
// (SKIP_TESTS, excluded_cases, KNOWN_FAILURES): IGNORED_FIELDS there is
// test data.
func skipListName(name string, moduleLevel bool) bool {
	var words []string
	start := 0
	for i := 1; i <= len(name); i++ {
		if i == len(name) || name[i] == '_' || (name[i] >= 'A' && name[i] <= 'Z' && name[i-1] >= 'a' && name[i-1] <= 'z') {
			if i > start {
				words = append(words, strings.ToLower(strings.Trim(name[start:i], "_")))
			}
			start = i
		}
	}
	skip, tests := false, !moduleLevel
	for i, w := range words {
		for _, p := range skipListWords {
			if strings.HasPrefix(w, p) {
				skip = true
			}
		}
		if i > 0 && strings.HasPrefix(w, "fail") && (words[i-1] == "known" || words[i-1] == "expected") {
			return true // KNOWN_FAILURES, expected_failing
		}
		switch w {
		case "test", "tests", "case", "cases", "failures", "failing":
			tests = true
		}
	}
	return skip && tests
}

// decoMarkers turns skip and xfail decorators into markers.
func (a *pyAnalyzer) decoMarkers(decos []*node) []marker {
	var out []marker
	for _, d := range decos {
		out = append(out, a.markersIn(d, "")...)
	}
	return out
}

// markersIn returns skip markers named anywhere inside n (decorators,
// pytestmark values).
func (a *pyAnalyzer) markersIn(n *node, ctx string) []marker {
	var out []marker
	n.walk(func(c *node) bool {
		if c.kind != "attribute" && c.kind != "identifier" {
			return true
		}
		t := c.text(a.src)
		last := t[strings.LastIndexByte(t, '.')+1:]
		if last == "flaky" {
			out = append(out, marker{kind: ExpectationInverted, text: strings.TrimSpace(ctx+" "+t) + ": retried until it passes", line: c.line})
			return false
		}
		for _, w := range pySkipWords {
			if strings.HasPrefix(last, w) {
				out = append(out, marker{kind: SkipAdded, text: strings.TrimSpace(ctx + " " + t), line: c.line})
				return false
			}
		}
		return c.kind != "attribute"
	})
	return out
}

// moduleCalls finds module-level skips and exits.
func (a *pyAnalyzer) moduleCalls(st *node) []marker {
	var out []marker
	st.walk(func(c *node) bool {
		if c.kind == "call" {
			fn := a.calleeName(c)
			switch {
			case fn == "pytest.skip" || fn == "pytest.importorskip":
				out = append(out, marker{kind: SkipAdded, text: "module-level " + fn, line: c.line})
			case isPyExit(fn):
				out = append(out, marker{kind: EarlyExit, text: "module-level " + fn, line: c.line})
			}
		}
		return true
	})
	return out
}

func isPyExit(fn string) bool {
	switch fn {
	case "sys.exit", "os._exit", "exit", "quit", "os.abort":
		return true
	}
	return false
}

func (a *pyAnalyzer) calleeName(c *node) string {
	f := c.child("function")
	if f == nil {
		return ""
	}
	return strings.Join(strings.Fields(f.text(a.src)), "")
}

func (a *pyAnalyzer) isAssertCall(c *node) bool {
	if c == nil {
		return false
	}
	fn := a.calleeName(c)
	last := fn[strings.LastIndexByte(fn, '.')+1:]
	return strings.HasPrefix(last, "assert") || strings.HasPrefix(last, "assert_") || fn == "pytest.fail" || strings.HasPrefix(last, "fail")
}

// scan collects assertions, skips, exits and inversions in a test body.
func (a *pyAnalyzer) scan(tc *testCase, body *node) {
	// A helper or fixture that returns a value at once is just short; a
	// bare return, or any return opening a test, skips what follows.
	if st := a.bodyStmts(body); len(st) > 0 && st[0].kind == "return_statement" && !(a.helper && len(st[0].namedChildren()) > 0) {
		tc.markers = append(tc.markers, marker{kind: EarlyExit, text: "return", line: st[0].line})
	}
	var returns []int // lines of return statements, for helpers
	var visit func(n *node, g int)
	visit = func(n *node, g int) {
		switch n.kind {
		case "function_definition", "class_definition", "lambda":
			return
		case "if_statement", "try_statement", "conditional_expression":
			g++
		case "return_statement":
			returns = append(returns, n.line)
		case "assert_statement":
			tc.asserts = append(tc.asserts, a.assertStmt(n, g))
		case "raise_statement":
			if strings.Contains(n.text(a.src), "SkipTest") {
				tc.markers = append(tc.markers, marker{kind: SkipAdded, text: "raise SkipTest", line: n.line})
			}
		case "with_statement":
			wc := n.firstOf("with_clause")
			if wc != nil {
				t := wc.text(a.src)
				for _, w := range []string{"pytest.raises", "assertRaises", "suppress(", "pytest.warns"} {
					if strings.Contains(t, w) {
						tc.markers = append(tc.markers, marker{kind: ExpectationInverted, text: "with " + strings.Join(strings.Fields(a.tk.norm(wc)), " "), line: n.line})
					}
				}
			}
		case "call":
			fn := a.calleeName(n)
			last := fn[strings.LastIndexByte(fn, '.')+1:]
			switch {
			case fn == "pytest.skip" || fn == "pytest.xfail" || last == "skipTest" || fn == "pytest.importorskip":
				tc.markers = append(tc.markers, marker{kind: SkipAdded, text: fn + "()", line: n.line})
			case isPyExit(fn):
				tc.markers = append(tc.markers, marker{kind: EarlyExit, text: fn + "()", line: n.line})
			case a.isAssertCall(n):
				tc.asserts = append(tc.asserts, a.assertCall(n, fn, last, g))
			}
		}
		for _, c := range n.children {
			visit(c, g)
		}
	}
	for _, s := range a.bodyStmts(body) {
		visit(s, 0)
	}
	if a.helper {
		a.returnsBeforeAsserts(tc, returns)
	}
}

// returnsBeforeAsserts marks each return of a helper that some assertion
// follows: a new one (if type(self).__name__ == "X": return) skips the
// checks for some callers. A function's tests edit too freely to tell,
// and report a changed body anyway.
func (a *pyAnalyzer) returnsBeforeAsserts(tc *testCase, returns []int) {
	for _, r := range returns {
		for _, as := range tc.asserts {
			if as.line > r {
				tc.markers = append(tc.markers, marker{kind: EarlyExit, text: "return before an assertion", line: r})
				break
			}
		}
	}
}

func (a *pyAnalyzer) assertStmt(n *node, g int) assertion {
	named := n.namedChildren()
	as := assertion{fn: "assert", line: n.line, guards: g, strength: strengthTruthy}
	if len(named) == 0 {
		return as
	}
	e := named[0]
	for e.kind == "parenthesized_expression" && len(e.namedChildren()) == 1 {
		e = e.namedChildren()[0]
	}
	as.text = "assert " + a.tk.norm(e)
	as.subject = a.tk.norm(e)
	switch e.kind {
	case "comparison_operator":
		ops := e.namedChildren()
		opText := ""
		for _, c := range e.children {
			if !c.named {
				opText += c.text(a.src) + " "
			}
		}
		if len(ops) == 2 {
			l, r := ops[0], ops[1]
			if isPyLiteral(l) && !isPyLiteral(r) {
				l, r = r, l
			}
			as.subject, as.expected = a.tk.norm(l), a.tk.norm(r)
		}
		as.fn = "assert " + strings.TrimSpace(opText)
		as.strength = strengthExact
		if strings.Contains(opText, "is not") && (as.expected == "None") {
			as.strength = strengthTruthy
		}
		if op := strings.TrimSpace(opText); op == "!=" || op == "<" || op == ">" || op == "<=" || op == ">=" {
			as.strength = strengthTruthy // a range, not a value
		}
	case "true", "integer", "string":
		as.strength = strengthTrivial
	}
	return as
}

func isPyLiteral(n *node) bool {
	switch n.kind {
	case "integer", "float", "string", "true", "false", "none", "list", "tuple", "dictionary", "set", "concatenated_string":
		return true
	case "unary_operator":
		return len(n.namedChildren()) == 1 && isPyLiteral(n.namedChildren()[0])
	}
	return false
}

func (a *pyAnalyzer) assertCall(n *node, fn, last string, g int) assertion {
	as := assertion{fn: fn, text: a.tk.norm(n), line: n.line, guards: g, strength: strengthExact}
	var args []*node
	if al := n.child("arguments"); al != nil {
		for _, c := range al.namedChildren() {
			if c.kind != "keyword_argument" {
				args = append(args, c)
			}
		}
	}
	switch {
	case strings.Contains(last, "True") || strings.Contains(last, "False") || strings.Contains(last, "IsNot") ||
		strings.Contains(last, "IsNone") || strings.Contains(last, "IsInstance") || strings.Contains(last, "NotEqual") || strings.HasPrefix(last, "fail"):
		as.strength = strengthTruthy
		if len(args) > 0 && (args[0].kind == "true" || args[0].kind == "false") {
			as.strength = strengthTrivial
		}
	}
	if len(args) >= 2 {
		l, r := args[0], args[1]
		if isPyLiteral(l) && !isPyLiteral(r) {
			l, r = r, l
		}
		as.subject, as.expected = a.tk.norm(l), a.tk.norm(r)
	} else if len(args) == 1 {
		as.subject = a.tk.norm(args[0])
	}
	return as
}

// fixtureRows returns the rows of @pytest.fixture(params=[...]): every
// test using the fixture runs once per row.
func (a *pyAnalyzer) fixtureRows(d *node) []row {
	var rows []row
	d.walk(func(n *node) bool {
		if n.kind != "keyword_argument" {
			return true
		}
		if k := n.child("name"); k == nil || k.text(a.src) != "params" {
			return false
		}
		if v := n.child("value"); v != nil && (v.kind == "list" || v.kind == "tuple") {
			for _, e := range v.namedChildren() {
				rows = append(rows, row{text: a.tk.norm(e), line: e.line})
			}
			a.tk.holes[v] = "[…]"
		}
		return false
	})
	return rows
}
