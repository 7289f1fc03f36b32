package gate

import (
	"context"
	"os"
	"time"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/verify"
	"github.com/chanto-dev/chanto/internal/verify/baseline"
	"github.com/chanto-dev/chanto/internal/verify/snapshot"
)

// copyBaseline is a full-scope baseline: the checks run in a throwaway copy
// of the turn-start tree, started alongside the first model call, so no edit
// of the turn can race it.
type copyBaseline struct {
	done     chan struct{}
	run      baseline.Run
	command  string
	duration time.Duration
}

func startCopyBaseline(ctx context.Context, snap *snapshot.Snapshot, opts verify.Options) *copyBaseline {
	cb := &copyBaseline{done: make(chan struct{})}
	go func() {
		defer close(cb.done)
		start := time.Now()
		dir, err := os.MkdirTemp("", "chanto-baseline-")
		if err != nil {
			return
		}
		defer os.RemoveAll(dir)
		if err := snap.Materialize(ctx, dir); err != nil {
			return
		}
		// Installed dependencies are not part of the snapshot; borrow them.
		if err := baseline.ShareInto(snap.Root(), dir, baseline.DefaultShare(snap.Root())); err != nil {
			return
		}
		opts.Root = dir
		opts.Changed = []string{}
		rep, err := verify.Run(ctx, opts)
		cb.duration = time.Since(start)
		if err != nil || len(rep.Checks) == 0 {
			return
		}
		last := rep.Checks[len(rep.Checks)-1]
		cb.command = last.Command
		if last.TimedOut || last.NotFound != "" || last.Refused {
			return
		}
		cb.run.Ran = true
		for _, c := range rep.Checks {
			for _, f := range c.Failures {
				cb.run.Failures = append(cb.run.Failures, f.ID)
			}
		}
	}()
	return cb
}

// wait returns the baseline once it has finished, and reports it.
func (cb *copyBaseline) wait(ctx context.Context, st *agent.TurnState) *baseline.Run {
	select {
	case <-cb.done:
	case <-ctx.Done():
		return nil
	}
	emit(st, event.Event{Type: event.VerifyBaseline, Baseline: &event.Baseline{
		Kind: "copy", Command: cb.command, AlreadyFailing: nonNil(cb.run.Failures), DurationMS: cb.duration.Milliseconds()}})
	r := cb.run
	return &r
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
