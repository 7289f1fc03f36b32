package protect

import (
	"strings"
	"testing"
)

const greetScript = `# greet prints its name and fails without one.
exec greet world
stdout '^hello, world$'
! stderr .
! exec greet
stderr 'usage'
cmp out.txt want.txt

-- want.txt --
hello, world
-- in.txt --
world
`

func TestScriptTests(t *testing.T) {
	sub := func(old, new string) string {
		s := strings.Replace(greetScript, old, new, 1)
		if s == greetScript {
			t.Fatalf("edit %q did not apply", old)
		}
		return s
	}
	cases := []struct {
		name      string
		file      string
		base, cur string // cur "" deletes the file
		want      Kind   // "" for an honest edit
		wantLine  int
	}{
		{"assertion removed", "testdata/script/greet.txtar", greetScript, sub("stdout '^hello, world$'\n", ""), AssertionRemoved, 3},
		{"assertion loosened", "testdata/script/greet.txtar", greetScript, sub("stdout '^hello, world$'", "stdout 'hello'"), AssertionRemoved, 3},
		{"exec removed", "testdata/script/greet.txtar", greetScript, sub("exec greet world\n", ""), BodyChanged, 2},
		{"expectation inverted", "testdata/script/greet.txtar", greetScript, sub("! exec greet\n", "exec greet\n"), ExpectationInverted, 5},
		{"skip added", "testdata/script/greet.txtar", greetScript, sub("exec greet world\n", "skip 'flaky'\nexec greet world\n"), SkipAdded, 2},
		{"conditional skip added", "testdata/script/greet.txtar", greetScript, sub("exec greet world\n", "[linux] skip\nexec greet world\n"), SkipAdded, 2},
		{"stop added", "testdata/script/greet.txtar", greetScript, sub("! exec greet\n", "stop\n! exec greet\n"), EarlyExit, 5},
		{"expected output rewritten", "testdata/script/greet.txtar", greetScript, sub("-- want.txt --\nhello, world\n", "-- want.txt --\nhello world\n"), ExpectedChanged, 10},
		{"file removed", "testdata/script/greet.txtar", greetScript, sub("-- in.txt --\nworld\n", ""), ExpectedChanged, 1},
		{"deleted", "testdata/script/greet.txtar", greetScript, "", TestFileDeleted, 1},
		{"a .txt script", "cmd/x/testdata/script/greet.txt", greetScript, sub("cmp out.txt want.txt\n", ""), AssertionRemoved, 7},
		{"honest: a command added", "testdata/script/greet.txtar", greetScript, sub("cmp out.txt want.txt\n", "cmp out.txt want.txt\nexists out.txt\n"), "", 0},
		{"honest: a comment reworded", "testdata/script/greet.txtar", greetScript, sub("# greet prints", "# greet writes"), "", 0},
		{"honest: a file added", "testdata/script/greet.txtar", greetScript, greetScript + "-- extra.txt --\nmore\n", "", 0},
		{"honest: reordered", "testdata/script/greet.txtar", greetScript, sub("! stderr .\n! exec greet\n", "! exec greet\n! stderr .\n"), "", 0},
		{"not a script: plain .txt data", "testdata/words.txt", "alpha\nbeta\n", "alpha\n", "", 0},
		{"not a script: outside testdata", "docs/greet.txtar", greetScript, sub("stdout '^hello, world$'\n", ""), "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cur := mapSource{}
			if c.cur != "" {
				cur[c.file] = c.cur
			}
			vs, err := Compare(mapSource{c.file: c.base}, cur, []string{c.file}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				if len(vs) > 0 {
					t.Fatalf("honest edit reported: %v", vs)
				}
				return
			}
			if len(vs) != 1 || vs[0].Kind != c.want || vs[0].Line != c.wantLine || vs[0].Test != "greet" {
				t.Fatalf("want one %s at line %d of test greet, got %v", c.want, c.wantLine, vs)
			}
			if !strings.HasSuffix(vs[0].Message, Instruction) {
				t.Errorf("message %q lacks the instruction", vs[0].Message)
			}
		})
	}
}

func TestScriptTestRenamedIsNoDeletion(t *testing.T) {
	base := mapSource{"testdata/script/greet.txtar": greetScript}
	cur := mapSource{"testdata/script/hello.txtar": greetScript}
	vs, err := Compare(base, cur, []string{"testdata/script/greet.txtar", "testdata/script/hello.txtar"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 0 {
		t.Fatalf("a rename intact was reported: %v", vs)
	}
	cur = mapSource{"testdata/script/hello.txtar": strings.Replace(greetScript, "stderr 'usage'\n", "", 1)}
	vs, err = Compare(base, cur, []string{"testdata/script/greet.txtar", "testdata/script/hello.txtar"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || vs[0].Kind != TestFileDeleted {
		t.Fatalf("a rename that dropped an assertion should report the deletion, got %v", vs)
	}
}
