package verify

import (
	"context"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/runner"
	"github.com/chanto-dev/chanto/internal/verify/selecttest"
)

// quietLabel, as an execute label, shows no progress: the second stage of
// a go test run runs alongside the first, whose progress line names both.
const quietLabel = "\x00quiet"

// staged reports whether sel runs as two stages: a related go test run
// split into the changed packages and their importers, or a full one into
// the changed packages and the rest of the module (selecttest's Stages).
// With KeepGoing every check runs to the end anyway. A check
// that sets go's package parallelism (-p 1: packages whose tests must not
// run at the same time) keeps one command, as two would run side by side.
func (e *engine) staged(c detect.Check, sel selecttest.Selection) bool {
	if c.Runner != detect.Go || len(sel.Stages) != 2 || e.opts.KeepGoing {
		return false
	}
	return !runner.HasGoFlag(append(strings.Fields(e.getenv("GOFLAGS")), c.Args...), "p")
}

// runStaged runs the two stages of sel at once: the tests of the packages
// the change is in, and those of the packages that import them. When the
// first stage passes (or has none of the selected tests), the second's
// result is waited for and the two read as the one run sel describes.
// When it fails, the second is stopped: the failure is the news, the
// importers' tests run once it is mended (runChain runs them at once if
// every failure turns out old; failures the base's record already holds
// as old stop nothing, see knownOld). Together they cost what one go test of
// every package costs, as go would share the two cores between the
// packages anyway; a fault its own package's tests catch is answered in
// the time of those tests.
func (e *engine) runStaged(ctx context.Context, c detect.Check, sel selecttest.Selection) (CheckRun, error) {
	first, rest := sel.Stages[0], sel.Stages[1]
	restCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	// A go test killed mid-build leaves its work folder behind; the
	// second stage keeps it in a folder of its own, removed after.
	// (A sandbox that gives checks only a private /tmp has no such
	// folder, and throws its /tmp away anyway.)
	var env []string
	if d := e.r.TempDir(run.Check); d != "" && e.getenv("GOTMPDIR") == "" {
		if tmp, err := os.MkdirTemp(d, "chanto-stage-"); err == nil {
			defer os.RemoveAll(tmp)
			env = []string{"GOTMPDIR=" + tmp}
		}
	}
	type result struct {
		cr  CheckRun
		err error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		cr, err := e.execute(restCtx, c, rest, quietLabel, env...)
		done <- result{cr, err}
	}()
	label := e.shownDir(c.Dir) + shortCommand(shownCommand(c, sel.Args), sel.Targets)
	cr, err := e.execute(ctx, c, first, label)
	if err != nil || !cr.Passed && !(cr.NoTests && len(cr.Failures) == 0) && !e.knownOld(ctx, cr) {
		cancel()
		<-done
		cr.rest = &rest
		return cr, err
	}
	r := <-done
	if r.err != nil {
		return r.cr, r.err
	}
	return mergeStages(sel, cr, r.cr, time.Since(start)), nil
}

// mergeStages reads a first stage that passed (or collected none of the
// selected tests, or failed only as the base is known to) and the second
// stage as the one run of whole: its command, its targets, both stages'
// tests and failures, and the time the two took together.
func mergeStages(whole selecttest.Selection, first, second CheckRun, took time.Duration) CheckRun {
	m := second
	m.Command, m.Targets, m.args = shownCommand(first.check, whole.Args), whole.Targets, whole.Args
	m.Scope = whole.Scope
	if first.Tests >= 0 && second.Tests >= 0 {
		m.Tests = first.Tests + second.Tests
	}
	m.passed = slices.Concat(first.passed, second.passed)
	if len(first.secs) > 0 {
		m.secs = maps.Clone(first.secs)
		maps.Copy(m.secs, second.secs)
	}
	m.raw = first.raw + "\n" + second.raw
	if len(first.Failures) > 0 {
		// Failures the base is known to have too: both stages' failures
		// are the run's, for the baseline to classify as one.
		m.Failures = append(slices.Clone(first.Failures), second.Failures...)
		m.Passed, m.NoTests = false, false
		if m.ExitCode == 0 {
			m.ExitCode = first.ExitCode
		}
		m.Output = strings.TrimSpace(first.Output + "\n\n" + second.Output)
	}
	if second.NoTests && first.Passed {
		// The importers had none of the selected tests; the first
		// stage's pass is the run's.
		m.NoTests, m.Passed, m.ExitCode, m.Output = false, true, first.ExitCode, first.Output
	}
	m.Duration = took
	m.DurationMS = took.Milliseconds()
	return m
}

// knownOld reports whether every failure of a failed first stage is one
// the baseline record of this base already holds as failing there (a
// package whose tests do not build at HEAD fails that way on every
// change). Then nothing is new in it yet, and stopping the importers'
// tests would only make them run after it, one after the other.
func (e *engine) knownOld(ctx context.Context, cr CheckRun) bool {
	if cr.TimedOut || cr.Refused || cr.NotFound != "" || cr.CouldNotRun != "" || len(cr.Failures) == 0 || e.opts.NoBaseline {
		return false
	}
	key, onDisk := e.baselineKey(ctx, &cr)
	if key == "" {
		return false
	}
	known := loadBaseline(key, onDisk)
	for _, f := range cr.Failures {
		if !known[f.ID] {
			return false
		}
	}
	return true
}
