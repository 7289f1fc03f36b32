package selecttest

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// pyTok is one Python token: a name or keyword, a one-character operator,
// a string or a number. A string's text is its value (simple escapes
// undone); an f-string's is its literal text, and the tokens of its
// replacement fields follow it.
type pyTok struct {
	kind byte // 'n' name, 'o' operator, 's' string, 'f' f-string, '#' number
	text string
}

// pyName is one name of a from-import: `from m import Name as As`.
type pyName struct{ Name, As string }

// pyImport is one import statement (or a literal dynamic import).
type pyImport struct {
	Module string // dotted, "" for `from . import x`
	Level  int    // leading dots of a relative import
	From   bool
	Names  []pyName // from-imports; "*" for a star import
	As     string   // `import a.b as c`
	Top    bool     // at module level (indentation 0)
	// Bind is the name a plain import binds (`import a.b` binds a,
	// `import a.b as c` binds c); "" for from-imports and dynamic ones.
	Bind string
	// Attrs are the attribute chains the file reads on Bind ("X",
	// "sub.X"), sorted. Escapes is set when Bind is used any other way
	// (passed, assigned, subscripted, rebound), so any attribute may be
	// read. Doctest is set when its only other use is storing it in
	// pytest's doctest_namespace, which matters only to doctests.
	Attrs   []string
	Escapes bool
	Doctest bool
	// DocAttrs are chains seen only inside plain string literals
	// (doctests, prose); they count only when doctests run, and a chain
	// there that ends on a package names it, not all of it.
	DocAttrs []string
}

// pyFile is what selection needs from one Python source.
type pyFile struct {
	Imports []pyImport
	// Defined are module-level names bound by def, class or assignment.
	Defined map[string]bool
	// Nested are names bound by def or class below module level (in a
	// try or if block, or a function).
	Nested map[string]bool
	// All is a literal module-level __all__ (nil when there is none);
	// AllDynamic is set when __all__ is built any other way.
	All        map[string]bool
	AllDynamic bool
	// Dynamic is set when the file imports modules whose names are not
	// literals (importlib.import_module(name), __import__(name)), and when
	// it does not parse (SyntaxError), since then its imports are a guess.
	Dynamic     bool
	SyntaxError bool
	// Subprocess is set when the file starts processes (subprocess, os.system,
	// runpy, multiprocessing).
	Subprocess bool
	// SysExecutable is set when the file names sys.executable.
	SysExecutable bool
	// Scripts are string literals naming .py files; ModuleRuns are the
	// modules after a literal "-m"; Strings are every other short literal
	// (matched against console-script names).
	Scripts, ModuleRuns, Strings []string
	// Plugins are pytest_plugins literals.
	Plugins []string
	// DocImports are the imports written in doctests (`>>> from a import
	// b` in a docstring); they count when the file's doctests run.
	DocImports []pyImport
	// Effects are the names module-level statements call or mutate
	// through (`register(x)`, `REGISTRY["k"] = v`, `Cls.attr = v`): when
	// an import binds one from the project, running this file changes
	// another module's state.
	Effects []string
}

// scanWord reads a name or a number at i; next == i when there is none.
func scanWord(src string, i int) (pyTok, int) {
	r, size := utf8.DecodeRuneInString(src[i:])
	switch {
	case r == '_' || unicode.IsLetter(r):
		j := i + size
		for j < len(src) {
			r2, s2 := utf8.DecodeRuneInString(src[j:])
			if r2 != '_' && !unicode.IsLetter(r2) && !unicode.IsDigit(r2) {
				break
			}
			j += s2
		}
		return pyTok{'n', src[i:j]}, j
	case r >= '0' && r <= '9':
		j := i + 1
		for j < len(src) && (isAlnum(src[j]) || src[j] == '.' || src[j] == '_') {
			j++
		}
		return pyTok{'#', src[i:j]}, j
	}
	return pyTok{}, i
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// parsePy extracts imports and the other facts selection needs from the
// statements tree-sitter finds (see pytree.go).
func parsePy(src string) *pyFile {
	f := &pyFile{Defined: map[string]bool{}, Nested: map[string]bool{}}
	stmts, bad := pyStatements(src)
	// What a file that does not parse imports is a guess: it counts as
	// loading any module, so the selection widens.
	f.SyntaxError, f.Dynamic = bad, bad
	for _, st := range stmts {
		f.statement(st.toks, st.top)
		f.scanCalls(st.toks)
		for _, t := range st.toks {
			if t.kind == 's' && strings.Contains(t.text, ">>>") {
				f.DocImports = append(f.DocImports, parsePy(doctestSource(t.text)).Imports...)
			}
		}
	}
	toks := make([][]pyTok, len(stmts))
	for i, st := range stmts {
		toks[i] = st.toks
	}
	f.recordUses(toks)
	return f
}

// statement records one simple statement.
func (f *pyFile) statement(st []pyTok, top bool) {
	first := st[0]
	if first.kind != 'n' {
		return
	}
	switch first.text {
	case "import":
		f.plainImport(st[1:], top)
	case "from":
		f.fromImport(st[1:], top)
	case "def", "class":
		if len(st) > 1 {
			f.define(st[1].text, top)
		}
	case "async":
		if len(st) > 2 && st[1].text == "def" {
			f.define(st[2].text, top)
		}
	case "pytest_plugins":
		for _, t := range st[1:] {
			if t.kind == 's' {
				f.Plugins = append(f.Plugins, t.text)
			}
		}
	case "__all__":
		if top {
			f.dunderAll(st)
		} else {
			f.AllDynamic = true
		}
	default:
		if top {
			f.assignment(st)
			f.effect(st)
		}
	}
}

// pyKeywords start statements that are not calls or assignments.
var pyKeywords = map[string]bool{"if": true, "elif": true, "else": true, "for": true, "while": true,
	"with": true, "try": true, "except": true, "finally": true, "return": true, "del": true,
	"global": true, "nonlocal": true, "assert": true, "raise": true, "pass": true, "break": true,
	"continue": true, "yield": true, "lambda": true, "not": true, "await": true, "async": true, "match": true, "case": true}

// effect records the name a module-level statement changes state through:
// a call statement (`register(x)`, `mod.setup()`) or an assignment to a
// subscript or attribute of it (`REGISTRY["k"] = v`, `Cls.attr += 1`). A
// plain rebinding (`x = f()`) and decorators are not effects.
func (f *pyFile) effect(st []pyTok) {
	n := st[0]
	if n.kind != 'n' || pyKeywords[n.text] || len(st) < 2 {
		return
	}
	depth, through, call := 0, false, false
	for i := 1; i < len(st); i++ {
		t := st[i]
		if t.kind != 'o' {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			if depth == 0 && t.text == "(" {
				call = true
			}
			if depth == 0 && t.text == "[" {
				through = true
			}
			depth++
		case ")", "]", "}":
			depth--
		case ".":
			if depth == 0 {
				through = true
			}
		case "=":
			if depth != 0 || i+1 < len(st) && st[i+1].text == "=" || strings.Contains("=!<>:", st[i-1].text) {
				continue
			}
			augmented := st[i-1].kind == 'o' && strings.Contains("+-*/%&|^@", st[i-1].text)
			if through || augmented {
				f.Effects = append(f.Effects, n.text)
			}
			return
		}
	}
	if call {
		f.Effects = append(f.Effects, n.text)
	}
}

// dunderAll records `__all__ = ["a", "b"]`; any other form makes the
// star-exported names unknown.
func (f *pyFile) dunderAll(st []pyTok) {
	if len(st) < 2 || st[1].text != "=" || f.All != nil {
		f.AllDynamic = true
		return
	}
	f.All = map[string]bool{}
	for _, t := range st[2:] {
		switch {
		case t.kind == 's':
			f.All[t.text] = true
		case t.kind == 'o' && strings.Contains("[](),", t.text):
		default:
			f.AllDynamic = true
		}
	}
}

// starExports reports whether `from m import *` may bind name.
func (f *pyFile) starExports(name string) bool {
	if f.All != nil && !f.AllDynamic {
		return f.All[name]
	}
	return f.AllDynamic || !strings.HasPrefix(name, "_")
}

func (f *pyFile) define(name string, top bool) {
	if top {
		f.Defined[name] = true
	} else {
		f.Nested[name] = true
	}
}

// assignment records the targets of a module-level `a = ...`,
// `a, b = ...` or `a: T = ...`.
func (f *pyFile) assignment(st []pyTok) {
	for i, t := range st {
		if t.kind == 'o' && (t.text == "=" || t.text == ":") {
			if i+1 < len(st) && st[i+1].text == "=" {
				return // ==
			}
			for _, n := range st[:i] {
				if n.kind == 'n' {
					f.Defined[n.text] = true
				}
			}
			return
		}
		if t.kind == 'o' && t.text != "," && t.text != "(" && t.text != ")" {
			return
		}
	}
}

// dotted reads a dotted name from toks and returns it and the tokens left.
func dotted(toks []pyTok) (string, []pyTok) {
	var parts []string
	for len(toks) > 0 && toks[0].kind == 'n' {
		parts = append(parts, toks[0].text)
		toks = toks[1:]
		if len(toks) > 0 && toks[0].text == "." {
			toks = toks[1:]
			continue
		}
		break
	}
	return strings.Join(parts, "."), toks
}

func (f *pyFile) plainImport(toks []pyTok, top bool) {
	for len(toks) > 0 {
		name, rest := dotted(toks)
		if name == "" {
			return
		}
		imp := pyImport{Module: name, Top: top, Bind: strings.SplitN(name, ".", 2)[0]}
		if len(rest) > 1 && rest[0].text == "as" {
			imp.As = rest[1].text
			imp.Bind = imp.As
			rest = rest[2:]
		}
		f.Imports = append(f.Imports, imp)
		if top {
			f.Defined[imp.Bind] = true
		}
		if len(rest) == 0 || rest[0].text != "," {
			return
		}
		toks = rest[1:]
	}
}

func (f *pyFile) fromImport(toks []pyTok, top bool) {
	imp := pyImport{From: true, Top: top}
	for len(toks) > 0 && toks[0].text == "." {
		imp.Level++
		toks = toks[1:]
	}
	if len(toks) > 0 && toks[0].text != "import" {
		imp.Module, toks = dotted(toks)
	}
	if len(toks) == 0 || toks[0].text != "import" {
		return
	}
	toks = toks[1:]
	for len(toks) > 0 {
		t := toks[0]
		toks = toks[1:]
		switch {
		case t.text == "(" || t.text == ")" || t.text == ",":
		case t.text == "*":
			imp.Names = append(imp.Names, pyName{Name: "*"})
		case t.kind == 'n' && t.text == "as" && len(toks) > 0 && len(imp.Names) > 0:
			imp.Names[len(imp.Names)-1].As = toks[0].text
			toks = toks[1:]
		case t.kind == 'n':
			imp.Names = append(imp.Names, pyName{Name: t.text})
		}
	}
	for i := range imp.Names {
		if imp.Names[i].As == "" {
			imp.Names[i].As = imp.Names[i].Name
		}
		if top && imp.Names[i].Name != "*" {
			f.Defined[imp.Names[i].As] = true
		}
	}
	f.Imports = append(f.Imports, imp)
}

// scanCalls finds dynamic imports, process starts and the literals they
// may run, anywhere in a line.
func (f *pyFile) scanCalls(toks []pyTok) {
	prev := "" // the previous string literal, across commas
	for i, t := range toks {
		switch t.kind {
		case 'n':
			f.scanName(toks, i)
			prev = ""
		case 'o':
			if t.text != "," {
				prev = ""
			}
		case 's', 'f':
			after := prev
			prev = t.text
			switch {
			case after == "-m":
				f.ModuleRuns = append(f.ModuleRuns, t.text)
			case strings.HasSuffix(t.text, ".py") && !strings.ContainsAny(t.text, " \n*"):
				f.Scripts = append(f.Scripts, t.text)
			case len(t.text) > 0 && len(t.text) < 64 && !strings.ContainsAny(t.text, " \n"):
				f.Strings = append(f.Strings, t.text)
			}
		}
	}
}

func (f *pyFile) scanName(toks []pyTok, i int) {
	t := toks[i]
	switch t.text {
	case "import_module", "__import__", "importorskip":
		if i+1 < len(toks) && toks[i+1].text == "(" {
			if i+2 < len(toks) && toks[i+2].kind == 's' && (i+3 >= len(toks) || toks[i+3].text == ")" || toks[i+3].text == ",") {
				mod := toks[i+2].text
				level := len(mod) - len(strings.TrimLeft(mod, "."))
				f.Imports = append(f.Imports, pyImport{Module: mod[level:], Level: level})
			} else {
				f.Dynamic = true
			}
		}
	case "subprocess", "runpy", "multiprocessing", "pexpect", "Popen":
		f.Subprocess = true
	case "system", "popen", "execv", "execvp", "spawnv", "spawnl":
		if i > 1 && toks[i-1].text == "." && toks[i-2].text == "os" {
			f.Subprocess = true
		}
	case "executable":
		if i > 1 && toks[i-1].text == "." && toks[i-2].text == "sys" {
			f.SysExecutable = true
		}
	}
}

// pyUse is how one file uses a name bound by a plain import.
type pyUse struct {
	attrs, docAttrs  map[string]bool
	escapes, doctest bool
}

// recordUses fills Attrs, Escapes and Doctest of the plain imports from
// every use of their bound names outside import statements.
func (f *pyFile) recordUses(stmts [][]pyTok) {
	uses := map[string]*pyUse{}
	for _, imp := range f.Imports {
		if imp.Bind != "" {
			uses[imp.Bind] = &pyUse{attrs: map[string]bool{}, docAttrs: map[string]bool{}}
		}
	}
	if len(uses) == 0 {
		return
	}
	for _, st := range stmts {
		if st[0].kind == 'n' && (st[0].text == "import" || st[0].text == "from") {
			continue
		}
		for i, t := range st {
			switch t.kind {
			case 'n':
				u := uses[t.text]
				if u == nil || i > 0 && st[i-1].text == "." {
					continue
				}
				switch chain := attrChain(st[i+1:]); {
				case chain != "":
					u.attrs[chain] = true
				case storedForDoctest(st, i):
					u.doctest = true
				default:
					u.escapes = true
				}
			case 's', 'f':
				stringUses(t, uses)
			}
		}
	}
	for i := range f.Imports {
		imp := &f.Imports[i]
		if u := uses[imp.Bind]; u != nil && imp.Bind != "" {
			imp.Attrs = sortedKeys(u.attrs)
			for a := range u.attrs {
				delete(u.docAttrs, a)
			}
			imp.DocAttrs = sortedKeys(u.docAttrs)
			imp.Escapes, imp.Doctest = u.escapes, u.doctest
		}
	}
}

// attrChain reads `.X.Y` at the start of toks and returns "X.Y".
func attrChain(toks []pyTok) string {
	var parts []string
	for len(toks) >= 2 && toks[0].kind == 'o' && toks[0].text == "." && toks[1].kind == 'n' {
		parts = append(parts, toks[1].text)
		toks = toks[2:]
	}
	return strings.Join(parts, ".")
}

// storedForDoctest reports whether st[i] ends `doctest_namespace["k"] = name`.
func storedForDoctest(st []pyTok, i int) bool {
	return i == len(st)-1 && i >= 5 && st[i-1].text == "=" && st[i-2].text == "]" &&
		st[i-3].kind == 's' && st[i-4].text == "[" && st[i-5].text == "doctest_namespace"
}

// stringUses records `name.X` chains written inside string literals as
// text that may be doctests. (An f-string's replacement fields are code:
// their tokens are part of the statement.)
func stringUses(t pyTok, uses map[string]*pyUse) {
	textUses(t.text, false, uses)
}

// textUses records the uses of bound names in s: as code (attribute
// chains, and bare names escaping) or as text (chains for doctests).
func textUses(s string, code bool, uses map[string]*pyUse) {
	for i := 0; i < len(s); {
		tok, next := scanWord(s, i)
		if next == i {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			continue
		}
		u := uses[tok.text]
		if tok.kind != 'n' || u == nil || i > 0 && s[i-1] == '.' {
			i = next
			continue
		}
		var parts []string
		j := next
		for j+1 < len(s) && s[j] == '.' {
			part, after := scanWord(s, j+1)
			if after == j+1 || part.kind != 'n' {
				break
			}
			parts = append(parts, part.text)
			j = after
		}
		switch {
		case len(parts) > 0 && code:
			u.attrs[strings.Join(parts, ".")] = true
		case len(parts) > 0:
			u.docAttrs[strings.Join(parts, ".")] = true
		case code:
			u.escapes = true
		}
		i = j
	}
}
