package agent

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/chanto-dev/chanto/internal/agents"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/tool"
)

//go:embed task.md
var taskDoc string

// Subagent types that are always there (agents.Builtins).
const (
	SubagentGeneral = agents.General
	SubagentExplore = agents.Explore
	SubagentOracle  = agents.Oracle
)

// DefaultSubagentTurns caps the model calls of one subagent run.
const DefaultSubagentTurns = 30

// nestedTool is a tool that runs with the calling agent at hand. The task
// tool is one: it starts its subagent from the parent's settings, and tags
// the subagent's events with the id of the call that started it.
type nestedTool interface {
	runNested(ctx context.Context, parent *Agent, callID string, input json.RawMessage) (tool.Result, error)
}

// Task is the task tool: it runs a subagent, a child Agent with a fresh
// conversation, the agent definition's tools, model and prompt (see
// internal/agents), the same project root and approver, no stop policy
// (DESIGN §4: subagent runs have no gate) and no task tool of its own. Its
// final answer is the tool result. Whatever the subagent changes on disk
// is seen by the parent's stop policy after the task call, as after any
// other tool call.
type Task struct {
	// MaxTurns caps the subagent's model calls; 0 means DefaultSubagentTurns.
	MaxTurns int
	// Agents are the agents it offers; nil means the built-ins. The agent
	// running the tool should have the same set in Options.Agents.
	Agents *agents.Set
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

// Description implements tool.Tool: the tool's text, then every agent it
// can start with its description.
func (t Task) Description() string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(taskDoc, "\n"))
	b.WriteString("\n\nAgents (`subagent_type`):\n")
	for _, a := range t.set().All() {
		fmt.Fprintf(&b, "- `%s`: %s\n", a.Name, flatLine(a.Description))
	}
	return b.String()
}

// ReadOnly implements tool.Tool: a general-purpose subagent may write, so
// a task call runs alone and its changes are attributed to it.
func (Task) ReadOnly() bool { return false }

// Schema implements tool.Tool.
func (t Task) Schema() json.RawMessage {
	names, _ := json.Marshal(t.set().Names())
	return json.RawMessage(`{"type":"object","properties":{
"description":{"type":"string","description":"A short label for the task (3-5 words)."},
"prompt":{"type":"string","description":"The whole task for the subagent, with the context it needs and what its report must contain."},
"subagent_type":{"type":"string","enum":` + string(names) + `,"description":"The agent to start (default general-purpose); the tool's description lists what each one does."}},
"required":["description","prompt"],"additionalProperties":false}`)
}

// Run implements tool.Tool. The task tool needs the agent that calls it,
// which only the agent's dispatch provides.
func (Task) Run(context.Context, *tool.Env, json.RawMessage) (tool.Result, error) {
	return tool.Result{}, errors.New("the task tool runs only inside an agent")
}

func (t Task) set() *agents.Set {
	if t.Agents == nil {
		return builtinAgents
	}
	return t.Agents
}

var builtinAgents = agents.NewSet(agents.Builtins("")...)

func (t Task) runNested(ctx context.Context, parent *Agent, callID string, input json.RawMessage) (tool.Result, error) {
	in, msg := parseTaskInput(input, t.set())
	if msg != "" {
		return tool.Result{Output: msg, IsError: true}, nil
	}
	def, _ := t.set().Get(in.SubagentType)
	res, err := parent.runSubagent(ctx, def, SubagentRun{
		ID: callID, ParentToolID: callID, Description: in.Description, Prompt: in.Prompt, MaxTurns: t.maxTurns()})
	var maxTurns *MaxTurnsError
	switch {
	case ctx.Err() != nil || errors.Is(err, ErrInterrupted):
		return tool.Result{Output: lastText(res.Messages)}, ErrInterrupted
	case errors.As(err, &maxTurns):
		return tool.Result{IsError: true, Output: fmt.Sprintf(
			"the subagent made %d model calls without finishing and was stopped; split the task or do it yourself. Files it changed stay changed.%s",
			maxTurns.Max, quoteLast(res.Messages))}, nil
	case err != nil:
		return tool.Result{}, fmt.Errorf("subagent: %w", err)
	case strings.TrimSpace(res.Answer) == "":
		return tool.Result{Output: "the subagent finished without a report", IsError: true}, nil
	}
	return tool.Result{Output: res.Answer}, nil
}

func (t Task) maxTurns() int {
	if t.MaxTurns > 0 {
		return t.MaxTurns
	}
	return DefaultSubagentTurns
}

// parseTaskInput decodes and checks a task call; a non-empty message is
// the mistake, worded for the model.
func parseTaskInput(input json.RawMessage, set *agents.Set) (taskInput, string) {
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
	if _, ok := set.Get(in.SubagentType); !ok {
		var valid []string
		for _, a := range set.All() {
			valid = append(valid, a.Name+" ("+flatLine(a.Description)+")")
		}
		return in, fmt.Sprintf("task: unknown subagent_type %q; use one of: %s", in.SubagentType, strings.Join(valid, "; "))
	}
	return in, ""
}

// flatLine is s on one line, cut at 200 characters.
func flatLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > 200 {
		s = string([]rune(s)[:199]) + "…"
	}
	return s
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
