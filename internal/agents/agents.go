// Package agents holds the agents a task call can start: the built-ins
// (general-purpose, explore and the oracle, a read-only reviewer) and the
// definitions users write as Markdown files with YAML frontmatter, in the
// format Claude Code reads from .claude/agents. It parses and checks those
// files and decides which definition wins a name; running an agent is the
// agent package's work.
package agents

import (
	_ "embed"
	"slices"
	"strings"
)

// Names of the built-in agents.
const (
	General = "general-purpose"
	Explore = "explore"
	Oracle  = "oracle"
)

// SourceBuiltin is the Source of a built-in agent.
const SourceBuiltin = "built-in"

// Agent is one agent a task call can start.
type Agent struct {
	Name        string
	Description string
	// Tools are the tool names it may call; nil means the parent's tools
	// but task (no subagent starts another).
	Tools []string
	// Model is "provider/model" or "scripted:PATH"; empty runs it on the
	// main model (the oracle: on oracle_model, else the main model).
	Model string
	// Prompt is the agent's own system prompt, added to chanto's.
	Prompt string
	// ReadOnly agents run bash in the read-only sandbox under a policy
	// that refuses commands which write, whatever the parent's mode.
	ReadOnly bool
	// Source is SourceBuiltin or the file the definition came from.
	Source string
}

//go:embed oracle.md
var oraclePrompt string

const explorePrompt = `You can only read (read, glob, grep): you cannot change files or run commands.`

// Builtins returns the built-in agents; oracleModel is the oracle's model
// (oracle_model; empty: the main model).
func Builtins(oracleModel string) []Agent {
	return []Agent{
		{Name: General, Description: "General-purpose agent: every tool but task; it can edit files and run commands.", Source: SourceBuiltin},
		{Name: Explore, Description: "Read-only explorer (read, glob, grep): answers questions about the code without changing anything.",
			Tools: []string{"read", "glob", "grep"}, Prompt: explorePrompt, Source: SourceBuiltin},
		{Name: Oracle, Description: "Read-only reviewer (read, grep, glob, read-only bash, web_fetch): finds bugs, wrong assumptions and broken callers in a plan or a diff, or answers LGTM.",
			Tools: []string{"read", "grep", "glob", "bash", "web_fetch"}, Model: oracleModel, Prompt: strings.TrimSpace(oraclePrompt), ReadOnly: true, Source: SourceBuiltin},
	}
}

// Set is the agents of a session by name: built-ins, then user files,
// then project files, each replacing an earlier one of the same name.
type Set struct {
	byName map[string]Agent
}

// NewSet returns a set of agents; a later agent replaces an earlier one
// of the same name.
func NewSet(list ...Agent) *Set {
	s := &Set{byName: map[string]Agent{}}
	for _, a := range list {
		s.byName[a.Name] = a
	}
	return s
}

// Get returns the agent called name.
func (s *Set) Get(name string) (Agent, bool) {
	if s == nil {
		return Agent{}, false
	}
	a, ok := s.byName[name]
	return a, ok
}

// All returns the agents sorted by name, the built-ins general-purpose
// and explore first.
func (s *Set) All() []Agent {
	if s == nil {
		return nil
	}
	out := make([]Agent, 0, len(s.byName))
	for _, a := range s.byName {
		out = append(out, a)
	}
	rank := func(a Agent) int {
		switch a.Name {
		case General:
			return 0
		case Explore:
			return 1
		}
		return 2
	}
	slices.SortFunc(out, func(a, b Agent) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// Names returns the agents' names in the order of All.
func (s *Set) Names() []string {
	var out []string
	for _, a := range s.All() {
		out = append(out, a.Name)
	}
	return out
}
