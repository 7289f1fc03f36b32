package tool

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// searchFixture is a small project with ignored, hidden, binary and
// vendored files.
var searchFixture = map[string]string{
	".gitignore":          "build/\n*.log\n",
	"main.go":             "package main\n\n// TODO: wire flags\nfunc main() {\n\trun()\n}\n",
	"run.go":              "package main\n\nfunc run() {\n\t// todo later\n}\n\nfunc helper() {}\n",
	"a/b.go":              "package a\n\nfunc Run() {}\n",
	"a-b/c.py":            "def run():\n    pass\n\n\n\n\ndef run_more():\n    pass\n",
	"a.txt":               "run run run\r\nwindows line\r\n",
	".github/ci.yml":      "run: go test\n",
	"build/out.go":        "func run() {} // ignored\n",
	"debug.log":           "run ignored\n",
	"node_modules/x.js":   "function run() {}\n",
	"data.bin":            "run\x00binary",
	"docs/guide/intro.md": "How to run it.\n",
}

func setMtimes(t *testing.T, root string, order []string) {
	t.Helper()
	base := time.Now().Add(-time.Hour)
	for i, f := range order {
		ts := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(filepath.Join(root, f), ts, ts); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGlob(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Root, searchFixture)
	gitInit(t, env.Root)
	setMtimes(t, env.Root, []string{"a/b.go", "run.go", "main.go", "build/out.go"})
	cases := []struct {
		input, want string
		isError     bool
	}{
		{`{"pattern":"**/*.go"}`, "main.go\nrun.go\na/b.go", false},
		{`{"pattern":"*.go"}`, "main.go\nrun.go", false},
		{`{"pattern":"*.go","path":"a"}`, "a/b.go", false},
		{`{"pattern":"**/*.{py,md}"}`, "", false},
		{`{"pattern":"**/*.log"}`, "no files match **/*.log under .", false},
		{`{"pattern":"**/*.js"}`, "no files match", false},
		{js(map[string]string{"pattern": env.Root + "/a/*.go"}), "a/b.go", false},
		{`{"pattern":"[z"}`, `invalid glob pattern "[z"`, true},
		{`{"pattern":"*","path":"nope"}`, "nope is not a folder", true},
		{`{}`, "pattern is empty", true},
	}
	for _, c := range cases {
		res := call(t, env, Glob{}, c.input)
		if c.want == "" {
			mustContain(t, res.Output, "a-b/c.py", "docs/guide/intro.md")
			continue
		}
		if res.Output != c.want && !(c.isError || strings.HasPrefix(c.want, "no files")) || !strings.Contains(res.Output, c.want) || res.IsError != c.isError {
			t.Errorf("%s: got %q (error %v), want %q", c.input, res.Output, res.IsError, c.want)
		}
	}
}

func TestGlobWithoutGitSkipsVendored(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Root, searchFixture)
	res := call(t, env, Glob{}, `{"pattern":"**/*.js"}`)
	mustContain(t, res.Output, "no files match")
	// Without git, .gitignore is not consulted: build/ shows up.
	res = call(t, env, Glob{}, `{"pattern":"**/out.go"}`)
	if res.Output != "build/out.go" {
		t.Errorf("got %q", res.Output)
	}
}

func TestGlobCap(t *testing.T) {
	env := newEnv(t)
	files := map[string]string{}
	for i := 0; i < 250; i++ {
		files[fmt.Sprintf("f%03d.txt", i)] = "x"
	}
	writeFiles(t, env.Root, files)
	res := call(t, env, Glob{}, `{"pattern":"*.txt"}`)
	lines := strings.Split(res.Output, "\n")
	if len(lines) != 201 || lines[200] != "(showing 200 of 250 matches, newest first; narrow the pattern or path)" {
		t.Errorf("got %d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

var grepCases = []struct {
	name, input, want string
	isError           bool
}{
	{"plain", `{"pattern":"func run"}`, "build", false},
	{"ignore case", `{"pattern":"todo","ignore_case":true}`, "main.go:3:// TODO: wire flags\nrun.go:4:\t// todo later", false},
	{"regex", `{"pattern":"^def \\w+\\(\\)"}`, "a-b/c.py:1:def run():\na-b/c.py:7:def run_more():", false},
	{"hidden and crlf", `{"pattern":"run"}`, ".github/ci.yml:1:run: go test\na-b/c.py:1:def run():\na-b/c.py:7:def run_more():\na.txt:1:run run run\ndocs/guide/intro.md:1:How to run it.\nmain.go:5:\trun()\nrun.go:3:func run() {", false},
	{"glob by name", `{"pattern":"run","glob":"*.py"}`, "a-b/c.py:1:def run():\na-b/c.py:7:def run_more():", false},
	{"glob negated", `{"pattern":"package","glob":"!main.go"}`, "a/b.go:1:package a\nrun.go:1:package main", false},
	{"glob by root path", `{"pattern":"run","path":"docs","glob":"docs/**/*.md"}`, "docs/guide/intro.md:1:How to run it.", false},
	{"sub path", `{"pattern":"run","path":"docs"}`, "docs/guide/intro.md:1:How to run it.", false},
	{"file path", `{"pattern":"run","path":"a-b/c.py"}`, "a-b/c.py:1:def run():\na-b/c.py:7:def run_more():", false},
	{"context", `{"pattern":"def","path":"a-b","context":2}`, "a-b/c.py:1:def run():\na-b/c.py-2-    pass\na-b/c.py-3-\n--\na-b/c.py-5-\na-b/c.py-6-\na-b/c.py:7:def run_more():\na-b/c.py-8-    pass", false},
	{"context across files", `{"pattern":"^func","context":1,"glob":"*.go"}`, "a/b.go-2-\na/b.go:3:func Run() {}\n--\nmain.go-3-// TODO: wire flags\nmain.go:4:func main() {\nmain.go-5-\trun()\n--\nrun.go-2-\nrun.go:3:func run() {\nrun.go-4-\t// todo later\n--\nrun.go-6-\nrun.go:7:func helper() {}", false},
	{"no match", `{"pattern":"zebra"}`, "no matches for zebra under .", false},
	{"bad regex", `{"pattern":"(x"}`, `invalid regular expression "(x"`, true},
	{"missing path", `{"pattern":"x","path":"nowhere"}`, "nowhere does not exist", true},
}

func TestGrep(t *testing.T) {
	for _, engine := range []struct {
		name string
		tool Grep
	}{{"builtin", Grep{NoRipgrep: true}}, {"rg", Grep{}}} {
		t.Run(engine.name, func(t *testing.T) {
			if engine.name == "rg" {
				if _, err := exec.LookPath("rg"); err != nil {
					t.Skip("rg not installed")
				}
			}
			env := newEnv(t)
			writeFiles(t, env.Root, searchFixture)
			gitInit(t, env.Root)
			for _, c := range grepCases {
				res := call(t, env, engine.tool, c.input)
				if c.name == "plain" {
					if strings.Contains(res.Output, c.want) || strings.Contains(res.Output, "node_modules") || strings.Contains(res.Output, "data.bin") {
						t.Errorf("%s: ignored file searched:\n%s", c.name, res.Output)
					}
					continue
				}
				if !strings.Contains(res.Output, c.want) || res.IsError != c.isError {
					t.Errorf("%s: got\n%s\n(error %v), want\n%s", c.name, res.Output, res.IsError, c.want)
				}
			}
		})
	}
}

// TestGrepEnginesAgree runs both engines on the same fixtures, in a git
// repository and outside one, and requires byte-identical output.
func TestGrepEnginesAgree(t *testing.T) {
	if _, err := exec.LookPath("rg"); err != nil {
		t.Skip("rg not installed")
	}
	for _, withGit := range []bool{true, false} {
		env := newEnv(t)
		writeFiles(t, env.Root, searchFixture)
		if withGit {
			gitInit(t, env.Root)
		}
		inputs := []string{
			`{"pattern":"run"}`, `{"pattern":"run","context":1}`, `{"pattern":"RUN","ignore_case":true,"context":3}`,
			`{"pattern":"\\(\\)","glob":"*.go"}`, `{"pattern":"line$"}`, `{"pattern":"run","path":"a-b"}`,
			`{"pattern":"^$","context":1}`, `{"pattern":"package","glob":"!main.go"}`,
			`{"pattern":"run","path":"docs","glob":"docs/**/*.md"}`, `{"pattern":"run","path":"docs","glob":"guide/*.md"}`,
			`{"pattern":"run","glob":"a-b/*"}`, `{"pattern":"def","path":"a-b/c.py","context":1}`,
		}
		for _, in := range inputs {
			a := call(t, env, Grep{NoRipgrep: true}, in)
			b := call(t, env, Grep{}, in)
			if a != b {
				t.Errorf("git=%v %s: engines differ\nbuiltin:\n%s\nrg:\n%s", withGit, in, a.Output, b.Output)
			}
		}
	}
}

func TestGrepCap(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Root, map[string]string{"big.txt": strings.Repeat("match "+strings.Repeat("y", 500)+"\n", 1000)})
	for _, g := range []Grep{{NoRipgrep: true}, {}} {
		res := call(t, env, g, `{"pattern":"match"}`)
		lines := strings.Split(res.Output, "\n")
		if len(lines) != grepMaxLines+1 || !strings.HasPrefix(lines[grepMaxLines], "[output capped at 400 lines") {
			t.Errorf("ripgrep=%v: %d lines, last %q", !g.NoRipgrep, len(lines), lines[len(lines)-1])
		}
		mustContain(t, lines[0], "big.txt:1:match yyy", "[line truncated]")
	}
}
