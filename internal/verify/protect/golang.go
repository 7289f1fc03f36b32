package protect

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// goAnalyzer extracts tests from a Go file with go/ast.
type goAnalyzer struct {
	fset   *token.FileSet
	file   *token.File
	src    []byte
	m      *fileModel
	holes  [][2]int // byte ranges replaced by a placeholder when normalizing
	sp     span     // only declarations touching it are analyzed
	helper bool     // analyzing a non-test function
	// support: a test support file (support.go); every function is a
	// helper, and only calls on its testing.TB parameters fail a test.
	support bool
	tb      map[string]bool // the current function's *testing.T, B, F and TB parameters

	comments []*ast.CommentGroup
}

func analyzeGo(p string, src []byte, sp span, support bool) *fileModel {
	m := &fileModel{helpers: map[string]string{}}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		m.parseErr = true
		line := 1
		if el, ok := err.(scanner.ErrorList); ok && len(el) > 0 {
			line = el[0].Pos.Line
		}
		m.markers = append(m.markers, marker{kind: Unparsable, line: line})
		if f == nil || f.Package == token.NoPos {
			return m
		}
	}
	g := &goAnalyzer{fset: fset, file: fset.File(f.Pos()), src: src, m: m, sp: sp, comments: f.Comments, support: support}
	for _, cg := range f.Comments {
		txt := cg.Text()
		m.comments = append(m.comments, txt)
		for _, c := range cg.List {
			if cg.Pos() < f.Package && (strings.HasPrefix(c.Text, "//go:build") || strings.HasPrefix(c.Text, "// +build")) {
				m.markers = append(m.markers, marker{kind: SkipAdded, text: "build constraint " + strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(c.Text, "//go:build"), "// +build")), line: g.line(c.Pos())})
			}
			if !strings.HasPrefix(c.Text, "//") && strings.Contains(c.Text, "\n") {
				m.comments = append(m.comments, c.Text)
			}
		}
	}
	if len(src) > MaxDeepSize {
		m.shallow = true
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			g.funcDecl(d)
		case *ast.GenDecl:
			g.tableVars(d)
		}
	}
	return m
}

// touches reports whether n overlaps the changed span; declarations
// outside it are byte-identical on both sides.
func (g *goAnalyzer) touches(n ast.Node) bool {
	start, end := g.off(n.Pos()), g.off(n.End())
	if d, ok := n.(*ast.FuncDecl); ok && d.Doc != nil {
		start = g.off(d.Doc.Pos())
	}
	return start <= g.sp.hi && end >= g.sp.lo
}

func (g *goAnalyzer) line(p token.Pos) int { return g.fset.Position(p).Line }

func (g *goAnalyzer) off(p token.Pos) int { return g.file.Offset(p) }

// isGoTest reports whether go test collects a function of this name.
func isGoTest(name string) bool {
	if name == "TestMain" {
		return true
	}
	for _, pre := range []string{"Test", "Benchmark", "Fuzz", "Example"} {
		if !strings.HasPrefix(name, pre) {
			continue
		}
		rest := name[len(pre):]
		if rest == "" || pre == "Example" {
			return true
		}
		r, _ := utf8.DecodeRuneInString(rest)
		return !unicode.IsLower(r)
	}
	return false
}

func (g *goAnalyzer) funcDecl(d *ast.FuncDecl) {
	if d.Body == nil || !g.touches(d) {
		return
	}
	name := d.Name.Name
	if d.Recv != nil && len(d.Recv.List) == 1 {
		// testify suite methods: (*Suite).TestX
		name = g.exprText(d.Recv.List[0].Type) + "." + name
	}
	if g.support {
		g.tb = tbParams(d.Type)
	}
	if !isGoTest(d.Name.Name) || (d.Recv != nil && !strings.HasPrefix(d.Name.Name, "Test")) || g.support {
		if d.Recv == nil {
			g.holes = nil
			g.m.helpers[name] = strings.Join(g.stmts(d.Body.List), "\n")
		}
		g.helper = true
		defer func() { g.helper = false }()
	}
	g.test(name, d.Name.Name, d.Pos(), d.End(), d.Type, d.Body)
}

// test records a test (or a t.Run subtest) and recurses into subtests.
func (g *goAnalyzer) test(name, simple string, pos, end token.Pos, typ *ast.FuncType, body *ast.BlockStmt) {
	tc := &testCase{name: name, simple: "func " + simple + "(", line: g.line(pos), end: g.line(end)}
	if simple != name {
		tc.simple = ""
	}
	g.holes = nil
	var subs []*ast.CallExpr
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if sub, ok := subtest(n); ok {
				subs = append(subs, n)
				g.holes = append(g.holes, [2]int{g.off(sub.Body.Lbrace), g.off(sub.Body.Rbrace) + 1})
				return false
			}
		case *ast.CompositeLit:
			if rows := g.tableRows(n); rows != nil {
				tc.rows = append(tc.rows, rows...)
				g.holes = append(g.holes, [2]int{g.off(n.Lbrace), g.off(n.Rbrace) + 1})
				return false
			}
		}
		return true
	})
	tc.head = g.norm(g.off(typ.Pos()), g.off(typ.End()))
	tc.stmts = g.stmts(body.List)
	for _, s := range body.List {
		tc.isAsrt = append(tc.isAsrt, g.isAssertStmt(s))
		sub := false
		if es, ok := s.(*ast.ExprStmt); ok {
			if c, ok := es.X.(*ast.CallExpr); ok {
				_, sub = subtest(c)
			}
		}
		tc.isSub = append(tc.isSub, sub)
	}
	g.scanBody(tc, body)
	if name == "TestMain" && !callsRun(body) {
		tc.markers = append(tc.markers, marker{kind: SkipAdded, text: "TestMain never calls m.Run", line: tc.line})
	}
	if strings.HasPrefix(name, "Example") {
		g.exampleOutput(tc, body)
	}
	g.m.add(tc, g.helper)
	for _, call := range subs {
		lit := call.Args[1].(*ast.FuncLit)
		title, _ := strconv.Unquote(call.Args[0].(*ast.BasicLit).Value)
		g.test(name+"/"+strings.ReplaceAll(title, " ", "_"), title, call.Pos(), call.End(), lit.Type, lit.Body)
	}
}

// subtest matches x.Run("literal", func(...) {...}).
func subtest(c *ast.CallExpr) (*ast.FuncLit, bool) {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Run" || len(c.Args) != 2 {
		return nil, false
	}
	lit, ok := c.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return nil, false
	}
	fn, ok := c.Args[1].(*ast.FuncLit)
	return fn, ok
}

// tableRows returns the normalized rows of a slice or map literal whose
// elements are struct literals: a Go test table.
func (g *goAnalyzer) tableRows(c *ast.CompositeLit) []row {
	switch c.Type.(type) {
	case *ast.ArrayType, *ast.MapType:
	default:
		return nil
	}
	if len(c.Elts) == 0 {
		return nil
	}
	var rows []row
	for _, e := range c.Elts {
		v := e
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			v = kv.Value
		}
		if _, ok := v.(*ast.CompositeLit); !ok {
			return nil
		}
		save := g.holes
		g.holes = nil
		rows = append(rows, row{text: g.norm(g.off(e.Pos()), g.off(e.End())), line: g.line(e.Pos())})
		g.holes = save
	}
	return rows
}

// tableVars records package-level test tables as table entities.
func (g *goAnalyzer) tableVars(d *ast.GenDecl) {
	if d.Tok != token.VAR || !g.touches(d) {
		return
	}
	for _, s := range d.Specs {
		vs := s.(*ast.ValueSpec)
		for i, v := range vs.Values {
			c, ok := v.(*ast.CompositeLit)
			if !ok || i >= len(vs.Names) {
				continue
			}
			if rows := g.tableRows(c); rows != nil {
				g.m.tests = append(g.m.tests, &testCase{name: "var " + vs.Names[i].Name, line: g.line(vs.Pos()), end: g.line(vs.End()), rows: rows, isTable: true})
			}
		}
	}
}

func (g *goAnalyzer) stmts(list []ast.Stmt) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		out = append(out, g.norm(g.off(s.Pos()), g.off(s.End())))
	}
	return out
}

// norm returns the token text of src[start:end] without comments, layout,
// automatic semicolons or trailing commas; holes become "{…}".
func (g *goAnalyzer) norm(start, end int) string {
	var s scanner.Scanner
	fs := token.NewFileSet()
	f := fs.AddFile("", -1, end-start)
	s.Init(f, g.src[start:end], nil, 0)
	var toks []string
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		o := start + f.Offset(pos)
		if h, ok := g.inHole(o); ok {
			if h == o {
				toks = append(toks, "{…}")
			}
			continue
		}
		switch {
		case tok == token.SEMICOLON && lit == "\n":
			continue
		case lit != "":
			toks = append(toks, lit)
		default:
			toks = append(toks, tok.String())
		}
	}
	return joinTokens(toks)
}

func (g *goAnalyzer) inHole(o int) (int, bool) {
	for _, h := range g.holes {
		if o >= h[0] && o < h[1] {
			return h[0], true
		}
	}
	return 0, false
}

// scanBody collects assertions, skips, exits and inversions of a body.
func (g *goAnalyzer) scanBody(tc *testCase, body *ast.BlockStmt) {
	if len(body.List) > 0 {
		// A helper that returns a value at once is just short.
		if r, ok := body.List[0].(*ast.ReturnStmt); ok && !(g.helper && len(r.Results) > 0) {
			tc.markers = append(tc.markers, marker{kind: EarlyExit, text: "return", line: g.line(body.List[0].Pos())})
		}
	}
	var stack []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if fl, ok := n.(*ast.FuncLit); ok && g.isHole(fl.Body) {
			return false
		}
		if c, ok := n.(*ast.CompositeLit); ok && g.isHole(c) {
			return false
		}
		stack = append(stack, n)
		if c, ok := n.(*ast.CallExpr); ok {
			g.call(tc, c, stack)
		}
		return true
	})
}

func (g *goAnalyzer) isHole(n ast.Node) bool {
	o := g.off(n.Pos())
	for _, h := range g.holes {
		if h[0] == o || (n.Pos() != token.NoPos && o+0 == h[0]) {
			return true
		}
	}
	if c, ok := n.(*ast.CompositeLit); ok {
		lo := g.off(c.Lbrace)
		for _, h := range g.holes {
			if h[0] == lo {
				return true
			}
		}
	}
	return false
}

func callName(c *ast.CallExpr) (recv, name string) {
	switch f := c.Fun.(type) {
	case *ast.SelectorExpr:
		if id, ok := f.X.(*ast.Ident); ok {
			return id.Name, f.Sel.Name
		}
		return "", f.Sel.Name
	case *ast.Ident:
		return "", f.Name
	}
	return "", ""
}

var goFailMethods = map[string]bool{"Error": true, "Errorf": true, "Fatal": true, "Fatalf": true, "Fail": true, "FailNow": true}

func (g *goAnalyzer) call(tc *testCase, c *ast.CallExpr, stack []ast.Node) {
	recv, name := callName(c)
	line := g.line(c.Pos())
	if g.support && (strings.HasPrefix(name, "Skip") || goFailMethods[name]) && !g.tb[recv] {
		return // err.Error(), a scanner's Skip: not a test's
	}
	switch {
	case strings.HasPrefix(name, "Skip") && recv != "" && recv != "assert" && recv != "require":
		tc.markers = append(tc.markers, marker{kind: SkipAdded, text: recv + "." + name, line: line})
	case (recv == "os" || recv == "syscall") && name == "Exit" && len(c.Args) == 1 && isGoLiteral(c.Args[0]), recv == "runtime" && name == "Goexit":
		// os.Exit(m.Run()) in TestMain is the normal way to end a run.
		tc.markers = append(tc.markers, marker{kind: EarlyExit, text: recv + "." + name, line: line})
	case recv == "flag" && name == "Set" && len(c.Args) > 0 && strings.Contains(g.exprText(c.Args[0]), "test."):
		tc.markers = append(tc.markers, marker{kind: SkipAdded, text: "flag.Set(" + g.exprText(c.Args[0]) + ") narrows the run", line: line})
	case recv == "" && name == "recover":
		tc.markers = append(tc.markers, marker{kind: ExpectationInverted, text: "recover() swallows failures", line: line})
	case recv == "assert" || recv == "require" || recv == "is" || recv == "qt" || recv == "c":
		if recv == "c" && name != "Assert" && name != "Check" {
			return
		}
		tc.asserts = append(tc.asserts, g.libAssert(recv+"."+name, c, stack))
	case goFailMethods[name] && recv != "":
		tc.asserts = append(tc.asserts, g.ifAssert(recv+"."+name, c, stack))
	}
}

func (g *goAnalyzer) exprText(e ast.Expr) string { return g.norm(g.off(e.Pos()), g.off(e.End())) }

// libAssert classifies a testify-style assertion call.
func (g *goAnalyzer) libAssert(fn string, c *ast.CallExpr, stack []ast.Node) assertion {
	a := assertion{fn: fn, text: g.exprText(c), line: g.line(c.Pos()), guards: guards(stack, 0)}
	args := c.Args
	if len(args) > 0 && !strings.HasPrefix(fn, "is.") {
		args = args[1:] // t
	}
	name := fn[strings.IndexByte(fn, '.')+1:]
	a.strength = goLibStrength(name)
	switch {
	case len(args) >= 2:
		a.expected, a.subject = g.exprText(args[0]), g.exprText(args[1])
	case len(args) == 1:
		a.subject = g.exprText(args[0])
		if a.subject == "true" || a.subject == "false" {
			if (a.subject == "true") == strings.HasPrefix(name, "True") {
				a.strength = strengthTrivial
			}
		}
	}
	return a
}

func goLibStrength(name string) int {
	for _, w := range []string{"NotNil", "Nil", "True", "False", "NotEmpty", "Empty", "NotZero", "Zero", "NoError", "NotEqual", "Error", "Condition", "Implements", "IsType"} {
		if strings.HasPrefix(name, w) {
			return strengthTruthy
		}
	}
	return strengthExact
}

// ifAssert classifies t.Error-style failures by the condition guarding them.
func (g *goAnalyzer) ifAssert(fn string, c *ast.CallExpr, stack []ast.Node) assertion {
	a := assertion{fn: fn, strength: strengthExact, line: g.line(c.Pos())}
	own := -1
	for i := len(stack) - 1; i >= 0; i-- {
		if _, ok := stack[i].(*ast.IfStmt); ok {
			own = i
			break
		}
	}
	if own < 0 {
		a.text = fn
		a.guards = guards(stack, 0)
		return a
	}
	ifs := stack[own].(*ast.IfStmt)
	a.guards = guards(stack[:own], 0)
	a.line = g.line(ifs.Pos())
	cond := g.exprText(ifs.Cond)
	init := ""
	if ifs.Init != nil {
		init = g.norm(g.off(ifs.Init.Pos()), g.off(ifs.Init.End())) + " ; "
	}
	a.text = init + cond + " => " + fn
	a.subject = init + cond
	if b, ok := ifs.Cond.(*ast.BinaryExpr); ok && (b.Op == token.NEQ || b.Op == token.EQL || b.Op == token.LSS || b.Op == token.GTR || b.Op == token.LEQ || b.Op == token.GEQ) {
		l, r := g.exprText(b.X), g.exprText(b.Y)
		if isGoLiteral(b.X) && !isGoLiteral(b.Y) {
			l, r = r, l
		}
		a.subject, a.expected = init+l, r
		a.fn += " " + b.Op.String()
		if r == "nil" || (b.Op != token.NEQ && b.Op != token.EQL) {
			a.strength = strengthTruthy // existence or a range, not a value
		}
	} else if u, ok := ifs.Cond.(*ast.UnaryExpr); ok && u.Op == token.NOT {
		// if !reflect.DeepEqual(got, want), !cmp.Equal(…), !bytes.Equal(…)
		a.strength = strengthTruthy
		if c, ok := u.X.(*ast.CallExpr); ok && len(c.Args) >= 2 {
			if _, name := callName(c); strings.Contains(name, "Equal") || name == "Is" {
				a.strength = strengthExact
				a.fn += " !" + name
				a.subject, a.expected = init+g.exprText(c.Args[0]), g.exprText(c.Args[1])
				if isGoLiteral(c.Args[0]) && !isGoLiteral(c.Args[1]) {
					a.subject, a.expected = init+g.exprText(c.Args[1]), g.exprText(c.Args[0])
				}
			}
		}
	} else {
		a.strength = strengthTruthy
	}
	if cond == "false" {
		a.strength = strengthTrivial
	}
	return a
}

func isGoLiteral(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit, *ast.CompositeLit:
		return true
	case *ast.Ident:
		return e.Name == "nil" || e.Name == "true" || e.Name == "false"
	case *ast.UnaryExpr:
		return isGoLiteral(e.X)
	}
	return false
}

// guards counts if statements and deferred recovers around a node.
func guards(stack []ast.Node, _ int) int {
	n := 0
	for _, s := range stack {
		switch s.(type) {
		case *ast.IfStmt, *ast.SelectStmt:
			n++
		}
	}
	return n
}

func (g *goAnalyzer) isAssertStmt(s ast.Stmt) bool {
	found := false
	ast.Inspect(s, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			recv, name := callName(c)
			if recv == "assert" || recv == "require" || (goFailMethods[name] && recv != "") {
				found = true
			}
		}
		return !found
	})
	return found
}

var _ = sort.Strings

// exampleOutput treats an example's "Output:" comment as its assertion:
// go test compares the printed output with it.
func (g *goAnalyzer) exampleOutput(tc *testCase, body *ast.BlockStmt) {
	for _, cg := range g.comments {
		if cg.Pos() < body.Lbrace || cg.End() > body.Rbrace {
			continue
		}
		txt := strings.TrimSpace(cg.Text())
		i := strings.Index(txt, "Output:")
		if i < 0 || (i > 0 && !strings.HasPrefix(txt, "Unordered output:")) {
			continue
		}
		out := strings.Join(strings.Fields(txt), " ")
		tc.stmts = append(tc.stmts, "// "+out)
		tc.isAsrt = append(tc.isAsrt, true)
		tc.asserts = append(tc.asserts, assertion{fn: "Output", strength: strengthExact, subject: tc.name, expected: out, text: out, line: g.line(cg.Pos())})
	}
}

// callsRun reports whether a TestMain body runs the tests (m.Run()).
func callsRun(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if recv, name := callName(c); name == "Run" && recv != "" && len(c.Args) == 0 {
				found = true
			}
		}
		return !found
	})
	return found
}

// tbParams names a function's parameters of type *testing.T, *testing.B,
// *testing.F or testing.TB.
func tbParams(ft *ast.FuncType) map[string]bool {
	out := map[string]bool{}
	if ft.Params == nil {
		return out
	}
	for _, f := range ft.Params.List {
		t := f.Type
		if s, ok := t.(*ast.StarExpr); ok {
			t = s.X
		}
		sel, ok := t.(*ast.SelectorExpr)
		if !ok {
			continue
		}
		if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "testing" {
			continue
		}
		switch sel.Sel.Name {
		case "T", "B", "F", "TB":
			for _, n := range f.Names {
				out[n.Name] = true
			}
		}
	}
	return out
}
