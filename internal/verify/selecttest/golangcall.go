package selecttest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"sort"
	"strconv"
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
	// Refs are the names it mentions as tokens (golangrefs.go), sorted
	// and deduplicated. An init's assignment ('a') is named by the token
	// of what it assigns.
	Refs []string `json:"x,omitempty"`
	// Inert marks a blank variable whose value runs no code, such as the
	// interface assertion var _ I = (*T)(nil).
	Inert bool `json:"i,omitempty"`
	// Callees are, for a blank variable whose value calls only named
	// things, their tokens: when each names a type of the module the calls
	// are conversions (var _ I = T(&t{})) and run no code either.
	Callees []string `json:"c,omitempty"`
}

// goFileSum is what one Go file contributes to the reference graph.
type goFileSum struct {
	Decls []goDecl `json:"d,omitempty"`
	// Opaque says why the file defeats the graph (a //go:linkname pulls
	// a function by symbol name, cgo exports one), or "".
	Opaque string `json:"o,omitempty"`
	// Bad is set when the file does not parse.
	Bad bool `json:"b,omitempty"`
	// Imports and Bound let tokens be resolved: what the file imports,
	// and the names it declares below the package level.
	Imports []goImport `json:"m,omitempty"`
	Bound   []string   `json:"l,omitempty"`
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
	sum := goFileSum{Bound: boundNames(f)}
	for _, im := range f.Imports {
		gi := goImport{}
		gi.Path, _ = strconv.Unquote(im.Path.Value)
		if im.Name != nil {
			gi.Name = im.Name.Name
		}
		sum.Imports = append(sum.Imports, gi)
	}
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
			gd := goDecl{Name: d.Name.Name, Kind: 'f', Refs: funcRefs(d)}
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

// funcRefs are what a function's signature and body mention. A method's
// receiver is left out: its type is where the method is, not what it
// calls (a mention of the type reaches the method by the receiver rule of
// hot), and counting it would make every method of a type reach whatever
// one of them does.
func funcRefs(d *ast.FuncDecl) []string {
	set := map[string]bool{}
	addTokenRefs(d.Type, nil, set)
	if d.Body != nil {
		addTokenRefs(d.Body, nil, set)
	}
	return sortedKeys(set)
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
	for _, n := range boundNames(body) {
		local[n] = true
	}
	var out []goDecl
	rest := map[string]bool{}
	for _, st := range body.List {
		as, ok := st.(*ast.AssignStmt)
		if ok && (as.Tok == token.ASSIGN || as.Tok == token.DEFINE) && len(as.Lhs) == len(as.Rhs) && !slices.ContainsFunc(as.Lhs, notName) {
			for i, l := range as.Lhs {
				// A local (m := ...; m.F = g) is named by its root, so a
				// later statement that hands m on reaches g.
				name := targetToken(l)
				if local[rootName(l)] {
					name = rootName(l)
				}
				out = append(out, goDecl{Name: name, Kind: 'a', Refs: tokenRefs(as.Rhs[i], nil)})
			}
			continue
		}
		for _, r := range tokenRefs(st, nil) {
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

// targetToken is the token of what an assignment writes: X, or id.X for
// id.X.Y... (the variable X of package id, or a field of variable id).
func targetToken(e ast.Expr) string {
	var last *ast.SelectorExpr
	for {
		s, ok := e.(*ast.SelectorExpr)
		if !ok {
			break
		}
		last, e = s, s.X
	}
	id := e.(*ast.Ident)
	if last == nil {
		return id.Name
	}
	return id.Name + "." + last.Sel.Name
}

// specDecls gives one declaration per name a var, const or type spec
// declares, each mentioning everything the spec does.
func specDecls(tok token.Token, s ast.Spec) []goDecl {
	switch s := s.(type) {
	case *ast.TypeSpec:
		if _, iface := s.Type.(*ast.InterfaceType); iface {
			// An interface holds no code and gives no value: calls through
			// it are selectors of its methods' names, and a value in it
			// was named by its own type where it was made.
			return []goDecl{{Name: s.Name.Name, Kind: 't'}}
		}
		return []goDecl{{Name: s.Name.Name, Kind: 't', Refs: tokenRefs(s, s.Name)}}
	case *ast.ValueSpec:
		kind := byte('v')
		if tok == token.CONST {
			kind = 'c'
		}
		refs := tokenRefs(s, nil)
		inert := !slices.ContainsFunc(s.Values, runsCode)
		var callees []string
		if !inert {
			callees = calleeTokens(s.Values)
		}
		out := make([]goDecl, 0, len(s.Names))
		for _, n := range s.Names {
			d := goDecl{Name: n.Name, Kind: kind, Refs: refs}
			if n.Name == "_" {
				d.Inert, d.Callees = inert, callees
			}
			out = append(out, d)
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

// calleeTokens are the tokens of what the calls in es call, or nil when
// one calls something other than a name (a function literal, a call's
// result).
func calleeTokens(es []ast.Expr) []string {
	set := map[string]bool{}
	ok := true
	for _, e := range es {
		ast.Inspect(e, func(n ast.Node) bool {
			c, is := n.(*ast.CallExpr)
			if !is || nilPointer(c) {
				return ok
			}
			fun := c.Fun
			for {
				if p, paren := fun.(*ast.ParenExpr); paren {
					fun = p.X
				} else if st, star := fun.(*ast.StarExpr); star {
					fun = st.X
				} else {
					break
				}
			}
			switch f := fun.(type) {
			case *ast.Ident:
				set[f.Name] = true
			case *ast.SelectorExpr:
				if id, isID := f.X.(*ast.Ident); isID {
					set[id.Name+"."+f.Sel.Name] = true
				} else {
					ok = false
				}
			default:
				ok = false
			}
			return ok
		})
	}
	if !ok || len(set) == 0 {
		return nil
	}
	return sortedKeys(set)
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

// goChange is a changed function or method of package Pkg: name, and the
// receiver type of a method ("" for a function).
type goChange struct{ Pkg, Name, Recv string }

// refGraph is the module's declarations indexed for reverse reachability.
type refGraph struct {
	decls []graphDecl
	// users maps a key to the declarations that mention it.
	users map[string][]int
	// tests maps a package import path to its test functions' indexes.
	tests map[string][]int
	// vars maps the name of a package-level variable to the packages
	// that have one.
	vars map[string][]string
}

type graphDecl struct {
	goDecl
	pkg  string
	test bool // in a _test.go file
	// key is what a mention of the declaration resolves to ("" for an
	// init or a blank variable, which nothing names).
	key string
}

// newRefGraph builds the graph from the summaries of files, by package;
// names maps the module's import paths to their package names.
func newRefGraph(files map[string][]fileOf, names map[string]string) *refGraph {
	g := &refGraph{users: map[string][]int{}, tests: map[string][]int{}, vars: map[string][]string{}}
	var declScopes []fileScope // of each declaration
	for _, pkg := range sortedKeys(mapKeys(files)) {
		own := map[string]bool{}
		for _, f := range files[pkg] {
			for _, d := range f.sum.Decls {
				if strings.ContainsRune("fvct", rune(d.Kind)) {
					own[d.Name] = true
				}
			}
		}
		for _, f := range files[pkg] {
			scope := newFileScope(pkg, f.sum, names, own)
			for _, d := range f.sum.Decls {
				i := len(g.decls)
				gd := graphDecl{goDecl: d, pkg: pkg, test: f.test}
				switch {
				case d.Kind == 'm':
					gd.key = "." + d.Name
				case d.Kind == 'a':
					var inModule bool
					if gd.key, inModule = scope.target(d.Name); !inModule {
						// Stored outside the module, where any test may
						// read it: the init proper.
						gd.Kind, gd.Name, gd.key = 'i', "init", ""
					}
				case d.Kind != 'i' && d.Name != "_":
					gd.key = pkg + " " + d.Name
				}
				g.decls = append(g.decls, gd)
				declScopes = append(declScopes, scope)
				seen := map[string]bool{}
				for _, r := range d.Refs {
					for _, k := range scope.keys(r) {
						if !seen[k] {
							seen[k] = true
							g.users[k] = append(g.users[k], i)
						}
					}
				}
				if d.Kind == 'v' {
					g.vars[d.Name] = append(g.vars[d.Name], pkg)
				}
				if f.test && d.Kind == 'f' && isTestFunc(d.Name) {
					g.tests[pkg] = append(g.tests[pkg], i)
				}
			}
		}
	}
	g.conversions(declScopes)
	return g
}

// conversions marks inert the blank variables whose calls all name types
// of the module or new and make: conversions and allocation run no code.
func (g *refGraph) conversions(scopes []fileScope) {
	types, declared := map[string]bool{}, map[string]bool{}
	for _, d := range g.decls {
		declared[d.key] = true
		if d.Kind == 't' {
			types[d.key] = true
		}
	}
	for i := range g.decls {
		d := &g.decls[i]
		if len(d.Callees) == 0 {
			continue
		}
		conv := true
		for _, c := range d.Callees {
			ks := scopes[i].keys(c)
			// A builtin's name, unless the package declares its own.
			builtin := !strings.Contains(c, ".") && noCodeBuiltins[c] && !declared[ks[0]]
			if !builtin && (len(ks) != 1 || !types[ks[0]]) {
				conv = false
			}
		}
		d.Inert = conv
	}
}

// noCodeBuiltins are the builtin functions that call no code of the
// module (new(T), make(map[K]V)).
var noCodeBuiltins = map[string]bool{"new": true, "make": true, "len": true, "cap": true}

func mapKeys[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
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
func (g *refGraph) hot(changes []goChange) []bool { return g.reach(changes).hot }

// reached is the outcome of reach: which declarations reach a change, and
// the way back to it.
type reached struct {
	g   *refGraph
	hot []bool
	// by is the name that made a declaration hot; from is the declaration
	// a name was pushed for (-1: a change).
	by   []string
	from map[string]int
}

func (g *refGraph) reach(changes []goChange) reached {
	r := reached{g: g, hot: make([]bool, len(g.decls)), by: make([]string, len(g.decls)), from: map[string]int{}}
	var queue []string
	push := func(key string, from int) {
		if _, seen := r.from[key]; key != "" && !seen {
			r.from[key] = from
			queue = append(queue, key)
		}
	}
	for _, c := range changes {
		if c.Recv == "" {
			push(c.Pkg+" "+c.Name, -1)
			continue
		}
		push("."+c.Name, -1)
		if exported(c.Name) {
			push(c.Pkg+" "+c.Recv, -1)
		}
	}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		for _, i := range g.users[k] {
			if r.hot[i] {
				continue
			}
			r.hot[i], r.by[i] = true, k
			d := g.decls[i]
			push(d.key, i)
			if d.Kind == 'm' && exported(d.Name) {
				push(d.pkg+" "+d.Recv, i)
			}
		}
	}
	return r
}

// path names the way from hot declaration i to a change: "init → SetMode
// → debugPrint".
func (r reached) path(i int) string {
	parts := []string{r.g.decls[i].label()}
	k := r.by[i]
	for n := 0; n < 12; n++ {
		j := r.from[k]
		if j < 0 {
			return strings.Join(append(parts, k[strings.LastIndexAny(k, " .")+1:]), " → ")
		}
		parts = append(parts, r.g.decls[j].label())
		k = r.by[j]
	}
	return strings.Join(append(parts, "…"), " → ")
}

func (d goDecl) label() string {
	if d.Recv != "" {
		return d.Recv + "." + d.Name
	}
	return d.Name
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
