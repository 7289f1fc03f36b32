package selecttest

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// pyTok is one Python token: a name, an operator, a string or a number.
type pyTok struct {
	kind byte // 'n' name, 'o' operator, 's' string, '#' number
	text string
}

// pyLine is one logical line: its tokens and the indentation of its first.
type pyLine struct {
	indent int
	toks   []pyTok
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
}

// pyFile is what selection needs from one Python source.
type pyFile struct {
	Imports []pyImport
	// Defined are module-level names bound by def, class or assignment.
	Defined map[string]bool
	// Dynamic is set when the file imports modules whose names are not
	// literals (importlib.import_module(name), __import__(name)).
	Dynamic bool
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
}

// pyLines splits Python source into logical lines of tokens. It knows
// comments, all string forms (prefixes, triple quotes, escapes), bracket
// continuation and backslash continuation; it never fails.
func pyLines(src string) []pyLine {
	var lines []pyLine
	var cur pyLine
	depth, col, atStart := 0, 0, true
	flush := func() {
		if len(cur.toks) > 0 {
			lines = append(lines, cur)
		}
		cur = pyLine{}
		atStart, col = true, 0
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			i++
			if depth == 0 {
				flush()
			}
			continue
		case c == '\\' && i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r'):
			i += 2
			if i < len(src) && src[i-1] == '\r' && src[i] == '\n' {
				i++
			}
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			if atStart {
				col++
			}
			i++
			continue
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		}
		if atStart {
			cur.indent, atStart = col, false
		}
		if n := stringStart(src, i); n >= 0 {
			text, next := scanPyString(src, i, n)
			cur.toks = append(cur.toks, pyTok{'s', text})
			i = next
			continue
		}
		if tok, next := scanWord(src, i); next > i {
			cur.toks = append(cur.toks, tok)
			i = next
			continue
		}
		_, size := utf8.DecodeRuneInString(src[i:])
		switch c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth = max(depth-1, 0)
		}
		cur.toks = append(cur.toks, pyTok{'o', src[i : i+size]})
		i += size
	}
	flush()
	return lines
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

// stringStart returns the length of the prefix (r, b, f, u, rb, ...)
// when a string literal starts at i, else -1.
func stringStart(src string, i int) int {
	for n := 0; n <= 2 && i+n < len(src); n++ {
		c := src[i+n]
		if c == '\'' || c == '"' {
			if n > 0 && i > 0 && (isAlnum(src[i-1]) || src[i-1] == '_') {
				return -1
			}
			return n
		}
		if !strings.ContainsRune("rRbBfFuU", rune(c)) {
			return -1
		}
	}
	return -1
}

// scanPyString reads the literal at i (prefix length n) and returns its
// content (escapes left as written) and the index after it.
func scanPyString(src string, i, n int) (string, int) {
	raw := strings.ContainsAny(src[i:i+n], "rR")
	q := src[i+n]
	j := i + n + 1
	triple := j+1 < len(src) && src[j] == q && src[j+1] == q
	if triple {
		j += 2
	}
	start := j
	for j < len(src) {
		c := src[j]
		switch {
		case c == '\\':
			j += 2
			continue
		case c == '\n' && !triple:
			return src[start:j], j
		case c == q && (!triple || strings.HasPrefix(src[j:], strings.Repeat(string(q), 3))):
			end := j
			if triple {
				j += 3
			} else {
				j++
			}
			return unescapeSimple(src[start:end], raw), j
		}
		j++
	}
	return src[start:], len(src)
}

// unescapeSimple undoes the escapes that can appear in module names and
// paths; others are kept as written.
func unescapeSimple(s string, raw bool) string {
	if raw || !strings.Contains(s, `\`) {
		return s
	}
	r := strings.NewReplacer(`\\`, `\`, `\'`, `'`, `\"`, `"`)
	return r.Replace(s)
}

// parsePy extracts imports and the other facts selection needs.
func parsePy(src string) *pyFile {
	f := &pyFile{Defined: map[string]bool{}}
	for _, ln := range pyLines(src) {
		for _, st := range splitStatements(ln.toks) {
			f.statement(st, ln.indent == 0)
		}
		f.scanCalls(ln.toks)
	}
	return f
}

// splitStatements cuts a logical line at top-level ';' and after a
// compound-statement colon (`try: import x`).
func splitStatements(toks []pyTok) [][]pyTok {
	var out [][]pyTok
	depth, start := 0, 0
	for i, t := range toks {
		if t.kind != 'o' {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case ";":
			if depth == 0 {
				out = append(out, toks[start:i])
				start = i + 1
			}
		case ":":
			if depth == 0 && i+1 < len(toks) && isCompound(toks[start]) {
				out = append(out, toks[start:i+1])
				start = i + 1
			}
		}
	}
	out = append(out, toks[start:])
	var kept [][]pyTok
	for _, s := range out {
		if len(s) > 0 {
			kept = append(kept, s)
		}
	}
	return kept
}

func isCompound(t pyTok) bool {
	switch t.text {
	case "if", "elif", "else", "try", "except", "finally", "with", "for", "while", "def", "class", "async":
		return t.kind == 'n'
	}
	return false
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
		if top && len(st) > 1 {
			f.Defined[st[1].text] = true
		}
	case "async":
		if top && len(st) > 2 && st[1].text == "def" {
			f.Defined[st[2].text] = true
		}
	case "pytest_plugins":
		for _, t := range st[1:] {
			if t.kind == 's' {
				f.Plugins = append(f.Plugins, t.text)
			}
		}
	default:
		if top {
			f.assignment(st)
		}
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
		imp := pyImport{Module: name, Top: top}
		if len(rest) > 1 && rest[0].text == "as" {
			imp.As = rest[1].text
			rest = rest[2:]
		}
		f.Imports = append(f.Imports, imp)
		if top {
			f.Defined[strings.SplitN(name, ".", 2)[0]] = true
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
		case 's':
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
	case "import_module", "__import__":
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
