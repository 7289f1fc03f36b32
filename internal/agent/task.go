package agent

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/tool"
)

//go:embed task.md
var taskDoc string

// Subagent types the task tool accepts.
const (
	SubagentGeneral = "general-purpose"
	SubagentExplore = "explore"
)

// DefaultSubagentTurns caps the model calls of one subagent run.
const DefaultSubagentTurns = 30

// subagentTypes lists the types with what they may use, for error messages.
const subagentTypes = SubagentGeneral + " (every tool but task) or " + SubagentExplore + " (read-only: read, glob, grep)"

// subagentSystem is added to the system prompt of every subagent.
const subagentSystem = `
# You are a subagent

Another agent handed you one task; it does not see your conversation, only your final answer.
Do the task with the tools you have, then end with a concise report: what you found or changed
(files and line numbers where it helps), what you ran and its result, and anything left open.
Do not ask questions: nobody can answer them. If the task cannot be done, say why in the report.
`

const exploreSystem = `You can only read (read, glob, grep): you cannot change files or run commands.
`

// nestedTool is a tool that runs with the calling agent at hand. The task
// tool is one: it starts its subagent from the parent's settings, and tags
// the subagent's events with the id of the call that started it.
type nestedTool interface {
	runNested(ctx context.Context, parent *Agent, callID string, input json.RawMessage) (tool.Result, error)
}

// Task is the task tool: it runs a subagent, a child Agent with a fresh
// conversation, the same provider, model, project root, runner and
// approver, no stop policy (DESIGN §4: subagent runs have no gate) and no
// task tool of its own. Its final answer is the tool result. Whatever the
// subagent changes on disk is seen by the parent's stop policy after the
// task call, as after any other tool call.
type Task struct {
	// MaxTurns caps the subagent's model calls; 0 means DefaultSubagentTurns.
	MaxTurns int
}

var (
	_ tool.Tool  = Task{}
	_ nestedTool = Task{}
)

type taskInput struct {
	Description  string `json:"description"`
	Prompt       string `json:"prompt"`
	SubagentType string `json:"subagent_type,omitempty"`
}

// Name implements tool.Tool.
func (Task) Name() string { return "task" }

// Description implements tool.Tool.
func (Task) Description() string { return taskDoc }

// ReadOnly implements tool.Tool: a general-purpose subagent may write, so
// a task call runs alone and its changes are attributed to it.
func (Task) ReadOnly() bool { return false }

// Schema implements tool.Tool.
func (Task) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{
"description":{"type":"string","description":"A short label for the task (3-5 words)."},
"prompt":{"type":"string","description":"The whole task for the subagent, with the context it needs and what its report must contain."},
"subagent_type":{"type":"string","enum":["general-purpose","explore"],"description":"general-purpose (default): every tool but task. explore: read-only (read, glob, grep)."}},
"required":["description","prompt"],"additionalProperties":false}`)
}

// Run implements tool.Tool. The task tool needs the agent that calls it,
// which only the agent's dispatch provides.
func (Task) Run(context.Context, *tool.Env, json.RawMessage) (tool.Result, error) {
	return tool.Result{}, errors.New("the task tool runs only inside an agent")
}

func (t Task) runNested(ctx context.Context, parent *Agent, callID string, input json.RawMessage) (tool.Result, error) {
	in, msg := parseTaskInput(input)
	if msg != "" {
		return tool.Result{Output: msg, IsError: true}, nil
	}
	child, err := parent.subagent(in.SubagentType, callID, t.maxTurns())
	if err != nil {
		return tool.Result{}, err
	}
	out, err := child.Run(ctx, in.Prompt)
	addUsage(&parent.subUsage, out.Usage)
	var maxTurns *MaxTurnsError
	switch {
	case ctx.Err() != nil || errors.Is(err, ErrInterrupted):
		return tool.Result{Output: lastText(child.Messages())}, ErrInterrupted
	case errors.As(err, &maxTurns):
		return tool.Result{IsError: true, Output: fmt.Sprintf(
			"the subagent made %d model calls without finishing and was stopped; split the task or do it yourself. Files it changed stay changed.%s",
			maxTurns.Max, quoteLast(child.Messages()))}, nil
	case err != nil:
		return tool.Result{}, fmt.Errorf("subagent: %w", err)
	case strings.TrimSpace(out.Answer) == "":
		return tool.Result{Output: "the subagent finished without a report", IsError: true}, nil
	}
	return tool.Result{Output: out.Answer}, nil
}

func (t Task) maxTurns() int {
	if t.MaxTurns > 0 {
		return t.MaxTurns
	}
	return DefaultSubagentTurns
}

// parseTaskInput decodes and checks a task call; a non-empty message is
// the mistake, worded for the model.
func parseTaskInput(input json.RawMessage) (taskInput, string) {
	var in taskInput
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, fmt.Sprintf("invalid input for task: %v; nothing ran", err)
	}
	switch {
	case strings.TrimSpace(in.Prompt) == "":
		return in, "task: prompt is empty; give the subagent the whole task, since it does not see this conversation"
	case strings.TrimSpace(in.Description) == "":
		return in, "task: description is empty; give a short label for the task (3-5 words)"
	}
	if in.SubagentType == "" {
		in.SubagentType = SubagentGeneral
	}
	if in.SubagentType != SubagentGeneral && in.SubagentType != SubagentExplore {
		return in, fmt.Sprintf("task: unknown subagent_type %q; use %s", in.SubagentType, subagentTypes)
	}
	return in, ""
}

// subagent builds the child agent of a task call of type typ.
func (a *Agent) subagent(typ, callID string, maxTurns int) (*Agent, error) {
	system, err := SystemPrompt(a.opts.Env.Root, time.Now())
	if err != nil {
		return nil, err
	}
	system += subagentSystem
	if typ == SubagentExplore {
		system += exploreSystem
	}
	return New(Options{
		Provider:      a.opts.Provider,
		Model:         a.opts.Model,
		Tools:         subagentTools(a.opts.Tools, typ),
		Env:           a.opts.Env.Fork(),
		Sink:          subagentSink{parent: a.opts.Sink, toolID: callID, turn: a.turn},
		SessionID:     a.opts.SessionID,
		System:        system,
		MaxTurns:      maxTurns,
		MaxTokens:     a.opts.MaxTokens,
		ContextWindow: a.opts.ContextWindow,
		Policy:        NoPolicy{},
		Permissions:   a.opts.Permissions,
	}), nil
}

// subagentTools is what a subagent of type typ may call: never a nested
// tool (no subagent starts another), and for explore only read-only tools.
func subagentTools(tools []tool.Tool, typ string) []tool.Tool {
	var out []tool.Tool
	for _, t := range tools {
		if _, nested := t.(nestedTool); nested {
			continue
		}
		if typ == SubagentExplore && !t.ReadOnly() {
			continue
		}
		out = append(out, t)
	}
	return out
}

// subagentSink passes a subagent's events to the parent's sink, tagged
// with the task call's id and the parent's turn. Text deltas are dropped:
// the subagent's text is not the answer, and text output streams deltas
// to stdout as the answer; message.completed still carries it whole.
type subagentSink struct {
	parent event.Sink
	toolID string
	turn   int
}

func (s subagentSink) Emit(e event.Event) {
	if e.Type == event.MessageDelta {
		return
	}
	e.ParentToolID = s.toolID
	e.Turn = s.turn
	s.parent.Emit(e)
}

// lastText is the text of the last assistant message in msgs.
func lastText(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.Assistant {
			if text := strings.TrimSpace(msgs[i].TextOf()); text != "" {
				return text
			}
		}
	}
	return ""
}

func quoteLast(msgs []llm.Message) string {
	text := lastText(msgs)
	if text == "" {
		return ""
	}
	const limit = 2000
	if len(text) > limit {
		cut := len(text) - limit
		for cut < len(text) && !utf8.RuneStart(text[cut]) {
			cut++
		}
		text = "…" + text[cut:]
	}
	return "\nIts last words:\n" + text
}
