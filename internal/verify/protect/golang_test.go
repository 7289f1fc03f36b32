package protect

import (
	"strings"
	"testing"
)

const goBase = `package calc

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAdd checks addition.
func TestAdd(t *testing.T) {
	got := Add(2, 3)
	if got != 5 {
		t.Errorf("Add(2, 3) = %d, want 5", got)
	}
}

func TestDiv(t *testing.T) {
	tests := []struct {
		name string
		a, b int
		want int
	}{
		{name: "simple", a: 6, b: 3, want: 2},
		{name: "negative", a: -6, b: 3, want: -2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Div(tc.a, tc.b); got != tc.want {
				t.Fatalf("got %d", got)
			}
		})
	}
}

func TestParse(t *testing.T) {
	v, err := Parse("12")
	require.NoError(t, err)
	require.Equal(t, 12, helper(6))
	t.Run("empty", func(t *testing.T) {
		_, err := Parse("")
		require.Error(t, err)
	})
}

func helper(x int) int { return x * 2 }
`

func TestGoEdits(t *testing.T) {
	f := "calc/calc_test.go"
	cases := []edit{
		{"same", f, goBase, goBase, ""},
		{"new test", f, goBase, goBase + "\nfunc TestMul(t *testing.T) {\n\tif Mul(2, 3) != 6 {\n\t\tt.Fatal(\"mul\")\n\t}\n}\n", ""},
		{"reformat and comments", f, goBase, sub(goBase, "\tgot := Add(2, 3)\n", "\t// compute\n\tgot := Add(2,   3)\n\n", "{name: \"simple\", a: 6, b: 3, want: 2},", "{name: \"simple\", a: 6, b: 3, want: 2}, // first\n"), ""},
		{"crlf", f, goBase, strings.ReplaceAll(goBase, "\n", "\r\n"), ""},
		{"helper renamed", f, goBase, strings.ReplaceAll(goBase, "helper(", "double("), ""},
		{"new file", "calc/mul_test.go", "-", goBase, ""},
		{"deleted and readded same", f, goBase, goBase, ""},
		{"file deleted", f, goBase, "-", TestFileDeleted},
		{"test removed", f, goBase, sub(goBase, "func TestAdd(t *testing.T) {\n\tgot := Add(2, 3)\n\tif got != 5 {\n\t\tt.Errorf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n", ""), TestRemoved},
		{"renamed out of collection", f, goBase, sub(goBase, "func TestAdd(", "func testAdd("), TestRemoved},
		{"commented out", f, goBase, sub(goBase, "func TestAdd(t *testing.T) {\n\tgot := Add(2, 3)\n\tif got != 5 {\n\t\tt.Errorf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n", "/*\nfunc TestAdd(t *testing.T) {\n}\n*/\n"), TestCommentedOut},
		{"assertion removed", f, goBase, sub(goBase, "\trequire.Equal(t, 12, helper(6))\n", ""), AssertionRemoved},
		{"if assertion removed", f, goBase, sub(goBase, "\tif got != 5 {\n\t\tt.Errorf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n", "\t_ = got\n"), AssertionRemoved},
		{"loosened testify", f, goBase, sub(goBase, "require.Equal(t, 12, helper(6))", "require.NotNil(t, helper(6))"), AssertionLoosened},
		{"expected changed", f, goBase, sub(goBase, "if got != 5 {", "if got != 6 {"), ExpectedChanged},
		{"expected changed testify", f, goBase, sub(goBase, "require.Equal(t, 12, helper(6))", "require.Equal(t, 13, helper(6))"), ExpectedChanged},
		{"row removed", f, goBase, sub(goBase, "\t\t{name: \"negative\", a: -6, b: 3, want: -2},\n", ""), TableRowsChanged},
		{"row changed", f, goBase, sub(goBase, "want: -2}", "want: -3}"), TableRowsChanged},
		{"skip added", f, goBase, sub(goBase, "\tgot := Add(2, 3)\n", "\tt.Skip(\"flaky\")\n\tgot := Add(2, 3)\n"), SkipAdded},
		{"skip in subtest", f, goBase, sub(goBase, "\t\t_, err := Parse(\"\")\n", "\t\tt.SkipNow()\n\t\t_, err := Parse(\"\")\n"), SkipAdded},
		{"build constraint", f, goBase, "//go:build ignore\n\n" + goBase, SkipAdded},
		{"early return", f, goBase, sub(goBase, "\tgot := Add(2, 3)\n", "\treturn\n\tgot := Add(2, 3)\n"), EarlyExit},
		{"os exit", f, goBase, sub(goBase, "\tv, err := Parse(\"12\")\n", "\tos.Exit(0)\n\tv, err := Parse(\"12\")\n"), EarlyExit},
		{"guarded", f, goBase, sub(goBase, "\tif got != 5 {\n\t\tt.Errorf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n", "\tif false {\n\t\tif got != 5 {\n\t\t\tt.Errorf(\"Add(2, 3) = %d, want 5\", got)\n\t\t}\n\t}\n"), ExpectationInverted},
		{"trivial condition", f, goBase, sub(goBase, "if got != 5 {", "if false {"), AssertionLoosened},
		{"body changed", f, goBase, sub(goBase, "got := Add(2, 3)", "got := Add(2, 3) + 0"), BodyChanged},
		{"strengthened", f, goBase, sub(goBase, "\trequire.Equal(t, 12, helper(6))\n", "\trequire.Equal(t, 12, helper(6))\n\trequire.Less(t, v, 100)\n"), TestStrengthened},
		{"unparsable", f, goBase, sub(goBase, "func TestDiv(t *testing.T) {", "func TestDiv(t *testing.T) {{{"), Unparsable},
		{"new subtest", f, goBase, sub(goBase, "\tt.Run(\"empty\", func(t *testing.T) {", "\tt.Run(\"spaces\", func(t *testing.T) {\n\t\t_, err := Parse(\" \")\n\t\trequire.Error(t, err)\n\t})\n\tt.Run(\"empty\", func(t *testing.T) {"), ""},
		{"binary named like test", "data_test.go", "\x00\x01", "\x00\x02", ""},
	}
	runEdits(t, cases)
}
