package gate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/event"
)

// reviewTimeout bounds the oracle's review; past it the review failed and
// the gate runs without it.
const reviewTimeout = 10 * time.Minute

// reviewState is what the turn's review came to.
type reviewState struct {
	verdict string // event.Review* verdicts
	model   string
	reason  string
}

// review is step 3 of the stop policy (DESIGN §4): with oracle = true and
// verify on, the first final answer after the turn changed files gets the
// oracle's review of the turn's diff. Findings go back once; LGTM, a
// failed review or an empty diff go on to the gate. sent is true when the
// decision returns the answer to the model.
func (p *Policy) review(ctx context.Context, t *turn, st *agent.TurnState) (d agent.StopDecision, sent bool) {
	if t.review != nil && t.review.verdict != event.ReviewSkipped {
		return agent.StopDecision{}, false // once per turn
	}
	if t.change.Empty() {
		if t.review == nil {
			t.review = &reviewState{verdict: event.ReviewSkipped, reason: "nothing changed"}
			var zero int64
			emit(st, event.Event{Type: event.ReviewCompleted, Review: &event.Review{Verdict: event.ReviewSkipped, DurationMS: &zero, Reason: t.review.reason}})
		}
		return agent.StopDecision{}, false
	}
	diff := buildDiff(t.snap, t.change)
	emit(st, event.Event{Type: event.ReviewStarted, Review: &event.Review{Files: diff.Files, DiffBytes: len(diff.Text)}})
	start := time.Now()
	rs, findings := p.runReview(ctx, st, diff)
	t.review = rs
	if ctx.Err() != nil {
		return agent.StopDecision{Err: ctx.Err()}, true
	}
	ms := time.Since(start).Milliseconds()
	emit(st, event.Event{Type: event.ReviewCompleted, Review: &event.Review{
		Verdict: rs.verdict, Model: rs.model, DurationMS: &ms, Findings: findings, Reason: rs.reason}})
	if rs.verdict != event.ReviewFindings {
		return agent.StopDecision{}, false
	}
	return sendBack(st, "review", reviewSendBack(findings, rs.model), 1, 1), true
}

// runReview starts the oracle on the diff; findings is its answer when it
// found something.
func (p *Policy) runReview(ctx context.Context, st *agent.TurnState, diff turnDiff) (*reviewState, string) {
	if st.Subagents == nil {
		return &reviewState{verdict: event.ReviewFailed, reason: "no subagents in this session"}, ""
	}
	rctx, cancel := context.WithTimeout(ctx, reviewTimeout)
	defer cancel()
	res, err := st.Subagents.RunSubagent(rctx, agent.SubagentOracle, agent.SubagentRun{
		ID: fmt.Sprintf("review-%d", st.Turn), Description: "review the turn's diff", Prompt: reviewPrompt(st, diff)})
	rs := &reviewState{model: res.Model}
	answer := strings.TrimSpace(res.Answer)
	var maxTurns *agent.MaxTurnsError
	switch {
	case ctx.Err() != nil:
		rs.verdict, rs.reason = event.ReviewFailed, "interrupted"
	case errors.Is(rctx.Err(), context.DeadlineExceeded):
		rs.verdict, rs.reason = event.ReviewFailed, fmt.Sprintf("timed out after %s", reviewTimeout)
	case errors.As(err, &maxTurns):
		rs.verdict, rs.reason = event.ReviewFailed, fmt.Sprintf("the oracle made %d model calls without an answer", maxTurns.Max)
	case err != nil:
		rs.verdict, rs.reason = event.ReviewFailed, oneLine(err.Error())
	case answer == "":
		rs.verdict, rs.reason = event.ReviewFailed, "the oracle gave no answer"
	case isLGTM(answer):
		rs.verdict = event.ReviewLGTM
	default:
		rs.verdict = event.ReviewFindings
		return rs, answer
	}
	return rs, ""
}

// isLGTM accepts "LGTM" alone, give or take markup and a full stop.
func isLGTM(answer string) bool {
	return strings.EqualFold(strings.Trim(answer, " \t\n`*_.!\"'"), "lgtm")
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// reviewPrompt is the oracle's task: what the user asked, and the diff.
func reviewPrompt(st *agent.TurnState, diff turnDiff) string {
	var b strings.Builder
	b.WriteString("Review the change another agent made in this turn, before the project's checks run.\n\nThe user asked:\n\n")
	b.WriteString(quoteBlock(st.Prompt))
	fmt.Fprintf(&b, "\n\nThe diff of the %d file(s) changed this turn, against the start of the turn (new files included):\n\n", diff.Files)
	b.WriteString("```diff\n" + strings.TrimRight(diff.Text, "\n") + "\n```\n\n")
	fmt.Fprintf(&b, "The files are in the working tree under %s: read them, and the code that calls what changed, as you need.\n", st.Root)
	b.WriteString("Answer as your instructions say: the findings that must be fixed (path:line, what is wrong, why, the failing caller or input), or exactly LGTM.")
	return b.String()
}

func quoteBlock(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = "> " + l
	}
	return strings.Join(lines, "\n")
}

// reviewSendBack is the message that returns the oracle's findings to the
// model.
func reviewSendBack(findings, model string) string {
	who := "the oracle (a read-only reviewer)"
	if model != "" {
		who = fmt.Sprintf("the oracle (a read-only reviewer, on %s)", model)
	}
	return "Before chanto runs the project's checks, " + who + " reviewed this turn's diff and reported:\n\n" +
		strings.TrimSpace(findings) + "\n\n" +
		"Fix what is real. Where a finding is wrong, say why in your answer instead of changing the code. " +
		"Then give your final answer again: the checks run next, and the oracle does not review again this turn."
}

// reviewEvidence is the clause the evidence line gets for the turn's
// review; "" when there was none.
func reviewEvidence(rs *reviewState) string {
	if rs == nil {
		return ""
	}
	switch rs.verdict {
	case event.ReviewLGTM:
		return "Oracle review: LGTM."
	case event.ReviewFindings:
		return "Oracle review: findings sent back once."
	case event.ReviewFailed:
		return "Oracle review failed (" + strings.TrimSuffix(rs.reason, ".") + "); the checks ran without it."
	case event.ReviewSkipped:
		return "Oracle review skipped: " + rs.reason + "."
	}
	return ""
}
