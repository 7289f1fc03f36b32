package tui

import (
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
)

// Every lexer compiles (chroma compiles the rules at the first block) and
// gives back the text it was given, whatever it is.
func TestCodeLexersKeepTheText(t *testing.T) {
	src := "package x // c\nfunc f() { return \"s\\\"\" + 'c' + `raw` }\n#include <x>\n$HOME 'q' <a b=\"c\">&amp;</a>\n---\n+ y: [1, 2.5e3]\n\"\"\" doc \"\"\" ü 🙂\n"
	for name, lx := range codeLexers() {
		it, err := lx.Tokenise(nil, src)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var sb strings.Builder
		for tok := it(); tok != chroma.EOF; tok = it() {
			sb.WriteString(tok.Value)
		}
		if got := strings.TrimSuffix(sb.String(), "\n"); got != strings.TrimSuffix(src, "\n") {
			t.Errorf("%s: tokens spell %q, want the source back", name, got)
		}
	}
}

func TestCodeLexerTokens(t *testing.T) {
	tests := []struct {
		lang, src string
		want      map[string]chroma.TokenType // a token's text → its type
	}{
		{"go", "package main\n\nfunc main() { x := 42; fmt.Println(\"hi\", nil) } // c", map[string]chroma.TokenType{
			"package": chroma.KeywordNamespace, "func": chroma.KeywordDeclaration, "main": chroma.NameFunction, "42": chroma.LiteralNumber,
			"Println": chroma.NameFunction, `"hi"`: chroma.LiteralStringDouble, "nil": chroma.KeywordConstant, "// c": chroma.CommentSingle}},
		{"py", "@dec\nclass A(Base):\n    def f(self):\n        return None  # c", map[string]chroma.TokenType{
			"@dec": chroma.NameDecorator, "A": chroma.NameClass, "def": chroma.Keyword, "f": chroma.NameFunction,
			"None": chroma.KeywordConstant, "# c": chroma.CommentSingle}},
		{"", "#!/bin/sh\necho \"at $HOME\" && exit 1", map[string]chroma.TokenType{
			"#!/bin/sh": chroma.CommentPreproc, "echo": chroma.NameBuiltin, "$HOME": chroma.NameVariable, "&&": chroma.Operator}},
		{"ts", "export const f = async (x: string): Promise<void> => `t`", map[string]chroma.TokenType{
			"export": chroma.KeywordReserved, "const": chroma.KeywordReserved, "string": chroma.KeywordType, "Promise": chroma.NameBuiltin, "`t`": chroma.LiteralStringBacktick}},
		{"rust", "fn main() { let v: Vec<u8> = vec![1]; }", map[string]chroma.TokenType{
			"fn": chroma.KeywordDeclaration, "main": chroma.NameFunction, "Vec": chroma.NameBuiltin, "u8": chroma.KeywordType, "vec!": chroma.NameFunctionMagic}},
		{"json", `{"a": [1, true], "b": "s"}`, map[string]chroma.TokenType{
			`"a"`: chroma.NameTag, "1": chroma.LiteralNumber, "true": chroma.KeywordConstant, `"s"`: chroma.LiteralStringDouble}},
		{"diff", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n ctx", map[string]chroma.TokenType{
			"-old\n": chroma.GenericDeleted, "+new\n": chroma.GenericInserted, "@@ -1 +1 @@\n": chroma.GenericSubheading}},
		{"SQL", "SELECT id FROM t -- c", map[string]chroma.TokenType{"SELECT": chroma.Keyword, "FROM": chroma.Keyword, "-- c": chroma.CommentSingle}},
		{"yaml", "key: value # c\nn: 3", map[string]chroma.TokenType{"key": chroma.NameTag, "# c": chroma.CommentSingle, "3": chroma.LiteralNumber}},
		{"html", `<a href="x">t</a>`, map[string]chroma.TokenType{"a": chroma.NameTag, "<": chroma.Punctuation, "href": chroma.NameAttribute, `"x"`: chroma.LiteralString}},
	}
	for _, tc := range tests {
		lx := lexerFor(tc.lang, tc.src)
		if lx == nil {
			t.Errorf("%q: no lexer", tc.lang)
			continue
		}
		it, err := lx.Tokenise(nil, tc.src)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]chroma.TokenType{}
		for tok := it(); tok != chroma.EOF; tok = it() {
			got[tok.Value] = tok.Type
		}
		for text, typ := range tc.want {
			if got[text] != typ {
				t.Errorf("%q: %q is %s, want %s", tc.lang, text, got[text], typ)
			}
		}
	}
}

// A language without a lexer, or an untagged block that does not say
// what it is, is drawn as text.
func TestNoLexerIsText(t *testing.T) {
	for _, c := range [][2]string{{"brainfuck", "+++"}, {"", "just some words"}} {
		if lx := lexerFor(c[0], c[1]); lx != nil {
			t.Errorf("%q: lexer %s, want none", c[0], lx.Config().Name)
		}
	}
	out := newMarkdown(false, false).render("```brainfuck\n+++.\n```", 80)
	if want := darkSheet.Tokens[chroma.Text].Color; !strings.Contains(out, "+++.") || !strings.Contains(out, "\x1b[38;2;196;196;196m") || want != "#C4C4C4" {
		t.Errorf("unknown language drawn as %q, want the text in the sheet's text colour %s", out, want)
	}
}
