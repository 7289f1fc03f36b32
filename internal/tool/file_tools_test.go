package tool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	env := newEnv(t)
	var long strings.Builder
	for i := 1; i <= 2500; i++ {
		long.WriteString("line\n")
	}
	writeFiles(t, env.Root, map[string]string{
		"a.txt":    "one\ntwo\r\nthree\n",
		"long.txt": long.String(),
		"wide.txt": strings.Repeat("x", 2100) + "\n",
		"bin.dat":  "abc\x00def",
		"empty":    "",
		"d/x":      "x",
	})
	cases := []struct {
		name, input, want string
		isError           bool
	}{
		{"numbered", `{"path":"a.txt"}`, "     1\tone\n     2\ttwo\n     3\tthree", false},
		{"absolute", js(map[string]any{"path": filepath.Join(env.Root, "a.txt"), "offset": 2, "limit": 1}), "     2\ttwo\n(lines 2-2 of 3; read on with offset 3)", false},
		{"default limit", `{"path":"long.txt"}`, "(lines 1-2000 of 2500; read on with offset 2001)", false},
		{"offset past end", `{"path":"a.txt","offset":9}`, "a.txt has 3 lines; offset 9 is past the end", false},
		{"long line", `{"path":"wide.txt"}`, "[line truncated, 100 more characters]", false},
		{"binary", `{"path":"bin.dat"}`, "bin.dat is a binary file (7 bytes); not shown", true},
		{"empty", `{"path":"empty"}`, "(empty is empty)", false},
		{"directory", `{"path":"d"}`, "d is a directory; list it with glob", true},
		{"missing", `{"path":"nope.go"}`, "nope.go does not exist", true},
		{"no path", `{}`, "path is empty", true},
		{"negative", `{"path":"a.txt","offset":-1}`, "must not be negative", true},
		{"tilde not expanded", `{"path":"~/a.txt"}`, "~/a.txt does not exist", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := call(t, env, Read{}, c.input)
			if !strings.Contains(res.Output, c.want) || res.IsError != c.isError {
				t.Errorf("got %q (error %v), want %q (error %v)", res.Output, res.IsError, c.want, c.isError)
			}
		})
	}
}

func TestWriteStalenessRule(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Root, map[string]string{"a.go": "package a\n"})
	os.Chmod(filepath.Join(env.Root, "a.go"), 0o755)
	steps := []struct {
		tool    Tool
		input   string
		want    string
		isError bool
	}{
		{Write{}, `{"path":"a.go","content":"x"}`, "a.go exists and you have not read it", true},
		{Read{}, `{"path":"a.go"}`, "package a", false},
		{Write{}, `{"path":"a.go","content":"package a\n\nfunc F() {}\n"}`, "wrote a.go (3 lines, 23 bytes)", false},
		// Our own write counts as seen: writing again is fine.
		{Write{}, `{"path":"a.go","content":"package a\n"}`, "wrote a.go", false},
		{Write{}, `{"path":"new/dir/b.go","content":"package b"}`, "created new/dir/b.go (1 line, 9 bytes)", false},
		{Write{}, `{"path":"new","content":"x"}`, "new is a directory", true},
		{Write{}, `{"content":"x"}`, "path is empty", true},
	}
	for i, s := range steps {
		res := call(t, env, s.tool, s.input)
		if !strings.Contains(res.Output, s.want) || res.IsError != s.isError {
			t.Errorf("step %d %s %s: got %q (error %v), want %q", i, s.tool.Name(), s.input, res.Output, res.IsError, s.want)
		}
	}
	// Changed on disk behind the model's back.
	os.WriteFile(filepath.Join(env.Root, "a.go"), []byte("package changed\n"), 0o644)
	res := call(t, env, Write{}, `{"path":"a.go","content":"x"}`)
	if res.Output != "a.go changed since you last read it; read it again before writing" || !res.IsError {
		t.Errorf("got %q", res.Output)
	}
	fi, _ := os.Stat(filepath.Join(env.Root, "a.go"))
	if fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v, want 0755 kept", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(filepath.Join(env.Root, "a.go")); string(b) != "package changed\n" {
		t.Errorf("refused write still wrote: %q", b)
	}
}

func TestEdit(t *testing.T) {
	files := map[string]string{
		"a.go":      "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 1\n}\n",
		"crlf.txt":  "alpha\r\nbeta\r\ngamma\r\n",
		"mixed.txt": "one\r\ntwo\nthree\n",
	}
	cases := []struct {
		name, path, input, want, file string
		isError                       bool
	}{
		{"unique", "a.go", `{"path":"a.go","old_string":"func A() int {\n\treturn 1","new_string":"func A() int {\n\treturn 2"}`,
			"edited a.go: replaced 1 occurrence\n     1\tpackage a\n     2\t\n     3\tfunc A() int {\n     4\t\treturn 2\n     5\t}\n     6\t", "package a\n\nfunc A() int {\n\treturn 2\n}\n\nfunc B() int {\n\treturn 1\n}\n", false},
		{"ambiguous", "a.go", `{"path":"a.go","old_string":"return 1","new_string":"return 3"}`,
			"old_string matches 2 places in a.go (lines 4, 8); add surrounding lines to make it unique, or set replace_all", "", true},
		{"replace all", "a.go", `{"path":"a.go","old_string":"return 1","new_string":"return 3","replace_all":true}`,
			"replaced 2 occurrences", "package a\n\nfunc A() int {\n\treturn 3\n}\n\nfunc B() int {\n\treturn 3\n}\n", false},
		{"whitespace only", "a.go", `{"path":"a.go","old_string":"func B() int {\n    return 1\n}","new_string":"x"}`,
			"It matches line 7 if whitespace (indentation, tabs vs spaces, trailing blanks) is ignored", "", true},
		{"near miss", "a.go", `{"path":"a.go","old_string":"func C() int {","new_string":"x"}`,
			"The closest lines are:\n     3\tfunc A() int {\n  ---\n     7\tfunc B() int {\nFirst difference at line 3: the file has \"func A() int {\", old_string has \"func C() int {\".", "", true},
		{"nothing close", "a.go", `{"path":"a.go","old_string":"zzzzzzzzzzzz","new_string":"x"}`,
			"old_string was not found in a.go. Read the file again", "", true},
		{"crlf kept", "crlf.txt", `{"path":"crlf.txt","old_string":"beta\ngamma","new_string":"BETA\nGAMMA\ndelta"}`,
			"replaced 1 occurrence", "alpha\r\nBETA\r\nGAMMA\r\ndelta\r\n", false},
		{"crlf one line", "crlf.txt", `{"path":"crlf.txt","old_string":"beta","new_string":"beta\nextra"}`,
			"replaced 1 occurrence", "alpha\r\nbeta\r\nextra\r\ngamma\r\n", false},
		{"mixed endings", "mixed.txt", `{"path":"mixed.txt","old_string":"two\nthree","new_string":"2\n3"}`,
			"replaced 1 occurrence", "one\r\n2\n3\n", false},
		{"same strings", "a.go", `{"path":"a.go","old_string":"x","new_string":"x"}`, "nothing to change", "", true},
		{"empty old", "a.go", `{"path":"a.go","old_string":"","new_string":"x"}`, "old_string is empty", "", true},
		{"missing file", "a.go", `{"path":"zz.go","old_string":"a","new_string":"b"}`, "zz.go does not exist; create it with write", "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := newEnv(t)
			writeFiles(t, env.Root, files)
			p := filepath.Join(env.Root, c.path)
			os.Chmod(p, 0o700)
			call(t, env, Read{}, js(map[string]string{"path": c.path}))
			res := call(t, env, Edit{}, c.input)
			if !strings.Contains(res.Output, c.want) || res.IsError != c.isError {
				t.Errorf("got %q (error %v), want %q (error %v)", res.Output, res.IsError, c.want, c.isError)
			}
			b, _ := os.ReadFile(p)
			want := c.file
			if want == "" {
				want = files[c.path]
			}
			if string(b) != want {
				t.Errorf("file now %q, want %q", b, want)
			}
			if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o700 {
				t.Errorf("mode %v not kept", fi.Mode().Perm())
			}
		})
	}
}

func TestEditNeedsFreshRead(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Root, map[string]string{"a.txt": "hello\n"})
	in := `{"path":"a.txt","old_string":"hello","new_string":"bye"}`
	if res := call(t, env, Edit{}, in); !strings.Contains(res.Output, "a.txt exists and you have not read it") {
		t.Errorf("unread: %q", res.Output)
	}
	call(t, env, Read{}, `{"path":"a.txt"}`)
	os.WriteFile(filepath.Join(env.Root, "a.txt"), []byte("hello there\n"), 0o644)
	if res := call(t, env, Edit{}, in); !strings.Contains(res.Output, "a.txt changed since you last read it") {
		t.Errorf("stale: %q", res.Output)
	}
	call(t, env, Read{}, `{"path":"a.txt"}`)
	if res := call(t, env, Edit{}, in); res.IsError {
		t.Errorf("fresh: %q", res.Output)
	}
	// Two edits in a row need no read in between.
	if res := call(t, env, Edit{}, `{"path":"a.txt","old_string":"bye","new_string":"ciao"}`); res.IsError {
		t.Errorf("second edit: %q", res.Output)
	}
}
