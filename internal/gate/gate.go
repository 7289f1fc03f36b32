// Package gate is verified mode inside the agent: a stop policy that takes a
// snapshot when a turn starts, watches every tool call for changed files,
// test tampering and the model's own test runs, and rules on the final
// answer with the same engine as `chanto verify` (DESIGN §4–5). It sits
// above the agent (it implements agent.StopPolicy) and the model-free
// gate in internal/verify; the agent knows nothing of it.
package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/tool"
	"github.com/chanto-dev/chanto/internal/verify"
	"github.com/chanto-dev/chanto/internal/verify/protect"
	"github.com/chanto-dev/chanto/internal/verify/runner"
	"github.com/chanto-dev/chanto/internal/verify/snapshot"
)

// offSendBacks caps the answers sent back with verify off (per rule).
const offSendBacks = 2

// Options configure the policy.
type Options struct {
	// Verify turns the done-gate on (--verify, [guardrails] enabled).
	// Off, only test protection and the failed-run rule apply.
	Verify bool
	// Full forces the full suite (--verify-full, scope = "full");
	// FullReason names which, for the evidence ("--verify-full" when
	// empty).
	Full       bool
	FullReason string
	// Checks replace detection (--verify-check, [guardrails] checks).
	Checks []string
	// TeamChecks run after them ([[team_checks]]).
	TeamChecks []verify.TeamCheck
	// MaxAttempts bounds the failed gate runs sent back to the model.
	MaxAttempts int
	// Timeout bounds each check run.
	Timeout time.Duration
	// ProtectTests turns test protection on; AllowTestEdits exempts paths
	// the user named.
	ProtectTests   bool
	AllowTestEdits []string
	// Runner executes checks (sandbox and pass_env included).
	Runner *run.Runner
	// HistoryDir holds putback saves (tests set it); Watcher is the argv
	// that starts the putback watcher (empty: this executable).
	HistoryDir string
	Watcher    []string
	// Root is the folder the turn snapshot covers (the repository's top
	// level); empty means the agent's project root.
	Root string
	// Oracle has the oracle review the turn's diff once before the gate
	// ([guardrails] oracle = true; verify on only).
	Oracle bool
	// FullRunSecs are full-run durations measured earlier in the session
	// (read back from its transcript), by verify.FullRunKey; Measured
	// hears each new one, to record it there.
	FullRunSecs map[string]float64
	Measured    func(key string, secs float64)
}

// Policy implements agent.Policy. One Policy serves a whole session;
// per-turn state is reset when a turn starts. The interactive session
// changes its settings between turns (SetVerify, SetFull, AllowTestEdit).
type Policy struct {
	opts Options

	mu sync.Mutex
	// fullRunSecs remembers full-suite durations across the session.
	fullRunSecs map[string]float64
	t           *turn
	// goal is the session's goal, if one is set.
	goal goalState
}

// turn is the state of one turn. mu serializes the tool-call hooks, which
// the agent may call concurrently for parallel read-only calls.
type turn struct {
	mu sync.Mutex
	// ready is closed once the snapshot (snap or snapErr) is taken.
	ready chan struct{}

	snap     *snapshot.Snapshot
	snapErr  error
	change   snapshot.Change
	version  int    // bumped whenever the tree's content changes
	digest   string // content digest of the change set at version
	reported map[string]bool
	runs     []ownRun

	attempts     int // failed gate runs sent back
	onlyOldPush  bool
	protectBacks int
	failedBacks  int
	lastGate     *gateRun

	baseline *copyBaseline // full scope: run in a copy of the turn-start tree
	goalRun  *goalRun      // the last run of the goal's criteria

	review *reviewState // the oracle's review of this turn, once it ran or was skipped
}

// gateRun remembers the last gate run of the turn.
type gateRun struct {
	version int
	report  *verify.Report
	// end is set when the checks passed and the goal's criteria ran: the
	// verdict that stands while nothing changes, and its verify.result.
	end       *agent.StopDecision
	endResult *event.VerifyEnd
	// toolCalls is how many tool calls the turn had made then.
	toolCalls int
}

var _ agent.Policy = (*Policy)(nil)

// New returns a policy.
func New(opts Options) *Policy {
	if opts.MaxAttempts < 1 {
		opts.MaxAttempts = 3
	}
	if opts.Runner == nil {
		opts.Runner = &run.Runner{}
	}
	p := &Policy{opts: opts, fullRunSecs: map[string]float64{}}
	for k, v := range opts.FullRunSecs {
		p.fullRunSecs[k] = v
	}
	return p
}

// OnTurnStart takes the turn snapshot and, for a full-scope verified turn,
// starts the baseline run in a copy of the tree alongside the first model
// call.
func (p *Policy) OnTurnStart(ctx context.Context, st *agent.TurnState) error {
	t := &turn{reported: map[string]bool{}, ready: make(chan struct{})}
	p.startGoalTurn()
	root := p.opts.Root
	if root == "" {
		root = st.Root
	}
	p.mu.Lock()
	if old := p.t; old != nil {
		go func() {
			<-old.ready
			if old.snap != nil {
				old.snap.Close()
			}
		}()
	}
	p.t = t
	p.mu.Unlock()
	// The snapshot is taken alongside the first model call; the agent
	// waits for it (BeforeTools) before any tool may touch the tree.
	go func() {
		defer close(t.ready)
		t.snap, t.snapErr = snapshot.Take(ctx, p.opts.Runner, root)
		if t.snapErr == nil && (p.Settings().Verify || p.Goal() != nil) && p.Settings().Full {
			t.baseline = startCopyBaseline(ctx, t.snap, p.baselineOptions())
		}
	}()
	return nil
}

// BeforeTools waits until the turn's snapshot is taken.
func (p *Policy) BeforeTools(ctx context.Context) error {
	if t := p.turn(); t != nil {
		return t.wait(ctx)
	}
	return nil
}

// wait blocks until the snapshot is ready or ctx ends.
func (t *turn) wait(ctx context.Context) error {
	select {
	case <-t.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// AfterTool updates the change set, reports new test-protection violations
// at once and records the model's own check runs.
func (p *Policy) AfterTool(ctx context.Context, st *agent.TurnState, call llm.Part, res tool.Result) string {
	t := p.turn()
	if t == nil || t.wait(ctx) != nil || t.snapErr != nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p.refresh(ctx, t, false)
	var notes []string
	if call.Name == "bash" {
		p.recordRun(t, call, res, st)
	}
	if p.opts.ProtectTests {
		if fresh := p.newViolations(t, st); len(fresh) > 0 {
			notes = append(notes, protectNote(fresh))
		}
	}
	return strings.Join(notes, "\n")
}

// OnFinal rules on the model's final answer (DESIGN §4 steps 2–5).
func (p *Policy) OnFinal(ctx context.Context, st *agent.TurnState, answer string) agent.StopDecision {
	t := p.turn()
	if t == nil {
		return agent.Accept()
	}
	if err := t.wait(ctx); err != nil {
		return agent.StopDecision{Err: err}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.snapErr != nil {
		if p.Settings().Verify || p.Goal() != nil {
			return notVerified(st, verify.NotVerifiedEvidence("the change set could not be determined ("+t.snapErr.Error()+")"), nil)
		}
		return agent.Accept()
	}
	p.refresh(ctx, t, true)
	if p.opts.ProtectTests {
		if d, stop := p.protectGate(t, st); stop {
			return d
		}
	}
	if !p.Settings().Verify && p.Goal() == nil {
		return p.failedRunRule(t, st)
	}
	if p.opts.Oracle {
		if d, sent := p.review(ctx, t, st); sent {
			return d
		}
	}
	d := p.gate(ctx, t, st)
	if clause := reviewEvidence(t.review); clause != "" && d.SendBack == "" && d.Evidence != "" {
		d.Evidence += " " + clause
	}
	return d
}

func (p *Policy) turn() *turn {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.t
}

// refresh recomputes the change set and bumps the version when the tree's
// content moved. After a tool call the snapshot's watcher narrows the work
// to the touched paths; the final answer always gets a full scan.
func (p *Policy) refresh(ctx context.Context, t *turn, full bool) {
	changes := t.snap.Changes
	if full {
		changes = t.snap.Rescan
	}
	c, err := changes(ctx)
	if err != nil {
		return
	}
	if d := t.snap.Digest(c); d != t.digest {
		t.digest = d
		t.version++
	}
	t.change = c
}

// recordRun keeps a bash call that ran a check.
func (p *Policy) recordRun(t *turn, call llm.Part, res tool.Result, st *agent.TurnState) {
	var in struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(call.Input, &in) != nil || in.Command == "" {
		return
	}
	dir := res.Dir
	if dir == "" {
		dir = st.Root
	}
	end := RunEnd{Passed: res.ExitCode == 0 && !res.TimedOut && !res.IsError, TimedOut: res.TimedOut, Output: res.Output}
	for _, r := range OwnRunsOf(in.Command, dir, p.opts.Checks, end) {
		if r.Plain && r.All && !r.Chained && !res.TimedOut && res.Duration > 0 {
			// The model's own full run measures the suite as well as the
			// gate's would.
			p.measured(verify.FullRunKey(dir, r.Runner, strings.Join(r.Args, " ")), res.Duration.Seconds())
		}
		r.Version = t.version
		t.runs = append(t.runs, r)
	}
}

// newViolations runs test protection on the changed files and returns
// violations not reported before this turn, emitting protect.violation.
func (p *Policy) newViolations(t *turn, st *agent.TurnState) []protect.Violation {
	vs := p.violations(t)
	var fresh []protect.Violation
	for _, v := range vs {
		key := v.File + "\x00" + v.Test + "\x00" + string(v.Kind)
		if t.reported[key] {
			continue
		}
		t.reported[key] = true
		fresh = append(fresh, v)
		emit(st, event.Event{Type: event.ProtectViolation, Violation: &event.Violation{
			File: v.File, Test: v.Test, Line: v.Line, Kind: string(v.Kind), Before: v.Before, After: v.After, Message: v.Message}})
	}
	return fresh
}

// violations are the standing test-protection findings of the turn.
func (p *Policy) violations(t *turn) []protect.Violation {
	changed := t.change.All()
	if len(changed) == 0 {
		return nil
	}
	root := t.snap.Root()
	vs, err := protect.Compare(t.snap, verify.DirSource(root), changed, protect.Options{Root: root, AllowEdits: p.Settings().AllowTestEdits})
	if err != nil {
		return nil
	}
	return vs
}

// protectGate applies step 2 of the stop policy: standing violations send
// the answer back (verify on: as a failed gate attempt; off: twice at most).
func (p *Policy) protectGate(t *turn, st *agent.TurnState) (agent.StopDecision, bool) {
	vs := p.violations(t)
	if len(vs) == 0 {
		return agent.StopDecision{}, false
	}
	evidence := verify.ViolationsEvidence(vs)
	if p.Settings().Verify {
		t.attempts++
		if t.attempts > p.opts.MaxAttempts {
			return notVerified(st, evidence, nil), true
		}
		return sendBack(st, "protect", protectSendBack(vs), t.attempts, p.opts.MaxAttempts), true
	}
	t.protectBacks++
	if t.protectBacks > offSendBacks {
		return notVerified(st, evidence, nil), true
	}
	return sendBack(st, "protect", protectSendBack(vs), t.protectBacks, offSendBacks), true
}

// failedRunRule is the verify-off rule: finishing right after the model's
// own failed check run, or with a failure re-run only at a narrower scope,
// sends the answer back (twice at most).
func (p *Policy) failedRunRule(t *turn, st *agent.TurnState) agent.StopDecision {
	failed, why := unresolvedFailure(t.runs)
	if failed == nil {
		return agent.Accept()
	}
	t.failedBacks++
	if t.failedBacks > offSendBacks {
		// The user sees the output the model was shown.
		shown := []event.Failure{{Check: failed.Command, Tests: []string{}, Output: trimOutput(failed.Output)}}
		return notVerified(st, verify.NotVerifiedEvidence(why), shown)
	}
	return sendBack(st, "failed_run", failedRunSendBack(*failed, why), t.failedBacks, offSendBacks)
}

// unresolvedFailure finds a failed check run that no later passing run
// covers. The last check run failing is the plain case.
func unresolvedFailure(runs []ownRun) (*ownRun, string) {
	for i := len(runs) - 1; i >= 0; i-- {
		r := runs[i]
		if r.Passed {
			continue
		}
		covered := false
		for _, later := range runs[i+1:] {
			if later.Passed && later.Plain && (r.Plain && later.coversRun(r) || !r.Plain && later.All) {
				covered = true
				break
			}
		}
		if covered {
			continue
		}
		if i == len(runs)-1 {
			return &runs[i], "your last check run failed: " + r.Command
		}
		return &runs[i], fmt.Sprintf("%s failed and no later passing run covers the same tests", r.Command)
	}
	return nil, ""
}

// coversRun reports whether r covers everything an earlier run e ran.
func (r ownRun) coversRun(e ownRun) bool {
	return filepath.Clean(r.Dir) == filepath.Clean(e.Dir) && runner.CoversRun(r.invocation(), e.invocation())
}

// notVerified ends the turn unverified for a reason the engine did not
// report itself, with the verify.result event stream-json readers expect;
// failures is what the user is shown before the evidence (may be nil).
func notVerified(st *agent.TurnState, evidence string, failures []event.Failure) agent.StopDecision {
	if failures == nil {
		failures = []event.Failure{}
	}
	emit(st, event.Event{Type: event.VerifyResult, Verify: &event.VerifyEnd{
		Verdict: agent.NotVerified, Evidence: evidence, NewFailures: []string{}, AlreadyFailing: []string{}, Failures: failures}})
	return agent.StopDecision{Verdict: agent.NotVerified, Evidence: evidence}
}

// sendBack returns the answer to the model with text, and tells
// stream-json readers (and the TUI) why, and which attempt it is.
func sendBack(st *agent.TurnState, reason, text string, attempt, max int) agent.StopDecision {
	emit(st, event.Event{Type: event.VerifySentBack, SentBack: &event.SentBack{Reason: reason, Text: text, Attempt: attempt, Max: max}})
	return agent.SendBack(text)
}

func emit(st *agent.TurnState, ev event.Event) {
	if st.Sink == nil {
		return
	}
	ev.SessionID, ev.Turn, ev.Time = st.SessionID, st.Turn, time.Now()
	st.Sink.Emit(ev)
}

func (p *Policy) baselineOptions() verify.Options {
	return verify.Options{Checks: p.opts.Checks, TeamChecks: p.opts.TeamChecks, Full: true, Timeout: p.opts.Timeout, Runner: p.opts.Runner, NoBaseline: true, KeepGoing: true}
}
