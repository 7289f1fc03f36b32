package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/agents"
	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/policy"
	"github.com/chanto-dev/chanto/internal/tool"
)

// subagentSystem is added to the system prompt of every subagent.
const subagentSystem = `
# You are a subagent

Another agent handed you one task; it does not see your conversation, only your final answer.
Do the task with the tools you have, then end with a concise report: what you found or changed
(files and line numbers where it helps), what you ran and its result, and anything left open.
Do not ask questions: nobody can answer them. If the task cannot be done, say why in the report.
`

// SubagentRun is one subagent run: a task call's, or one a stop policy
// starts (the oracle's review).
type SubagentRun struct {
	// ID names the run in its events (subagent_id); ParentToolID is the
	// task call that started it, empty for a policy's run.
	ID, ParentToolID string
	// Description is the task's short label.
	Description string
	// Prompt is the whole task.
	Prompt string
	// MaxTurns caps its model calls; 0 means DefaultSubagentTurns.
	MaxTurns int
}

// SubagentResult is how a subagent run ended.
type SubagentResult struct {
	Answer string
	// Model is the model it ran on, as a --model spec.
	Model string
	Usage llm.Usage
	// Messages is its conversation, for quoting its last words.
	Messages []llm.Message
}

// RunSubagent runs the agent called name (a stop policy's way to start
// one: the review). Its tokens count in the turn's usage; its events go to
// the turn's sink tagged with r.ID.
func (a *Agent) RunSubagent(ctx context.Context, name string, r SubagentRun) (SubagentResult, error) {
	def, ok := a.agentSet().Get(name)
	if !ok {
		return SubagentResult{}, fmt.Errorf("no agent named %q", name)
	}
	return a.runSubagent(ctx, def, r)
}

func (a *Agent) agentSet() *agents.Set {
	if a.opts.Agents != nil {
		return a.opts.Agents
	}
	return builtinAgents
}

// runSubagent builds the child agent of def and runs r.Prompt to its end,
// announcing it with subagent.started and subagent.completed.
func (a *Agent) runSubagent(ctx context.Context, def agents.Agent, r SubagentRun) (SubagentResult, error) {
	child, spec, err := a.subagent(def, r)
	if err != nil {
		return SubagentResult{Model: spec}, err
	}
	info := event.Subagent{ID: r.ID, Name: def.Name, Model: spec, Description: r.Description}
	a.emit(event.Event{Type: event.SubagentStarted, Subagent: &info, SubagentID: r.ID, ParentToolID: r.ParentToolID})
	start := time.Now()
	out, err := child.Run(ctx, r.Prompt)
	a.subMu.Lock()
	addUsage(&a.subUsage, out.Usage)
	a.subMu.Unlock()
	u := event.Usage(out.Usage)
	done := info
	ms := time.Since(start).Milliseconds()
	done.DurationMS, done.Usage = &ms, &u
	done.IsError = err != nil || strings.TrimSpace(out.Answer) == ""
	a.emit(event.Event{Type: event.SubagentCompleted, Subagent: &done, SubagentID: r.ID, ParentToolID: r.ParentToolID})
	return SubagentResult{Answer: out.Answer, Model: spec, Usage: out.Usage, Messages: child.Messages()}, err
}

// subagent builds the child agent of def; spec is the model it runs on.
func (a *Agent) subagent(def agents.Agent, r SubagentRun) (*Agent, string, error) {
	prov, model, spec := a.opts.Provider, a.opts.Model, a.modelSpec()
	if def.Model != "" && def.Model != a.opts.ModelSpec {
		if a.opts.OpenModel == nil {
			return nil, def.Model, fmt.Errorf("agent %s runs on %s, which this session cannot open", def.Name, def.Model)
		}
		p, m, err := a.opts.OpenModel(def.Model)
		if err != nil {
			return nil, def.Model, fmt.Errorf("agent %s (%s): %w", def.Name, def.Source, err)
		}
		prov, model, spec = p, m, def.Model
	}
	system, err := SystemPrompt(a.opts.Env.Root, time.Now())
	if err != nil {
		return nil, spec, err
	}
	system += subagentSystem
	if def.Prompt != "" {
		system += "\n# Your role: " + def.Name + "\n\n" + def.Prompt + "\n"
	}
	env := a.opts.Env.Fork()
	perms := a.opts.Permissions
	if def.ReadOnly {
		env.Runner = a.opts.ReadOnlyRunner
		perms = readOnlyPermitter{inner: perms, agent: def.Name}
	}
	maxTurns := r.MaxTurns
	if maxTurns <= 0 {
		maxTurns = DefaultSubagentTurns
	}
	var more func() []tool.Tool
	if def.Tools == nil && !def.ReadOnly {
		more = a.opts.MoreTools // an agent that names no tools has the parent's, MCP ones included
	}
	return New(Options{
		MoreTools:     more,
		Provider:      prov,
		Model:         model,
		ModelSpec:     spec,
		Tools:         SubagentTools(a.opts.Tools, def, env.Runner != nil),
		Env:           env,
		Sink:          subagentSink{parent: a.opts.Sink, id: r.ID, toolID: r.ParentToolID, turn: a.turn},
		SessionID:     a.opts.SessionID,
		System:        system,
		MaxTurns:      maxTurns,
		MaxTokens:     a.opts.MaxTokens,
		ContextWindow: a.opts.ContextWindow,
		Policy:        NoPolicy{},
		Permissions:   perms,
	}), spec, nil
}

// modelSpec is the parent's model as a --model spec.
func (a *Agent) modelSpec() string {
	if a.opts.ModelSpec != "" {
		return a.opts.ModelSpec
	}
	if a.opts.Provider == nil {
		return a.opts.Model
	}
	return a.opts.Provider.Name() + "/" + a.opts.Model
}

// SubagentTools is what a subagent of def may call: the tools it names
// (all of the parent's when it names none), never a nested tool (no
// subagent starts another), and for a read-only agent only read-only
// tools, plus bash when a read-only runner exists.
func SubagentTools(tools []tool.Tool, def agents.Agent, readOnlyBash bool) []tool.Tool {
	var out []tool.Tool
	for _, t := range tools {
		if _, nested := t.(nestedTool); nested {
			continue
		}
		if def.Tools != nil && !slices.Contains(def.Tools, t.Name()) {
			continue
		}
		if def.ReadOnly && !t.ReadOnly() && !(t.Name() == "bash" && readOnlyBash) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// subagentSink passes a subagent's events to the parent's sink, tagged
// with the run's id, the task call's id and the parent's turn. Text deltas
// are dropped: the subagent's text is not the answer, and text output
// streams deltas to stdout as the answer; message.completed still carries
// it whole.
type subagentSink struct {
	parent event.Sink
	id     string
	toolID string
	turn   int
}

func (s subagentSink) Emit(e event.Event) {
	if e.Type == event.MessageDelta {
		return
	}
	e.ParentToolID = s.toolID
	e.SubagentID = s.id
	e.Turn = s.turn
	s.parent.Emit(e)
}

// readOnlyPermitter is the policy of a read-only agent: bash runs only
// command lines that read (policy.ReadOnlyCommand) and nothing else that
// writes runs, whatever the parent's mode; what passes still meets the
// parent's deny rules, hooks and lockdown. A read-only command the
// parent's mode would only ask about runs: the read-only sandbox holds it.
type readOnlyPermitter struct {
	inner Permitter
	agent string
}

func (p readOnlyPermitter) Permit(ctx context.Context, t tool.Tool, input json.RawMessage) Permission {
	refuse := func(why string) Permission {
		return Permission{Tool: t.Name(), By: ByGuard, Rule: "builtin:read-only",
			Detail: fmt.Sprintf("%s refused: the %s agent is read-only and %s", t.Name(), p.agent, why)}
	}
	isBash := t.Name() == "bash"
	if !t.ReadOnly() && !isBash {
		return refuse("this tool writes")
	}
	if isBash {
		var in struct {
			Command string `json:"command"`
		}
		_ = json.Unmarshal(input, &in)
		if ok, why := policy.ReadOnlyCommand(in.Command); !ok {
			return refuse(why + "; only commands that read run (cat, grep, git log, ls, …)")
		}
	}
	if p.inner == nil {
		return Permission{Tool: t.Name(), Allowed: true, By: ByGuard, Rule: "builtin:read-only"}
	}
	d := p.inner.Permit(ctx, t, input)
	if isBash && !d.Allowed && (d.Ask || d.By == ByMode) {
		return Permission{Tool: t.Name(), Allowed: true, By: ByGuard, Rule: "builtin:read-only", Input: d.Input}
	}
	if d.Input != nil && isBash {
		// A hook's rewrite must still only read.
		var in struct {
			Command string `json:"command"`
		}
		_ = json.Unmarshal(d.Input, &in)
		if ok, why := policy.ReadOnlyCommand(in.Command); !ok {
			return refuse("a pre_tool_use hook rewrote the command: " + why)
		}
	}
	return d
}
