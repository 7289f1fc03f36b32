package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var known = []string{"bash", "read", "write", "edit", "glob", "grep", "web_fetch", "task"}

func checkModel(s string) string {
	if !strings.Contains(s, "/") && !strings.HasPrefix(s, "scripted:") {
		return "expected \"provider/model\", got " + "\"" + s + "\""
	}
	return ""
}

// Files written the way Claude Code users write them parse; every kind of
// mistake is one line naming the file and the line.
func TestParse(t *testing.T) {
	cases := []struct {
		name, text string
		want       Agent
		err        string
	}{
		{name: "claude code style", text: "---\nname: code-reviewer\ndescription: Reviews code.\ntools: Read, Grep, Glob, Bash\nmodel: sonnet\ncolor: blue\n---\n\nYou review code.\n",
			want: Agent{Name: "code-reviewer", Description: "Reviews code.", Tools: []string{"read", "grep", "glob", "bash"}, Prompt: "You review code."}},
		{name: "yaml list and a model", text: "---\nname: fetcher\ndescription: >\n  Fetches pages.\ntools:\n  - WebFetch\n  - read\nmodel: openai/gpt-5\n---\nFetch.\n",
			want: Agent{Name: "fetcher", Description: "Fetches pages.", Tools: []string{"web_fetch", "read"}, Model: "openai/gpt-5", Prompt: "Fetch."}},
		{name: "no tools inherits; task dropped", text: "---\nname: a\ndescription: d\n---\np\n", want: Agent{Name: "a", Description: "d", Prompt: "p"}},
		{name: "task in tools", text: "---\nname: a\ndescription: d\ntools: Task, Read\n---\np\n", want: Agent{Name: "a", Description: "d", Tools: []string{"read"}, Prompt: "p"}},
		{name: "crlf", text: "---\r\nname: a\r\ndescription: d\r\n---\r\np\r\n", want: Agent{Name: "a", Description: "d", Prompt: "p"}},
		{name: "no frontmatter", text: "You review code.\n", err: "a.md:1: no frontmatter"},
		{name: "unclosed frontmatter", text: "---\nname: a\n", err: "a.md:1: no frontmatter"},
		{name: "unknown tool", text: "---\nname: a\ndescription: d\ntools: Read, WebSearch\n---\np\n", err: `a.md:4: tools: unknown tool "WebSearch"`},
		{name: "bad model", text: "---\nname: a\ndescription: d\nmodel: gpt5\n---\np\n", err: `a.md:4: model: expected "provider/model"`},
		{name: "bad yaml", text: "---\nname: a\ndescription: [d\n---\np\n", err: "a.md:"},
		{name: "no name", text: "---\ndescription: d\n---\np\n", err: "a.md:2: no name"},
		{name: "bad name", text: "---\nname: my agent\ndescription: d\n---\np\n", err: "a.md:2: name:"},
		{name: "no description", text: "---\nname: a\n---\np\n", err: "a.md:2: no description"},
		{name: "no prompt", text: "---\nname: a\ndescription: d\n---\n\n", err: "a.md:4: no system prompt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Parse("a.md", []byte(c.text), known, checkModel)
			if c.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err = %v, want prefix %q on one line", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.want.Source = "a.md"
			if got.Name != c.want.Name || got.Description != c.want.Description || got.Model != c.want.Model ||
				got.Prompt != c.want.Prompt || strings.Join(got.Tools, ",") != strings.Join(c.want.Tools, ",") || (got.Tools == nil) != (c.want.Tools == nil) {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A project file beats a user file beats a built-in; an untrusted project
// is not read; .claude/agents is read only without .chanto/agents; a bad
// file leaves the others loaded.
func TestLoad(t *testing.T) {
	user, proj := t.TempDir(), t.TempDir()
	write(t, user, "oracle.md", "---\nname: oracle\ndescription: user oracle\n---\nuser\n")
	write(t, user, "helper.md", "---\nname: helper\ndescription: user helper\n---\nuser\n")
	write(t, filepath.Join(proj, ".chanto", "agents"), "helper.md", "---\nname: helper\ndescription: project helper\ntools: Read\n---\nproject\n")
	write(t, filepath.Join(proj, ".chanto", "agents"), "bad.md", "no frontmatter\n")
	write(t, filepath.Join(proj, ".claude", "agents"), "claude.md", "---\nname: claude-only\ndescription: d\n---\np\n")

	l := Load(LoadOptions{UserDir: user, ProjectRoot: proj, Trusted: true, Tools: known, OracleModel: "openai/gpt-5", CheckModel: checkModel})
	if got := strings.Join(l.Set.Names(), " "); got != "general-purpose explore helper oracle" {
		t.Errorf("names = %s", got)
	}
	if h, _ := l.Set.Get("helper"); h.Description != "project helper" || len(h.Tools) != 1 {
		t.Errorf("helper = %+v", h)
	}
	o, _ := l.Set.Get("oracle")
	if o.Description != "user oracle" || !o.ReadOnly || o.Model != "openai/gpt-5" {
		t.Errorf("a custom oracle must replace the built-in, read-only, on oracle_model: %+v", o)
	}
	if len(l.Problems) != 1 || !strings.Contains(l.Problems[0], "bad.md:1: no frontmatter") {
		t.Errorf("problems = %q", l.Problems)
	}

	l = Load(LoadOptions{UserDir: user, ProjectRoot: proj, Trusted: false, Tools: known, CheckModel: checkModel})
	if h, _ := l.Set.Get("helper"); h.Description != "user helper" {
		t.Errorf("untrusted project file was read: %+v", h)
	}
	if len(l.Problems) != 1 || !strings.Contains(l.Problems[0], "2 agent file(s) ignored because") {
		t.Errorf("problems = %q", l.Problems)
	}

	os.RemoveAll(filepath.Join(proj, ".chanto"))
	l = Load(LoadOptions{ProjectRoot: proj, Trusted: true, Tools: known})
	if _, ok := l.Set.Get("claude-only"); !ok {
		t.Errorf(".claude/agents not read without .chanto/agents: %q", l.Set.Names())
	}
	if o, _ := l.Set.Get("oracle"); o.Source != SourceBuiltin || !o.ReadOnly || o.Model != "" {
		t.Errorf("built-in oracle = %+v", o)
	}
}
