package policy

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// maxNesting bounds how deep deny rules look into sh -c and eval strings.
const maxNesting = 3

// decideBash rules on a bash tool call.
func (p *Policy) decideBash(input json.RawMessage) outcome {
	var in struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal(input, &in); err != nil || strings.TrimSpace(in.Command) == "" {
		return outcome{verdict: Ask, reason: "bash call without a command", rule: "mode:" + p.mode, subject: "(empty)"}
	}
	line := in.Command
	subject := firstLine(line)
	sl, err := parseLine(line)
	if err != nil {
		sl.opaque = append(sl.opaque, "a line the parser cannot read ("+err.Error()+")")
	}
	all := p.expand(sl, 0)

	if o, ok := p.bashBuiltinDeny(all, subject); ok {
		return o
	}
	for _, sc := range all.cmds {
		for _, args := range denyViews(sc) {
			if r, ok := firstMatch(p.deny, "Bash", func(r rule) bool { return r.matchArgv(args.args, args.dynamic) }); ok {
				return outcome{verdict: Deny, reason: fmt.Sprintf("bash refused: %q matches deny rule %s", strings.Join(args.args, " "), r.text), rule: r.text, subject: subject}
			}
		}
	}
	if p.mode == ModePlan {
		return outcome{verdict: Deny, reason: "plan mode: commands do not run", rule: "mode:plan", subject: subject}
	}
	if len(sl.opaque) > 0 && p.hasPatternRules(p.deny) {
		return outcome{verdict: Ask, reason: fmt.Sprintf("%s hides what runs, so deny rules cannot be checked", sl.opaque[0]), rule: "mode:" + p.mode, subject: subject}
	}
	for _, sc := range all.cmds {
		if r, ok := firstMatch(p.ask, "Bash", func(r rule) bool { return r.matchArgv(sc.args, sc.dynamic) }); ok {
			return outcome{verdict: Ask, reason: fmt.Sprintf("%q needs approval (rule %s)", strings.Join(sc.args, " "), r.text), rule: r.text, subject: subject, suggest: suggestRule(sc.args)}
		}
	}
	if p.mode == ModeBypass {
		return outcome{verdict: Allow, reason: "bypass mode", rule: "mode:bypass", subject: subject}
	}
	if r, ok := firstMatch(p.allow, "Bash", func(r rule) bool { return r.pattern == "" }); ok {
		return outcome{verdict: Allow, reason: "allowed by " + r.text, rule: r.text, explicit: true, subject: subject}
	}
	if len(sl.opaque) > 0 {
		return outcome{verdict: Ask, reason: fmt.Sprintf("%q needs approval: %s hides what runs", subject, sl.opaque[0]), rule: "mode:" + p.mode, subject: subject}
	}
	var used []string
	for _, sc := range sl.cmds {
		r, ok := firstMatch(p.allow, "Bash", func(r rule) bool { return r.matchArgv(sc.args, sc.dynamic) })
		if !ok {
			cmd := strings.Join(sc.args, " ")
			return outcome{verdict: Ask, reason: fmt.Sprintf("%q needs approval", cmd), rule: "mode:" + p.mode, subject: cmd, suggest: suggestRule(sc.args)}
		}
		used = append(used, r.text)
	}
	if len(used) == 0 {
		return outcome{verdict: Ask, reason: fmt.Sprintf("%q needs approval", subject), rule: "mode:" + p.mode, subject: subject}
	}
	return outcome{verdict: Allow, reason: "allowed by " + strings.Join(dedupe(used), ", "), rule: used[0], explicit: true, subject: subject}
}

// expand adds the commands of literal sh -c and eval scripts, so deny
// rules and the .chanto guard see inside them.
func (p *Policy) expand(sl shellLine, depth int) shellLine {
	out := sl
	if depth >= maxNesting {
		return out
	}
	for _, sc := range sl.cmds {
		for _, script := range nestedScripts(sc) {
			inner, err := parseLine(script)
			if err != nil {
				continue
			}
			inner = p.expand(inner, depth+1)
			out.cmds = append(out.cmds, inner.cmds...)
			out.paths = append(out.paths, inner.paths...)
		}
	}
	return out
}

// denyViews is the command itself plus, behind a wrapper (env, sudo,
// timeout, xargs…), every tail of its arguments, so "sudo rm" meets Bash(rm:*).
func denyViews(sc simpleCmd) []simpleCmd {
	views := []simpleCmd{sc}
	views = append(views, simpleCmd{args: append([]string{baseName(sc.args[0])}, sc.args[1:]...), dynamic: sc.dynamic})
	if !wrappers[baseName(sc.args[0])] {
		return views
	}
	for i := 1; i < len(sc.args); i++ {
		tail := simpleCmd{args: sc.args[i:], dynamic: sc.dynamic[i:]}
		views = append(views, tail, simpleCmd{args: append([]string{baseName(tail.args[0])}, tail.args[1:]...), dynamic: tail.dynamic})
	}
	return views
}

// bashBuiltinDeny refuses command lines that name chanto's own folder or
// the git files that would run code outside the sandbox.
func (p *Policy) bashBuiltinDeny(sl shellLine, subject string) (outcome, bool) {
	for _, w := range sl.paths {
		if what := protectedWord(w); what != "" {
			return outcome{verdict: Deny, reason: fmt.Sprintf("bash refused: %q names %s, which the model may not touch", subject, what), rule: "builtin:" + what, subject: subject}, true
		}
	}
	return outcome{}, false
}

// protectedWord reports which protected location a shell word names, by
// any path component (globs included), or "".
func protectedWord(w string) string {
	comps := strings.Split(filepath.ToSlash(w), "/")
	for i, c := range comps {
		if c == "" {
			continue
		}
		if strings.EqualFold(c, ".chanto") || globHits(c, ".chanto") {
			return ".chanto/"
		}
		if (strings.EqualFold(c, ".git") || globHits(c, ".git")) && i+1 < len(comps) {
			next := comps[i+1]
			if strings.EqualFold(next, "hooks") || globHits(next, "hooks") {
				return ".git/hooks"
			}
			if strings.EqualFold(next, "config") || globHits(next, "config") {
				return ".git/config"
			}
		}
	}
	return ""
}

func globHits(pattern, name string) bool {
	if !strings.ContainsAny(pattern, "*?[") {
		return false
	}
	ok, err := filepath.Match(strings.ToLower(pattern), name)
	return ok && err == nil
}

func (p *Policy) hasPatternRules(rules []rule) bool {
	for _, r := range rules {
		if r.tool == "Bash" {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func dedupe(xs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
