package verify

import (
	"context"
	"slices"

	"github.com/chanto-dev/chanto/internal/shell"
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/scope"
	"github.com/chanto-dev/chanto/internal/verify/selecttest"
)

// runChain runs the checks in order and stops at the first one with a new
// failure. A check whose failures all failed before the change too (old
// lint debt, a test broken at HEAD) is recorded and the next check runs,
// so the tests always get their say. A check that could not give an
// answer (timed out, refused, not installed) stops the chain as well.
func (e *engine) runChain(ctx context.Context, rep *Report, checks []detect.Check, sels []selecttest.Selection) error {
	dependents := slices.ContainsFunc(checks, func(c detect.Check) bool { return !c.FullReason.IsZero() })
	checks, sels = slices.Clone(checks), slices.Clone(sels)
	replaced := 0 // runs made again in their own place, under their index
	// again makes check i's run again in its place, with flags that run
	// it on past what interrupted it: the report forgets the first run.
	again := func(i int, flags []string) {
		rep.Checks = rep.Checks[:len(rep.Checks)-1]
		rep.ScopeReasons = rep.ScopeReasons[:len(rep.ScopeReasons)-1]
		checks = slices.Insert(checks, i+1, checks[i])
		sels = slices.Insert(sels, i+1, goOnSelection(sels[i], flags))
		replaced++
	}
	for i := 0; i < len(checks); i++ {
		c := checks[i]
		cr, err := e.runCheck(ctx, i-replaced, c, sels[i])
		if err != nil {
			return err
		}
		rep.Checks = append(rep.Checks, cr)
		e.recordUnchanged(ctx, &rep.Checks[len(rep.Checks)-1])
		rep.ScopeReasons = append(rep.ScopeReasons, cr.Command+": "+cr.Scope.Summary())
		// A project without tests of its own among projects that depend
		// on a change (a library its dependents test, an example program
		// built on it) goes on: the tests that ran elsewhere decide.
		if cr.NoTests && dependents {
			continue
		}
		if cr.Passed {
			continue
		}
		if e.opts.KeepGoing {
			if len(cr.goOn) > 0 && !hasAll(sels[i].Args, cr.goOn) {
				// A record of every failure (the gate's baseline
				// copy) needs the tests past what interrupted the run.
				again(i, cr.goOn)
			}
			continue
		}
		last := &rep.Checks[len(rep.Checks)-1]
		newF, oldF, err := e.classify(ctx, last)
		if err != nil {
			return err
		}
		e.nameNewVetRepeats(last, newF, oldF)
		last.AlreadyFailing = oldF
		rep.AlreadyFailing = append(rep.AlreadyFailing, oldF...)
		if len(newF) == 0 && len(oldF) > 0 && len(last.goOn) > 0 && !hasAll(sels[i].Args, last.goOn) {
			// The runner stopped at failures that were there before
			// the change (pytest at its collection errors, or -x at an
			// old failure): the run is made again past them, in its
			// place, so the tests it left out get their say.
			rep.AlreadyFailing = rep.AlreadyFailing[:len(rep.AlreadyFailing)-len(oldF)]
			again(i, last.goOn)
			continue
		}
		if len(newF) > 0 || len(oldF) == 0 {
			rep.NewFailures = newF
			if last.rest != nil && len(newF) > 0 {
				rep.NotRun = append(rep.NotRun, e.shownDir(c.Dir)+shownCommand(c, last.rest.Args))
			}
			for j := i + 1; j < len(checks); j++ {
				rep.ChecksNotRun = append(rep.ChecksNotRun, e.shownDir(checks[j].Dir)+shownCommand(checks[j], sels[j].Args))
			}
			return nil
		}
		if last.rest != nil {
			// The changed packages' failures were all old: their
			// importers' tests, stopped when they failed, run next.
			checks = slices.Insert(checks, i+1, c)
			sels = slices.Insert(sels, i+1, *last.rest)
			rep.Planned++
		}
	}
	return nil
}

// undecided reports whether check i collected no tests in a report where
// that decides nothing: the project runs among dependents of a change
// (it is one, or the changed project they depend on) and another check
// ran tests. When no check ran any, the first one without tests decides.
func (rep *Report) undecided(i int) bool {
	c := rep.Checks[i]
	if !c.NoTests || !slices.ContainsFunc(rep.Checks, func(c CheckRun) bool { return c.Dependent }) {
		return false
	}
	return slices.ContainsFunc(rep.Checks, func(c CheckRun) bool { return !c.NoTests })
}

// Last is the last check that decides the verdict: the last one run,
// passing over projects without tests that decide nothing (undecided);
// nil when no check ran.
func (rep *Report) Last() *CheckRun {
	for i := len(rep.Checks) - 1; i >= 0; i-- {
		if !rep.undecided(i) {
			return &rep.Checks[i]
		}
	}
	return nil
}

// Stopped is the check that ended the chain without passing, or nil when
// every check ran and none had a new failure.
func (rep *Report) Stopped() *CheckRun {
	last := rep.Last()
	if last == nil || last.Passed || (len(last.AlreadyFailing) > 0 && len(rep.NewFailures) == 0) {
		return nil
	}
	return last
}

// NotRunIsRest reports whether NotRun is the rest of a full run split in
// two (the packages the change is not in), not the changed packages'
// importers.
func (rep *Report) NotRunIsRest() bool {
	last := rep.Stopped()
	return last != nil && last.restIsSuite()
}

// restIsSuite reports whether rest is the rest of a full run, not the
// changed packages' importers.
func (cr *CheckRun) restIsSuite() bool {
	return cr.rest != nil && cr.rest.Reason.Code == scope.RestOfSuite
}

// goOnSelection is sel with the flags that run it on past what
// interrupted it.
func goOnSelection(sel selecttest.Selection, flags []string) selecttest.Selection {
	sel.Args = append(slices.Clone(sel.Args), flags...)
	sel.Command = shell.Join(sel.Args)
	return sel
}

// hasAll reports whether args hold every one of flags.
func hasAll(args, flags []string) bool {
	for _, f := range flags {
		if !slices.Contains(args, f) {
			return false
		}
	}
	return true
}
