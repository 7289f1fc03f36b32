package selecttest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Go test selection below the package: within the selected packages only
// the tests whose static references can reach a changed function or method
// run, as an anchored -run pattern. There is no type checking: every name
// a declaration mentions (an identifier or a selector) is an edge to every
// declaration of that name in the module, so an interface call reaches
// every method of that name. Values reach code no name shows — fmt calls
// String, json calls MarshalJSON, templates call methods by name — and
// only exported methods can be called that way, so a declaration that
// mentions a type reaches the type's exported methods as well. Everything
// this cannot see falls back to whole packages; docs/selection.md lists the
// rules.

// goDecl is one top-level declaration, reduced to what reachability needs.
type goDecl struct {
	// Name is the declared name ("_" for blank vars).
	Name string `json:"n"`
	// Recv is a method's receiver base type.
	Recv string `json:"r,omitempty"`
	// Kind is 'f' (function), 'm' (method), 'v' (var), 'c' (const),
	// 't' (type), 'i' (init) or 'a' (a name an init assigns).
	Kind byte `json:"k"`
	// Refs are the names it mentions, sorted and deduplicated.
	Refs []string `json:"x,omitempty"`
	// Inert marks a blank variable whose value runs no code, such as the
	// interface assertion var _ I = (*T)(nil).
	Inert bool `json:"i,omitempty"`
}

// goFileSum is what one Go file contributes to the reference graph.
type goFileSum struct {
	Decls []goDecl `json:"d,omitempty"`
	// Opaque says why the file defeats the graph (a //go:linkname pulls
	// a function by symbol name, cgo exports one), or "".
	Opaque string `json:"o,omitempty"`
	// Bad is set when the file does not parse.
	Bad bool `json:"b,omitempty"`
}

var callMemo fileMemo[goFileSum]

// summarizeGoFile parses file and summarizes its declarations.
func summarizeGoFile(file string) goFileSum {
	src, err := os.ReadFile(file)
	if err != nil {
		return goFileSum{Bad: true}
	}
	return summarizeGoSource(src)
}

func summarizeGoSource(src []byte) goFileSum {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return goFileSum{Bad: true}
	}
	var sum goFileSum
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			switch {
			case strings.HasPrefix(c.Text, "//go:linkname"):
				sum.Opaque = "//go:linkname"
			case strings.HasPrefix(c.Text, "//export "):
				sum.Opaque = "a cgo //export"
			}
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" && d.Body != nil {
				sum.Decls = append(sum.Decls, initDecls(d.Body)...)
				continue
			}
			gd := goDecl{Name: d.Name.Name, Kind: 'f', Refs: refsOf(d)}
			if d.Recv != nil && len(d.Recv.List) > 0 {
				gd.Kind, gd.Recv = 'm', recvName(d.Recv.List[0].Type)
			}
			sum.Decls = append(sum.Decls, gd)
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				continue
			}
			for _, s := range d.Specs {
				sum.Decls = append(sum.Decls, specDecls(d.Tok, s)...)
			}
		}
	}
	return sum
}

// initDecls splits an init function. A statement that only assigns to
// names (X = f(...), pkg.Option = v, t := f()) is read like a variable's
// initializer: each name it assigns mentions what its right side does. The
// rest is the init proper ('i'), which runs before any test and so must not
// reach a change, directly or through the locals it uses.
func initDecls(body *ast.BlockStmt) []goDecl {
	// Names the init declares itself are not package-level: what is
	// stored in them may be handed on by a later statement, which then
	// mentions them.
	local := map[string]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				for _, l := range x.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						local[id.Name] = true
					}
				}
			}
		case *ast.ValueSpec:
			for _, id := range x.Names {
				local[id.Name] = true
			}
		}
		return true
	})
	var out []goDecl
	rest := map[string]bool{}
	for _, st := range body.List {
		as, ok := st.(*ast.AssignStmt)
		if ok && (as.Tok == token.ASSIGN || as.Tok == token.DEFINE) && len(as.Lhs) == len(as.Rhs) && !slices.ContainsFunc(as.Lhs, notName) {
			for i, l := range as.Lhs {
				// A local (m := ...; m.F = g) is named by its root, so a
				// later statement that hands m on reaches g.
				name := lastName(l)
				if local[rootName(l)] {
					name = rootName(l)
				}
				out = append(out, goDecl{Name: name, Kind: 'a', Refs: refsOf(as.Rhs[i])})
			}
			continue
		}
		for _, r := range refsOf(st) {
			rest[r] = true
		}
	}
	return append(out, goDecl{Name: "init", Kind: 'i', Refs: sortedKeys(rest)})
}

// notName reports an assignment target other than X or a.b.X.
func notName(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name == "_"
	case *ast.SelectorExpr:
		return notName(x.X)
	}
	return true
}

func rootName(e ast.Expr) string {
	for {
		s, ok := e.(*ast.SelectorExpr)
		if !ok {
			break
		}
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func lastName(e ast.Expr) string {
	if s, ok := e.(*ast.SelectorExpr); ok {
		return s.Sel.Name
	}
	return e.(*ast.Ident).Name
}

// specDecls gives one declaration per name a var, const or type spec
// declares, each mentioning everything the spec does.
func specDecls(tok token.Token, s ast.Spec) []goDecl {
	switch s := s.(type) {
	case *ast.TypeSpec:
		return []goDecl{{Name: s.Name.Name, Kind: 't', Refs: refsOf(s)}}
	case *ast.ValueSpec:
		kind := byte('v')
		if tok == token.CONST {
			kind = 'c'
		}
		refs := refsOf(s)
		inert := !slices.ContainsFunc(s.Values, runsCode)
		out := make([]goDecl, 0, len(s.Names))
		for _, n := range s.Names {
			out = append(out, goDecl{Name: n.Name, Kind: kind, Refs: refs, Inert: inert && n.Name == "_"})
		}
		return out
	}
	return nil
}

// runsCode reports whether evaluating e may call a function: any call
// but a conversion of nil to a pointer type, (*T)(nil).
func runsCode(e ast.Expr) bool {
	calls := false
	ast.Inspect(e, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && !nilPointer(c) {
			calls = true
		}
		return !calls
	})
	return calls
}

// nilPointer reports the conversion (*T)(nil).
func nilPointer(c *ast.CallExpr) bool {
	p, ok := c.Fun.(*ast.ParenExpr)
	if !ok {
		return false
	}
	_, star := p.X.(*ast.StarExpr)
	return star && len(c.Args) == 1 && isIdent(c.Args[0], "nil")
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// refsOf lists every identifier under n (selectors' names included).
func refsOf(n ast.Node) []string {
	set := map[string]bool{}
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name != "_" {
			set[id.Name] = true
		}
		return true
	})
	return sortedKeys(set)
}

// recvName is the base type name of a receiver: T of T, *T, T[K], *T[K].
func recvName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

func exported(name string) bool {
	r, _ := utf8.DecodeRuneInString(name)
	return unicode.IsUpper(r)
}

// goTarget is a changed function or method: name, and the receiver type of
// a method ("" for a function).
type goChange struct{ Name, Recv string }

// refGraph is the module's declarations indexed for reverse reachability.
type refGraph struct {
	decls []graphDecl
	// users maps a name to the declarations that mention it.
	users map[string][]int
	// tests maps a package import path to its test functions' indexes.
	tests map[string][]int
	// vars are the names of package-level variables.
	vars map[string]bool
}

type graphDecl struct {
	goDecl
	pkg  string
	test bool // in a _test.go file
}

// newRefGraph builds the graph from the summaries of files, by package.
func newRefGraph(files map[string][]fileOf) *refGraph {
	g := &refGraph{users: map[string][]int{}, tests: map[string][]int{}, vars: map[string]bool{}}
	for pkg, fs := range files {
		for _, f := range fs {
			for _, d := range f.sum.Decls {
				i := len(g.decls)
				g.decls = append(g.decls, graphDecl{goDecl: d, pkg: pkg, test: f.test})
				for _, r := range d.Refs {
					g.users[r] = append(g.users[r], i)
				}
				if d.Kind == 'v' {
					g.vars[d.Name] = true
				}
				if f.test && d.Kind == 'f' && isTestFunc(d.Name) {
					g.tests[pkg] = append(g.tests[pkg], i)
				}
			}
		}
	}
	return g
}

type fileOf struct {
	sum  goFileSum
	test bool
}

// isTestFunc reports a name go test runs with -run: TestX, ExampleX, FuzzX
// (Benchmarks run only with -bench). An over-broad match only lengthens
// the pattern.
func isTestFunc(name string) bool {
	for _, p := range []string{"Test", "Example", "Fuzz"} {
		if rest, ok := strings.CutPrefix(name, p); ok {
			r, _ := utf8.DecodeRuneInString(rest)
			return rest == "" || !unicode.IsLower(r)
		}
	}
	return false
}

// hot returns, for every declaration, whether its references can reach
// one of the changes: the names that lead to a change are grown to a
// fixpoint. A mention of a method's name reaches it; for an exported
// method, so does a mention of its receiver type (the value may be handed
// to code that calls the method through an interface or reflection).
func (g *refGraph) hot(changes []goChange) []bool {
	hot := make([]bool, len(g.decls))
	seen := map[string]bool{}
	var queue []string
	push := func(n string) {
		if n != "" && n != "_" && !seen[n] {
			seen[n] = true
			queue = append(queue, n)
		}
	}
	for _, c := range changes {
		push(c.Name)
		if c.Recv != "" && exported(c.Name) {
			push(c.Recv)
		}
	}
	for len(queue) > 0 {
		n := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, i := range g.users[n] {
			if hot[i] {
				continue
			}
			hot[i] = true
			d := g.decls[i]
			push(d.Name)
			if d.Kind == 'm' && exported(d.Name) {
				push(d.Recv)
			}
		}
	}
	return hot
}

// testNames returns the sorted names of pkg's test functions, all of them
// or only the hot ones.
func (g *refGraph) testNames(pkg string, hot []bool) []string {
	set := map[string]bool{}
	for _, i := range g.tests[pkg] {
		if name := g.decls[i].Name; name == "TestMain" {
			continue // runs whatever the pattern says
		}
		if hot == nil || hot[i] {
			set[g.decls[i].Name] = true
		}
	}
	names := sortedKeys(set)
	sort.Strings(names)
	return names
}
