package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/chanto-dev/chanto/internal/hook"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/tool"
)

// The user's hooks wrap the loop's two seams, so the loop itself knows
// nothing of them: HookApprover puts pre_tool_use in front of the
// permission policy, HookPolicy puts session_start, user_prompt,
// post_tool_use and stop around the stop policy (the gate).

// HookApprover runs the pre_tool_use hooks, then the permission policy on
// the input the hooks left. A hook's deny refuses the call; its allow
// answers a call the policy would ask about (it stands in for the user)
// but never overrides a deny rule, a built-in guard or lockdown; its ask
// refuses, since nobody can be asked; a rewritten input is decided afresh.
type HookApprover struct {
	Hooks  *hook.Hooks
	Policy *PolicyApprover
	// SessionID and Cwd go into each payload.
	SessionID, Cwd string
	// Warn hears hooks that failed without deciding; they do not block.
	Warn func(string)
}

var (
	_ Approver  = (*HookApprover)(nil)
	_ Permitter = (*HookApprover)(nil)
)

// Approve implements Approver.
func (a *HookApprover) Approve(ctx context.Context, t tool.Tool, input json.RawMessage) (bool, string) {
	p := a.Permit(ctx, t, input)
	return p.Allowed, p.Reason()
}

// Permit implements Permitter. A call the rules or a hook would ask about
// comes back with Ask set and the input the hooks left.
func (a *HookApprover) Permit(ctx context.Context, t tool.Tool, input json.RawMessage) Permission {
	name := t.Name()
	var hd hook.Decision
	var rewritten json.RawMessage
	if a.Hooks != nil && a.Hooks.Has(hook.PreToolUse, name) {
		var err error
		hd, err = a.Hooks.Run(ctx, hook.PreToolUse, hook.Payload{SessionID: a.SessionID, Cwd: a.Cwd, ToolName: name, ToolInput: input})
		warn(a.Warn, err)
		if hd.Action == hook.Block {
			return Permission{Tool: name, By: ByHook, Rule: "block", Detail: hd.Reason}
		}
		if hd.ToolInput != nil {
			input, rewritten = hd.ToolInput, hd.ToolInput
		}
	}
	p := permissionOf(name, a.Policy.Decide(name, input))
	p.Input = rewritten
	switch {
	case p.Allowed && hd.Action == hook.Ask:
		return Permission{Tool: name, Ask: true, By: ByHook, Rule: "ask", Input: rewritten,
			Detail: fmt.Sprintf("a pre_tool_use hook asks for approval (%s), and this session cannot ask", hd.Reason)}
	case p.Ask && hd.Action == hook.Allow:
		return Permission{Tool: name, Allowed: true, By: ByHook, Rule: "allow", Input: rewritten}
	}
	return p
}

// HookPolicy decorates a stop policy with the user's hooks:
//   - session_start runs before the first turn, user_prompt before every
//     turn; a user_prompt block ends the turn with a *PromptRefusedError;
//   - post_tool_use runs after each tool call; a block or extra context
//     is appended to that call's result as a note;
//   - stop runs on an answer the inner policy accepted (the gate first,
//     then the hook); a block sends the answer back with the hook's
//     reason, at most hook.DefaultMaxStopSends times in a row, after which
//     the answer is accepted and Warn hears it.
type HookPolicy struct {
	Inner Policy
	Hooks *hook.Hooks
	// SessionID and Cwd go into each payload; Source is "startup" or
	// "resume" for session_start.
	SessionID, Cwd, Source string
	// Warn hears failed hooks and the stop hook's cap.
	Warn func(string)

	mu       sync.Mutex
	started  bool
	hookSent bool // the answer being judged answers a stop hook
}

// PromptRefusedError ends a turn whose prompt a user_prompt hook blocked.
type PromptRefusedError struct{ Hook, Reason string }

func (e *PromptRefusedError) Error() string {
	return "prompt refused by a user_prompt hook: " + e.Reason
}

var _ Policy = (*HookPolicy)(nil)

// HookOptions configure WithHooks.
type HookOptions struct {
	Hooks *hook.Hooks
	// SessionID and Cwd go into each payload; Source is "startup" or
	// "resume" for session_start.
	SessionID, Cwd, Source string
	// Warn hears failed hooks and the stop hook's cap.
	Warn func(string)
}

// WithHooks is the decorator that puts the user's hooks around a policy.
func WithHooks(o HookOptions) Decorator {
	return func(inner Policy) Policy {
		return &HookPolicy{Inner: inner, Hooks: o.Hooks, SessionID: o.SessionID, Cwd: o.Cwd, Source: o.Source, Warn: o.Warn}
	}
}

func (p *HookPolicy) payload() hook.Payload {
	return hook.Payload{SessionID: p.SessionID, Cwd: p.Cwd}
}

// OnTurnStart runs session_start (once) and user_prompt, then the inner
// policy's turn start.
func (p *HookPolicy) OnTurnStart(ctx context.Context, st *TurnState) error {
	p.mu.Lock()
	first := !p.started
	p.started = true
	p.hookSent = false
	p.mu.Unlock()
	if first && p.Hooks.Has(hook.SessionStart, "") {
		pl := p.payload()
		pl.Source = p.Source
		_, err := p.Hooks.Run(ctx, hook.SessionStart, pl)
		warn(p.Warn, err)
	}
	if p.Hooks.Has(hook.UserPrompt, "") {
		pl := p.payload()
		pl.Prompt = st.Prompt
		d, err := p.Hooks.Run(ctx, hook.UserPrompt, pl)
		warn(p.Warn, err)
		if d.Action == hook.Block {
			return &PromptRefusedError{Hook: d.Hook, Reason: d.Reason}
		}
	}
	return p.Inner.OnTurnStart(ctx, st)
}

// BeforeTools waits for the inner policy's turn-start work.
func (p *HookPolicy) BeforeTools(ctx context.Context) error {
	return p.Inner.BeforeTools(ctx)
}

// AfterTool runs the inner policy's AfterTool, then post_tool_use.
func (p *HookPolicy) AfterTool(ctx context.Context, st *TurnState, call llm.Part, res tool.Result) string {
	note := p.Inner.AfterTool(ctx, st, call, res)
	if !p.Hooks.Has(hook.PostToolUse, call.Name) {
		return note
	}
	resp, _ := json.Marshal(map[string]any{"output": res.Output, "is_error": res.IsError, "exit_code": res.ExitCode})
	pl := p.payload()
	pl.ToolName, pl.ToolInput, pl.ToolResponse = call.Name, validJSON(call.Input), resp
	d, err := p.Hooks.Run(ctx, hook.PostToolUse, pl)
	warn(p.Warn, err)
	var notes []string
	if note != "" {
		notes = append(notes, note)
	}
	if d.Action == hook.Block {
		notes = append(notes, "A post_tool_use hook flagged this result: "+d.Reason)
	}
	if d.Context != "" {
		notes = append(notes, d.Context)
	}
	return strings.Join(notes, "\n\n")
}

// OnFinal lets the inner policy rule first; an accepted answer then goes
// to the stop hooks.
func (p *HookPolicy) OnFinal(ctx context.Context, st *TurnState, answer string) StopDecision {
	d := p.Inner.OnFinal(ctx, st, answer)
	if d.SendBack != "" || d.Err != nil || ctx.Err() != nil || !p.Hooks.Has(hook.Stop, "") {
		p.setSent(false)
		return d
	}
	pl := p.payload()
	pl.LastAnswer = answer
	p.mu.Lock()
	pl.StopHookActive = p.hookSent
	p.mu.Unlock()
	hd, err := p.Hooks.Run(ctx, hook.Stop, pl)
	warn(p.Warn, err)
	switch {
	case hd.StopCapReached:
		if p.Warn != nil {
			p.Warn(hd.Reason)
		}
	case hd.Action == hook.Block:
		p.setSent(true)
		return SendBack("A stop hook sent your answer back: " + hd.Reason)
	}
	p.setSent(false)
	return d
}

func (p *HookPolicy) setSent(v bool) {
	p.mu.Lock()
	p.hookSent = v
	p.mu.Unlock()
}

// warn reports hooks that failed without deciding.
func warn(w func(string), err error) {
	if err != nil && w != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			w(line)
		}
	}
}
