package gate

import (
	"context"
	"path/filepath"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/verify"
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/runner"
)

// gate runs the done-gate on the final answer (verify on): checks, scope,
// baseline and evidence as `chanto verify` computes them, against the
// turn-start snapshot, with the model's own covering runs standing in.
func (p *Policy) gate(ctx context.Context, t *turn, st *agent.TurnState) agent.StopDecision {
	gl := p.Goal()
	if g := t.lastGate; g != nil && g.version == t.version {
		if g.end != nil && g.end.Verdict == agent.NotVerified && g.toolCalls != st.ToolCalls {
			// The checks stand, but the model worked since a goal
			// criterion failed (built, ran something outside the tree's
			// tracked files): the criteria run again.
			g.toolCalls = st.ToolCalls
			if gl != nil {
				return p.goalGate(ctx, t, st, g.report, gl)
			}
		}
		// Nothing changed since the last gate run: its verdict stands, and
		// the model's answer (its explanation) is kept.
		if g.end != nil {
			emit(st, event.Event{Type: event.VerifyResult, Verify: g.endResult})
			return *g.end
		}
		emit(st, event.Event{Type: event.VerifyResult, Verify: g.report.Result()})
		return agent.StopDecision{Verdict: g.report.Verdict, Evidence: g.report.Evidence}
	}
	set := p.Settings()
	changed := t.change.All()
	if changed == nil {
		changed = []string{}
	}
	opts := verify.Options{
		Root:        st.Root,
		BaseSource:  t.snap,
		Changed:     changed,
		Added:       t.change.Added,
		ChangedNow:  t.snap.ChangedPaths,
		Top:         t.snap.Root(),
		Checks:      p.opts.Checks,
		TeamChecks:  p.opts.TeamChecks,
		Full:        set.Full,
		FullReason:  set.FullReason,
		Timeout:     p.opts.Timeout,
		Runner:      p.opts.Runner,
		Events:      st.Sink,
		SessionID:   st.SessionID,
		Turn:        st.Turn,
		FullRunSecs: p.fullRuns(),
		HistoryDir:  p.opts.HistoryDir,
		Watcher:     p.opts.Watcher,
		Prior:       p.prior(t),
	}
	if gl != nil && st.Sink != nil {
		opts.Events = dropResult{st.Sink}
	}
	if t.baseline != nil {
		opts.Baseline = t.baseline.wait(ctx, st)
	}
	rep, err := verify.Run(ctx, opts)
	if err != nil {
		if ctx.Err() != nil {
			return agent.StopDecision{Err: ctx.Err()}
		}
		return agent.StopDecision{Verdict: agent.NotVerified, Evidence: verify.NotVerifiedEvidence("the gate could not run: " + err.Error())}
	}
	p.rememberFullRuns(rep)
	t.lastGate = &gateRun{version: t.version, report: rep, toolCalls: st.ToolCalls}
	if gl != nil && (rep.Verdict != verify.NotVerified || onlyNoTests(rep)) {
		return p.goalGate(ctx, t, st, rep, gl)
	}
	if rep.Verdict != verify.NotVerified {
		return agent.StopDecision{Verdict: rep.Verdict, Evidence: rep.Evidence}
	}
	if gl != nil {
		emit(st, event.Event{Type: event.VerifyResult, Verify: rep.Result()})
	}
	end := agent.StopDecision{Verdict: agent.NotVerified, Evidence: rep.Evidence}
	if len(rep.Checks) == 0 || len(rep.Violations) > 0 {
		return end // a broken manifest, or tampering caught by the engine itself
	}
	last := rep.Last()
	if last == nil || last.Outcome().Ends() {
		return end // would hang or fail the same way again: no retry
	}
	if len(rep.NewFailures) == 0 && len(rep.AlreadyFailing) > 0 {
		if t.onlyOldPush {
			return end
		}
		t.onlyOldPush = true
		return sendBack(st, "already_failing", gateSendBack(rep, t.attempts, p.opts.MaxAttempts), 1, 1)
	}
	t.attempts++
	if t.attempts > p.opts.MaxAttempts {
		return end
	}
	return sendBack(st, "gate", gateSendBack(rep, t.attempts, p.opts.MaxAttempts), t.attempts, p.opts.MaxAttempts)
}

// prior lets the model's own runs stand in for a planned check: a plain,
// passing run that covers the selection with nothing changed since is the
// evidence; a run of the same tests that just timed out is not started
// again.
func (p *Policy) prior(t *turn) func(verify.Planned) *verify.Prior {
	return priorRuns(t.runs, t.version)
}

// priorRuns answers verify's Prior from runs, the newest last; only runs
// made at tree version (nothing changed since) can settle a check.
func priorRuns(runs []ownRun, version int) func(verify.Planned) *verify.Prior {
	return func(pl verify.Planned) *verify.Prior {
		want := plannedWant(pl)
		for i := len(runs) - 1; i >= 0; i-- {
			r := runs[i]
			if r.Version != version {
				return nil // older runs saw another tree
			}
			switch {
			case r.TimedOut && runner.SameCheck(r.invocation(), want) && filepath.Clean(r.Dir) == filepath.Clean(pl.Dir):
				return &verify.Prior{Command: r.Command, TimedOut: true}
			case r.Passed && r.coversWant(pl.Dir, want):
				return &verify.Prior{Command: r.Command, Passed: true, Full: r.All}
			}
		}
		return nil
	}
}

func (p *Policy) fullRuns() map[string]float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]float64, len(p.fullRunSecs))
	for k, v := range p.fullRunSecs {
		out[k] = v
	}
	return out
}

// rememberFullRuns keeps how long full-suite runs took, so a cheap suite
// is simply run whole next time (DESIGN §5).
func (p *Policy) rememberFullRuns(rep *verify.Report) {
	for _, c := range rep.Checks {
		if c.Scope.Full && !c.TimedOut && !c.FromModelRun && c.NotFound == "" {
			p.measured(verify.FullRunKey(filepath.Join(rep.Root, filepath.FromSlash(c.Dir)), detect.Runner(c.Runner), c.Command), c.Duration.Seconds())
		}
	}
}

// measured keeps one full-run duration for the session, and hands it to
// Options.Measured so later turns (--continue) know it too.
func (p *Policy) measured(key string, secs float64) {
	p.mu.Lock()
	p.fullRunSecs[key] = secs
	p.mu.Unlock()
	if p.opts.Measured != nil {
		p.opts.Measured(key, secs)
	}
}

// fullReason names what forced the full suite, for the evidence. The
// caller holds p.mu (Settings).
func (p *Policy) fullReason() string {
	if p.opts.FullReason != "" {
		return p.opts.FullReason
	}
	return "--verify-full"
}
