package agent

import (
	"context"

	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/tool"
)

// Verdict is how a turn's final answer stands against the project's
// checks; the type lives in event, shared with verify.
type Verdict = event.Verdict

// Verdicts, as written in events and the json output.
const (
	VerdictNone     = event.VerdictNone
	Verified        = event.Verified
	NotVerified     = event.NotVerified
	NothingToVerify = event.NothingToVerify
)

// TurnState is what a stop policy may inspect about the turn in progress.
// The policy must treat Messages as read-only.
type TurnState struct {
	// SessionID and Turn identify the turn (for the policy's own events).
	SessionID string
	Turn      int
	// Prompt is the user's prompt that started the turn.
	Prompt string
	// Messages is the whole conversation so far, final answer included.
	Messages []llm.Message
	// ModelCalls counts the model calls of this turn; ToolCalls its tool calls.
	ModelCalls int
	ToolCalls  int
	// Usage sums the tokens of this turn's model calls so far.
	Usage llm.Usage
	// SendBacks counts the answers this turn already sent back.
	SendBacks int
	// Root is the project root the tools work in.
	Root string
	// Sink receives events; a policy emits verify.* and protect.* here.
	Sink event.Sink
	// Subagents starts a subagent of this turn (the oracle's review).
	Subagents SubagentRunner
}

// SubagentRunner starts the agent called name on a task of the turn; the
// Agent implements it.
type SubagentRunner interface {
	RunSubagent(ctx context.Context, name string, r SubagentRun) (SubagentResult, error)
}

// StopDecision is a policy's ruling on a final answer: either accept it
// (SendBack empty), optionally with a verdict and a one-line evidence, or
// send it back with SendBack as the next user message.
type StopDecision struct {
	SendBack string
	Verdict  Verdict
	Evidence string
	// Err, when set on an accepted answer, fails the turn (e.g. an answer
	// that never matched --output-schema).
	Err error
}

// Accept returns a decision that accepts the answer with no verdict.
func Accept() StopDecision { return StopDecision{} }

// SendBack returns a decision that returns msg to the model.
func SendBack(msg string) StopDecision { return StopDecision{SendBack: msg} }

// Policy is the stop policy: it hears the four moments of a turn and rules
// on its final answer. The done-gate and test protection implement it, the
// user's hooks decorate it (WithHooks), and NoPolicy, embedded, gives every
// moment a do-nothing default so a policy writes only the ones it needs.
type Policy interface {
	// OnTurnStart runs before the first model call of a turn (take a
	// snapshot, start a baseline run); an error ends the turn.
	OnTurnStart(ctx context.Context, st *TurnState) error
	// BeforeTools runs before the tools of each model reply. A policy that
	// finishes its turn-start work in the background (the gate's snapshot,
	// taken while the first model call runs) waits for it here, so no tool
	// can change the project before the turn's starting point is recorded.
	BeforeTools(ctx context.Context) error
	// AfterTool runs after each tool call; a non-empty note is appended to
	// that call's result, so the model reads it with the output. Read-only
	// calls of one reply run in parallel, so AfterTool may be called
	// concurrently and must guard its own state.
	AfterTool(ctx context.Context, st *TurnState, call llm.Part, res tool.Result) (note string)
	// OnFinal rules on answer, the model's final text of this turn.
	OnFinal(ctx context.Context, st *TurnState, answer string) StopDecision
}

// Budget is asked before each model call of a turn whether a budget ran
// out (a goal's max_turns or tokens); over, the turn ends at once with the
// decision's verdict and evidence.
type Budget func(ctx context.Context, st *TurnState) (d StopDecision, over bool)

// Decorator wraps a policy in a cross-cutting concern (the user's hooks
// around the gate), the way mvdan/sh chains its handlers.
type Decorator func(Policy) Policy

// Chain applies the decorators to p, the first outermost.
func Chain(p Policy, ds ...Decorator) Policy {
	for i := len(ds) - 1; i >= 0; i-- {
		p = ds[i](p)
	}
	return p
}

// NoPolicy accepts every answer and annotates nothing; embed it to inherit
// the moments a policy does not care about.
type NoPolicy struct{}

// OnTurnStart does nothing.
func (NoPolicy) OnTurnStart(context.Context, *TurnState) error { return nil }

// BeforeTools does nothing.
func (NoPolicy) BeforeTools(context.Context) error { return nil }

// OnFinal accepts.
func (NoPolicy) OnFinal(context.Context, *TurnState, string) StopDecision { return Accept() }

// AfterTool adds nothing.
func (NoPolicy) AfterTool(context.Context, *TurnState, llm.Part, tool.Result) string { return "" }

var _ Policy = NoPolicy{}
