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
	// SendBacks counts the answers this turn already sent back.
	SendBacks int
	// Root is the project root the tools work in.
	Root string
	// Sink receives events; a policy emits verify.* and protect.* here.
	Sink event.Sink
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

// StopPolicy decides what happens when the model gives a final answer and
// may annotate each tool result. The done-gate and test protection
// implement it; NoPolicy accepts everything.
type StopPolicy interface {
	// OnFinal rules on answer, the model's final text of this turn.
	OnFinal(ctx context.Context, st *TurnState, answer string) StopDecision
	// AfterTool runs after each tool call; a non-empty note is appended to
	// that call's result, so the model reads it with the output. Read-only
	// calls of one reply run in parallel, so AfterTool may be called
	// concurrently and must guard its own state.
	AfterTool(ctx context.Context, st *TurnState, call llm.Part, res tool.Result) (note string)
}

// TurnStarter is implemented by policies that need to act when a turn starts
// (take a snapshot, start a baseline run). It runs before the first model call.
type TurnStarter interface {
	OnTurnStart(ctx context.Context, st *TurnState) error
}

// ToolWaiter is implemented by policies that finish their turn-start work
// in the background (the gate's snapshot, taken while the first model call
// runs). The agent waits on it before running any tool of the turn, so no
// tool can change the project before the turn's starting point is recorded.
type ToolWaiter interface {
	BeforeTools(ctx context.Context) error
}

// NoPolicy accepts every answer and annotates nothing.
type NoPolicy struct{}

// OnFinal accepts.
func (NoPolicy) OnFinal(context.Context, *TurnState, string) StopDecision { return Accept() }

// AfterTool adds nothing.
func (NoPolicy) AfterTool(context.Context, *TurnState, llm.Part, tool.Result) string { return "" }

var _ StopPolicy = NoPolicy{}
