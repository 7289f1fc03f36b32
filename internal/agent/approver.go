package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/chanto-dev/chanto/internal/tool"
)

// Approver decides whether a tool call may run. A refusal is returned to
// the model as the call's error result, so it can change course. The
// permission policy replaces ModeApprover with its rules.
type Approver interface {
	Approve(ctx context.Context, t tool.Tool, input json.RawMessage) (ok bool, reason string)
}

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

// ModeApprover is the stand-in policy for print mode, where nobody can be
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
