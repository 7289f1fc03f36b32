package scope

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

func TestReasonText(t *testing.T) {
	cases := []struct {
		r    Reason
		want string
	}{
		{Reason{}, ""},
		{Because(RelatedToChange), "related to your changes"},
		{Reason{Code: Asked}, "--full"},
		{For(Asked, `scope = "full"`), `scope = "full"`},
		{Count(ManyChanged, 20), "more than 20 files changed"},
		{Because(SetupChanged, "go.mod"), "go.mod changed"},
		{Reason{Code: FastFullRun, Secs: 12.4}, "a full run took 12s earlier this session"},
		{Reason{Code: FastFullRun, Secs: 0.43}, "a full run took 0.4s earlier this session"},
		{Reason{Code: ChangedOutside, Files: []string{"README.md"}}, "README.md changed outside its folder"},
		{Reason{Code: ChangedOutside, Files: []string{"go.work"}, More: 2}, "go.work and 2 more changed outside its folder"},
		{For(AlwaysFull, "make"), "make checks always run in full"},
		{For(NoRelatedMode, "mocha"), "mocha has no related-test mode"},
		{Reason{Code: NotWorkedOut, Detail: "go list: exit 1"}, "the related tests could not be worked out: go list: exit 1"},
		{Count(FewTestFiles, 20), "the project has 20 or fewer test files"},
		{Because(NoRelatedTests), "no related tests for the change"},
		{Because(NoRelatedTests, "a.go"), "a.go has no related tests"},
		{For(NotCode, "JavaScript or TypeScript", "x.css"), "x.css is not JavaScript or TypeScript code"},
		{For(ReachesAll, "crate"), "the change reaches every crate"},
		{Because(DeletedStillNamed, "a.js", "b.js"), "a.js was deleted and b.js still names it"},
		{For(ScriptNotPlain, "jest"), "the test script is not a plain jest command"},
	}
	for _, tc := range cases {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.r, got, tc.want)
		}
	}
	related := Scope{Reason: Because(RelatedToChange), Widened: []string{"./e2e: its tests run the project's programs", "tests/a.py: it loads modules by name"}}
	if got, want := related.String(), "related to your changes (including ./e2e: its tests run the project's programs; tests/a.py: it loads modules by name)"; got != want {
		t.Errorf("widened: got %q, want %q", got, want)
	}
	if got := (Scope{Full: true, Reason: Because(NoChange)}).Summary(); got != "full (no files changed)" {
		t.Errorf("summary: %q", got)
	}
}

// TestEveryCodeIsRenderedAndDocumented: each Code constant has words of
// its own (not the fallback that prints the code) and a row in
// docs/verify.md, where JSON readers look codes up.
func TestEveryCodeIsRenderedAndDocumented(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "scope.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../../docs/verify.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Code" {
				continue
			}
			lit := v.Values[0].(*ast.BasicLit).Value
			code := Code(strings.Trim(lit, `"`))
			n++
			r := Reason{Code: code, Files: []string{"f", "g"}, Setting: "s", Detail: "d", N: 1}
			if got := r.String(); got == string(code) || got == "" {
				t.Errorf("%s: no words of its own (%q)", code, got)
			}
			if !strings.Contains(string(doc), "`"+string(code)+"`") {
				t.Errorf("%s: not in docs/verify.md", code)
			}
		}
	}
	if n < 30 {
		t.Fatalf("found only %d codes; did the declarations change shape?", n)
	}
}
