// Package policy decides whether a tool call may run: allow, ask the user,
// or deny. Rules are written Tool(pattern) under [permissions]; deny beats
// ask beats allow. Bash command lines are parsed (mvdan.cc/sh) and every
// simple command must match an allow rule; anything the parser cannot see
// through (substitutions, eval, nested shells, env prefixes) asks. Paths are
// resolved, symlinks included, before path rules apply. The policy is for
// usability; the OS sandbox is the security boundary.
package policy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/chanto-dev/chanto/internal/config"
)

// Verdict is the outcome of a decision.
type Verdict string

const (
	Allow Verdict = "allow"
	Ask   Verdict = "ask"
	Deny  Verdict = "deny"
)

// Decision says what to do with a call and why.
type Decision struct {
	Verdict Verdict
	// Reason is a one-line explanation for the user or the model.
	Reason string
	// Rule is the rule that decided: a configured rule's text, "mode:<m>",
	// "builtin:<what>" or "lockdown".
	Rule string
	// Subject is what the rule was matched against (a command line, a
	// path); Suggest an allow rule that would let the call run. An
	// interactive session shows the first and offers the second for "always".
	Subject, Suggest string
}

// Modes.
const (
	ModeDefault     = "default"
	ModeAcceptEdits = "accept-edits"
	ModePlan        = "plan"
	ModeBypass      = "bypass"
)

// Policy is an immutable rule set bound to a project root.
type Policy struct {
	mode        string
	lockdown    bool
	interactive bool
	root        string // absolute, symlinks resolved
	rootLex     string // absolute as given
	home        string
	chantoHome  string
	foldCase    bool
	allow       []rule
	ask         []rule
	deny        []rule
}

// New builds a policy. interactive is false in print mode, where "ask"
// becomes a refusal naming the rule that would allow the call.
func New(cfg config.Permissions, root string, interactive bool) (*Policy, error) {
	p := &Policy{mode: cfg.Mode, lockdown: cfg.Lockdown, interactive: interactive}
	switch p.mode {
	case "":
		p.mode = ModeDefault
	case ModeDefault, ModeAcceptEdits, ModePlan, ModeBypass:
	default:
		return nil, fmt.Errorf("permissions: unknown mode %q (want default, accept-edits, plan or bypass)", cfg.Mode)
	}
	if p.lockdown && p.mode == ModeBypass {
		// Lockdown means no escalation: bypass cannot widen it.
		p.mode = ModeDefault
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("permissions: project root %q: %w", root, err)
	}
	p.rootLex = abs
	p.root = resolvePath(abs)
	p.home, _ = os.UserHomeDir()
	p.chantoHome = resolvePath(config.Home())
	p.foldCase = caseInsensitive(p.root)
	for _, set := range []struct {
		src []string
		dst *[]rule
	}{{cfg.Allow, &p.allow}, {cfg.Ask, &p.ask}, {cfg.Deny, &p.deny}} {
		for _, text := range set.src {
			r, err := parseRule(text)
			if err != nil {
				return nil, fmt.Errorf("permissions: %w", err)
			}
			*set.dst = append(*set.dst, r)
		}
	}
	return p, nil
}

// Mode is the permission mode in force.
func (p *Policy) Mode() string { return p.mode }

// outcome is a verdict before lockdown and print mode are applied.
type outcome struct {
	verdict  Verdict
	reason   string
	rule     string
	explicit bool   // allowed by a configured rule, not by the mode
	subject  string // what needs approval, quoted in messages
	suggest  string // an allow rule that would let it run
}

// Decide rules on one tool call. tool is the tool's name in any case
// ("bash" or "Bash"); input is its JSON input.
func (p *Policy) Decide(tool string, input json.RawMessage) Decision {
	if strings.HasPrefix(tool, MCPPrefix) {
		return p.finish(tool, p.decideMCP(tool))
	}
	canon, known := toolNames[strings.ToLower(tool)]
	var o outcome
	switch {
	case !known:
		o = p.unknownTool(tool)
	case canon == "Bash":
		o = p.decideBash(input)
	case canon == "Task":
		o = p.decideTask(input)
	case canon == "WebFetch":
		o = p.decideFetch(input)
	case canon == "Diagnostics":
		// It reads what a language server says of a file: a read.
		o = p.decidePath("Read", input)
	default:
		o = p.decidePath(canon, input)
	}
	return p.finish(strings.ToLower(tool), o)
}

func (p *Policy) unknownTool(tool string) outcome {
	o := outcome{verdict: Ask, reason: fmt.Sprintf("tool %q has no rules", tool), rule: "mode:" + p.mode, subject: tool}
	switch p.mode {
	case ModePlan:
		o.verdict = Deny
		o.reason = "plan mode: only read-only tools run"
	case ModeBypass:
		o.verdict = Allow
	}
	return o
}

// finish applies lockdown and print mode to an outcome.
func (p *Policy) finish(tool string, o outcome) Decision {
	if tool == "" {
		tool = "tool"
	}
	d := Decision{Verdict: o.verdict, Reason: o.reason, Rule: o.rule, Subject: o.subject, Suggest: o.suggest}
	if p.lockdown && d.Verdict != Deny && !(d.Verdict == Allow && o.explicit) {
		d.Verdict = Deny
		d.Rule = "lockdown"
		d.Reason = fmt.Sprintf("%s refused: lockdown runs only explicitly allowed calls", tool)
		if o.subject != "" {
			d.Reason = fmt.Sprintf("%s refused: %q is not explicitly allowed and lockdown is on", tool, o.subject)
		}
		if o.suggest != "" && o.verdict != Ask {
			d.Reason += "; an allow rule such as " + o.suggest + " would let it run"
		}
		return d
	}
	if d.Verdict == Ask && !p.interactive {
		d.Verdict = Deny
		if o.suggest != "" {
			d.Reason = fmt.Sprintf("%s refused: %q needs approval; in print mode add an allow rule such as %s under [permissions] or use --permission-mode bypass", tool, o.subject, o.suggest)
		} else {
			d.Reason = fmt.Sprintf("%s refused: %s; print mode cannot ask, so it is denied (use --permission-mode bypass only if you trust the command)", tool, o.reason)
		}
	}
	return d
}

// decideTask rules on starting a subagent: it is read-only in itself (the
// subagent's own calls go through the policy).
func (p *Policy) decideTask(input json.RawMessage) outcome {
	var in struct {
		Agent       string `json:"agent"`
		Type        string `json:"subagent_type"`
		Description string `json:"description"`
	}
	_ = json.Unmarshal(input, &in)
	name := in.Agent
	if name == "" {
		name = in.Type
	}
	subject := name
	if subject == "" {
		subject = in.Description
	}
	match := func(r rule) bool { return r.pattern == "" || wildcard(r.pattern, name) }
	if r, ok := firstMatch(p.deny, "Task", match); ok {
		return outcome{verdict: Deny, reason: "task refused by deny rule " + r.text, rule: r.text, subject: subject}
	}
	if r, ok := firstMatch(p.ask, "Task", match); ok {
		return outcome{verdict: Ask, reason: "task needs approval (rule " + r.text + ")", rule: r.text, subject: subject, suggest: "Task"}
	}
	if r, ok := firstMatch(p.allow, "Task", match); ok {
		return outcome{verdict: Allow, reason: "allowed by " + r.text, rule: r.text, explicit: true, subject: subject}
	}
	return outcome{verdict: Allow, reason: "subagents are read-only by themselves", rule: "mode:" + p.mode, subject: subject, suggest: "Task"}
}

func firstMatch(rules []rule, tool string, match func(rule) bool) (rule, bool) {
	for _, r := range rules {
		if r.covers(tool) && match(r) {
			return r, true
		}
	}
	return rule{}, false
}
