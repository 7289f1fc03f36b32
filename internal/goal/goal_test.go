package goal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseCriterion(t *testing.T) {
	cases := []struct {
		in   string
		want Criterion
	}{
		{"go build ./...", Criterion{Kind: Command, Command: "go build ./..."}},
		{"cmd: test: odd", Criterion{Kind: Command, Command: "test: odd"}},
		{"test: TestParse", Criterion{Kind: Test, Test: "TestParse"}},
		{"test:tests/test_io.py::test_roundtrip", Criterion{Kind: Test, Test: "tests/test_io.py::test_roundtrip"}},
		{`output: /^v1\.2/ ./x --version`, Criterion{Kind: Output, Command: "./x --version", Pattern: `^v1\.2`}},
		{`output: /a\/b/ cat f`, Criterion{Kind: Output, Command: "cat f", Pattern: `a/b`}},
		{"file: docs/api.md", Criterion{Kind: File, Path: "docs/api.md"}},
		{"file: docs/api.md /## Usage/", Criterion{Kind: File, Path: "docs/api.md", Pattern: "## Usage"}},
	}
	for _, c := range cases {
		got, err := ParseCriterion(c.in)
		if err != nil || got != c.want {
			t.Errorf("%q: got %+v, %v; want %+v", c.in, got, err, c.want)
			continue
		}
		// The text form reads back to the same criterion.
		if again, err := ParseCriterion(got.String()); err != nil || again != got {
			t.Errorf("%q: String %q reads back as %+v, %v", c.in, got.String(), again, err)
		}
	}
	bad := map[string]string{
		"":                "empty criterion",
		"test:":           "a test criterion needs a test name",
		"output: v1 ./x":  "want output: /REGEX/ COMMAND",
		"output: /(/ ./x": "pattern \"(\"",
		"output: /v1/":    "a output criterion needs a command",
		"file: ":          "a file criterion needs a path",
		"file: x /[a/":    "pattern",
	}
	for in, want := range bad {
		if _, err := ParseCriterion(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "release.toml")
	os.WriteFile(p, []byte(`statement = "ship the --version flag"
criteria = ["go build ./...", "test: TestVersion"]
max_turns = 12

[[criterion]]
command = "go run ./cmd/x --version"
matches = '^x v\d+\.\d+'

[[criterion]]
file = "CHANGELOG.md"
contains = "--version"
`), 0o644)
	g, err := LoadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if g.Statement != "ship the --version flag" || g.MaxTurns != 12 || len(g.Criteria) != 4 || g.Source != p {
		t.Fatalf("goal %+v", g)
	}
	if g.Criteria[2] != (Criterion{Kind: Output, Command: "go run ./cmd/x --version", Pattern: `^x v\d+\.\d+`}) || g.Criteria[3].Pattern != "--version" {
		t.Errorf("criteria %+v", g.Criteria)
	}
	bad := map[string]string{
		"statement = \"x\"\ncritera = []\n":              ":2: unknown key \"critera\"",
		"criteria = [\"test:\"]\n":                       ":1: criterion \"test:\": a test criterion needs a test name",
		"[[criterion]]\ncommand = \"x\"\ntest = \"T\"\n": "[[criterion]] 1: set exactly one of command, test and file",
		"[[criterion]]\nfile = \"x\"\nmatches = \"a\"\n": "matches goes with command",
		"statement = \n":                                 ":1:",
		"max_turns = -1\nstatement = \"x\"\n":            "must not be negative",
		"max_tokens = 5\n":                               "a goal needs a statement or criteria",
	}
	for text, want := range bad {
		os.WriteFile(p, []byte(text), 0o644)
		if _, err := LoadFile(p); err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), p) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
	if _, err := LoadFile(filepath.Join(dir, "none.toml")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
	if got := Resolve("/p", "release"); got != "/p/.chanto/goals/release.toml" {
		t.Errorf("Resolve = %s", got)
	}
}

// TestCheck runs real commands: criteria run in order and stop at the
// first that does not hold; the ones before it are the held list.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.md"), []byte("# Notes\n## Usage\nrun it\n"), 0o644)
	g := &Goal{Criteria: []Criterion{
		{Kind: Command, Command: "true"},
		{Kind: Output, Command: "echo version 1.2.3", Pattern: `^version 1\.2`},
		{Kind: File, Path: "notes.md", Pattern: "^## Usage$"},
		{Kind: File, Path: "missing.md"},
		{Kind: Command, Command: "touch never-ran"},
	}}
	out, err := Check(context.Background(), g, Options{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	if out.Met() || len(out.Results) != 4 || out.Unmet().Index != 3 {
		t.Fatalf("outcome %+v", out)
	}
	if got := strings.Join(out.Held(), ", "); got != "`true` exited 0, `echo version 1.2.3` printed /^version 1\\.2/, notes.md has /^## Usage$/" {
		t.Errorf("held %s", got)
	}
	if got := out.UnmetText(); got != "goal criterion 4 of 5 not met: missing.md: it does not exist" {
		t.Errorf("unmet %s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "never-ran")); err == nil {
		t.Error("a criterion after the unmet one ran")
	}
	fails := []struct {
		c   Criterion
		why string
	}{
		{Criterion{Kind: Command, Command: "exit 3"}, "it exited 3"},
		{Criterion{Kind: Output, Command: "echo v2; exit 1", Pattern: "^v1"}, "its output did not match /^v1/ (it exited 1)"},
		{Criterion{Kind: File, Path: "notes.md", Pattern: "^## API"}, "its content does not match /^## API/"},
	}
	for _, f := range fails {
		out, err := Check(context.Background(), &Goal{Criteria: []Criterion{f.c}}, Options{Root: dir})
		if err != nil || out.Met() || out.Unmet().Why != f.why {
			t.Errorf("%s: %+v %v, want %q", f.c, out, err, f.why)
		}
	}
}
