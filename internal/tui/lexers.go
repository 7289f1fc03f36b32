package tui

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

// Code blocks are highlighted by lexers of our own on chroma's engine,
// built when the first code block is drawn. chroma's lexers package
// registers its 240 lexers in its package initializer, and a Go program
// runs the initializer of every package it links: that was 12 ms of CPU
// and 2.3 MB of heap in every chanto process, verify, hooks and
// --version included (docs/benchmarks.md, "Start-up"). These cover the
// languages a coding agent's replies show; a block in another language is
// drawn in the sheet's text colour, as chroma's fallback lexer drew it.

// codeLang is one language for the C-like rule set: which comments,
// strings and word lists it has.
type codeLang struct {
	names         []string // the fence's info string, lower case: name, aliases, extensions
	comment       string   // line comment opener
	block         bool     // /* */ comments
	charQuote     bool     // 'x' is a character, not a string
	tripleQuote   bool     // """ and ''' strings (Python, TOML)
	backtick      bool     // `raw` strings
	preproc       bool     // #include lines (C, C++)
	decorators    bool     // @name
	shell         bool     // $variables, 'strings' without escapes
	caseFold      bool     // keywords in any case (SQL)
	keywords      []string // control flow and the rest
	reserved      []string // JavaScript's reserved words
	declarations  []string // func, var, class, ...
	namespaces    []string // import, package, use, ...
	types         []string
	constants     []string // true, nil, None, ...
	builtins      []string
	classNameRule bool   // class Name: the name as a class (Python)
	defKeyword    string // only a name after it is a function's, and "." is an operator (Python)
}

var (
	cKeywords = []string{"if", "else", "for", "while", "do", "switch", "case", "default", "break", "continue", "return", "goto", "sizeof"}
	cTypes    = []string{"int", "char", "float", "double", "void", "long", "short", "unsigned", "signed", "bool", "size_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t"}
	jsWords   = codeLang{
		comment: "//", block: true, backtick: true, decorators: true,
		keywords:     []string{"for", "in", "while", "do", "break", "return", "continue", "switch", "case", "default", "if", "else", "throw", "try", "catch", "finally", "new", "delete", "typeof", "instanceof", "void", "yield", "this", "of"},
		declarations: []string{"var", "let", "with", "function"},
		reserved:     []string{"abstract", "async", "await", "class", "const", "debugger", "enum", "export", "extends", "implements", "import", "interface", "package", "private", "protected", "public", "static", "super"},
		constants:    []string{"true", "false", "null", "NaN", "Infinity", "undefined"},
		builtins:     []string{"Array", "Boolean", "Date", "Error", "Function", "Math", "Number", "Object", "RegExp", "String", "Promise", "Proxy", "document", "window", "eval", "parseInt", "parseFloat", "isNaN"},
	}
)

var codeLangs = []codeLang{
	{names: []string{"go", "golang"}, comment: "//", block: true, charQuote: true, backtick: true,
		keywords:     []string{"break", "default", "select", "case", "defer", "go", "else", "goto", "switch", "fallthrough", "if", "range", "continue", "for", "return"},
		declarations: []string{"var", "func", "struct", "map", "chan", "type", "interface", "const"},
		namespaces:   []string{"import", "package"},
		types:        []string{"uint", "uint8", "uint16", "uint32", "uint64", "int", "int8", "int16", "int32", "int64", "float32", "float64", "complex64", "complex128", "byte", "rune", "string", "bool", "error", "uintptr", "any", "comparable"},
		constants:    []string{"true", "false", "iota", "nil"},
		builtins:     []string{"print", "println", "panic", "recover", "close", "complex", "real", "imag", "len", "cap", "append", "copy", "delete", "new", "make", "clear", "min", "max"}},
	{names: []string{"python", "py", "python3", "py3", "pyi"}, comment: "#", tripleQuote: true, decorators: true, classNameRule: true, defKeyword: "def",
		keywords:   []string{"and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else", "except", "finally", "for", "global", "if", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"},
		namespaces: []string{"import", "from"},
		constants:  []string{"True", "False", "None"},
		builtins:   []string{"print", "len", "range", "open", "int", "str", "float", "bool", "list", "dict", "set", "tuple", "bytes", "isinstance", "super", "enumerate", "zip", "map", "filter", "sorted", "reversed", "any", "all", "min", "max", "sum", "abs", "type", "object", "Exception", "ValueError", "TypeError", "KeyError"}},
	withNames(jsWords, "javascript", "js", "jsx", "mjs", "cjs", "node"),
	withNames(extend(jsWords, codeLang{
		declarations: []string{"type", "namespace", "declare", "readonly", "keyof", "as", "satisfies"},
		types:        []string{"string", "number", "boolean", "any", "unknown", "never", "void", "object", "symbol", "bigint"},
	}), "typescript", "ts", "tsx", "mts", "cts"),
	{names: []string{"rust", "rs"}, comment: "//", block: true, charQuote: true,
		keywords:     []string{"as", "break", "continue", "else", "for", "if", "in", "loop", "match", "return", "while", "where", "async", "await", "move", "unsafe", "dyn", "ref"},
		declarations: []string{"fn", "let", "mut", "const", "static", "struct", "enum", "trait", "impl", "type", "pub"},
		namespaces:   []string{"use", "mod", "crate", "extern"},
		types:        []string{"u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64", "bool", "char", "str"},
		constants:    []string{"true", "false", "self", "Self"},
		builtins:     []string{"String", "Vec", "Option", "Result", "Box", "Some", "None", "Ok", "Err"}},
	{names: []string{"c", "h"}, comment: "//", block: true, charQuote: true, preproc: true,
		keywords: cKeywords, declarations: []string{"struct", "union", "enum", "typedef", "static", "extern", "const", "volatile", "inline"},
		types: cTypes, constants: []string{"NULL", "true", "false"}},
	{names: []string{"cpp", "c++", "cc", "cxx", "hpp", "hh"}, comment: "//", block: true, charQuote: true, preproc: true,
		keywords:     append(slices.Clone(cKeywords), "try", "catch", "throw", "new", "delete", "co_await", "co_return"),
		declarations: []string{"struct", "union", "enum", "typedef", "static", "extern", "const", "constexpr", "class", "template", "typename", "public", "private", "protected", "virtual", "override", "auto", "inline", "using"},
		namespaces:   []string{"namespace"},
		types:        append(slices.Clone(cTypes), "std", "string", "vector"),
		constants:    []string{"nullptr", "true", "false", "this"}},
	{names: []string{"java"}, comment: "//", block: true, charQuote: true, decorators: true,
		keywords:     []string{"assert", "break", "case", "catch", "continue", "default", "do", "else", "finally", "for", "if", "instanceof", "new", "return", "switch", "throw", "throws", "try", "while", "yield"},
		declarations: []string{"abstract", "class", "enum", "extends", "final", "implements", "interface", "private", "protected", "public", "record", "static", "synchronized", "var", "volatile"},
		namespaces:   []string{"import", "package"},
		types:        []string{"boolean", "byte", "char", "double", "float", "int", "long", "short", "void", "String"},
		constants:    []string{"true", "false", "null", "this", "super"}},
	{names: []string{"bash", "sh", "shell", "zsh", "ksh", "console", "shell-session", "terminal"}, comment: "#", shell: true, backtick: true,
		keywords:  []string{"if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "function", "select", "return", "break", "continue", "time"},
		builtins:  []string{"echo", "cd", "export", "source", "alias", "unset", "set", "shift", "read", "printf", "test", "exit", "eval", "exec", "local", "declare", "readonly", "trap", "wait"},
		constants: []string{"true", "false"}},
	{names: []string{"sql", "postgresql", "postgres", "mysql", "sqlite"}, comment: "--", block: true, caseFold: true,
		keywords:  []string{"select", "from", "where", "insert", "into", "values", "update", "set", "delete", "create", "table", "index", "view", "drop", "alter", "add", "column", "join", "left", "right", "inner", "outer", "full", "cross", "on", "group", "by", "order", "having", "limit", "offset", "and", "or", "not", "in", "is", "as", "distinct", "union", "all", "exists", "between", "like", "case", "when", "then", "else", "end", "primary", "key", "foreign", "references", "default", "unique", "constraint", "if", "begin", "commit", "rollback", "returning", "with", "asc", "desc"},
		types:     []string{"int", "integer", "bigint", "smallint", "serial", "text", "varchar", "char", "boolean", "bool", "real", "float", "double", "numeric", "decimal", "date", "time", "timestamp", "timestamptz", "json", "jsonb", "uuid", "blob"},
		constants: []string{"null", "true", "false"}},
	{names: []string{"toml"}, comment: "#", tripleQuote: true, constants: []string{"true", "false"}},
}

func withNames(l codeLang, names ...string) codeLang {
	l.names = names
	return l
}

// extend adds more's word lists to base's.
func extend(base, more codeLang) codeLang {
	base.declarations = append(slices.Clone(base.declarations), more.declarations...)
	base.reserved = append(slices.Clone(base.reserved), more.reserved...)
	base.types = append(slices.Clone(base.types), more.types...)
	return base
}

// codeLexers are the lexers by every name a fence may use, built once.
var codeLexers = sync.OnceValue(func() map[string]chroma.Lexer {
	byName := map[string]chroma.Lexer{}
	add := func(lx chroma.Lexer, names ...string) {
		for _, n := range names {
			byName[n] = lx
		}
	}
	for _, l := range codeLangs {
		add(chroma.MustNewLexer(&chroma.Config{Name: l.names[0], CaseInsensitive: l.caseFold}, l.rules), l.names...)
	}
	add(chroma.MustNewLexer(&chroma.Config{Name: "json", EnsureNL: true}, jsonRules), "json", "jsonc", "json5", "jsonl", "geojson")
	add(chroma.MustNewLexer(&chroma.Config{Name: "yaml"}, yamlRules), "yaml", "yml")
	add(chroma.MustNewLexer(&chroma.Config{Name: "diff", EnsureNL: true}, diffRules), "diff", "patch", "udiff")
	add(chroma.MustNewLexer(&chroma.Config{Name: "html", CaseInsensitive: true}, markupRules), "html", "htm", "xml", "svg", "xhtml", "vue")
	return byName
})

// lexerFor is the lexer of a fence's language, or of the text itself when
// the fence names none; nil draws the block as text.
func lexerFor(lang, src string) chroma.Lexer {
	lang = strings.ToLower(strings.TrimSpace(lang))
	if lang == "" {
		lang = guessLang(src)
	}
	return codeLexers()[strings.TrimPrefix(lang, ".")]
}

// guessLang names the language of an untagged block from its first line,
// the few cases that say it plainly.
func guessLang(src string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(src), "\n")
	switch {
	case strings.HasPrefix(first, "#!"):
		if strings.Contains(first, "python") {
			return "python"
		}
		if strings.Contains(first, "sh") {
			return "bash"
		}
	case strings.HasPrefix(first, "package "):
		return "go"
	case strings.HasPrefix(first, "#include"):
		return "c"
	case strings.HasPrefix(first, "diff --git"), strings.HasPrefix(first, "--- "):
		return "diff"
	case strings.HasPrefix(first, "<?xml"), strings.HasPrefix(strings.ToLower(first), "<!doctype html"), strings.HasPrefix(first, "<html"):
		return "html"
	}
	return ""
}

// words is chroma.Words on a copy (it sorts the list it is given).
func words(list []string) string {
	return chroma.Words(`\b`, `\b`, slices.Clone(list)...)
}

func (l codeLang) rules() chroma.Rules {
	var r []chroma.Rule
	add := func(pattern string, t chroma.Emitter) { r = append(r, chroma.Rule{Pattern: pattern, Type: t}) }
	add(`\s+`, chroma.Text)
	if l.comment == "#" {
		add(`\A#![^\n]*`, chroma.CommentPreproc)
	}
	if l.preproc {
		add(`^[ \t]*#[ \t]*\w+[^\n]*`, chroma.CommentPreproc)
	}
	if l.shell {
		add(`\$\{[^}\n]*\}|\$\w+|\$[@#?*$!0-9-]`, chroma.NameVariable)
	}
	if l.comment != "" {
		add(regexp.QuoteMeta(l.comment)+`[^\n]*`, chroma.CommentSingle)
	}
	if l.block {
		add(`/\*[\s\S]*?\*/`, chroma.CommentMultiline)
	}
	if l.tripleQuote {
		add(`[rRbBfFuU]{0,2}("""[\s\S]*?"""|'''[\s\S]*?''')`, chroma.LiteralStringDoc)
		add(`[rRbBfFuU]{1,2}(?=["'])`, chroma.LiteralStringAffix)
	}
	if l.shell {
		r = append(r, chroma.Rule{Pattern: `"`, Type: chroma.LiteralStringDouble, Mutator: chroma.Push("string")})
	} else {
		add(`"(\\.|[^"\\])*"`, chroma.LiteralStringDouble)
	}
	switch {
	case l.shell:
		add(`'[^']*'`, chroma.LiteralStringSingle)
	case l.charQuote:
		add(`'(\\.[^']*|[^'\\])'`, chroma.LiteralStringChar)
	default:
		add(`'(\\.|[^'\\\n])*'`, chroma.LiteralStringSingle)
	}
	if l.backtick {
		add("`[^`]*`", chroma.LiteralStringBacktick)
	}
	add(`\b(0[xX][\da-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|\d[\d_]*(\.\d[\d_]*)?([eE][+-]?\d+)?)\w*`, chroma.LiteralNumber)
	if l.defKeyword != "" {
		r = append(r, chroma.Rule{Pattern: `(` + l.defKeyword + `)(\s+)([A-Za-z_]\w*)`, Type: chroma.ByGroups(chroma.Keyword, chroma.Text, chroma.NameFunction)})
	}
	if l.classNameRule {
		r = append(r, chroma.Rule{Pattern: `(class)(\s+)([A-Za-z_]\w*)`, Type: chroma.ByGroups(chroma.Keyword, chroma.Text, chroma.NameClass)})
	}
	for _, w := range []struct {
		list []string
		t    chroma.TokenType
	}{
		{l.namespaces, chroma.KeywordNamespace}, {l.declarations, chroma.KeywordDeclaration}, {l.keywords, chroma.Keyword}, {l.reserved, chroma.KeywordReserved},
		{l.types, chroma.KeywordType}, {l.constants, chroma.KeywordConstant}, {l.builtins, chroma.NameBuiltin},
	} {
		if len(w.list) > 0 {
			add(words(w.list), w.t)
		}
	}
	if l.decorators {
		add(`@[A-Za-z_][\w.]*`, chroma.NameDecorator)
	}
	if l.shell {
		// Words, paths and flags are text; only the shell's own operators stand out.
		add(`&&|\|\|`, chroma.Operator)
		add(`[|;(){}]`, chroma.Punctuation)
		add(`[^\s$'"`+"`"+`;&|(){}#\\]+|.`, chroma.Text)
		return chroma.Rules{"root": r, "string": {
			{Pattern: `"`, Type: chroma.LiteralStringDouble, Mutator: chroma.Pop(1)},
			{Pattern: `\$\{[^}\n]*\}|\$\w+|\$[@#?*$!0-9-]`, Type: chroma.NameVariable},
			{Pattern: `\\.|[^"\\$]+|\$`, Type: chroma.LiteralStringDouble},
		}}
	}
	add(`[A-Za-z_]\w*!(?=\s*[(\[{])`, chroma.NameFunctionMagic) // Rust macros
	if l.defKeyword != "" {
		add(`\.`, chroma.Operator)
	} else {
		add(`[A-Za-z_$][\w$]*(?=\s*\()`, chroma.NameFunction)
	}
	add(`[A-Za-z_$][\w$]*`, chroma.Name)
	add(`<<=|>>=|\.\.\.|&&|\|\||==|!=|<=|>=|:=|\+\+|--|->|=>|::|[-+*/%&|^!=<>~?]`, chroma.Operator)
	add(`[()\[\]{}.,;:@#\\]`, chroma.Punctuation)
	add(`.`, chroma.Text)
	return chroma.Rules{"root": r}
}

func jsonRules() chroma.Rules {
	return chroma.Rules{"root": {
		{Pattern: `\s+`, Type: chroma.Text},
		{Pattern: `"(\\.|[^"\\])*"(?=\s*:)`, Type: chroma.NameTag},
		{Pattern: `"(\\.|[^"\\])*"`, Type: chroma.LiteralStringDouble},
		{Pattern: `-?\d+(\.\d+)?([eE][+-]?\d+)?`, Type: chroma.LiteralNumber},
		{Pattern: `\b(true|false|null)\b`, Type: chroma.KeywordConstant},
		{Pattern: `//[^\n]*`, Type: chroma.CommentSingle},
		{Pattern: `[{}\[\],:]`, Type: chroma.Punctuation},
		{Pattern: `.`, Type: chroma.Text},
	}}
}

func yamlRules() chroma.Rules {
	return chroma.Rules{"root": {
		{Pattern: `\s+`, Type: chroma.Text},
		{Pattern: `#[^\n]*`, Type: chroma.CommentSingle},
		{Pattern: `^---|^\.\.\.`, Type: chroma.NameNamespace},
		{Pattern: `[^\s#:'"\[\]{},-][^\n:#]*?(?=:(\s|$))`, Type: chroma.NameTag},
		{Pattern: `"(\\.|[^"\\])*"`, Type: chroma.LiteralStringDouble},
		{Pattern: `'[^'\n]*'`, Type: chroma.LiteralStringSingle},
		{Pattern: `\b(true|false|null|yes|no|on|off)\b|~`, Type: chroma.KeywordConstant},
		{Pattern: `-?\b\d+(\.\d+)?\b`, Type: chroma.LiteralNumber},
		{Pattern: `[&*][\w-]+`, Type: chroma.NameLabel},
		{Pattern: `[:>|\[\]{},?]`, Type: chroma.Punctuation},
		{Pattern: `[^\s#:,\[\]{}]+`, Type: chroma.Text},
		{Pattern: `.`, Type: chroma.Text},
	}}
}

// diffRules colour whole lines: added, removed, hunk headers.
func diffRules() chroma.Rules {
	return chroma.Rules{"root": {
		{Pattern: ` .*\n`, Type: chroma.Text},
		{Pattern: `\+.*\n`, Type: chroma.GenericInserted},
		{Pattern: `-.*\n`, Type: chroma.GenericDeleted},
		{Pattern: `!.*\n`, Type: chroma.GenericStrong},
		{Pattern: `@.*\n`, Type: chroma.GenericSubheading},
		{Pattern: `(diff|index|Index) .*\n`, Type: chroma.GenericHeading},
		{Pattern: `.*\n`, Type: chroma.Text},
	}}
}

// markupRules colour tags, their attributes and values, and comments.
func markupRules() chroma.Rules {
	return chroma.Rules{
		"root": {
			{Pattern: `<!--[\s\S]*?-->`, Type: chroma.CommentMultiline},
			{Pattern: `<[!?][^>]*>`, Type: chroma.CommentPreproc},
			{Pattern: `(</?)([\w:.-]+)`, Type: chroma.ByGroups(chroma.Punctuation, chroma.NameTag), Mutator: chroma.Push("tag")},
			{Pattern: `&\w+;|&#\d+;`, Type: chroma.NameEntity},
			{Pattern: `[^<&]+`, Type: chroma.Text},
			{Pattern: `.`, Type: chroma.Text},
		},
		"tag": {
			{Pattern: `\s+`, Type: chroma.Text},
			{Pattern: `/?>`, Type: chroma.Punctuation, Mutator: chroma.Pop(1)},
			{Pattern: `=`, Type: chroma.Operator},
			{Pattern: `[\w:.@-]+`, Type: chroma.NameAttribute},
			{Pattern: `"[^"]*"|'[^']*'`, Type: chroma.LiteralString},
			{Pattern: `.`, Type: chroma.Text},
		},
	}
}
