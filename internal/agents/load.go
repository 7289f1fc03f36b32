package agents

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// LoadOptions say where definition files are and what they may name.
type LoadOptions struct {
	// UserDir is ~/.chanto/agents.
	UserDir string
	// ProjectRoot holds .chanto/agents (or, when that is absent,
	// .claude/agents); empty: no project files.
	ProjectRoot string
	// Trusted is whether ProjectRoot is trusted: an untrusted project's
	// files are not read (an agent's prompt and tools are instructions).
	Trusted bool
	// Tools are the session's tool names.
	Tools []string
	// OracleModel is oracle_model, for the built-in oracle and a custom
	// one without a model of its own.
	OracleModel string
	// CheckModel returns what is wrong with a model spec, or "".
	CheckModel func(string) string
}

// Loaded is the result of Load: the agents, and one line for each file
// that could not be used or was not read.
type Loaded struct {
	Set      *Set
	Problems []string
}

// Load reads the user's and the project's definition files over the
// built-ins. A bad file is a problem line and the rest still load.
func Load(o LoadOptions) Loaded {
	if o.CheckModel == nil {
		o.CheckModel = func(string) string { return "" }
	}
	list := Builtins(o.OracleModel)
	var problems []string
	read := func(dir string) {
		as, ps := readDir(dir, o)
		list = append(list, as...)
		problems = append(problems, ps...)
	}
	if o.UserDir != "" {
		read(o.UserDir)
	}
	if dir := ProjectDir(o.ProjectRoot); dir != "" {
		if o.Trusted {
			read(dir)
		} else if n := len(mdFiles(dir)); n > 0 {
			problems = append(problems, fmt.Sprintf("%s: %d agent file(s) ignored because %s is not trusted (run: chanto trust %s)", dir, n, o.ProjectRoot, o.ProjectRoot))
		}
	}
	for i, a := range list {
		if a.Name != Oracle {
			continue
		}
		// A reviewer that wrote would change the diff it reviews: any
		// agent named oracle is read-only.
		list[i].ReadOnly = true
		if a.Model == "" {
			list[i].Model = o.OracleModel
		}
	}
	return Loaded{Set: NewSet(list...), Problems: problems}
}

// ProjectDir is where a project's agent files are: .chanto/agents, else
// .claude/agents; "" when neither exists.
func ProjectDir(root string) string {
	if root == "" {
		return ""
	}
	for _, d := range []string{".chanto", ".claude"} {
		dir := filepath.Join(root, d, "agents")
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir
		}
	}
	return ""
}

func mdFiles(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	slices.Sort(out)
	return out
}

// readDir parses every *.md file of dir; two files naming the same agent
// is a problem, and the first (by file name) is kept.
func readDir(dir string, o LoadOptions) ([]Agent, []string) {
	var out []Agent
	var problems []string
	seen := map[string]string{}
	for _, path := range mdFiles(dir) {
		data, err := os.ReadFile(path)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v; the agent is not loaded", path, err))
			continue
		}
		a, err := Parse(path, data, o.Tools, o.CheckModel)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if first, dup := seen[a.Name]; dup {
			problems = append(problems, fmt.Sprintf("%s:2: name %q is already defined in %s; the agent is not loaded", path, a.Name, first))
			continue
		}
		seen[a.Name] = path
		out = append(out, a)
	}
	return out, problems
}
