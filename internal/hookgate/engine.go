package hookgate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/gate"
	"github.com/chanto-dev/chanto/internal/verify"
	"github.com/chanto-dev/chanto/internal/verify/protect"
	"github.com/chanto-dev/chanto/internal/verify/snapshot"
)

// tree is the turn's snapshot with the change set as it is now.
type tree struct {
	snap   *snapshot.Snapshot
	change snapshot.Change
	digest string
}

func (c *call) tree(ctx context.Context) (*tree, error) {
	t := c.st.Turn
	if t.SnapshotErr != "" {
		return nil, errors.New(t.SnapshotErr)
	}
	snap, err := c.loadSnapshot(ctx)
	if err != nil {
		return nil, err
	}
	ch, err := snap.Rescan(ctx)
	if err != nil {
		return nil, err
	}
	return &tree{snap: snap, change: ch, digest: snap.Digest(ch)}, nil
}

// afterTool records a shell call that ran a check and reports test
// tampering at once, in the tool's result.
func (c *call) afterTool(ctx context.Context) answer {
	t := c.st.Turn
	if t == nil || !c.sameTurn() {
		return answer{} // no snapshot to compare with: the stop says so
	}
	tr, err := c.tree(ctx)
	if err != nil {
		return answer{}
	}
	if cmd, ok := c.opts.Agent.shellCommand(c.p); ok {
		c.recordRun(cmd, tr)
	}
	if !c.opts.ProtectTests {
		return answer{}
	}
	var fresh []protect.Violation
	for _, v := range c.violations(tr) {
		key := v.File + "\x00" + v.Test + "\x00" + string(v.Kind)
		if contains(t.Reported, key) {
			continue
		}
		t.Reported = append(t.Reported, key)
		fresh = append(fresh, v)
	}
	if len(fresh) == 0 {
		return answer{}
	}
	return c.opts.Agent.toolNote(c.p.Event, gate.ProtectNote(fresh))
}

// recordRun keeps the model's own check run, parsed as the agent's gate
// parses one; only a run whose success the agent reports can stand in.
func (c *call) recordRun(cmd string, tr *tree) {
	passed, known, output := c.opts.Agent.runOutcome(c.p)
	for _, r := range gate.OwnRunsOf(cmd, c.p.Cwd, c.opts.Checks, gate.RunEnd{Passed: passed && known, Output: output}) {
		c.st.Turn.Runs = append(c.st.Turn.Runs, recordedRun{OwnRun: r, Digest: tr.digest})
	}
}

// sameTurn reports whether the event belongs to the turn whose snapshot
// is kept: the same turn id, or a turn the agent names none for, or the
// session-start snapshot standing in for a start no hook saw.
func (c *call) sameTurn() bool {
	t, key := c.st.Turn, c.p.turnKey()
	return key == "" || t.Key == "" || t.Key == key || t.FromSessionStart
}

func (c *call) violations(tr *tree) []protect.Violation {
	changed := tr.change.All()
	if len(changed) == 0 {
		return nil
	}
	root := tr.snap.Root()
	vs, err := protect.Compare(tr.snap, verify.DirSource(root), changed, protect.Options{Root: root, AllowEdits: c.opts.AllowTestEdits})
	if err != nil {
		return nil
	}
	return vs
}

// stop is the gate on the agent's final answer (DESIGN §4 steps 2–5):
// protection, then the checks, the failures sent back up to max_attempts,
// and the evidence shown to the user.
func (c *call) stop(ctx context.Context) answer {
	a := c.ruleStop(ctx)
	if r, blocked := a["reason"].(string); blocked && a["decision"] != nil {
		c.st.Turn.SentBack = r
	} else {
		c.st.Turn.SentBack = ""
	}
	return a
}

func (c *call) ruleStop(ctx context.Context) answer {
	if c.st.Turn == nil || !c.sameTurn() {
		c.st.Turn = &turnState{Key: c.p.turnKey(), Root: c.root(ctx), Started: time.Now(), SnapshotErr: noSnapshot}
	}
	t := c.st.Turn
	if !c.p.StopHookActive && t.FromSessionStart {
		// With no turn-start hook, a stop that no stop hook sent back is
		// the best sign of a new turn: the count starts afresh. A turn
		// whose start was seen keeps its own count, so an agent that does
		// not set stop_hook_active is not blocked forever either.
		t.Attempts, t.OnlyOldPush = 0, false
	}
	if t.SnapshotErr == noSnapshot {
		return c.stopAgainstHEAD(ctx)
	}
	tr, err := c.tree(ctx)
	if err != nil {
		return c.opts.Agent.tell(verify.NotVerifiedEvidence("the change set could not be determined (" + err.Error() + ")"))
	}
	defer tr.snap.Close()
	if c.opts.ProtectTests {
		if vs := c.violations(tr); len(vs) > 0 {
			t.Attempts++
			if t.Attempts > c.opts.MaxAttempts {
				return c.opts.Agent.tell(capReached(c.opts.MaxAttempts) + verify.ViolationsEvidence(vs))
			}
			return c.opts.Agent.block(gate.ProtectSendBackText(vs))
		}
	}
	if l := t.Last; l != nil && l.Digest == tr.digest {
		// Nothing changed since the last gate run: its verdict stands and
		// nothing runs again (the model explained instead of fixing).
		return c.opts.Agent.tell(l.Message)
	}
	changed := tr.change.All()
	if changed == nil {
		changed = []string{}
	}
	opts := c.verifyOptions()
	opts.BaseSource, opts.Changed, opts.Added, opts.Top = tr.snap, changed, tr.change.Added, tr.snap.Root()
	opts.ChangedNow = tr.snap.ChangedPaths // names what the checks wrote
	opts.Prior = gate.PriorRuns(c.runsAt(tr.digest), 1)
	rep, err := verify.Run(ctx, opts)
	if err != nil {
		return c.opts.Agent.tell(c.gateError(ctx, err))
	}
	return c.rule(rep, tr.digest)
}

// noSnapshot marks a turn whose start no hook saw.
const noSnapshot = "no turn-start snapshot"

// stopAgainstHEAD is the gate for a turn whose start no hook saw: the
// change is the working tree against HEAD, as `chanto verify` takes it,
// and the evidence says so.
func (c *call) stopAgainstHEAD(ctx context.Context) answer {
	opts := c.verifyOptions()
	opts.ProtectTests = c.opts.ProtectTests
	rep, err := verify.Run(ctx, opts)
	if err != nil {
		return c.opts.Agent.tell(c.gateError(ctx, err))
	}
	const note = " (no turn-start snapshot: compared against HEAD)"
	rep.Evidence = strings.TrimSuffix(rep.Evidence, ".") + note + "."
	if len(rep.Violations) > 0 {
		t := c.st.Turn
		t.Attempts++
		if t.Attempts > c.opts.MaxAttempts {
			return c.opts.Agent.tell(capReached(c.opts.MaxAttempts) + rep.Evidence)
		}
		return c.opts.Agent.block(gate.ProtectSendBackText(rep.Violations))
	}
	return c.rule(rep, "")
}

func (c *call) verifyOptions() verify.Options {
	return verify.Options{
		Root:       c.p.Cwd,
		Checks:     c.opts.Checks,
		TeamChecks: c.opts.TeamChecks,
		Full:       c.opts.Full,
		FullReason: c.opts.FullReason,
		Timeout:    c.checkTimeout(),
		Runner:     c.opts.Runner,
		// Protection was checked against the snapshot already; with no
		// snapshot verify checks it against HEAD (stopAgainstHEAD).
		AllowTestEdits: c.opts.AllowTestEdits,
		HistoryDir:     c.opts.HistoryDir,
		Watcher:        c.opts.Watcher,
	}
}

// checkTimeout is timeout_secs, cut to what is left of the hook's budget
// so a slow check ends as a timeout (⚠ Not verified), not as the agent
// killing the hook.
func (c *call) checkTimeout() time.Duration {
	d := c.opts.Timeout
	if d <= 0 {
		d = verify.DefaultTimeout
	}
	return min(d, c.opts.Budget*9/10)
}

// gateError is the evidence of a gate that could not run.
func (c *call) gateError(ctx context.Context, err error) string {
	if ctx.Err() != nil {
		return verify.NotVerifiedEvidence(fmt.Sprintf("the hook's time limit (%s) ran out before the checks finished", c.opts.Budget))
	}
	return verify.NotVerifiedEvidence("the gate could not run: " + err.Error())
}

// runsAt marks the model's own runs made on the tree as it is now (digest)
// as current (version 1) for gate.PriorRuns.
func (c *call) runsAt(digest string) []gate.OwnRun {
	var out []gate.OwnRun
	for _, r := range c.st.Turn.Runs {
		run := r.OwnRun
		run.Version = 0
		if r.Digest == digest {
			run.Version = 1
		}
		out = append(out, run)
	}
	return out
}

// rule turns a gate report into the answer (the agent's gate's rules):
// verified → allowed with the evidence shown; a failure the model can fix
// → sent back, up to max_attempts; past the cap, or a failure that would
// only repeat (a timeout, a refused or missing tool) → allowed with
// ⚠ Not verified and the failure shown, never silently.
func (c *call) rule(rep *verify.Report, digest string) answer {
	t := c.st.Turn
	shown := userMessage(rep)
	if digest != "" {
		// Every ruling is remembered, a send-back too: a stop after it
		// with nothing changed gets this verdict (the model explained
		// instead of fixing), not another block.
		t.Last = &lastRuling{Digest: digest, Verified: rep.Verdict != verify.NotVerified, Message: shown}
	}
	if rep.Verdict != verify.NotVerified {
		return c.opts.Agent.tell(shown)
	}
	if len(rep.Checks) == 0 || len(rep.Violations) > 0 {
		return c.opts.Agent.tell(shown)
	}
	if rep.Checks[len(rep.Checks)-1].Outcome().Ends() {
		return c.opts.Agent.tell(shown)
	}
	if len(rep.NewFailures) == 0 && len(rep.AlreadyFailing) > 0 {
		if t.OnlyOldPush {
			return c.opts.Agent.tell(shown)
		}
		t.OnlyOldPush = true
		return c.opts.Agent.block(gate.SendBackText(rep, t.Attempts, c.opts.MaxAttempts))
	}
	t.Attempts++
	if t.Attempts > c.opts.MaxAttempts {
		return c.opts.Agent.tell(capReached(c.opts.MaxAttempts) + shown)
	}
	return c.opts.Agent.block(gate.SendBackText(rep, t.Attempts, c.opts.MaxAttempts))
}

// capReached starts the message of a stop allowed after max_attempts.
func capReached(n int) string {
	return fmt.Sprintf("chanto sent this answer back %d times (max_attempts); the agent stops unverified.\n", n)
}

// userMessage is what the user is shown: the end of the failing check's
// trimmed output, if any, then the evidence line last (as `chanto verify`
// prints). The agents print every line of it (Claude Code prefixes each
// with "Stop says:"), so the output is cut to its last shownLines lines;
// the model gets it whole in the block reason.
func userMessage(rep *verify.Report) string {
	var b strings.Builder
	for _, f := range rep.FailureDetails() {
		lines := strings.Split(strings.TrimRight(f.Output, "\n"), "\n")
		if n := len(lines); n > shownLines {
			fmt.Fprintf(&b, "%s failed (the last %d of %d lines):\n", shownCommand(f.Check), shownLines, n)
			lines = lines[n-shownLines:]
		} else {
			fmt.Fprintf(&b, "%s failed:\n", shownCommand(f.Check))
		}
		b.WriteString(strings.Join(lines, "\n") + "\n")
	}
	b.WriteString(rep.Evidence)
	return b.String()
}

// shownCommand is a check's command as the user is shown it above its
// output: a related run naming many test files is cut at a word (the
// evidence line below names the command as chanto verify does).
func shownCommand(cmd string) string {
	const max = 120
	if len(cmd) <= max {
		return cmd
	}
	i := strings.LastIndexByte(cmd[:max], ' ')
	if i <= 0 {
		i = max
	}
	return cmd[:i] + " …"
}

// shownLines bounds the output lines of one failing check the user is
// shown at a stop.
const shownLines = 12

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
