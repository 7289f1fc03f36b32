package policy

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// toolNames maps the lower-case tool name to its rule spelling.
var toolNames = map[string]string{
	"bash": "Bash", "read": "Read", "edit": "Edit", "write": "Write",
	"glob": "Glob", "grep": "Grep", "task": "Task",
	"web_fetch": "WebFetch", "webfetch": "WebFetch",
	"diagnostics": "Diagnostics",
}

// rule is one parsed "Tool(pattern)" entry.
type rule struct {
	text    string
	tool    string
	pattern string // "" matches every call of the tool
	// Bash only: the words of the pattern and whether ":*" made it a prefix.
	words  []string
	prefix bool
	glob   bool // Bash pattern with "*" inside: wildcard over the joined argv
}

// parseRule parses "Bash", "Bash(npm run test:*)", "Read(.env)" and the like.
func parseRule(text string) (rule, error) {
	r := rule{text: text}
	s := strings.TrimSpace(text)
	if strings.HasPrefix(s, MCPPrefix) {
		return parseMCPRule(text, s)
	}
	name, rest, hasParen := strings.Cut(s, "(")
	canon, ok := toolNames[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		return r, fmt.Errorf("rule %q: unknown tool %q (want Bash, Read, Edit, Write, Glob, Grep, Task, WebFetch or mcp__SERVER[__TOOL])", text, strings.TrimSpace(name))
	}
	r.tool = canon
	if !hasParen {
		return r, nil
	}
	if !strings.HasSuffix(rest, ")") {
		return r, fmt.Errorf("rule %q: missing closing parenthesis", text)
	}
	r.pattern = strings.TrimSpace(strings.TrimSuffix(rest, ")"))
	if r.pattern == "" {
		return r, fmt.Errorf("rule %q: empty pattern; write %s alone to match every call", text, canon)
	}
	if r.pattern == "*" || r.pattern == "**" {
		r.pattern = ""
		return r, nil
	}
	switch canon {
	case "Bash":
		p := r.pattern
		if strings.HasSuffix(p, ":*") {
			r.prefix = true
			p = strings.TrimSuffix(p, ":*")
		} else if strings.HasSuffix(p, " *") && strings.Count(p, "*") == 1 {
			r.prefix = true
			p = strings.TrimSuffix(p, " *")
		} else if strings.Contains(p, "*") {
			r.glob = true
		}
		r.words = strings.Fields(p)
		if len(r.words) == 0 {
			return r, fmt.Errorf("rule %q: no command before \":*\"", text)
		}
	case "Task":
		if !doublestar.ValidatePattern(r.pattern) {
			return r, fmt.Errorf("rule %q: bad pattern", text)
		}
	case "WebFetch":
		host, ok := strings.CutPrefix(r.pattern, "domain:")
		host = strings.ToLower(strings.TrimSpace(host))
		if !ok || host == "" || strings.ContainsAny(host, "/:@ ") {
			return r, fmt.Errorf("rule %q: want WebFetch(domain:HOST), e.g. WebFetch(domain:pkg.go.dev) or WebFetch(domain:*.example.com)", text)
		}
		r.pattern = host
	default:
		if !doublestar.ValidatePattern(strings.TrimPrefix(r.pattern, "~/")) {
			return r, fmt.Errorf("rule %q: bad path pattern", text)
		}
	}
	return r, nil
}

// covers reports whether a rule written for rule.tool applies to a call
// of tool: Read rules also guard Glob and Grep, Edit and Write rules guard
// each other, since they reach the same files.
func (r rule) covers(tool string) bool {
	if r.tool == tool {
		return true
	}
	switch r.tool {
	case "Read":
		return tool == "Glob" || tool == "Grep"
	case "Edit", "Write":
		return tool == "Edit" || tool == "Write"
	}
	return false
}

// matchArgv reports whether a Bash rule matches one simple command. Every
// word the pattern covers must be known before running; a computed word
// never matches.
func (r rule) matchArgv(args []string, dynamic []bool) bool {
	if r.pattern == "" {
		return true
	}
	if r.glob {
		if anyDynamic(dynamic) {
			return false
		}
		return wildcard(strings.Join(r.words, " "), strings.Join(args, " "))
	}
	if len(args) < len(r.words) || (!r.prefix && len(args) != len(r.words)) {
		return false
	}
	last := len(r.words) - 1
	for i, w := range r.words {
		if dynamic[i] {
			return false
		}
		if args[i] == w {
			continue
		}
		// Like Claude Code, a prefix rule's last word is a string prefix
		// ("npm run test:*" takes "npm run test:unit"), but only for tails
		// that look like part of a name, never a quoted "test; rm -rf /".
		if !(r.prefix && i == last && strings.HasPrefix(args[i], w) && nameTail(args[i][len(w):])) {
			return false
		}
	}
	return true
}

// nameTail reports whether s could continue a script or target name.
func nameTail(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(":._-/@+", c)) {
			return false
		}
	}
	return true
}

// wildcard matches s against p where "*" stands for any run of characters.
func wildcard(p, s string) bool {
	parts := strings.Split(p, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for i, part := range parts[1:] {
		if i == len(parts)-2 {
			return strings.HasSuffix(s, part)
		}
		k := strings.Index(s, part)
		if k < 0 {
			return false
		}
		s = s[k+len(part):]
	}
	return s == ""
}

// suggestRule proposes an allow rule for a refused command: its first two
// words as a prefix.
func suggestRule(args []string) string {
	n := min(len(args), 2)
	if n > 1 && strings.HasPrefix(args[1], "-") {
		n = 1
	}
	return "Bash(" + strings.Join(args[:n], " ") + ":*)"
}
