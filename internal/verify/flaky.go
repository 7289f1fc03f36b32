package verify

import (
	"context"
	"slices"
	"strings"

	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/scope"
	"github.com/chanto-dev/chanto/internal/verify/selecttest"
)

// maxFlakyCheck is how many seemingly new failures are run again before
// they are called new. A flaky test fails one or two tests at a time; a
// change that breaks something fails more, and a re-run would only repeat.
const maxFlakyCheck = 3

// flakyNote is how the evidence names a failure that passed when run
// again.
const flakyNote = "flaky: it passed when run again, alone and among the others, and before this change"

// rerunNew runs the seemingly new failures of last once more with the
// change in place, to tell a flaky test from one the change broke: first
// alone (the baseline's narrowing, on the current tree), and those that
// pass alone again among the others (the check's own selection), since a
// test can fail only in the company of another. Those that pass both
// times are flaky; the rest, and all of them when a re-run cannot say
// (it could not be narrowed, did not finish, or named no tests), stay
// new. jsonIterator's Test_symmetric fuzzes its values and fails about
// one run in fifteen: without this, any change to its package read as
// breaking it.
func (e *engine) rerunNew(ctx context.Context, last *CheckRun, newF []Failure) (stillNew, flaky []Failure, err error) {
	if len(newF) == 0 || len(newF) > maxFlakyCheck || len(last.args) == 0 {
		return newF, nil, nil
	}
	if !slices.ContainsFunc(newF, func(f Failure) bool { return mayBeFlaky(last.check.Runner, f) }) {
		return newF, nil, nil
	}
	sel := selecttest.Selection{Scope: last.Scope, Args: last.args, Targets: last.Targets, Command: last.Command}
	alone := baselineSelection(baseTree{dir: last.check.Dir, added: map[string]bool{}}, last, newF, sel)
	if alone.Reason.Code != scope.FailingOnly {
		return newF, nil, nil
	}
	label := "again, with your change: " + e.shownDir(last.check.Dir) + shortCommand(last.Command, last.Targets)
	cr, err := e.execute(ctx, last.check, alone, label)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, err
		}
		return newF, nil, nil
	}
	suspects := passedIn(cr, newF)
	if len(suspects) == 0 {
		return newF, nil, nil
	}
	cr, err = e.execute(ctx, last.check, sel, label)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, err
		}
		return newF, nil, nil
	}
	flakyIDs := ids(passedIn(cr, suspects))
	for _, f := range newF {
		if slices.Contains(flakyIDs, f.ID) {
			flaky = append(flaky, f)
		} else {
			stillNew = append(stillNew, f)
		}
	}
	if stillNew == nil {
		stillNew = []Failure{}
	}
	return stillNew, flaky, nil
}

// mayBeFlaky reports whether failure f of a check by runner could pass
// when run again on the same tree. go vet's findings cannot: the same
// files give the same analysis. Nor can a test package that did not
// compile (go test's and cargo's "[build failed]"). A re-run of those
// would only repeat them, at the cost of one more vet or build.
func mayBeFlaky(r detect.Runner, f Failure) bool {
	if r == detect.GoVet {
		return false
	}
	return !strings.HasSuffix(f.ID, " [build failed]")
}

// passedIn returns the failures of want that cr ran and passed: named
// among its passing tests, or, for a runner that names none, in a run
// that passed with tests in it. A run that did not finish says nothing.
func passedIn(cr CheckRun, want []Failure) []Failure {
	if cr.TimedOut || cr.NotFound != "" || cr.CouldNotRun != "" || cr.NoTests || (cr.ExitCode != 0 && len(cr.Failures) == 0) {
		return nil
	}
	failed := ids(cr.Failures)
	passed := ids(cr.passed)
	var out []Failure
	for _, f := range want {
		switch {
		case slices.Contains(failed, f.ID):
		case slices.Contains(passed, f.ID):
			out = append(out, f)
		case len(passed) == 0 && cr.Passed && cr.Tests != 0:
			out = append(out, f)
		}
	}
	return out
}
