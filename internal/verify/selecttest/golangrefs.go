package selecttest

import (
	"go/ast"
	"go/token"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// A name in Go source names one thing, and the file says which without
// type checking: a plain identifier is the package's own (or a local), a
// selector on an import's name is that package's, and a selector on
// anything else is a field or method, of any type. References are kept as
// tokens ("X", "id.X", ".X") and resolved to keys once the module's
// packages are known: "path X" for a package-level name, ".X" for every
// method called X. A name sent to a package outside the module reaches
// nothing in it; atomic.Value is not the method Context.Value.

// goImport is one import of a file.
type goImport struct {
	// Name is the name the file gives it ("" for the package's own name).
	Name string `json:"n,omitempty"`
	Path string `json:"p"`
}

// tokenRefs lists the references under n as tokens; skip (the declared
// name itself) is left out.
func tokenRefs(n ast.Node, skip *ast.Ident) []string {
	set := map[string]bool{}
	addTokenRefs(n, skip, set)
	return sortedKeys(set)
}

func addTokenRefs(n ast.Node, skip *ast.Ident, set map[string]bool) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok {
				set[id.Name+"."+x.Sel.Name] = true
				return false
			}
			set["."+x.Sel.Name] = true
			addTokenRefs(x.X, skip, set)
			return false
		case *ast.Ident:
			if x != skip && x.Name != "_" {
				set[x.Name] = true
			}
		}
		return true
	})
}

// boundNames are the names declared under n below the package level:
// parameters, results, receivers, locals, fields, labels. In a file, a
// selector on one of them may be a field or a method whatever the imports
// are called; in an init, they are its locals.
func boundNames(f ast.Node) []string {
	set := map[string]bool{}
	add := func(ids ...*ast.Ident) {
		for _, id := range ids {
			if id != nil && id.Name != "_" {
				set[id.Name] = true
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				for _, l := range x.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						add(id)
					}
				}
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{x.Key, x.Value} {
				if id, ok := e.(*ast.Ident); ok {
					add(id)
				}
			}
		case *ast.ValueSpec:
			add(x.Names...)
		case *ast.TypeSpec:
			add(x.Name)
		case *ast.Field:
			add(x.Names...)
		case *ast.LabeledStmt:
			add(x.Label)
		}
		return true
	})
	return sortedKeys(set)
}

// fileScope resolves one file's tokens in its package.
type fileScope struct {
	pkg string
	// imports maps the names the file's imports go by to their paths
	// ("" for a package outside the module).
	imports map[string]string
	// dots are module packages imported with a dot.
	dots []string
	// ambiguous are names that are both an import's and a local's or the
	// package's own: a selector on them resolves both ways.
	ambiguous map[string]bool
}

// newFileScope reads a file's imports; names maps module import paths to
// package names, own are the package-level names of the file's package.
func newFileScope(pkg string, sum goFileSum, names map[string]string, own map[string]bool) fileScope {
	s := fileScope{pkg: pkg, imports: map[string]string{}, ambiguous: map[string]bool{}}
	// Guessed names of outside packages first, so a module package's
	// real name wins a clash.
	for _, im := range sum.Imports {
		if _, inModule := names[im.Path]; !inModule && im.Name == "" {
			for _, n := range guessedNames(im.Path) {
				s.imports[n] = ""
			}
		}
	}
	for _, im := range sum.Imports {
		name, inModule := names[im.Path]
		target := ""
		if inModule {
			target = im.Path
		}
		switch {
		case im.Name == ".":
			if inModule {
				s.dots = append(s.dots, im.Path)
			}
		case im.Name == "_":
		case im.Name != "":
			s.imports[im.Name] = target
		case inModule:
			s.imports[name] = target
		}
	}
	for _, b := range sum.Bound {
		if _, ok := s.imports[b]; ok {
			s.ambiguous[b] = true
		}
	}
	for n := range own {
		if _, ok := s.imports[n]; ok {
			s.ambiguous[n] = true
		}
	}
	return s
}

// keys resolves one token to the keys it may name.
func (s fileScope) keys(tok string) []string {
	if m, ok := strings.CutPrefix(tok, "."); ok {
		return []string{"." + m}
	}
	id, sel, qualified := strings.Cut(tok, ".")
	if !qualified {
		return s.plain(id)
	}
	if p, isImport := s.imports[id]; isImport && !s.ambiguous[id] {
		if p == "" {
			return nil // outside the module
		}
		return []string{p + " " + sel}
	}
	out := append(s.plain(id), "."+sel)
	if p := s.imports[id]; p != "" {
		out = append(out, p+" "+sel)
	}
	return out
}

// plain resolves an unqualified name: the package's own, or a dot
// import's.
func (s fileScope) plain(name string) []string {
	out := []string{s.pkg + " " + name}
	for _, d := range s.dots {
		out = append(out, d+" "+name)
	}
	return out
}

// target resolves what an init's assignment writes: the key of the
// variable, or ok false for a variable outside the module (what the init
// stores there can reach any test).
func (s fileScope) target(tok string) (key string, ok bool) {
	id, sel, qualified := strings.Cut(tok, ".")
	if !qualified {
		return s.pkg + " " + id, true
	}
	if p, isImport := s.imports[id]; isImport && !s.ambiguous[id] {
		return p + " " + sel, p != ""
	}
	return s.pkg + " " + id, true
}

var majorVersion = regexp.MustCompile(`^v[0-9]+$`)

// guessedNames are the names an outside package may go by, from its path:
// yaml for gopkg.in/yaml.v3, toml for github.com/pelletier/go-toml/v2. A
// wrong guess only makes its selectors read as fields or methods.
func guessedNames(p string) []string {
	last := path.Base(p)
	if majorVersion.MatchString(last) && path.Dir(p) != "." {
		last = path.Base(path.Dir(p))
	}
	if i := strings.Index(last, ".v"); i > 0 {
		if _, err := strconv.Atoi(last[i+2:]); err == nil {
			last = last[:i]
		}
	}
	var out []string
	for _, n := range []string{last, strings.TrimPrefix(last, "go-"), strings.TrimSuffix(last, "-go"), strings.TrimPrefix(last, "go")} {
		if token.IsIdentifier(n) {
			out = append(out, n)
		}
	}
	return out
}
