package hookinstall

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Agent is an agent whose hooks chanto installs into.
type Agent string

// The agents, by the name `chanto hook NAME` takes.
const (
	Claude Agent = "claude"
	Codex  Agent = "codex"
	Gemini Agent = "gemini"
)

// Agents are all of them, in the order status lists them.
var Agents = []Agent{Claude, Codex, Gemini}

// ParseAgent reads an agent's name.
func ParseAgent(s string) (Agent, error) {
	for _, a := range Agents {
		if string(a) == s {
			return a, nil
		}
	}
	return "", fmt.Errorf("unknown agent %q: want claude, codex or gemini", s)
}

// Title is the agent's product name.
func (a Agent) Title() string {
	switch a {
	case Claude:
		return "Claude Code"
	case Codex:
		return "Codex CLI"
	}
	return "gemini-cli"
}

// hook is one event chanto answers: the matcher for tool events ("" for
// events without one) and the agent's time limit for the call.
type hook struct {
	Event   string
	Matcher string
}

// hookTimeout is the time limit written on every entry, in seconds. The
// gate at a stop runs the project's checks, far past the agents' default
// of 60 s (Claude Code, gemini-cli); chanto hook finishes within its own
// budget (9 minutes by default), under this.
const hookTimeout = 600

// hooks are the events each agent's hook engine calls chanto on, the
// ones internal/hookgate answers: the turn's start (snapshot), each
// editing or shell tool (protection, the model's own runs), the stop (the
// gate), and SessionStart as the fallback snapshot.
func (a Agent) hooks() []hook {
	switch a {
	case Claude:
		tools := "Bash|Edit|Write|MultiEdit|NotebookEdit"
		return []hook{
			{Event: "SessionStart"},
			{Event: "UserPromptSubmit"},
			{Event: "PostToolUse", Matcher: tools},
			{Event: "PostToolUseFailure", Matcher: tools},
			{Event: "Stop"},
			{Event: "SubagentStop"},
		}
	case Codex:
		// Codex names its edit tool apply_patch (Edit and Write are
		// aliases of it) and every shell tool Bash.
		return []hook{
			{Event: "SessionStart"},
			{Event: "UserPromptSubmit"},
			{Event: "PostToolUse", Matcher: "Bash|apply_patch"},
			{Event: "Stop"},
			{Event: "SubagentStop"},
		}
	}
	return []hook{
		{Event: "SessionStart"},
		{Event: "BeforeAgent"},
		{Event: "AfterTool", Matcher: "write_file|replace|run_shell_command"},
		{Event: "AfterAgent"},
	}
}

// handler is one hook command entry as the agent's file holds it. Field
// order is the order written.
type handler struct {
	Type    string `json:"type"`
	Name    string `json:"name,omitempty"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

// group is a matcher and its handlers: the element of an event's list in
// all three agents' formats.
type group struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []handler `json:"hooks"`
}

// entry is the group chanto writes for h.
func (a Agent) entry(h hook, command string) group {
	hd := handler{Type: "command", Command: command, Timeout: hookTimeout}
	if a == Gemini {
		// gemini-cli counts hook time in milliseconds and shows a hook by
		// its name.
		hd.Name, hd.Timeout = "chanto", hookTimeout*1000
	}
	return group{Matcher: h.Matcher, Hooks: []handler{hd}}
}

// comments reports whether the agent's settings file may hold comments:
// gemini-cli strips them before parsing; Claude Code and Codex read
// plain JSON.
func (a Agent) comments() bool { return a == Gemini }

// Scope is where an install goes: the project, or the user's own
// settings (every project).
type Scope string

// The scopes.
const (
	Project Scope = "project"
	User    Scope = "user"
)

// Paths are where an agent's files are, for one machine.
type Paths struct {
	// Root is the project's root folder.
	Root string
	// Home is the user's home folder; the agent-specific variables below
	// win over it as the agents themselves read them.
	Home string
	// ClaudeConfigDir, CodexHome and GeminiHome are CLAUDE_CONFIG_DIR,
	// CODEX_HOME and GEMINI_CLI_HOME ("" when unset).
	ClaudeConfigDir, CodexHome, GeminiHome string
}

// PathsFromEnv reads the home folder and the agents' variables.
func PathsFromEnv(root string) Paths {
	home, _ := os.UserHomeDir()
	return Paths{Root: root, Home: home,
		ClaudeConfigDir: os.Getenv("CLAUDE_CONFIG_DIR"), CodexHome: os.Getenv("CODEX_HOME"), GeminiHome: os.Getenv("GEMINI_CLI_HOME")}
}

// codexHome is where Codex keeps its user files (config.toml, hooks.json).
func (p Paths) codexHome() string {
	if p.CodexHome != "" {
		return p.CodexHome
	}
	return filepath.Join(p.Home, ".codex")
}

// File is the settings file of agent a at scope s.
func (p Paths) File(a Agent, s Scope) string {
	switch {
	case a == Claude && s == Project:
		return filepath.Join(p.Root, ".claude", "settings.json")
	case a == Claude && p.ClaudeConfigDir != "":
		return filepath.Join(p.ClaudeConfigDir, "settings.json")
	case a == Claude:
		return filepath.Join(p.Home, ".claude", "settings.json")
	case a == Codex && s == Project:
		return filepath.Join(p.Root, ".codex", "hooks.json")
	case a == Codex:
		return filepath.Join(p.codexHome(), "hooks.json")
	case s == Project:
		return filepath.Join(p.Root, ".gemini", "settings.json")
	case p.GeminiHome != "":
		return filepath.Join(p.GeminiHome, ".gemini", "settings.json")
	}
	return filepath.Join(p.Home, ".gemini", "settings.json")
}

// CodexConfig is Codex's user config.toml, where hook approvals live.
func (p Paths) CodexConfig() string { return filepath.Join(p.codexHome(), "config.toml") }

// show is path as the user reads it: a project file relative to the
// project, a user's file with ~.
func (p Paths) show(path string, s Scope) string {
	if rel, err := filepath.Rel(p.Root, path); s == Project && err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	if p.Home != "" {
		if rel, err := filepath.Rel(p.Home, path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
	}
	return path
}
