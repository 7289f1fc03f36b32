package protect

import (
	"strings"
)

// javaAnalyzer extracts JUnit 3/4/5 and TestNG tests with tree-sitter-java.
type javaAnalyzer struct {
	helper bool
	src    []byte
	tk     *tokenizer
	m      *fileModel
}

var javaTestAnnotations = map[string]bool{"RetryingTest": true, "Test": true, "ParameterizedTest": true, "RepeatedTest": true, "TestFactory": true, "TestTemplate": true, "Theory": true, "Property": true}

func analyzeJava(src []byte, pt parsed) *fileModel {
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
	a := &javaAnalyzer{src: src, m: m, tk: &tokenizer{src: src}}
	m.shallow = len(src) > MaxDeepSize
	root.walk(func(n *node) bool {
		if isComment(n.kind) {
			m.comments = append(m.comments, n.text(src))
		}
		return true
	})
	a.types(root, "", nil)
	return m
}

func (a *javaAnalyzer) types(n *node, prefix string, inherited []marker) {
	for _, c := range n.children {
		switch c.kind {
		case "class_declaration", "enum_declaration", "record_declaration", "interface_declaration":
			a.class(c, prefix, inherited)
		}
	}
}

// annotations returns the annotation nodes of a declaration and their
// simple names.
func (a *javaAnalyzer) annotations(decl *node) []*node {
	mods := decl.firstOf("modifiers")
	if mods == nil {
		return nil
	}
	var out []*node
	for _, c := range mods.children {
		if c.kind == "marker_annotation" || c.kind == "annotation" {
			out = append(out, c)
		}
	}
	return out
}

func (a *javaAnalyzer) annName(an *node) string {
	n := an.child("name")
	if n == nil {
		return ""
	}
	t := n.text(a.src)
	return t[strings.LastIndexByte(t, '.')+1:]
}

func (a *javaAnalyzer) annMarkers(anns []*node) []marker {
	var out []marker
	for _, an := range anns {
		name := a.annName(an)
		switch {
		case name == "Disabled" || name == "Ignore" || strings.HasPrefix(name, "DisabledIf") || strings.HasPrefix(name, "DisabledOn") ||
			strings.HasPrefix(name, "EnabledIf") || strings.HasPrefix(name, "EnabledOn") || strings.HasPrefix(name, "EnabledFor") || strings.HasPrefix(name, "DisabledFor"):
			out = append(out, marker{kind: SkipAdded, text: "@" + name, line: an.line})
		case name == "RetryingTest" || name == "RepeatedIfExceptionsTest" || name == "Flaky":
			out = append(out, marker{kind: ExpectationInverted, text: "@" + name + ": retried until it passes", line: an.line})
		case name == "Test" && an.kind == "annotation":
			txt := a.tk.norm(an)
			if strings.Contains(txt, "expected") {
				out = append(out, marker{kind: ExpectationInverted, text: txt, line: an.line})
			}
			if strings.Contains(txt, "enabled = false") {
				out = append(out, marker{kind: SkipAdded, text: txt, line: an.line})
			}
		}
	}
	return out
}

func (a *javaAnalyzer) class(c *node, prefix string, inherited []marker) {
	name := ""
	if n := c.child("name"); n != nil {
		name = n.text(a.src)
	}
	qual := prefix + name
	marks := append(append([]marker{}, inherited...), a.annMarkers(a.annotations(c))...)
	junit3 := false
	if sc := c.child("superclass"); sc != nil && strings.Contains(sc.text(a.src), "TestCase") {
		junit3 = true
	}
	body := c.child("body")
	if body == nil {
		return
	}
	for _, mem := range body.children {
		switch mem.kind {
		case "class_declaration", "enum_declaration", "record_declaration", "interface_declaration":
			a.class(mem, qual+".", marks)
		case "method_declaration":
			a.method(mem, qual, marks, junit3)
		}
	}
}

func (a *javaAnalyzer) method(md *node, class string, inherited []marker, junit3 bool) {
	name := ""
	if n := md.child("name"); n != nil {
		name = n.text(a.src)
	}
	if name == "" {
		return // not copied: outside the change
	}
	anns := a.annotations(md)
	isTest := junit3 && strings.HasPrefix(name, "test")
	for _, an := range anns {
		if javaTestAnnotations[a.annName(an)] {
			isTest = true
		}
	}
	body := md.child("body")
	if !isTest {
		if body != nil {
			a.m.helpers[name] = strings.Join(a.stmts(body), "\n")
		}
		a.helper = true
		defer func() { a.helper = false }()
		inherited = nil
	}
	start := md.line
	tc := &testCase{name: class + "#" + name, simple: " " + name + "(", line: start, end: lastLine(md, a.src), from: md.start, to: md.end}
	tc.markers = append(append([]marker{}, inherited...), a.annMarkers(anns)...)
	var head []string
	for _, an := range anns {
		if rows := a.sourceRows(an); rows != nil {
			tc.rows = append(tc.rows, rows...)
			continue
		}
		head = append(head, a.tk.norm(an))
	}
	if ps := md.child("parameters"); ps != nil {
		head = append(head, a.tk.norm(ps))
	}
	tc.head = strings.Join(head, " ")
	if body != nil && a.helper {
		tc.rows = a.providerRows(body)
	}
	if body != nil {
		tc.stmts = a.stmts(body)
		for _, s := range body.namedChildren() {
			tc.isAsrt = append(tc.isAsrt, a.isAssertStmt(s))
		}
		a.scan(tc, body)
	}
	a.m.add(tc, a.helper)
}

// sourceRows returns the rows of @ValueSource, @CsvSource and similar
// parameter sources, one per array element.
func (a *javaAnalyzer) sourceRows(an *node) []row {
	name := a.annName(an)
	if !strings.HasSuffix(name, "Source") || name == "MethodSource" || name == "ArgumentsSource" {
		return nil
	}
	var rows []row
	an.walk(func(n *node) bool {
		if n.kind == "element_value_array_initializer" {
			for _, e := range n.namedChildren() {
				rows = append(rows, row{text: name + " " + a.tk.norm(e), line: e.line})
			}
			return false
		}
		return true
	})
	if rows == nil {
		rows = append(rows, row{text: a.tk.norm(an), line: an.line})
	}
	return rows
}

func (a *javaAnalyzer) stmts(b *node) []string {
	var out []string
	for _, s := range b.namedChildren() {
		out = append(out, a.tk.norm(s))
	}
	return out
}

func (a *javaAnalyzer) isAssertStmt(s *node) bool {
	found := false
	s.walk(func(n *node) bool {
		if n.kind == "method_invocation" {
			if _, ok := a.assertion(n, 0); ok {
				found = true
			}
		}
		if n.kind == "assert_statement" {
			found = true
		}
		return !found
	})
	return found
}

func (a *javaAnalyzer) invName(n *node) (obj, name string) {
	if o := n.child("object"); o != nil {
		obj = o.text(a.src)
	}
	if nm := n.child("name"); nm != nil {
		name = nm.text(a.src)
	}
	return obj, name
}

func (a *javaAnalyzer) scan(tc *testCase, b *node) {
	st := b.namedChildren()
	if len(st) > 0 && st[0].kind == "return_statement" {
		tc.markers = append(tc.markers, marker{kind: EarlyExit, text: "return", line: st[0].line})
	}
	var visit func(n *node, g int)
	visit = func(n *node, g int) {
		switch n.kind {
		case "if_statement", "try_statement", "catch_clause", "ternary_expression", "try_with_resources_statement":
			g++
		case "class_body", "lambda_expression":
			if n.kind == "class_body" {
				return
			}
		case "method_invocation":
			obj, name := a.invName(n)
			switch {
			case obj == "System" && (name == "exit" || name == "halt"), strings.HasSuffix(obj, "Runtime()") && (name == "exit" || name == "halt"):
				tc.markers = append(tc.markers, marker{kind: EarlyExit, text: obj + "." + name + "()", line: n.line})
			case strings.HasPrefix(name, "assume"):
				tc.markers = append(tc.markers, marker{kind: ExpectationInverted, text: strings.Join(strings.Fields(a.tk.norm(n)), " "), line: n.line})
			case name == "abort" || name == "skip" && (obj == "Assumptions" || obj == "Assume"):
				tc.markers = append(tc.markers, marker{kind: SkipAdded, text: name + "()", line: n.line})
			}
			if as, ok := a.assertion(n, g); ok {
				tc.asserts = append(tc.asserts, as)
				return
			}
		case "assert_statement":
			tc.asserts = append(tc.asserts, assertion{fn: "assert", text: a.tk.norm(n), line: n.line, guards: g, strength: strengthTruthy})
		}
		for _, c := range n.children {
			visit(c, g)
		}
	}
	for _, s := range st {
		visit(s, 0)
	}
}

var javaTruthy = map[string]bool{
	"assertTrue": true, "assertFalse": true, "assertNotNull": true, "assertNull": true, "assertNotEquals": true, "assertNotSame": true,
	"assertDoesNotThrow": true, "isNotNull": true, "isNotEmpty": true, "isNotBlank": true, "isTrue": true, "isFalse": true,
	"isInstanceOf": true, "isNotEqualTo": true, "exists": true, "isPresent": true, "isNotZero": true, "notNullValue": true,
}

// assertion recognizes JUnit assert*/fail calls and AssertJ or Truth
// assertThat(x).isEqualTo(y) chains.
func (a *javaAnalyzer) assertion(n *node, g int) (assertion, bool) {
	obj, name := a.invName(n)
	as := assertion{fn: name, text: a.tk.norm(n), line: n.line, guards: g, strength: strengthExact}
	args := a.args(n)
	// Chains: the innermost object is assertThat(x) / assertThrows…
	if o := n.child("object"); o != nil && o.kind == "method_invocation" {
		root := o
		chain := []string{name}
		for root.kind == "method_invocation" {
			_, rn := a.invName(root)
			if rn == "assertThat" || rn == "assertThatThrownBy" || rn == "expect" {
				break
			}
			chain = append([]string{rn}, chain...)
			next := root.child("object")
			if next == nil || next.kind != "method_invocation" {
				return assertion{}, false
			}
			root = next
		}
		if root.kind != "method_invocation" {
			return assertion{}, false
		}
		ra := a.args(root)
		as.fn = "assertThat." + strings.Join(chain, ".")
		if len(ra) > 0 {
			as.subject = a.tk.norm(ra[0])
			if isJavaLiteral(ra[0]) {
				as.strength = strengthTrivial
			}
		}
		if len(args) > 0 {
			as.expected = a.tk.norm(args[0])
		}
		if as.strength != strengthTrivial && javaTruthy[name] {
			as.strength = strengthTruthy
		}
		return as, true
	}
	if !strings.HasPrefix(name, "assert") && name != "fail" {
		return assertion{}, false
	}
	_ = obj
	if name == "assertThat" && len(args) == 1 {
		return assertion{}, false // start of a chain that is not a statement
	}
	if javaTruthy[name] {
		as.strength = strengthTruthy
		if len(args) > 0 && (args[0].kind == "true" || args[0].kind == "false") {
			as.strength = strengthTrivial
		}
	}
	if name == "assertThat" && len(args) >= 2 && strings.Contains(a.tk.norm(args[len(args)-1]), "notNullValue") {
		as.strength = strengthTruthy
	}
	switch {
	case len(args) >= 2 && strings.HasPrefix(name, "assert") && name != "assertThat" && name != "assertThrows":
		// JUnit order: (expected, actual) possibly after a message.
		e, s := args[0], args[1]
		if len(args) >= 3 && args[0].kind == "string_literal" && args[len(args)-1].kind != "string_literal" {
			e, s = args[1], args[2] // JUnit 4: message first
		}
		as.expected, as.subject = a.tk.norm(e), a.tk.norm(s)
	case len(args) >= 1:
		as.subject = a.tk.norm(args[0])
		if len(args) >= 2 {
			as.expected = a.tk.norm(args[1])
		}
	}
	return as, true
}

func (a *javaAnalyzer) args(n *node) []*node {
	al := n.child("arguments")
	if al == nil {
		return nil
	}
	return al.namedChildren()
}

func isJavaLiteral(n *node) bool {
	switch n.kind {
	case "true", "false", "null_literal", "string_literal", "decimal_integer_literal", "decimal_floating_point_literal", "character_literal":
		return true
	}
	return false
}

// providerRows returns the Arguments.of(...) rows of a @MethodSource
// provider, which feed a parameterized test.
func (a *javaAnalyzer) providerRows(body *node) []row {
	var rows []row
	body.walk(func(n *node) bool {
		if n.kind != "method_invocation" {
			return true
		}
		obj, name := a.invName(n)
		if (obj == "Arguments" && name == "of") || name == "arguments" {
			rows = append(rows, row{text: a.tk.norm(n), line: n.line})
			return false
		}
		return true
	})
	return rows
}
