package protect

import (
	"strconv"
	"strings"
)

// jsAnalyzer extracts jest, vitest, mocha and node:test tests from
// JavaScript, TypeScript and TSX with tree-sitter.
type jsAnalyzer struct {
	helper bool
	src    []byte
	tk     *tokenizer
	m      *fileModel
	seen   map[string]int
	// loopRows are the rows of the table a loop around the tests walks
	// (for (const t of cases), cases.forEach(t => …)): each test inside
	// runs once per row, so the rows are its table, as .each rows are.
	loopRows []*node
}

var jsTestFns = map[string]bool{"it": true, "test": true, "specify": true, "fit": true, "xit": true, "xtest": true, "xspecify": true}
var jsSuiteFns = map[string]bool{"describe": true, "context": true, "suite": true, "fdescribe": true, "xdescribe": true, "xcontext": true}

func analyzeJS(src []byte, pt parsed) *fileModel {
	m := &fileModel{helpers: map[string]string{}}
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
	a := &jsAnalyzer{src: src, m: m, tk: &tokenizer{src: src, unifyQuotes: true, dropSemi: true}, seen: map[string]int{}}
	m.shallow = len(src) > MaxDeepSize
	root.walk(func(n *node) bool {
		if n.kind == "comment" {
			m.comments = append(m.comments, n.text(src))
		}
		return true
	})
	for _, st := range root.children {
		if st.kind == "expression_statement" {
			m.markers = append(m.markers, a.exits(st, "module-level ")...)
			m.markers = append(m.markers, a.moduleMocks(st)...)
		}
		if st.kind == "function_declaration" {
			if n, b := st.child("name"), st.child("body"); n != nil && b != nil {
				m.helpers[n.text(src)] = strings.Join(a.stmts(b), "\n")
				a.checker(st, n.text(src), b)
			}
		}
	}
	a.container(root, "", nil)
	return m
}

// call is a test or suite call: it('title', fn), describe.skip(...),
// it.each(rows)('title', fn), test('t', {skip: true}, fn), and
// @fast-check's test.prop(arbitraries)('title', fn).
type jsCall struct {
	base    string   // it, test, describe...
	mods    []string // skip, only, each, todo, prop...
	title   string
	options *node
	fn      *node // callback
	rows    []*node
	arbs    *node // the arguments of .prop(...): arbitraries and fc.Parameters
	calleeN *node
}

// container walks statements that may hold tests: the program and suite
// callbacks, including tests inside loops and blocks.
func (a *jsAnalyzer) container(n *node, prefix string, inherited []marker) {
	n.walk(func(c *node) bool {
		if c == n {
			return true
		}
		switch c.kind {
		case "for_in_statement":
			if rows, body := a.loopTable(c); rows != nil && body != nil {
				a.withRows(rows, func() { a.container(body, prefix, inherited) })
				return false
			}
		case "call_expression":
			if rows, fn := a.forEachTable(c); rows != nil && fn != nil {
				a.withRows(rows, func() { a.container(fn, prefix, inherited) })
				return false
			}
			jc := a.parseCall(c)
			if jc == nil {
				return true
			}
			own := a.callMarkers(jc, c.line)
			if jsSuiteFns[jc.base] {
				if len(jc.rows) > 0 {
					// describe.each rows feed every test inside.
					tc := &testCase{name: prefix + jc.title + " (each rows)", line: c.line, end: lastLine(c, a.src), from: c.start, to: c.end, isTable: true}
					for _, r := range jc.rows {
						tc.rows = append(tc.rows, row{text: a.tk.norm(r), line: r.line})
					}
					a.m.add(tc, false)
				}
				if jc.fn != nil {
					a.container(jc.fn, prefix+jc.title+" > ", append(append([]marker{}, inherited...), own...))
				}
				return false
			}
			a.test(c, jc, prefix, append(append([]marker{}, inherited...), own...))
			return false
		case "function_declaration", "class_declaration", "method_definition":
			return false
		}
		return true
	})
}

func (a *jsAnalyzer) parseCall(c *node) *jsCall {
	fn := c.child("function")
	args := c.child("arguments")
	if fn == nil || args == nil {
		return nil
	}
	jc := &jsCall{calleeN: fn}
	// it.each(rows)('title', fn), it.each`table`('title', fn) or
	// test.skip.prop([fc.nat()], params)('title', fn)
	if fn.kind == "call_expression" {
		inner := a.parseCallee(fn.child("function"))
		if inner == nil {
			return nil
		}
		jc.base, jc.mods = inner.base, inner.mods
		ia := fn.child("arguments")
		switch {
		case contains(inner.mods, "each"):
			if ia != nil {
				jc.rows = a.eachRows(ia)
			}
		case len(inner.mods) > 0 && inner.mods[len(inner.mods)-1] == "prop":
			jc.arbs = ia
		default:
			return nil
		}
	} else {
		cal := a.parseCallee(fn)
		if cal == nil {
			return nil
		}
		jc.base, jc.mods = cal.base, cal.mods
	}
	if !jsTestFns[jc.base] && !jsSuiteFns[jc.base] {
		return nil
	}
	pos := args.namedChildren()
	if len(pos) == 0 {
		return nil
	}
	for _, p := range pos[1:] {
		switch p.kind {
		case "object":
			jc.options = p
		case "arrow_function", "function_expression", "function":
			jc.fn = p
		}
	}
	switch pos[0].kind {
	case "string", "template_string", "identifier", "member_expression":
	default:
		// A computed title (t.input.toString(), "x " + t.name) names a
		// test when a callback follows.
		if jc.fn == nil {
			return nil
		}
	}
	jc.title = stringValue(pos[0], a.src)
	return jc
}

// parseCallee splits it.skip / describe.only.each / xit into base and mods.
func (a *jsAnalyzer) parseCallee(fn *node) *jsCall {
	if fn == nil {
		return nil
	}
	var mods []string
	for fn.kind == "member_expression" {
		p := fn.child("property")
		if p == nil {
			return nil
		}
		mods = append([]string{p.text(a.src)}, mods...)
		fn = fn.child("object")
		if fn == nil {
			return nil
		}
	}
	if fn.kind == "call_expression" { // it.skipIf(cond)(...)
		inner := a.parseCallee(fn.child("function"))
		if inner == nil {
			return nil
		}
		return &jsCall{base: inner.base, mods: append(inner.mods, mods...)}
	}
	if fn.kind != "identifier" {
		return nil
	}
	return &jsCall{base: fn.text(a.src), mods: mods}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (a *jsAnalyzer) eachRows(args *node) []*node {
	if args.kind == "template_string" {
		var rows []*node
		rows = append(rows, args)
		return rows
	}
	pos := args.namedChildren()
	if len(pos) == 0 {
		return nil
	}
	if pos[0].kind == "array" {
		return pos[0].namedChildren()
	}
	return pos[:1]
}

func (a *jsAnalyzer) callMarkers(jc *jsCall, line int) []marker {
	var out []marker
	b := jc.base
	switch {
	case strings.HasPrefix(b, "x"):
		out = append(out, marker{kind: SkipAdded, text: b, line: line})
	case strings.HasPrefix(b, "f") && b != "f":
		out = append(out, marker{kind: SkipAdded, text: b + " (focus)", line: line})
	}
	for _, m := range jc.mods {
		switch m {
		case "skip", "todo", "skipIf", "runIf":
			out = append(out, marker{kind: SkipAdded, text: b + "." + m, line: line})
		case "only":
			out = append(out, marker{kind: SkipAdded, text: b + ".only", line: line})
		case "failing", "fails":
			out = append(out, marker{kind: ExpectationInverted, text: b + "." + m, line: line})
		}
	}
	if jc.options != nil {
		for _, p := range jc.options.namedChildren() {
			if p.kind != "pair" && p.kind != "shorthand_property_identifier" {
				continue
			}
			k := p.text(a.src)
			if kn := p.child("key"); kn != nil {
				k = kn.text(a.src)
			}
			v := ""
			if vn := p.child("value"); vn != nil {
				v = vn.text(a.src)
			}
			if (k == "skip" || k == "todo" || k == "only") && v != "false" {
				out = append(out, marker{kind: SkipAdded, text: "{" + k + ": " + v + "}", line: p.line})
			}
			if (k == "retry" || k == "repeats") && v != "0" {
				out = append(out, marker{kind: ExpectationInverted, text: "{" + k + ": " + v + "}: retried until it passes", line: p.line})
			}
		}
	}
	if jc.fn == nil && jsTestFns[b] {
		out = append(out, marker{kind: SkipAdded, text: b + " without a body (todo)", line: line})
	}
	return out
}

func (a *jsAnalyzer) test(c *node, jc *jsCall, prefix string, markers []marker) {
	name := prefix + jc.title
	a.seen[name]++
	if k := a.seen[name]; k > 1 {
		name += " #" + strconv.Itoa(k)
	}
	tc := &testCase{name: name, simple: jc.title, line: c.line, end: lastLine(c, a.src), markers: markers, from: c.start, to: c.end}
	a.tk.holes = map[*node]string{}
	rows := jc.rows
	if len(rows) == 0 {
		rows = a.loopRows
	}
	for _, r := range rows {
		if r.kind == "template_string" {
			for i, l := range strings.Split(r.text(a.src), "\n") {
				if l = strings.Join(strings.Fields(strings.Trim(l, "`")), " "); l != "" {
					tc.rows = append(tc.rows, row{text: l, line: r.line + i})
				}
			}
			continue
		}
		tc.rows = append(tc.rows, row{text: a.tk.norm(r), line: r.line})
	}
	head := []string{jc.base, strings.Join(jc.mods, "."), jc.title}
	if jc.options != nil {
		head = append(head, a.tk.norm(jc.options))
	}
	if jc.arbs != nil {
		// Narrower arbitraries or fewer runs test less: a changed head.
		head = append(head, a.tk.norm(jc.arbs))
	}
	if jc.fn != nil {
		if p := jc.fn.child("parameters"); p != nil {
			head = append(head, a.tk.norm(p))
		} else if p := jc.fn.child("parameter"); p != nil {
			head = append(head, a.tk.norm(p))
		}
		if jc.fn.firstOf("async") != nil {
			head = append(head, "async")
		}
		body := jc.fn.child("body")
		if body != nil {
			tc.stmts = a.stmts(body)
			for _, s := range a.bodyStmts(body) {
				tc.isAsrt = append(tc.isAsrt, a.isAssertStmt(s))
			}
			a.scan(tc, body)
			tc.rows = append(tc.rows, a.bodyLoopRows(body)...)
		}
	}
	tc.head = strings.Join(head, " ")
	a.m.add(tc, a.helper)
}

// bodyLoopRows are the rows of the named literal tables loops inside a
// test walk (for (const c of CASES) expect(…), CASES.forEach(…)): tables
// written out in the body are its statements already.
func (a *jsAnalyzer) bodyLoopRows(body *node) []row {
	var out []row
	seen := map[string]bool{}
	body.walk(func(n *node) bool {
		over, _ := a.iterated(n)
		if over == nil {
			return true
		}
		if over = unwrapTS(over); over.kind != "identifier" || seen[over.text(a.src)] {
			return true
		}
		seen[over.text(a.src)] = true
		for _, r := range a.arrayRows(over, n) {
			out = append(out, row{text: a.tk.norm(r), line: r.line})
		}
		return true
	})
	return out
}

func (a *jsAnalyzer) bodyStmts(body *node) []*node {
	if body.kind != "statement_block" {
		return []*node{body}
	}
	return body.namedChildren()
}

func (a *jsAnalyzer) stmts(body *node) []string {
	var out []string
	for _, s := range a.bodyStmts(body) {
		out = append(out, a.tk.norm(s))
	}
	return out
}

func (a *jsAnalyzer) isAssertStmt(s *node) bool {
	found := false
	s.walk(func(n *node) bool {
		if n.kind == "call_expression" {
			if _, ok := a.assertion(n, 0); ok {
				found = true
			}
		}
		return !found
	})
	return found
}

// exits finds process.exit calls.
func (a *jsAnalyzer) exits(n *node, ctx string) []marker {
	var out []marker
	n.walk(func(c *node) bool {
		if c.kind == "call_expression" {
			if f := c.child("function"); f != nil {
				t := strings.Join(strings.Fields(f.text(a.src)), "")
				if t == "process.exit" || t == "process.kill" || t == "process.abort" || t == "Deno.exit" {
					out = append(out, marker{kind: EarlyExit, text: ctx + t + "()", line: c.line})
				}
				if t == "jest.retryTimes" || t == "vi.retry" {
					out = append(out, marker{kind: ExpectationInverted, text: ctx + t + "(): tests retried until they pass", line: c.line})
				}
			}
		}
		return true
	})
	return out
}

func (a *jsAnalyzer) scan(tc *testCase, body *node) {
	st := a.bodyStmts(body)
	if len(st) > 0 && st[0].kind == "return_statement" && len(st[0].namedChildren()) == 0 {
		tc.markers = append(tc.markers, marker{kind: EarlyExit, text: "return", line: st[0].line})
	}
	tc.markers = append(tc.markers, a.exits(body, "")...)
	var visit func(n *node, g int)
	visit = func(n *node, g int) {
		switch n.kind {
		case "if_statement", "try_statement", "ternary_expression", "catch_clause":
			g++
		case "call_expression":
			if as, ok := a.assertion(n, g); ok {
				tc.asserts = append(tc.asserts, as)
				return
			}
			if f := n.child("function"); f != nil {
				t := strings.Join(strings.Fields(f.text(a.src)), "")
				if strings.HasSuffix(t, ".skip") || t == "ctx.skip" || t == "context.skip" || strings.HasSuffix(t, ".todo") {
					tc.markers = append(tc.markers, marker{kind: SkipAdded, text: t + "()", line: n.line})
				}
			}
		}
		for _, c := range n.children {
			visit(c, g)
		}
	}
	for _, s := range st {
		visit(s, 0)
	}
}

var jsTruthyMatchers = map[string]bool{
	"toBeTruthy": true, "toBeFalsy": true, "toBeDefined": true, "toBeInstanceOf": true, "toHaveBeenCalled": true,
	"ok": true, "exist": true, "exists": true, "notEqual": true, "notStrictEqual": true, "notDeepEqual": true,
	"isOk": true, "isDefined": true, "isNotNull": true, "isTrue": true, "isFalse": true, "toBeTypeOf": true,
	"toBeUndefined": false,
}

// assertion recognizes expect(x).matcher(y) chains, assert.*(…) and
// assert(…) calls.
func (a *jsAnalyzer) assertion(n *node, g int) (assertion, bool) {
	f := n.child("function")
	if f == nil {
		return assertion{}, false
	}
	as := assertion{text: a.tk.norm(n), line: n.line, guards: g, strength: strengthExact}
	args := n.child("arguments")
	// expect(...).a.b.matcher(args)
	var chain []string
	cur := f
	for cur != nil && cur.kind == "member_expression" {
		if p := cur.child("property"); p != nil {
			chain = append([]string{p.text(a.src)}, chain...)
		}
		cur = cur.child("object")
	}
	if cur != nil && cur.kind == "call_expression" {
		if inner := cur.child("function"); inner != nil && (inner.text(a.src) == "expect" || strings.HasPrefix(inner.text(a.src), "expect.")) && len(chain) > 0 {
			as.fn = "expect." + strings.Join(chain, ".")
			if ea := cur.child("arguments"); ea != nil {
				as.subject = a.tk.norm(ea)
				if sub := ea.namedChildren(); len(sub) == 1 && isJSLiteral(sub[0]) {
					as.strength = strengthTrivial
				}
			}
			if args != nil {
				as.expected = a.tk.norm(args)
			}
			m := chain[len(chain)-1]
			if as.strength != strengthTrivial && (jsTruthyMatchers[m] || contains(chain, "not") ||
				(m == "toThrow" && (args == nil || len(args.namedChildren()) == 0)) ||
				(m == "toHaveProperty" && args != nil && len(args.namedChildren()) == 1)) {
				as.strength = strengthTruthy
			}
			return as, true
		}
		return assertion{}, false
	}
	name := strings.Join(strings.Fields(f.text(a.src)), "")
	last := name[strings.LastIndexByte(name, '.')+1:]
	if !(name == "assert" || strings.HasPrefix(name, "assert.") || strings.HasPrefix(name, "t.assert") || strings.HasPrefix(name, "expect.") && false) {
		return assertion{}, false
	}
	as.fn = name
	var pos []*node
	if args != nil {
		pos = args.namedChildren()
	}
	if name == "assert" || jsTruthyMatchers[last] {
		as.strength = strengthTruthy
	}
	if len(pos) >= 1 {
		as.subject = a.tk.norm(pos[0])
		if as.strength == strengthTruthy && isJSLiteral(pos[0]) {
			as.strength = strengthTrivial
		}
	}
	if len(pos) >= 2 {
		as.expected = a.tk.norm(pos[1])
	}
	return as, true
}

func isJSLiteral(n *node) bool {
	switch n.kind {
	case "true", "false", "number", "string", "null", "undefined", "template_string":
		return true
	}
	return false
}

// checker records a top-level helper function for assertion-level checks.
func (a *jsAnalyzer) checker(fn *node, name string, body *node) {
	tc := &testCase{name: name, line: fn.line, end: lastLine(fn, a.src), from: fn.start, to: fn.end}
	if p := fn.child("parameters"); p != nil {
		tc.head = a.tk.norm(p)
	}
	tc.stmts = a.stmts(body)
	a.scan(tc, body)
	a.m.add(tc, true)
}

// withRows runs f with rows as the loop table of the tests it finds.
func (a *jsAnalyzer) withRows(rows []*node, f func()) {
	old := a.loopRows
	a.loopRows = rows
	defer func() { a.loopRows = old }()
	f()
}

// loopTable is the table a for…of or for…in loop walks, when it names a
// constant array literal in an enclosing scope, and the loop's body.
func (a *jsAnalyzer) loopTable(loop *node) (rows []*node, body *node) {
	over, body := a.iterated(loop)
	if over == nil {
		return nil, nil
	}
	return a.arrayRows(over, loop), body
}

// iterated is what a loop walks and the code it runs per element: the
// right side and body of a for…of or for…in, the object and callback of
// x.forEach(fn) or x.map(fn); nil for anything else.
func (a *jsAnalyzer) iterated(n *node) (over, body *node) {
	switch n.kind {
	case "for_in_statement":
		over, body = n.child("right"), n.child("body")
	case "call_expression":
		callee, args := n.child("function"), n.child("arguments")
		if callee == nil || args == nil || callee.kind != "member_expression" {
			return nil, nil
		}
		prop := callee.child("property")
		if prop == nil || (prop.text(a.src) != "forEach" && prop.text(a.src) != "map") {
			return nil, nil
		}
		pos := args.namedChildren()
		if len(pos) == 0 || (pos[0].kind != "arrow_function" && pos[0].kind != "function_expression" && pos[0].kind != "function") {
			return nil, nil
		}
		over, body = callee.child("object"), pos[0]
	}
	if over == nil || body == nil {
		return nil, nil
	}
	return over, body
}

// forEachTable is the table of cases.forEach(fn) (or .map) and fn, when
// cases names a constant array literal in an enclosing scope.
func (a *jsAnalyzer) forEachTable(call *node) (rows []*node, fn *node) {
	over, fn := a.iterated(call)
	if over == nil {
		return nil, nil
	}
	return a.arrayRows(over, call), fn
}

// arrayRows are the elements of the array literal expr is, or that the
// identifier expr names in the nearest enclosing block or the program
// (const cases = [...], also with as const or satisfies); nil otherwise.
func (a *jsAnalyzer) arrayRows(expr, at *node) []*node {
	expr = unwrapTS(expr)
	if expr.kind == "array" {
		return nonEmpty(expr.namedChildren())
	}
	if expr.kind != "identifier" {
		return nil
	}
	name := expr.text(a.src)
	for anc := at.parent; anc != nil; anc = anc.parent {
		if anc.kind != "statement_block" && anc.kind != "program" {
			continue
		}
		for _, st := range anc.namedChildren() {
			if st.kind == "export_statement" {
				if d := st.child("declaration"); d != nil {
					st = d
				}
			}
			if st.kind != "lexical_declaration" && st.kind != "variable_declaration" {
				continue
			}
			for _, d := range st.namedChildren() {
				if d.kind != "variable_declarator" {
					continue
				}
				if n := d.child("name"); n == nil || n.text(a.src) != name {
					continue
				}
				if v := d.child("value"); v != nil {
					if v = unwrapTS(v); v.kind == "array" {
						return nonEmpty(v.namedChildren())
					}
				}
				return nil // the nearest declaration is no literal table
			}
		}
	}
	return nil
}

// unwrapTS strips what does not change a value: parentheses, as const,
// satisfies, a non-null assertion.
func unwrapTS(n *node) *node {
	for {
		switch n.kind {
		case "parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression":
			kids := n.namedChildren()
			if len(kids) == 0 {
				return n
			}
			n = kids[0]
		default:
			return n
		}
	}
}

// nonEmpty drops comments from an array's elements; nil when none is left.
func nonEmpty(ns []*node) []*node {
	var out []*node
	for _, n := range ns {
		if n.kind != "comment" {
			out = append(out, n)
		}
	}
	return out
}
