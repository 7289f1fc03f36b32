// Package agent runs chanto's turn loop: it streams the model's reply,
// dispatches the tool calls it asks for, returns their results, keeps the
// conversation within the model's context window, and hands the final
// answer to a Policy (the done-gate plugs in there) before the turn ends.
// It emits events for every step and appends every message to a Transcript
// as it happens.
package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chanto-dev/chanto/internal/agents"
	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/tool"
)

// ErrInterrupted is returned when the turn's context is cancelled (Ctrl-C).
// What was said and done up to that point is in the transcript.
var ErrInterrupted = errors.New("interrupted")

// MaxTurnsError reports a turn that used up its model calls.
type MaxTurnsError struct{ Max int }

func (e *MaxTurnsError) Error() string {
	return fmt.Sprintf("reached --max-turns %d before the model finished; raise it or narrow the task", e.Max)
}

// A reply cut at the output limit is continued at most maxContinues times
// in a row.
const (
	maxContinues   = 3
	continuePrompt = "Your reply was cut off at the output token limit. Continue exactly where it stopped, without repeating anything."
)

// Transcript receives every message as it is added to the conversation
// (session.Session implements it).
type Transcript interface {
	Append(llm.Message) error
}

// Options configures an Agent.
type Options struct {
	Provider llm.Provider
	Model    string
	Tools    []tool.Tool
	// MoreTools, if set, is asked before every model call for tools that
	// come and go during the session (MCP servers' tools, which a server
	// may change); a name of Tools wins over one of MoreTools.
	MoreTools func() []tool.Tool
	Env       *tool.Env
	Sink      event.Sink
	// SessionID is stamped on every event.
	SessionID string
	// System is the system prompt (see SystemPrompt).
	System string
	// MaxTurns caps the model calls of one Run; 0 means no cap.
	MaxTurns int
	// MaxTokens is the reply budget per model call; 0 lets the provider choose.
	MaxTokens int
	// ContextWindow overrides Provider.ContextWindow when positive.
	ContextWindow int
	// Transcript, if set, receives each message as it happens.
	Transcript Transcript
	// History is the conversation to continue (--resume, --continue).
	History []llm.Message
	// Policy rules on final answers; nil means NoPolicy.
	Policy Policy
	// Budget, if set, may end a turn before a model call (a goal's budget).
	Budget Budget
	// Permissions rules on each tool call; nil runs everything.
	Permissions Permitter
	// Approver is a yes-or-no stand-in for Permissions (tests); it is
	// used when Permissions is nil.
	Approver Approver
	// ModelSpec is the model as a --model spec, for events; empty:
	// provider/model.
	ModelSpec string
	// Agents are the agents subagents are started from (the task tool's
	// set); nil means the built-ins.
	Agents *agents.Set
	// OpenModel opens an agent's own model ("provider/model"); nil: agents
	// with a model of their own cannot run.
	OpenModel func(spec string) (llm.Provider, string, error)
	// ReadOnlyRunner runs the bash calls of read-only agents (the oracle):
	// the read-only sandbox. Nil: read-only agents get no bash.
	ReadOnlyRunner *run.Runner
}

// Outcome is how a turn ended.
type Outcome struct {
	// Answer is the model's final text (the evidence line is separate).
	Answer   string
	Verdict  Verdict
	Evidence string
	// Usage sums the tokens of the turn's model calls.
	Usage llm.Usage
	// ModelCalls counts the turn's model calls.
	ModelCalls int
}

// Agent holds one conversation. It is not safe for concurrent Runs.
type Agent struct {
	opts     Options
	tools    map[string]tool.Tool
	messages []llm.Message
	window   windowState
	turn     int
	// subUsage sums the tokens of subagents since it was last folded into
	// the turn's usage (after each tool round and each ruling).
	subMu    sync.Mutex
	subUsage llm.Usage
}

// New returns an agent ready to run turns.
func New(opts Options) *Agent {
	if opts.Sink == nil {
		opts.Sink = event.Discard
	}
	if opts.Policy == nil {
		opts.Policy = NoPolicy{}
	}
	if opts.Env == nil {
		opts.Env = &tool.Env{}
	}
	if opts.Permissions == nil && opts.Approver != nil {
		opts.Permissions = PermitterOf(opts.Approver)
	}
	a := &Agent{opts: opts, tools: map[string]tool.Tool{}}
	for _, t := range opts.Tools {
		a.tools[t.Name()] = t
	}
	a.messages = append(a.messages, opts.History...)
	return a
}

// Messages returns the conversation so far.
func (a *Agent) Messages() []llm.Message { return a.messages }

func (a *Agent) emit(e event.Event) {
	e.SessionID = a.opts.SessionID
	e.Time = time.Now().UTC()
	if e.Turn == 0 {
		e.Turn = a.turn
	}
	a.opts.Sink.Emit(e)
}

// add appends m to the conversation and the transcript.
func (a *Agent) add(m llm.Message) error {
	a.messages = append(a.messages, m)
	if a.opts.Transcript == nil {
		return nil
	}
	if err := a.opts.Transcript.Append(m); err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	return nil
}

// Run takes prompt to a final answer. It returns ErrInterrupted when ctx is
// cancelled, a *MaxTurnsError when the cap is hit, and provider errors as
// they come.
func (a *Agent) Run(ctx context.Context, prompt string) (Outcome, error) {
	a.turn++
	st := &TurnState{SessionID: a.opts.SessionID, Turn: a.turn, Prompt: prompt, Root: a.opts.Env.Root, Sink: a.opts.Sink, Subagents: a}
	var out Outcome
	a.emit(event.Event{Type: event.TurnStarted})
	defer func() {
		u := event.Usage(out.Usage)
		a.emit(event.Event{Type: event.TurnCompleted, Usage: &u})
	}()
	if err := a.add(userText(prompt)); err != nil {
		return out, err
	}
	st.Messages = a.messages
	if err := a.opts.Policy.OnTurnStart(ctx, st); err != nil {
		return out, err
	}
	// cut counts consecutive replies cut at the output limit; cutText
	// holds their text, which the final answer continues.
	cut := 0
	var cutText strings.Builder
	for {
		if ctx.Err() != nil {
			return out, ErrInterrupted
		}
		if a.opts.MaxTurns > 0 && out.ModelCalls >= a.opts.MaxTurns {
			return out, &MaxTurnsError{Max: a.opts.MaxTurns}
		}
		if a.opts.Budget != nil {
			st.ModelCalls, st.Usage = out.ModelCalls, out.Usage
			if d, over := a.opts.Budget(ctx, st); over {
				out.Verdict, out.Evidence = d.Verdict, d.Evidence
				return out, d.Err
			}
		}
		resp, err := a.call(ctx, &out)
		if err != nil {
			return out, err
		}
		calls := resp.Message.ToolCalls()
		st.Messages, st.ModelCalls, st.Usage = a.messages, out.ModelCalls, out.Usage
		if len(calls) == 0 && resp.StopReason == llm.StopMaxTokens && cut < maxContinues {
			// The reply hit the output limit mid-answer: ask for the rest.
			cut++
			cutText.WriteString(resp.Message.TextOf())
			if err := a.add(userText(continuePrompt)); err != nil {
				return out, err
			}
			continue
		}
		if len(calls) == 0 {
			answer := strings.TrimSpace(cutText.String() + resp.Message.TextOf())
			cut = 0
			cutText.Reset()
			d := a.opts.Policy.OnFinal(ctx, st, answer)
			a.foldSubUsage(&out.Usage)
			if ctx.Err() != nil {
				return out, ErrInterrupted
			}
			if d.SendBack != "" {
				st.SendBacks++
				if err := a.add(userText(d.SendBack)); err != nil {
					return out, err
				}
				continue
			}
			out.Answer, out.Verdict, out.Evidence = answer, d.Verdict, d.Evidence
			return out, d.Err
		}
		if err := a.opts.Policy.BeforeTools(ctx); err != nil {
			if ctx.Err() != nil {
				return out, ErrInterrupted
			}
			return out, err
		}
		results := a.dispatch(ctx, st, calls)
		st.ToolCalls += len(calls)
		a.foldSubUsage(&out.Usage)
		if err := a.add(llm.Message{Role: llm.User, Parts: results}); err != nil {
			return out, err
		}
		if ctx.Err() != nil {
			return out, ErrInterrupted
		}
	}
}

// call makes one model call, streaming text deltas as events, and adds the
// reply to the conversation. When the call fails or is interrupted, the
// text streamed so far is kept.
func (a *Agent) call(ctx context.Context, out *Outcome) (llm.Response, error) {
	a.fitWindow()
	req := llm.Request{
		Model:     a.opts.Model,
		System:    a.opts.System,
		Messages:  coalesce(a.messages),
		Tools:     a.toolSpecs(),
		MaxTokens: a.opts.MaxTokens,
	}
	var partial strings.Builder
	onDelta := func(d llm.Delta) {
		if d.Text == "" {
			return
		}
		partial.WriteString(d.Text)
		a.emit(event.Event{Type: event.MessageDelta, Text: d.Text})
	}
	resp, err := a.opts.Provider.Stream(ctx, req, onDelta)
	out.ModelCalls++
	if err != nil {
		// What streamed before the cut is kept: nothing said is lost.
		if partial.Len() > 0 {
			_ = a.add(llm.Message{Role: llm.Assistant, Parts: []llm.Part{{Type: llm.Text, Text: partial.String()}}})
		}
		if ctx.Err() != nil {
			return resp, ErrInterrupted
		}
		return resp, err
	}
	addUsage(&out.Usage, resp.Usage)
	resp.Message.Role = llm.Assistant
	// An empty reply adds nothing: providers reject empty content blocks.
	if len(resp.Message.Parts) > 0 {
		if err := a.add(resp.Message); err != nil {
			return resp, err
		}
	}
	a.window.measured(resp.Usage, len(a.messages))
	if text := resp.Message.TextOf(); text != "" {
		a.emit(event.Event{Type: event.MessageCompleted, Text: text})
	}
	return resp, nil
}

// foldSubUsage adds the subagents' tokens since the last fold to u.
func (a *Agent) foldSubUsage(u *llm.Usage) {
	a.subMu.Lock()
	defer a.subMu.Unlock()
	addUsage(u, a.subUsage)
	a.subUsage = llm.Usage{}
}

func (a *Agent) toolSpecs() []llm.ToolSpec {
	all := a.allTools()
	specs := make([]llm.ToolSpec, 0, len(all))
	for _, t := range all {
		specs = append(specs, llm.ToolSpec{Name: t.Name(), Description: t.Description(), Schema: t.Schema()})
	}
	return specs
}

// allTools is Tools, then those of MoreTools whose names are free.
func (a *Agent) allTools() []tool.Tool {
	if a.opts.MoreTools == nil {
		return a.opts.Tools
	}
	all := append([]tool.Tool(nil), a.opts.Tools...)
	for _, t := range a.opts.MoreTools() {
		if _, taken := a.tools[t.Name()]; !taken {
			all = append(all, t)
		}
	}
	return all
}

// lookup finds a tool by name among Tools and MoreTools.
func (a *Agent) lookup(name string) (tool.Tool, bool) {
	if t, ok := a.tools[name]; ok {
		return t, true
	}
	if a.opts.MoreTools != nil {
		for _, t := range a.opts.MoreTools() {
			if t.Name() == name {
				return t, true
			}
		}
	}
	return nil, false
}

func userText(s string) llm.Message {
	return llm.Message{Role: llm.User, Parts: []llm.Part{{Type: llm.Text, Text: s}}}
}

func addUsage(u *llm.Usage, v llm.Usage) {
	u.InputTokens += v.InputTokens
	u.OutputTokens += v.OutputTokens
	u.CacheReadTokens += v.CacheReadTokens
	u.CacheCreateTokens += v.CacheCreateTokens
}

// coalesce merges consecutive messages of the same role, which providers
// reject. They occur after an interrupt (tool results, then the next
// prompt) or an empty reply; the conversation itself keeps them apart.
func coalesce(msgs []llm.Message) []llm.Message {
	same := false
	for i := 1; i < len(msgs); i++ {
		if msgs[i].Role == msgs[i-1].Role {
			same = true
			break
		}
	}
	if !same {
		return msgs
	}
	out := make([]llm.Message, 0, len(msgs))
	for _, m := range msgs {
		if n := len(out); n > 0 && out[n-1].Role == m.Role {
			parts := append(append([]llm.Part(nil), out[n-1].Parts...), m.Parts...)
			out[n-1] = llm.Message{Role: m.Role, Parts: parts}
			continue
		}
		out = append(out, m)
	}
	return out
}
