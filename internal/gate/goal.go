package gate

import (
	"context"
	"fmt"
	"strings"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/goal"
	"github.com/chanto-dev/chanto/internal/verify"
)

// A goal's outcome criteria run after the project's checks pass, in the
// same runner; a criterion that does not hold goes back to the model like
// a failed check, counting against max_attempts. A goal turns the gate on
// for as long as it is set.

// goalState is the session's goal and what it has spent of its budget.
type goalState struct {
	g *goal.Goal
	// spentCalls and spentTokens were spent in earlier turns; turnCalls
	// and turnTokens in the running one.
	spentCalls, turnCalls   int
	spentTokens, turnTokens int64
}

// goalRun remembers the last run of the criteria in a turn.
type goalRun struct {
	version   int
	toolCalls int
	out       goal.Outcome
}

// SetGoal sets the session's goal (nil clears it); its budget counts from
// now.
func (p *Policy) SetGoal(g *goal.Goal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.goal = goalState{g: g}
}

// Goal is the session's goal, nil when none is set.
func (p *Policy) Goal() *goal.Goal {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.goal.g
}

// startGoalTurn folds the last turn's spending into the goal's.
func (p *Policy) startGoalTurn() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.goal.spentCalls += p.goal.turnCalls
	p.goal.spentTokens += p.goal.turnTokens
	p.goal.turnCalls, p.goal.turnTokens = 0, 0
}

// OverBudget is the agent's Budget: before each model call it tells
// whether the goal's max_turns or max_tokens ran out, and then ends the
// turn not verified, naming the criterion that is not met.
func (p *Policy) OverBudget(ctx context.Context, st *agent.TurnState) (agent.StopDecision, bool) {
	p.mu.Lock()
	gs := &p.goal
	g := gs.g
	if g == nil {
		p.mu.Unlock()
		return agent.StopDecision{}, false
	}
	gs.turnCalls, gs.turnTokens = st.ModelCalls, st.Usage.InputTokens+st.Usage.OutputTokens
	calls, tokens := gs.spentCalls+gs.turnCalls, gs.spentTokens+gs.turnTokens
	p.mu.Unlock()
	var limit string
	switch {
	case g.MaxTurns > 0 && calls >= g.MaxTurns:
		limit = fmt.Sprintf("max_turns %d", g.MaxTurns)
	case g.MaxTokens > 0 && tokens >= g.MaxTokens:
		limit = fmt.Sprintf("max_tokens %d", g.MaxTokens)
	default:
		return agent.StopDecision{}, false
	}
	t := p.turn()
	var out goal.Outcome
	if t != nil && t.wait(ctx) == nil && t.snapErr == nil {
		t.mu.Lock()
		p.refresh(ctx, t, true)
		var err error
		out, err = p.criteria(ctx, t, st, g)
		t.mu.Unlock()
		if err != nil {
			return agent.StopDecision{Err: err}, true
		}
	}
	why := "the goal's budget ran out (" + limit + ")"
	if u := out.UnmetText(); u != "" {
		why += " with " + u
	} else {
		why += " before the model finished; the project's checks were not run"
	}
	evidence := verify.NotVerifiedEvidence(why + heldNote(out))
	emit(st, event.Event{Type: event.GoalResult, GoalEnd: out.End(limit)})
	emit(st, event.Event{Type: event.VerifyResult, Verify: &event.VerifyEnd{Verdict: agent.NotVerified, Evidence: evidence,
		NewFailures: []string{}, AlreadyFailing: []string{}, Failures: criterionFailures(out)}})
	return agent.StopDecision{Verdict: agent.NotVerified, Evidence: evidence}, true
}

// criteria runs the goal's criteria on the tree as it is, or returns the
// last run's outcome when neither the tree nor anything else changed
// since (no tool ran).
func (p *Policy) criteria(ctx context.Context, t *turn, st *agent.TurnState, g *goal.Goal) (goal.Outcome, error) {
	if r := t.goalRun; r != nil && r.version == t.version && r.toolCalls == st.ToolCalls {
		return r.out, nil
	}
	out, err := goal.Check(ctx, g, goal.Options{Root: st.Root, Runner: p.opts.Runner, Timeout: p.opts.Timeout,
		Events: st.Sink, SessionID: st.SessionID, Turn: st.Turn})
	if err != nil {
		return out, err
	}
	t.goalRun = &goalRun{version: t.version, toolCalls: st.ToolCalls, out: out}
	return out, nil
}

// goalGate runs the criteria after the checks passed (or found nothing to
// run) and rules: met, the evidence lists the criteria that held; not met,
// the criterion goes back to the model like a failed check.
func (p *Policy) goalGate(ctx context.Context, t *turn, st *agent.TurnState, rep *verify.Report, g *goal.Goal) agent.StopDecision {
	out, err := p.criteria(ctx, t, st, g)
	if err != nil {
		if ctx.Err() != nil {
			return agent.StopDecision{Err: ctx.Err()}
		}
		return agent.StopDecision{Verdict: agent.NotVerified, Evidence: verify.NotVerifiedEvidence("the goal's criteria could not run: " + err.Error())}
	}
	emit(st, event.Event{Type: event.GoalResult, GoalEnd: out.End("")})
	res := rep.Result()
	if out.Met() {
		res.Verdict, res.Evidence = agent.Verified, metEvidence(rep, out)
		emit(st, event.Event{Type: event.VerifyResult, Verify: res})
		met := agent.StopDecision{Verdict: agent.Verified, Evidence: res.Evidence}
		t.lastGate.end, t.lastGate.endResult = &met, res
		return met
	}
	res.Verdict, res.Evidence = agent.NotVerified, verify.NotVerifiedEvidence(out.UnmetText()+heldNote(out))
	res.Failures = criterionFailures(out)
	emit(st, event.Event{Type: event.VerifyResult, Verify: res})
	end := agent.StopDecision{Verdict: agent.NotVerified, Evidence: res.Evidence}
	t.lastGate.end, t.lastGate.endResult = &end, res
	t.attempts++
	if t.attempts > p.opts.MaxAttempts {
		return end
	}
	return sendBack(st, "goal", goalSendBack(out, t.attempts, p.opts.MaxAttempts), t.attempts, p.opts.MaxAttempts)
}

// metEvidence is the checks' evidence with the criteria that held:
// "Verified: go test ./p (2s) passed, …; full suite not run. Goal met:
// `make build` exited 0, TestParse passed."
func metEvidence(rep *verify.Report, out goal.Outcome) string {
	held := strings.Join(out.Held(), ", ")
	if out.Total == 0 {
		held = "no criteria"
	}
	if rep.Verdict == verify.NothingToVerify {
		return "Verified: goal met: " + held + " (no project checks found)."
	}
	if onlyNoTests(rep) {
		last := rep.Checks[len(rep.Checks)-1]
		return "Verified: goal met: " + held + " (" + last.Command + " found no tests of its own)."
	}
	return rep.Evidence + " Goal met: " + held + "."
}

// onlyNoTests reports a report whose only shortcoming is a check that
// collected no tests: with a goal, its criteria are the evidence.
func onlyNoTests(rep *verify.Report) bool {
	if rep.Verdict != verify.NotVerified || len(rep.Violations) > 0 || rep.Problem != "" || len(rep.Checks) == 0 || len(rep.NewFailures) > 0 {
		return false
	}
	for _, c := range rep.Checks {
		if o := c.Outcome(); o != verify.CheckPassed && o != verify.CheckNoTests {
			return false
		}
	}
	return true
}

// heldNote is " (held: A, B)" for the criteria that held before the one
// that did not.
func heldNote(out goal.Outcome) string {
	if h := out.Held(); len(h) > 0 {
		return " (held: " + strings.Join(h, ", ") + ")"
	}
	return ""
}

// criterionFailures shows the unmet criterion's output before the
// evidence, as a failing check's is.
func criterionFailures(out goal.Outcome) []event.Failure {
	u := out.Unmet()
	if u == nil {
		return []event.Failure{}
	}
	return []event.Failure{{Check: "goal criterion " + fmt.Sprint(u.Index+1) + ": " + u.Criterion.String(), Tests: []string{}, Output: u.Output}}
}

// goalSendBack returns an answer whose goal is not met yet.
func goalSendBack(out goal.Outcome, attempt, max int) string {
	u := out.Unmet()
	var b strings.Builder
	fmt.Fprintf(&b, "chanto ran the project's checks and then the goal's outcome criteria before accepting your answer. Criterion %d of %d is not met: %s — %s.\n",
		u.Index+1, out.Total, u.Criterion.Describe(), strings.TrimSuffix(u.Why, "."))
	if held := out.Held(); len(held) > 0 {
		b.WriteString("Held before it: " + strings.Join(held, ", ") + ".\n")
	}
	if u.Output != "" {
		b.WriteString("\nOutput (trimmed):\n" + u.Output + "\n")
	}
	fmt.Fprintf(&b, "\nDo the work the goal asks for so that the criterion holds, and finish again (attempt %d of %d). "+
		"Do not weaken the criterion's target: chanto runs it as written. If it cannot be met, say why in your answer.", attempt, max)
	return b.String()
}

// dropResult passes every event but verify.result: with a goal set, the
// verdict is the checks' and the criteria's together, emitted once.
type dropResult struct{ event.Sink }

func (d dropResult) Emit(e event.Event) {
	if e.Type != event.VerifyResult {
		d.Sink.Emit(e)
	}
}
