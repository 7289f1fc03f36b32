package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/policy"
	"github.com/chanto-dev/chanto/internal/tool"
)

// Approver decides whether a tool call may run. A refusal is returned to
// the model as the call's error result, so it can change course.
// PolicyApprover is the permission policy; HookApprover puts the
// pre_tool_use hooks in front of it.
type Approver interface {
	Approve(ctx context.Context, t tool.Tool, input json.RawMessage) (ok bool, reason string)
}

// PolicyApprover is the permission policy ([permissions], the mode and
// lockdown) as an Approver for a session that cannot ask: "ask" is a
// refusal that names the allow rule to add.
type PolicyApprover struct {
	// print is the policy as print mode applies it; asking has the same
	// rules but tells "ask" apart from "deny".
	print, asking *policy.Policy
}

// NewPolicyApprover builds the policy for the project at root.
func NewPolicyApprover(cfg config.Permissions, root string) (*PolicyApprover, error) {
	p, err := policy.New(cfg, root, false)
	if err != nil {
		return nil, err
	}
	ask, err := policy.New(cfg, root, true)
	if err != nil {
		return nil, err
	}
	return &PolicyApprover{print: p, asking: ask}, nil
}

// Decide rules on a call by tool name: allow, ask or deny (lockdown's
// refusals are deny), the rule that decided, and the reason to show when
// the call does not run. For "ask" the reason names the rule to add.
func (a *PolicyApprover) Decide(name string, input json.RawMessage) policy.Decision {
	d := a.asking.Decide(name, input)
	if d.Verdict == policy.Ask {
		d.Reason = a.print.Decide(name, input).Reason
	}
	if d.Verdict != policy.Allow && !strings.Contains(d.Reason, " refused") {
		d.Reason = fmt.Sprintf("%s refused: %s", name, d.Reason)
	}
	if d.Verdict == policy.Deny && d.Rule == "mode:"+policy.ModePlan {
		d.Reason += "; plan mode runs read-only tools only (rerun with --permission-mode default plus an allow rule, or --permission-mode bypass, to let it run)"
	}
	return d
}

// Permit implements Permitter: only "allow" runs; Ask is set when the
// rules would ask.
func (a *PolicyApprover) Permit(_ context.Context, t tool.Tool, input json.RawMessage) Permission {
	return permissionOf(t.Name(), a.Decide(t.Name(), input))
}

// Approve implements Approver: only "allow" runs.
func (a *PolicyApprover) Approve(ctx context.Context, t tool.Tool, input json.RawMessage) (bool, string) {
	p := a.Permit(ctx, t, input)
	return p.Allowed, p.Reason()
}

var (
	_ Approver  = (*PolicyApprover)(nil)
	_ Permitter = (*PolicyApprover)(nil)
)

// Permission modes (DESIGN §2).
const (
	ModeDefault     = "default"
	ModeAcceptEdits = "accept-edits"
	ModePlan        = "plan"
	ModeBypass      = "bypass"
)

// ValidMode reports whether m is a permission mode chanto knows.
func ValidMode(m string) bool {
	switch m {
	case ModeDefault, ModeAcceptEdits, ModePlan, ModeBypass:
		return true
	}
	return false
}

// ModeApprover is a stand-in policy for tests, where nobody can be
// asked: bypass runs every tool; read-only tools always run; accept-edits
// also runs the file-editing tools; anything else is refused with a reason
// that tells the user which flag changes it. Lockdown refuses everything
// that is not read-only.
type ModeApprover struct {
	Mode     string
	Lockdown bool
}

// Approve implements Approver.
func (a ModeApprover) Approve(_ context.Context, t tool.Tool, _ json.RawMessage) (bool, string) {
	if t.ReadOnly() {
		return true, ""
	}
	if a.Lockdown {
		return false, fmt.Sprintf("%s refused: lockdown is on and nothing is explicitly allowed", t.Name())
	}
	mode := a.Mode
	if mode == "" {
		mode = ModeDefault
	}
	edits := t.Name() == "write" || t.Name() == "edit"
	switch {
	case mode == ModeBypass:
		return true, ""
	case mode == ModeAcceptEdits && edits:
		return true, ""
	case mode == ModePlan:
		return false, fmt.Sprintf("%s refused: permission mode %q only allows reading and planning; rerun with --permission-mode bypass to let it run", t.Name(), mode)
	case edits:
		return false, fmt.Sprintf("%s refused: permission mode %q asks before editing files, and print mode cannot ask; rerun with --permission-mode accept-edits or bypass", t.Name(), mode)
	default:
		return false, fmt.Sprintf("%s refused: permission mode %q asks before running commands, and print mode cannot ask; rerun with --permission-mode bypass", t.Name(), mode)
	}
}

var _ Approver = ModeApprover{}
