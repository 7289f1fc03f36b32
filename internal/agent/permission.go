package agent

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/chanto-dev/chanto/internal/policy"
	"github.com/chanto-dev/chanto/internal/tool"
)

// Decider names who made a permission decision, so a face can say "denied
// by lockdown" rather than parse a sentence.
type Decider string

// Deciders.
const (
	// ByRule is a configured allow, ask or deny rule (or none matching).
	ByRule Decider = "rule"
	// ByMode is the permission mode (default, accept-edits, plan, bypass).
	ByMode Decider = "mode"
	// ByLockdown is [permissions] lockdown.
	ByLockdown Decider = "lockdown"
	// ByGuard is one of chanto's built-in guards (secrets, git internals).
	ByGuard Decider = "guard"
	// ByHook is a pre_tool_use hook.
	ByHook Decider = "hook"
	// ByUser is the person at the keyboard, answering a question.
	ByUser Decider = "user"
	// ByApprover is an Approver that gives no more than yes or no.
	ByApprover Decider = "approver"
)

// Permission is a ruling on one tool call: whether it runs, who decided
// and why. Reason renders it for the model and the user, in one place.
type Permission struct {
	Tool    string
	Allowed bool
	// Ask is set when the policy wants the user asked; a session that can
	// ask turns it into a question, one that cannot refuses with Reason.
	Ask bool
	By  Decider
	// Rule is the rule that decided, as the policy names it: a configured
	// rule's text, "mode:<m>", "builtin:<what>" or "lockdown".
	Rule string
	// Detail says why the call does not run, without the tool's name.
	Detail string
	// Subject is what was judged (a command line, a path); Suggest is an
	// allow rule that would let such calls run ("always" adds it).
	Subject, Suggest string
	// Input, when set, is the input the call runs with (a pre_tool_use
	// hook rewrote it); the stop policy sees it too.
	Input json.RawMessage
}

// Reason is the refusal as the model and the user read it; empty when
// the call runs.
func (p Permission) Reason() string {
	if p.Allowed {
		return ""
	}
	switch {
	case p.By == ByApprover:
		return p.Detail
	case p.By == ByHook && p.Rule == "block":
		return p.Tool + " refused by a pre_tool_use hook: " + p.Detail
	case strings.Contains(p.Detail, " refused"):
		// The policy renders its own sentences for the rules it knows.
		return p.Detail
	}
	return p.Tool + " refused: " + p.Detail
}

// Permitter rules on tool calls with typed decisions. The agent asks it
// before every call; the interactive session's permitter turns Ask into a
// question for the user.
type Permitter interface {
	Permit(ctx context.Context, t tool.Tool, input json.RawMessage) Permission
}

// PermitterOf adapts an Approver: one that rules with typed decisions
// (PolicyApprover, HookApprover) is used as it is, a yes-or-no one (tests',
// ModeApprover) gets its answer wrapped.
func PermitterOf(a Approver) Permitter {
	if p, ok := a.(Permitter); ok {
		return p
	}
	return approverPermitter{a}
}

type approverPermitter struct{ a Approver }

func (p approverPermitter) Permit(ctx context.Context, t tool.Tool, input json.RawMessage) Permission {
	ok, reason := p.a.Approve(ctx, t, input)
	return Permission{Tool: t.Name(), Allowed: ok, By: ByApprover, Detail: reason}
}

// deciderOf maps the policy's rule names onto deciders.
func deciderOf(rule string) Decider {
	switch {
	case rule == "lockdown":
		return ByLockdown
	case strings.HasPrefix(rule, "mode:"):
		return ByMode
	case strings.HasPrefix(rule, "builtin:"):
		return ByGuard
	}
	return ByRule
}

// permissionOf turns a policy decision on tool name into a Permission.
func permissionOf(name string, d policy.Decision) Permission {
	return Permission{
		Tool:    name,
		Allowed: d.Verdict == policy.Allow,
		Ask:     d.Verdict == policy.Ask,
		By:      deciderOf(d.Rule),
		Rule:    d.Rule,
		Detail:  d.Reason,
		Subject: d.Subject,
		Suggest: d.Suggest,
	}
}
