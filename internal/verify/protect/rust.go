package protect

import (
	"strings"
)

// rustAnalyzer extracts #[test] functions (in any module, and in tests/)
// with tree-sitter-rust.
type rustAnalyzer struct {
	helper bool
	src    []byte
	tk     *tokenizer
	m      *fileModel
}

func analyzeRust(src []byte, pt parsed) *fileModel {
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
	a := &rustAnalyzer{src: src, m: m, tk: &tokenizer{src: src}}
	m.shallow = len(src) > MaxDeepSize
	root.walk(func(n *node) bool {
		if isComment(n.kind) {
			m.comments = append(m.comments, n.text(src))
		}
		return true
	})
	var file []marker
	for _, c := range root.children {
		if c.kind == "inner_attribute_item" {
			for _, mk := range a.attrMarkers(c) {
				// #![cfg(...)] leaves the whole file out of the build:
				// on a test crate, the harness itself is off.
				if strings.HasPrefix(mk.text, "#![cfg") {
					mk.kind = HarnessWeakened
				}
				file = append(file, mk)
			}
		}
	}
	m.markers = append(m.markers, file...)
	a.items(root, "", nil)
	return m
}

// items walks a module body; attributes are the attribute_item siblings
// right before an item.
func (a *rustAnalyzer) items(body *node, prefix string, inherited []marker) {
	var attrs []*node
	for _, c := range body.children {
		switch c.kind {
		case "attribute_item":
			attrs = append(attrs, c)
			continue
		case "line_comment", "block_comment":
			continue
		case "mod_item":
			name := ""
			if n := c.child("name"); n != nil {
				name = n.text(a.src)
			}
			if b := c.child("body"); b != nil {
				var own []marker
				for _, at := range attrs {
					own = append(own, a.attrMarkers(at)...)
				}
				a.items(b, prefix+name+"::", append(append([]marker{}, inherited...), own...))
			}
		case "function_item":
			if a.isTest(attrs) {
				a.test(c, attrs, prefix, inherited)
			} else if n, b := c.child("name"), c.child("body"); n != nil && b != nil && len(b.children) > 0 {
				a.m.helpers[n.text(a.src)] = strings.Join(a.stmts(b), "\n")
				a.helper = true
				a.test(c, attrs, prefix, nil)
				a.helper = false
			}
		case "impl_item":
			if b := c.child("body"); b != nil {
				typ := ""
				if t := c.child("type"); t != nil {
					typ = t.text(a.src) + "::"
				}
				a.items(b, prefix+typ, inherited)
			}
		}
		attrs = nil
	}
}

func (a *rustAnalyzer) attrPath(at *node) (string, *node) {
	attr := at.firstOf("attribute")
	if attr == nil {
		return "", nil
	}
	p := ""
	for _, c := range attr.children {
		if c.kind == "identifier" || c.kind == "scoped_identifier" {
			p = c.text(a.src)
			break
		}
	}
	return p, attr
}

func (a *rustAnalyzer) isTest(attrs []*node) bool {
	for _, at := range attrs {
		p, _ := a.attrPath(at)
		if p == "test" || strings.HasSuffix(p, "::test") || p == "rstest" || p == "test_case" || p == "quickcheck" || p == "proptest" {
			return true
		}
	}
	return false
}

// attrMarkers turns #[ignore], #[should_panic], #[cfg(...)] (other than
// cfg(test)) and cfg_attr(..., ignore) into markers.
func (a *rustAnalyzer) attrMarkers(at *node) []marker {
	p, attr := a.attrPath(at)
	txt := strings.Join(strings.Fields(a.tk.norm(at)), " ")
	switch {
	case p == "ignore":
		return []marker{{kind: SkipAdded, text: "#[ignore]", line: at.line}}
	case p == "should_panic":
		return []marker{{kind: ExpectationInverted, text: "#[should_panic]", line: at.line}}
	case p == "cfg" && attr != nil:
		if strings.ReplaceAll(txt, " ", "") == "#[cfg(test)]" || strings.ReplaceAll(txt, " ", "") == "#![cfg(test)]" {
			return nil
		}
		return []marker{{kind: SkipAdded, text: a.attrSource(at), line: at.line}}
	case p == "cfg_attr" && strings.Contains(txt, "ignore"):
		return []marker{{kind: SkipAdded, text: a.attrSource(at), line: at.line}}
	}
	return nil
}

// attrSource is an attribute as written, on one line: #[cfg(any())].
func (a *rustAnalyzer) attrSource(at *node) string {
	return strings.Join(strings.Fields(at.text(a.src)), " ")
}

func (a *rustAnalyzer) test(fn *node, attrs []*node, prefix string, inherited []marker) {
	name := ""
	if n := fn.child("name"); n != nil {
		name = n.text(a.src)
	}
	if name == "" {
		return // not copied: outside the change
	}
	start, from := fn.line, fn.start
	if len(attrs) > 0 {
		start, from = attrs[0].line, attrs[0].start
	}
	tc := &testCase{name: prefix + name, simple: "fn " + name + "(", line: start, end: lastLine(fn, a.src), from: from, to: fn.end}
	tc.markers = append([]marker{}, inherited...)
	var head []string
	for _, at := range attrs {
		tc.markers = append(tc.markers, a.attrMarkers(at)...)
		p, attr := a.attrPath(at)
		if p == "case" || p == "test_case" || p == "values" {
			tc.rows = append(tc.rows, row{text: a.tk.norm(attr), line: at.line})
			continue
		}
		head = append(head, a.tk.norm(at))
	}
	if ps := fn.child("parameters"); ps != nil {
		head = append(head, a.tk.norm(ps))
	}
	if rt := fn.child("return_type"); rt != nil {
		head = append(head, a.tk.norm(rt))
	}
	tc.head = strings.Join(head, " ")
	if b := fn.child("body"); b != nil {
		tc.stmts = a.stmts(b)
		for _, s := range b.namedChildren() {
			tc.isAsrt = append(tc.isAsrt, a.isAssertStmt(s))
		}
		a.scan(tc, b)
		tc.rows = append(tc.rows, a.loopRows(b)...)
	}
	a.m.add(tc, a.helper)
}

// loopRows are the rows of the const or static tables of the module that
// loops in a test walk (for (a, want) in CASES, &CASES, CASES.iter()):
// the test checks each row, so each is part of it.
func (a *rustAnalyzer) loopRows(body *node) []row {
	var out []row
	seen := map[string]bool{}
	body.walk(func(n *node) bool {
		if n.kind != "for_expression" {
			return true
		}
		v := n.child("value")
		for v != nil {
			switch v.kind {
			case "reference_expression":
				v = v.child("value")
				continue
			case "call_expression":
				// CASES.iter(), CASES.into_iter()
				if f := v.child("function"); f != nil && f.kind == "field_expression" {
					if fld := f.child("field"); fld != nil && (fld.text(a.src) == "iter" || fld.text(a.src) == "into_iter") {
						v = f.child("value")
						continue
					}
				}
			}
			break
		}
		if v == nil || v.kind != "identifier" || seen[v.text(a.src)] {
			return true
		}
		seen[v.text(a.src)] = true
		out = append(out, a.constRows(v.text(a.src), n)...)
		return true
	})
	return out
}

// constRows are the elements of the array literal (or a reference to one)
// that const or static name holds in the module enclosing n.
func (a *rustAnalyzer) constRows(name string, n *node) []row {
	for anc := n.parent; anc != nil; anc = anc.parent {
		if anc.kind != "source_file" && anc.kind != "declaration_list" {
			continue
		}
		for _, it := range anc.namedChildren() {
			if it.kind != "const_item" && it.kind != "static_item" {
				continue
			}
			if nm := it.child("name"); nm == nil || nm.text(a.src) != name {
				continue
			}
			v := it.child("value")
			for v != nil && v.kind == "reference_expression" {
				v = v.child("value")
			}
			if v == nil || v.kind != "array_expression" {
				return nil
			}
			var rows []row
			for _, e := range v.namedChildren() {
				if e.kind != "line_comment" && e.kind != "block_comment" {
					rows = append(rows, row{text: a.tk.norm(e), line: e.line})
				}
			}
			return rows
		}
	}
	return nil
}

func (a *rustAnalyzer) stmts(b *node) []string {
	var out []string
	for _, s := range b.namedChildren() {
		text := a.tk.norm(s)
		if s.kind == "expression_statement" && len(s.namedChildren()) == 1 {
			if m := s.namedChildren()[0]; m.kind == "macro_invocation" && strings.Contains(a.macroName(m), "assert") {
				text = a.assertText(m, a.macroName(m)) + " ;"
			}
		}
		out = append(out, text)
	}
	return out
}

// assertText is an assertion without its failure message: adding or
// rewording "expected {} items" changes nothing it checks.
func (a *rustAnalyzer) assertText(n *node, name string) string {
	args := a.macroArgs(n)
	keep := len(args)
	switch {
	case strings.HasSuffix(name, "assert_eq") || strings.HasSuffix(name, "assert_ne"):
		keep = min(keep, 2)
	case strings.HasSuffix(name, "assert"):
		keep = min(keep, 1)
	}
	// What follows is a message only when it starts with its format
	// string; a comma inside f::<A, B>(x) splits the checked values too.
	if keep == len(args) || !strings.HasPrefix(args[keep], `"`) {
		return a.tk.norm(n)
	}
	return name + " ! ( " + strings.Join(args[:keep], " , ") + " )"
}

func (a *rustAnalyzer) isAssertStmt(s *node) bool {
	found := false
	s.walk(func(n *node) bool {
		if n.kind == "macro_invocation" && strings.Contains(a.macroName(n), "assert") {
			found = true
		}
		return !found
	})
	return found
}

func (a *rustAnalyzer) macroName(n *node) string {
	if m := n.child("macro"); m != nil {
		return m.text(a.src)
	}
	return ""
}

func (a *rustAnalyzer) scan(tc *testCase, b *node) {
	st := b.namedChildren()
	if len(st) > 0 {
		first := st[0]
		if first.kind == "expression_statement" && len(first.namedChildren()) > 0 {
			first = first.namedChildren()[0]
		}
		// A helper that returns a value at once is just short.
		if first.kind == "return_expression" && !(a.helper && len(first.namedChildren()) > 0) {
			tc.markers = append(tc.markers, marker{kind: EarlyExit, text: "return", line: first.line})
		}
	}
	var visit func(n *node, g int)
	visit = func(n *node, g int) {
		switch n.kind {
		case "if_expression", "match_expression", "closure_expression":
			g++
		case "function_item":
			return
		case "call_expression":
			if f := n.child("function"); f != nil {
				t := f.text(a.src)
				switch {
				case strings.HasSuffix(t, "process::exit") || strings.HasSuffix(t, "process::abort"):
					tc.markers = append(tc.markers, marker{kind: EarlyExit, text: t + "()", line: n.line})
				case strings.HasSuffix(t, "catch_unwind"):
					tc.markers = append(tc.markers, marker{kind: ExpectationInverted, text: t + "()", line: n.line})
				}
			}
		case "macro_invocation":
			name := a.macroName(n)
			if strings.Contains(name, "assert") {
				tc.asserts = append(tc.asserts, a.assertMacro(n, name, g))
				return
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

// macroArgs splits a macro's token tree at top-level commas.
func (a *rustAnalyzer) macroArgs(n *node) []string {
	tt := n.firstOf("token_tree")
	if tt == nil {
		return nil
	}
	var args []string
	var cur []string
	kids := tt.children
	if len(kids) >= 2 {
		kids = kids[1 : len(kids)-1]
	}
	for _, c := range kids {
		if c.kind == "," {
			args = append(args, joinTokens(cur))
			cur = nil
			continue
		}
		cur = a.tk.tokens(c, cur)
	}
	if len(cur) > 0 {
		args = append(args, joinTokens(cur))
	}
	return args
}

func (a *rustAnalyzer) assertMacro(n *node, name string, g int) assertion {
	as := assertion{fn: name, text: a.assertText(n, name), line: n.line, guards: g, strength: strengthExact}
	args := a.macroArgs(n)
	switch {
	case strings.HasSuffix(name, "assert_ne"):
		as.strength = strengthTruthy
	case strings.HasSuffix(name, "assert"):
		as.strength = strengthTruthy
		if len(args) > 0 {
			cond := " " + args[0] + " "
			if strings.Contains(cond, " == ") {
				as.strength = strengthExact
				parts := strings.SplitN(args[0], " == ", 2)
				as.subject, as.expected = parts[0], parts[1]
				as.fn += " =="
				return as
			}
			if args[0] == "true" || args[0] == "!false" || args[0] == "1 == 1" {
				as.strength = strengthTrivial
			}
		}
	}
	if len(args) >= 2 && as.strength == strengthExact {
		as.subject, as.expected = args[0], args[1]
		if isRustLiteral(args[0]) && !isRustLiteral(args[1]) {
			as.subject, as.expected = args[1], args[0]
		}
	} else if len(args) >= 1 {
		as.subject = args[0]
	}
	return as
}

func isRustLiteral(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	return c == '"' || c == '\'' || (c >= '0' && c <= '9') || c == '-' || s == "true" || s == "false" || strings.HasPrefix(s, "vec !") || strings.HasPrefix(s, "[")
}
