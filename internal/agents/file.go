package agents

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v4"
)

// FileError is a definition file that cannot be used: its path, the line
// of the mistake (1-based; the frontmatter's opening --- is line 1) and
// what is wrong. The session starts without that agent.
type FileError struct {
	Path string
	Line int
	Msg  string
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s:%d: %s; the agent is not loaded", e.Path, e.Line, e.Msg)
}

// toolAliases maps the tool names of Claude Code's agent files, folded to
// lower case without underscores, onto chanto's tools.
var toolAliases = map[string]string{
	"read": "read", "write": "write", "edit": "edit", "multiedit": "edit",
	"bash": "bash", "glob": "glob", "grep": "grep", "ls": "glob",
	"webfetch": "web_fetch", "task": "task",
}

// modelAliases are Claude Code's model shorthands; chanto does not guess a
// model id from them, so they run on the main model.
var modelAliases = map[string]bool{"inherit": true, "sonnet": true, "opus": true, "haiku": true}

var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// Parse reads one definition file. known are the tool names the session
// has (a tool outside it is an error, as is a name that is no tool at all);
// checkModel returns what is wrong with a model spec, or "".
func Parse(path string, data []byte, known []string, checkModel func(string) string) (Agent, error) {
	fail := func(line int, format string, args ...any) (Agent, error) {
		return Agent{}, &FileError{Path: path, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	front, body, ok := splitFrontmatter(string(data))
	if !ok {
		return fail(1, "no frontmatter: the file must start with a --- line, then name: and description:, then ---")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(front), &doc); err != nil {
		line, msg := yamlError(err)
		return fail(line+1, "frontmatter: %s", msg)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return fail(2, "frontmatter: expected name: and description: keys")
	}
	a := Agent{Source: path, Prompt: strings.TrimSpace(body)}
	m := doc.Content[0]
	var nameLine int
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		line := k.Line + 1
		switch strings.ToLower(k.Value) {
		case "name":
			if v.Kind != yaml.ScalarNode || !validName.MatchString(v.Value) {
				return fail(line, "name: want letters, digits, '-', '_' or '.', got %q", v.Value)
			}
			a.Name, nameLine = v.Value, line
		case "description":
			if v.Kind != yaml.ScalarNode {
				return fail(line, "description: want text")
			}
			a.Description = strings.TrimSpace(v.Value)
		case "tools":
			tools, err := parseTools(v, known)
			if err != "" {
				return fail(line, "tools: %s", err)
			}
			a.Tools = tools
		case "model":
			if v.Kind != yaml.ScalarNode {
				return fail(line, "model: want provider/model or inherit")
			}
			spec := strings.TrimSpace(v.Value)
			if modelAliases[strings.ToLower(spec)] || spec == "" {
				continue
			}
			if msg := checkModel(spec); msg != "" {
				return fail(line, "model: %s (or inherit, for the main model)", msg)
			}
			a.Model = spec
		}
		// Other keys (color, permissionMode, …) are Claude Code's own.
	}
	switch {
	case a.Name == "":
		return fail(2, "no name: in the frontmatter")
	case a.Description == "":
		return fail(nameLine, "no description: the task tool shows it to the model, which picks agents by it")
	case a.Prompt == "":
		return fail(strings.Count(front, "\n")+2, "no system prompt after the frontmatter")
	}
	return a, nil
}

// splitFrontmatter cuts "---\nYAML\n---\nbody".
func splitFrontmatter(s string) (front, body string, ok bool) {
	first, rest, found := strings.Cut(s, "\n")
	if !found || strings.TrimSpace(first) != "---" {
		return "", "", false
	}
	for off := 0; off <= len(rest); {
		line, tail, more := strings.Cut(rest[off:], "\n")
		if strings.TrimSpace(line) == "---" {
			return rest[:off], tail, true
		}
		if !more {
			break
		}
		off += len(line) + 1
	}
	return "", "", false
}

// parseTools reads a YAML list or Claude Code's comma-separated string.
func parseTools(v *yaml.Node, known []string) ([]string, string) {
	var words []string
	switch v.Kind {
	case yaml.ScalarNode:
		for _, w := range strings.Split(v.Value, ",") {
			if w = strings.TrimSpace(w); w != "" {
				words = append(words, w)
			}
		}
	case yaml.SequenceNode:
		for _, it := range v.Content {
			if it.Kind != yaml.ScalarNode {
				return nil, "want tool names"
			}
			words = append(words, strings.TrimSpace(it.Value))
		}
	default:
		return nil, "want a list of tool names"
	}
	out := []string{}
	for _, w := range words {
		name, ok := toolAliases[strings.ReplaceAll(strings.ToLower(w), "_", "")]
		if !ok {
			if i := indexFold(known, w); i >= 0 {
				name, ok = known[i], true
			}
		}
		if !ok || (name != "task" && indexFold(known, name) < 0) {
			return nil, fmt.Sprintf("unknown tool %q (known: %s)", w, strings.Join(known, ", "))
		}
		if name == "task" {
			continue // subagents cannot start subagents
		}
		if !containsFold(out, name) {
			out = append(out, name)
		}
	}
	return out, ""
}

func indexFold(list []string, s string) int {
	for i, x := range list {
		if strings.EqualFold(x, s) {
			return i
		}
	}
	return -1
}

func containsFold(list []string, s string) bool { return indexFold(list, s) >= 0 }

// yamlError pulls the line out of a YAML error ("yaml: line 3: …").
func yamlError(err error) (int, string) {
	msg := err.Error()
	re := regexp.MustCompile(`line (\d+):\s*`)
	if m := re.FindStringSubmatchIndex(msg); m != nil {
		var n int
		fmt.Sscanf(msg[m[2]:m[3]], "%d", &n)
		rest := strings.TrimSpace(msg[m[1]:])
		return n, rest
	}
	return 1, strings.TrimPrefix(msg, "yaml: ")
}
