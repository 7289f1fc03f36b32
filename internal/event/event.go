// Package event defines chanto's JSONL event schema (DESIGN §7) and the
// writers that emit it. It holds types and encoders only; it imports
// nothing from the rest of chanto but safetext (so a line is safe to show
// on a terminal), so every layer can emit events.
package event

import (
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/chanto-dev/chanto/internal/safetext"
)

// Event types. The set is stable and documented in docs/json-output.md.
const (
	SessionStarted    = "session.started"
	TurnStarted       = "turn.started"
	MessageDelta      = "message.delta"
	MessageCompleted  = "message.completed"
	ToolStarted       = "tool.started"
	ToolCompleted     = "tool.completed"
	ProtectViolation  = "protect.violation"
	VerifyStarted     = "verify.started"
	VerifyCheck       = "verify.check"
	VerifyBaseline    = "verify.baseline"
	VerifyResult      = "verify.result"
	VerifySentBack    = "verify.sent_back"
	GoalSet           = "goal.set"
	GoalCriterion     = "goal.criterion"
	GoalResult        = "goal.result"
	ReviewStarted     = "review.started"
	ReviewCompleted   = "review.completed"
	SubagentStarted   = "subagent.started"
	SubagentCompleted = "subagent.completed"
	TurnCompleted     = "turn.completed"
	Error             = "error"
	SessionCompleted  = "session.completed"
)

// Event is one line of stream-json output. Type, SessionID and Time are always
// set; the other fields are filled according to Type and omitted otherwise.
type Event struct {
	Type      string    `json:"type"`
	SessionID string    `json:"session_id"`
	Time      time.Time `json:"time"`

	Turn  int    `json:"turn,omitempty"`
	Model string `json:"model,omitempty"` // session.started
	Cwd   string `json:"cwd,omitempty"`   // session.started
	Text  string `json:"text,omitempty"`  // message.delta, message.completed

	Tool      *Tool      `json:"tool,omitempty"`        // tool.started, tool.completed
	Violation *Violation `json:"violation,omitempty"`   // protect.violation
	Check     *Check     `json:"check,omitempty"`       // verify.check
	Baseline  *Baseline  `json:"baseline,omitempty"`    // verify.baseline
	Verify    *VerifyEnd `json:"verify,omitempty"`      // verify.result
	SentBack  *SentBack  `json:"sent_back,omitempty"`   // verify.sent_back
	Goal      *Goal      `json:"goal,omitempty"`        // goal.set
	Criterion *Criterion `json:"criterion,omitempty"`   // goal.criterion
	GoalEnd   *GoalEnd   `json:"goal_result,omitempty"` // goal.result
	Usage     *Usage     `json:"usage,omitempty"`       // turn.completed
	Error     string     `json:"error,omitempty"`       // error
	ExitCode  *int       `json:"exit_code,omitempty"`   // session.completed
	Scope     string     `json:"scope,omitempty"`       // verify.started
	Checks    []string   `json:"checks,omitempty"`      // verify.started
	Review    *Review    `json:"review,omitempty"`      // review.started, review.completed
	Subagent  *Subagent  `json:"subagent,omitempty"`    // subagent.started, subagent.completed

	// ParentToolID is set on every event of a subagent: the id of the
	// parent's task call that started it. Events without it are the main
	// agent's.
	ParentToolID string `json:"parent_tool_id,omitempty"`
	// SubagentID is set on every event of a subagent (task calls and the
	// oracle's review alike): the id its subagent.started announced.
	SubagentID string `json:"subagent_id,omitempty"`
}

// Subagent describes a subagent run: a task call's or the review's.
type Subagent struct {
	// ID is the task call's id, or "review-N" for the review of turn N.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Model is the model it runs on, as a --model spec.
	Model string `json:"model"`
	// Description is the task call's short label.
	Description string `json:"description,omitempty"`
	// On subagent.completed: wall time, whether it ended without a
	// report (an error, the call cap, an interrupt), and its tokens.
	DurationMS *int64 `json:"duration_ms,omitempty"`
	IsError    bool   `json:"is_error,omitempty"`
	Usage      *Usage `json:"usage,omitempty"`
}

// Review verdicts.
const (
	ReviewLGTM     = "lgtm"
	ReviewFindings = "findings"
	ReviewFailed   = "failed"
	ReviewSkipped  = "skipped"
)

// Review is the oracle's review of a turn's diff before the gate.
type Review struct {
	// Verdict is set on review.completed: lgtm, findings, failed or skipped.
	Verdict string `json:"verdict,omitempty"`
	Model   string `json:"model,omitempty"`
	// DurationMS is the review's wall time (review.completed, always
	// present there, 0 included).
	DurationMS *int64 `json:"duration_ms,omitempty"`
	// Findings is the oracle's answer when it found something.
	Findings string `json:"findings,omitempty"`
	// Reason says why a review failed or was skipped.
	Reason string `json:"reason,omitempty"`
	// Files and DiffBytes describe what was reviewed (review.started).
	Files     int `json:"files,omitempty"`
	DiffBytes int `json:"diff_bytes,omitempty"`
}

// Tool describes a tool call.
type Tool struct {
	ID      string          `json:"id"`
	Name    string          `json:"name"`
	Input   json.RawMessage `json:"input,omitempty"`
	Output  string          `json:"output,omitempty"`
	IsError bool            `json:"is_error,omitempty"`
	// DurationMS is set on tool.completed.
	DurationMS int64 `json:"duration_ms,omitempty"`
	// Diagnostics is set on tool.completed of a write or edit whose
	// language server answered.
	Diagnostics *Diagnostics `json:"diagnostics,omitempty"`
}

// Diagnostics counts what a language server reported after an edit.
type Diagnostics struct {
	Server string `json:"server"`
	// Errors and Warnings are in the edited file (warnings only when
	// [lsp] warnings is on); Elsewhere counts new errors in other files.
	Errors    int `json:"errors"`
	Warnings  int `json:"warnings"`
	Elsewhere int `json:"elsewhere"`
}

// Violation is a test-protection finding.
type Violation struct {
	File    string `json:"file"`
	Test    string `json:"test,omitempty"`
	Line    int    `json:"line,omitempty"`
	Kind    string `json:"kind"`
	Before  string `json:"before,omitempty"`
	After   string `json:"after,omitempty"`
	Message string `json:"message"`
}

// Check is one gate check run.
type Check struct {
	Index   int    `json:"index"`
	Command string `json:"command"`
	Dir     string `json:"dir,omitempty"`
	Passed  bool   `json:"passed"`
	Scope   string `json:"scope"` // "related" or "full"
	// Reason says why, in the evidence's words; ReasonCode is the same
	// as a code (docs/verify.md lists them).
	Reason     string `json:"reason,omitempty"`
	ReasonCode string `json:"reason_code,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	ExitCode   int    `json:"exit_code"`
	Refused    bool   `json:"refused,omitempty"`
	TimedOut   bool   `json:"timed_out,omitempty"`
	// FromModelRun is true when the model's own passing run stood in for
	// the check and nothing was executed.
	FromModelRun bool `json:"from_model_run,omitempty"`
	// Team names a team check ([[team_checks]] in the project config);
	// empty for detected and configured checks.
	Team string `json:"team,omitempty"`
}

// Baseline reports a baseline run.
type Baseline struct {
	Kind           string   `json:"kind"` // "copy" or "putback"
	Command        string   `json:"command"`
	AlreadyFailing []string `json:"already_failing"`
	DurationMS     int64    `json:"duration_ms"`
	// Note says why the baseline did not run, or ran only in part; an
	// empty already_failing then proves nothing.
	Note string `json:"note,omitempty"`
}

// Verdict is how a turn's answer (or a chanto verify run) stands against
// the project's checks. It is the one verdict type: verify, the agent
// and the CLI all use it.
type Verdict string

// The verdicts, as events and the json output write them.
const (
	VerdictNone     Verdict = ""
	Verified        Verdict = "verified"
	NotVerified     Verdict = "not_verified"
	NothingToVerify Verdict = "nothing_to_verify"
)

// VerifyEnd is the gate's verdict.
type VerifyEnd struct {
	Verdict        Verdict  `json:"verdict"` // "verified", "not_verified", "nothing_to_verify"
	Evidence       string   `json:"evidence"`
	NewFailures    []string `json:"new_failures"`
	AlreadyFailing []string `json:"already_failing"`
	// Failures is what each failing check showed, trimmed as the model
	// gets it; empty unless the verdict is not_verified.
	Failures []Failure `json:"failures"`
}

// Failure is one failing check as the user is shown it: the command, the
// folder it ran in (omitted for the project root), the failing tests it
// named and its output, trimmed to the useful part.
type Failure struct {
	Check  string   `json:"check"`
	Dir    string   `json:"dir,omitempty"`
	Tests  []string `json:"tests"`
	Output string   `json:"output"`
}

// SentBack is an answer the stop policy returned to the model: why, the
// whole message, and the attempt it was (of Max allowed).
type SentBack struct {
	// Reason is "gate" (a failed check), "protect" (tampered tests) or
	// "failed_run" (verify off: finishing on a failed run of its own).
	Reason  string `json:"reason"`
	Text    string `json:"text"`
	Attempt int    `json:"attempt"`
	Max     int    `json:"max"`
}

// Goal is a goal as it was set (goal.set): its statement, its criteria
// in their text form ("test: TestParse") and its budget. Cleared is set
// when the goal was removed (the other fields are then empty).
type Goal struct {
	Statement string   `json:"statement"`
	Criteria  []string `json:"criteria"`
	MaxTurns  int      `json:"max_turns,omitempty"`
	MaxTokens int64    `json:"max_tokens,omitempty"`
	Source    string   `json:"source,omitempty"`
	Cleared   bool     `json:"cleared,omitempty"`
}

// Criterion is one outcome criterion as it ran (goal.criterion).
type Criterion struct {
	// Index is its position in the goal, from 0.
	Index int `json:"index"`
	// Kind is command, output, test or file; Criterion its text form.
	Kind      string `json:"kind"`
	Criterion string `json:"criterion"`
	Passed    bool   `json:"passed"`
	// Why says what did not hold; empty when it passed.
	Why string `json:"why,omitempty"`
	// Output is the command's or the test run's output, trimmed.
	Output     string `json:"output"`
	DurationMS int64  `json:"duration_ms"`
}

// GoalEnd is how the goal stood when the stop policy ruled (goal.result):
// met, or the first criterion not met and why, and the criteria that held.
// Budget names the limit that ran out ("max_turns 20"), when one did.
type GoalEnd struct {
	Met    bool     `json:"met"`
	Held   []string `json:"held"`
	Unmet  string   `json:"unmet,omitempty"`
	Why    string   `json:"why,omitempty"`
	Budget string   `json:"budget,omitempty"`
}

// Usage counts tokens.
type Usage struct {
	InputTokens       int64 `json:"input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
	CacheReadTokens   int64 `json:"cache_read_tokens,omitempty"`
	CacheCreateTokens int64 `json:"cache_creation_tokens,omitempty"`
}

// Add accumulates u2 into u.
func (u *Usage) Add(u2 Usage) {
	u.InputTokens += u2.InputTokens
	u.OutputTokens += u2.OutputTokens
	u.CacheReadTokens += u2.CacheReadTokens
	u.CacheCreateTokens += u2.CacheCreateTokens
}

// Sink receives events. Implementations must be safe for concurrent use.
type Sink interface {
	Emit(Event)
}

// Discard drops every event.
var Discard Sink = discard{}

type discard struct{}

func (discard) Emit(Event) {}

// JSONL writes each event as one line of JSON. Control characters in the
// text are escaped, also the ones encoding/json leaves raw (DEL, C1, bidi
// overrides), so the stream is safe to cat to a terminal.
type JSONL struct {
	mu sync.Mutex
	w  io.Writer
}

// NewJSONL returns a Sink writing JSON lines to w.
func NewJSONL(w io.Writer) *JSONL { return &JSONL{w: w} }

// Emit writes e; errors (a closed pipe) are dropped, as there is nowhere to report them.
func (j *JSONL) Emit(e Event) {
	data, err := json.Marshal(e)
	if err != nil {
		return
	}
	line := append(safetext.JSON(data), '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	_, _ = j.w.Write(line)
}

// Multi fans an event out to several sinks in order.
type Multi []Sink

// Emit sends e to every sink.
func (m Multi) Emit(e Event) {
	for _, s := range m {
		s.Emit(e)
	}
}

// Func adapts a function to a Sink.
type Func func(Event)

// Emit calls f(e).
func (f Func) Emit(e Event) { f(e) }
