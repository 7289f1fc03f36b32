package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// answer is every shape of stdout JSON a hook may print. Top-level fields
// and Claude Code's hookSpecificOutput are both read; the latter wins.
type answer struct {
	Decision                 string          `json:"decision"` // "block" | "approve" | "allow" | "deny" | "ask"
	Reason                   string          `json:"reason"`
	PermissionDecision       string          `json:"permissionDecision"` // "allow" | "deny" | "ask"
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
	AdditionalContext        string          `json:"additionalContext"`
	Continue                 *bool           `json:"continue"`
	StopReason               string          `json:"stopReason"`
	HookSpecificOutput       *struct {
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// parseAnswer reads a hook's stdout after exit 0: empty or plain text
// means no objection (plain text becomes context); a JSON object decides.
func parseAnswer(out []byte) (Decision, error) {
	trimmed := bytes.TrimSpace(out)
	if len(trimmed) == 0 {
		return Decision{}, nil
	}
	if trimmed[0] != '{' {
		return Decision{Context: string(trimmed)}, nil
	}
	var a answer
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(&a); err != nil {
		return Decision{}, fmt.Errorf("stdout is not a valid JSON decision: %v", err)
	}
	if hs := a.HookSpecificOutput; hs != nil {
		if hs.PermissionDecision != "" {
			a.PermissionDecision, a.PermissionDecisionReason = hs.PermissionDecision, hs.PermissionDecisionReason
		}
		if hs.UpdatedInput != nil {
			a.UpdatedInput = hs.UpdatedInput
		}
		if hs.AdditionalContext != "" {
			a.AdditionalContext = hs.AdditionalContext
		}
	}
	d := Decision{Context: a.AdditionalContext}
	if a.UpdatedInput != nil && !bytes.Equal(bytes.TrimSpace(a.UpdatedInput), []byte("null")) {
		if t := bytes.TrimSpace(a.UpdatedInput); len(t) == 0 || t[0] != '{' {
			return Decision{}, fmt.Errorf("updatedInput must be a JSON object")
		}
		d.ToolInput = a.UpdatedInput
	}
	verdict, reason := strings.ToLower(a.PermissionDecision), a.PermissionDecisionReason
	if verdict == "" {
		verdict, reason = strings.ToLower(a.Decision), a.Reason
	}
	if reason == "" {
		reason = a.Reason
	}
	switch verdict {
	case "":
	case "block", "deny":
		d.Action = Block
	case "ask":
		d.Action = Ask
	case "allow", "approve":
		d.Action = Allow
	default:
		return Decision{}, fmt.Errorf("unknown decision %q (want block, deny, ask or allow)", verdict)
	}
	d.Reason = reason
	if a.Continue != nil && !*a.Continue {
		d.Action = Block
		if a.StopReason != "" {
			d.Reason = a.StopReason
		}
	}
	if d.Action == Block && d.Reason == "" {
		d.Reason = "blocked by hook"
	}
	return d, nil
}
