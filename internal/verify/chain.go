package verify

import (
	"context"
	"slices"

	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/selecttest"
)

// runChain runs the checks in order and stops at the first one with a new
// failure. A check whose failures all failed before the change too (old
// lint debt, a test broken at HEAD) is recorded and the next check runs,
// so the tests always get their say. A check that could not give an
// answer (timed out, refused, not installed) stops the chain as well.
func (e *engine) runChain(ctx context.Context, rep *Report, checks []detect.Check, sels []selecttest.Selection) error {
	for i, c := range checks {
		cr, err := e.runCheck(ctx, i, c, sels[i])
		if err != nil {
			return err
		}
		rep.Checks = append(rep.Checks, cr)
		rep.ScopeReasons = append(rep.ScopeReasons, cr.Command+": "+cr.Scope+" ("+cr.Reason+")")
		// A changed project without tests of its own (a library its
		// dependents test) goes on to those dependents: their tests are
		// the ones related to its change.
		if cr.NoTests && slices.ContainsFunc(checks[i+1:], func(c detect.Check) bool { return c.FullReason != "" }) {
			continue
		}
		if cr.Passed {
			continue
		}
		if e.opts.KeepGoing {
			continue
		}
		last := &rep.Checks[len(rep.Checks)-1]
		newF, oldF, err := e.classify(ctx, last)
		if err != nil {
			return err
		}
		last.AlreadyFailing = oldF
		rep.AlreadyFailing = append(rep.AlreadyFailing, oldF...)
		if len(newF) > 0 || len(oldF) == 0 {
			rep.NewFailures = newF
			return nil
		}
	}
	return nil
}

// Stopped is the check that ended the chain without passing, or nil when
// every check ran and none had a new failure.
func (rep *Report) Stopped() *CheckRun {
	if len(rep.Checks) == 0 {
		return nil
	}
	last := &rep.Checks[len(rep.Checks)-1]
	if last.Passed || (len(last.AlreadyFailing) > 0 && len(rep.NewFailures) == 0) {
		return nil
	}
	return last
}
