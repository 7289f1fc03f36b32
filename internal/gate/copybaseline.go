package gate

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify"
	"github.com/chanto-dev/chanto/internal/verify/baseline"
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/snapshot"
)

// copyBaseline is a full-scope baseline: the checks run in a throwaway copy
// of the turn-start tree, started alongside the first model call, so no edit
// of the turn can race it. The copy is made where the checks can see it: a
// sandboxed check sees a private /tmp, so the copy goes in the sandbox's
// per-project temp folder for checks (which the model's commands cannot
// reach either).
type copyBaseline struct {
	done     chan struct{}
	run      baseline.Run
	command  string
	duration time.Duration
	// putback is set when no copy could be made or run in: the gate then
	// falls back to the putback baseline after a failure, as a
	// related-scope turn does.
	putback bool
}

func startCopyBaseline(ctx context.Context, snap *snapshot.Snapshot, opts verify.Options) *copyBaseline {
	cb := &copyBaseline{done: make(chan struct{})}
	go func() {
		defer close(cb.done)
		start := time.Now()
		defer func() { cb.duration = time.Since(start) }()
		cb.record(cb.runIn(ctx, snap, opts))
	}()
	return cb
}

// runIn makes the copy and runs the checks there; a nil report with
// cb.run.Note set means no copy could be run in.
func (cb *copyBaseline) runIn(ctx context.Context, snap *snapshot.Snapshot, opts verify.Options) *verify.Report {
	parent := opts.Runner.TempDir(run.Check)
	if parent == "" {
		cb.run.Note, cb.putback = "the sandbox has no temp folder the checks can see, so no copy was made", true
		return nil
	}
	// A copy a killed chanto left behind goes after an hour.
	verify.SweepLeftovers(parent, "chanto-baseline-")
	dir, err := os.MkdirTemp(parent, fmt.Sprintf("chanto-baseline-%d-", os.Getpid()))
	if err != nil {
		cb.run.Note, cb.putback = "the copy could not be made: "+err.Error(), true
		return nil
	}
	defer os.RemoveAll(dir)
	if err := snap.Materialize(ctx, dir); err != nil {
		cb.run.Note, cb.putback = "the copy could not be made: "+err.Error(), true
		return nil
	}
	// Installed dependencies are not part of the snapshot; borrow them.
	if err := baseline.ShareInto(snap.Root(), dir, baseline.DefaultShare(snap.Root())); err != nil {
		cb.run.Note, cb.putback = "the copy could not be made: "+err.Error(), true
		return nil
	}
	opts.Root = dir
	opts.Changed = []string{}
	rep, err := verify.Run(ctx, opts)
	if err != nil {
		cb.run.Note, cb.putback = "the baseline could not run: "+err.Error(), true
		return nil
	}
	return rep
}

// record reads the baseline's failures from its report. A run that could
// not tell what failed says why in Note, and is not taken for a clean one.
func (cb *copyBaseline) record(rep *verify.Report) {
	if rep == nil {
		return
	}
	if len(rep.Checks) == 0 {
		cb.run.Note = "the copy had no checks to run"
		return
	}
	last := rep.Checks[len(rep.Checks)-1]
	cb.command = last.Command
	for _, c := range rep.Checks {
		if note, putback := unknownBaseline(c); note != "" {
			cb.run.Note, cb.putback = note, putback
			break
		}
	}
	if cb.run.Note != "" {
		return
	}
	cb.run.Ran = true
	for _, c := range rep.Checks {
		for _, f := range c.Failures {
			cb.run.Failures = append(cb.run.Failures, f.ID)
		}
	}
}

// unknownBaseline says why a baseline check's run tells nothing about
// what failed before, and whether a putback baseline could do better.
func unknownBaseline(c verify.CheckRun) (note string, putback bool) {
	switch {
	case c.TimedOut:
		return c.Command + " timed out in the baseline copy", false
	case c.NotFound != "":
		return c.NotFound + " is not installed", false
	case c.Refused:
		return c.Command + " was refused", false
	case c.CouldNotRun != "":
		return c.Command + " could not run in the baseline copy: " + c.CouldNotRun, true
	case !c.Passed && !c.NoTests && len(c.Failures) == 0 && c.Runner != string(detect.Custom):
		// It broke before any test could fail (a build or setup error):
		// nothing is known about which tests failed before.
		return c.Command + " failed in the baseline copy without naming a test (exit " + strconv.Itoa(c.ExitCode) + ")", false
	}
	for _, f := range c.Failures {
		if pkg, ok := strings.CutSuffix(f.ID, " [build failed]"); ok {
			// Its tests never ran: whether they failed before is unknown.
			return pkg + " did not build in the baseline copy", false
		}
	}
	return "", false
}

// wait returns the baseline once it has finished, and reports it; nil when
// the gate must take a putback baseline instead.
func (cb *copyBaseline) wait(ctx context.Context, st *agent.TurnState) *baseline.Run {
	select {
	case <-cb.done:
	case <-ctx.Done():
		return nil
	}
	note := cb.run.Note
	if cb.putback {
		note += "; a failure is compared by putting the changed files back instead"
	}
	emit(st, event.Event{Type: event.VerifyBaseline, Baseline: &event.Baseline{
		Kind: "copy", Command: cb.command, AlreadyFailing: nonNil(cb.run.Failures), DurationMS: cb.duration.Milliseconds(), Note: note}})
	if cb.putback {
		return nil
	}
	r := cb.run
	return &r
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
